//! Shared-memory hazards between barriers, at the granularity of a buffer's stages: a read of
//! shared memory after a write to it with no `__syncthreads()` between (other threads' writes
//! are not yet visible), a write after a read with no barrier between (other threads may still
//! be reading), and a read of a buffer whose only writes are `cp.async` copies not yet waited
//! for.
//!
//! A buffer whose layout's last mode is a static stage mode (`(BLK_M,BLK_K,PIPE)` with stride
//! the size of a stage, a swizzle that stays inside a stage) is tracked per stage: an access
//! whose every element, for every thread, lies in one stage has that stage as its slice, a
//! constant or `(kt + c) % P` for a loop variable `kt`; two slices are disjoint when they are
//! different constants or the same rotation with offsets that differ modulo `P`. Anything else
//! is the whole buffer. So a multi-stage pipeline that writes stage `(kt + 2) % 3` while other
//! threads read stage `kt % 3` is accepted, and a write of the stage being read is not.
//!
//! Loops with a small static extent are walked iteration by iteration (conditions on their
//! variable decided); other loops are walked twice: once as iteration 0 (a constant stage
//! accessed before the loop is, in its terms, `(kt + c) % P` at `kt = 0`) and once as a later
//! iteration, the first walk's rotations shifted by one (`(kt + c) % P` of iteration `kt - 1` is
//! `(kt + c - 1) % P` of iteration `kt`). Both branches of an undecided condition are walked and
//! their states merged.
//!
//! TMA loads and the mbarrier phases that order them against their readers are not modelled
//! (the pipeline's structure is the recipe's, verified on the GPU); a named barrier
//! (`bar.sync id, n`) clears the state as `__syncthreads()` does, for the branch that reaches it.
//!
//! The check is conservative where threads touch only their own elements (it does not know
//! which thread wrote what) and it tracks whether a `cp.async` has landed per buffer; the CPU
//! interpreter's element-level race detection is the precise check.

use std::collections::{BTreeMap, HashMap};

use cute_layout::symbolic::{BinOp, SymExpr};
use cute_layout::{Engine, Int, MemSpace, Tensor};

use super::{describe, error};
use crate::error::Result;
use crate::ir::index::{addr, size, Addr};
use crate::ir::{Barrier, Cond, Kernel, Stmt};

/// Static loops up to this extent are walked iteration by iteration.
const WALK_EACH: i64 = 64;

/// Which stage of a buffer an access touches.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Slice {
    /// Any part of the buffer.
    Whole,
    /// Stage `c`.
    Const(i64),
    /// Stage `(var + c) % p`.
    Rot { var: String, c: i64, p: i64 },
}

impl Slice {
    fn overlaps(&self, o: &Slice) -> bool {
        match (self, o) {
            (Slice::Const(a), Slice::Const(b)) => a == b,
            (
                Slice::Rot { var, c, p },
                Slice::Rot {
                    var: v2,
                    c: c2,
                    p: p2,
                },
            ) if var == v2 && p == p2 => (c - c2).rem_euclid(*p) == 0,
            _ => true,
        }
    }

    /// On entering a loop over `var` (iteration 0), stage `c` of `p` stages is `(var + c) % p`.
    fn enter(self, var: &str, stages: Option<i64>) -> Slice {
        match (self, stages) {
            (Slice::Const(c), Some(p)) if (0..p).contains(&c) => Slice::Rot {
                var: var.to_string(),
                c,
                p,
            },
            (s, _) => s,
        }
    }

    /// From iteration `var - 1` to iteration `var`.
    fn shift(self, v: &str) -> Slice {
        match self {
            Slice::Rot { var, c, p } if var == v => Slice::Rot {
                var,
                c: (c - 1).rem_euclid(p),
                p,
            },
            s => s,
        }
    }

    /// After the loop over `v`: a stage relative to it is no stage in particular.
    fn leave(self, v: &str) -> Slice {
        match self {
            Slice::Rot { ref var, .. } if var == v => Slice::Whole,
            s => s,
        }
    }
}

/// An access: the buffer, its slice and the statement.
type Access = (String, Slice, String);

#[derive(Debug, Clone, Default)]
struct State {
    /// Writes since the last barrier.
    written: Vec<Access>,
    /// Reads since the last barrier.
    read: Vec<Access>,
    /// `cp.async` writes not yet waited for, with their group (`None`: not committed).
    pending: Vec<(Option<usize>, Access)>,
    /// Buffers whose `cp.async` writes landed (after a wait) at some point.
    landed: BTreeMap<String, String>,
    groups: usize,
}

impl State {
    fn each_slice(&mut self, f: &dyn Fn(Slice) -> Slice) {
        let map = |a: &mut Access| a.1 = f(std::mem::replace(&mut a.1, Slice::Whole));
        self.written.iter_mut().for_each(map);
        self.read.iter_mut().for_each(map);
        self.pending.iter_mut().for_each(|(_, a)| map(a));
    }
}

/// The walk's context: the values of the loop variables walked iteration by iteration.
struct Walk<'a> {
    k: &'a Kernel,
    env: HashMap<String, i64>,
    /// Each shared buffer's bytes `[start, end)` in the kernel's shared memory.
    spans: Vec<(i64, i64)>,
}

pub fn shared_memory(k: &Kernel) -> Result<()> {
    let (offs, _) = crate::cuda::smem_layout(k);
    let spans = k
        .smem
        .iter()
        .zip(offs)
        .map(|(b, o)| {
            (
                o,
                o + b.elements().unwrap_or(0) * i64::from(b.elem.bits()) / 8,
            )
        })
        .collect();
    let mut w = Walk {
        k,
        env: HashMap::new(),
        spans,
    };
    w.body(&k.body, "body", &mut State::default())
}

fn smem_name(t: &Tensor) -> Option<&str> {
    match t.engine() {
        Engine::Ptr(p) if p.space == MemSpace::Smem => Some(&p.name),
        _ => None,
    }
}

impl Walk<'_> {
    fn body(&mut self, stmts: &[Stmt], path: &str, st: &mut State) -> Result<()> {
        for (i, s) in stmts.iter().enumerate() {
            let here = format!("{path}[{i}] {}", describe(s));
            match s {
                Stmt::For {
                    var,
                    extent,
                    body: inner,
                    ..
                } => {
                    let p = format!("{path}[{i}].for {var}");
                    self.for_(var, extent, inner, &p, st)?;
                }
                Stmt::If { cond, then, els } => match self.decide(cond) {
                    Some(true) => self.body(then, &format!("{path}[{i}].then"), st)?,
                    Some(false) => self.body(els, &format!("{path}[{i}].else"), st)?,
                    None => {
                        let mut other = st.clone();
                        self.body(then, &format!("{path}[{i}].then"), st)?;
                        self.body(els, &format!("{path}[{i}].else"), &mut other)?;
                        merge(st, other);
                    }
                },
                Stmt::Copy { atom, src, dst, .. } => {
                    for (b, sl) in self.touched(src) {
                        self.read(st, &b, sl, &here)?;
                    }
                    for (b, sl) in self.touched(dst) {
                        if atom.op().is_async() {
                            self.war(st, &b, &sl, &here)?;
                            st.pending.push((None, (b, sl, here.clone())));
                        } else {
                            self.write(st, &b, sl, &here)?;
                        }
                    }
                }
                Stmt::Map { dst, srcs, .. } => {
                    // a source that is the destination is each thread's own element, in place
                    for t in srcs.iter().filter(|t| *t != dst) {
                        for (b, sl) in self.touched(t) {
                            self.read(st, &b, sl, &here)?;
                        }
                    }
                    for (b, sl) in self.touched(dst) {
                        self.write(st, &b, sl, &here)?;
                    }
                }
                Stmt::Barrier(b) => barrier(st, *b),
                // a semaphore's wait and release each hold the CTA's barrier
                Stmt::Semaphore(_) => barrier(st, Barrier::Cta),
                // TMA writes and the wgmma reads they feed are ordered by mbarriers (full and
                // empty phases), which this pass does not model
                // and TMA stores read their tiles after bulk waits, which it does not model either
                Stmt::Tma { .. } | Stmt::TmaStore { .. } | Stmt::Mbarrier(_) => {}
                Stmt::Gemm { .. }
                | Stmt::Reduce { .. }
                | Stmt::Shuffle { .. }
                | Stmt::Let { .. }
                | Stmt::Index { .. }
                | Stmt::Comment(_)
                | Stmt::Bind { .. } => {}
            }
        }
        Ok(())
    }

    fn for_(
        &mut self,
        var: &str,
        extent: &Int,
        inner: &[Stmt],
        path: &str,
        st: &mut State,
    ) -> Result<()> {
        match extent.as_static() {
            Some(n) if n <= WALK_EACH => {
                for v in 0..n {
                    self.env.insert(var.to_string(), v);
                    self.body(inner, &format!("{path}={v}"), st)?;
                }
                self.env.remove(var);
            }
            _ => {
                let stages: HashMap<String, Option<i64>> = self
                    .k
                    .smem
                    .iter()
                    .map(|b| (b.name.clone(), stage_mode(self.k, &b.name).map(|s| s.1)))
                    .collect();
                let enter = |a: &mut Access| {
                    let p = stages.get(&a.0).copied().flatten();
                    a.1 = std::mem::replace(&mut a.1, Slice::Whole).enter(var, p);
                };
                st.written.iter_mut().for_each(enter);
                st.read.iter_mut().for_each(enter);
                st.pending.iter_mut().for_each(|(_, a)| enter(a));
                self.body(inner, path, st)?;
                st.each_slice(&|s| s.shift(var));
                self.body(inner, path, st)?;
                st.each_slice(&|s| s.leave(var));
            }
        }
        Ok(())
    }

    /// The condition's value when it reads only loop variables walked one by one.
    fn decide(&self, c: &Cond) -> Option<bool> {
        let env = |n: &str| self.env.get(n).copied();
        Some(match c {
            Cond::Lt(a, b) => a.evaluate(&env)? < b.evaluate(&env)?,
            Cond::Le(a, b) => a.evaluate(&env)? <= b.evaluate(&env)?,
            Cond::And(a, b) => match (self.decide(a), self.decide(b)) {
                (Some(false), _) | (_, Some(false)) => false,
                (Some(true), Some(true)) => true,
                _ => return None,
            },
            Cond::NonZero(_) | Cond::Elect => return None,
        })
    }

    /// The stage every element of `t` lies in, for every thread.
    fn slice(&self, t: &Tensor, buf: &str) -> Slice {
        let Some((stride, _)) = stage_mode(self.k, buf) else {
            return Slice::Whole;
        };
        let n = size(t).unwrap_or(0);
        let mut out: Option<Slice> = None;
        for j in 0..n {
            let s = match addr(t, j) {
                Ok(a) => self.addr_slice(&a, stride),
                Err(_) => Slice::Whole,
            };
            match &out {
                None => out = Some(s),
                Some(o) if *o == s => {}
                Some(_) => return Slice::Whole,
            }
            if out == Some(Slice::Whole) {
                return Slice::Whole;
            }
        }
        out.unwrap_or(Slice::Whole)
    }

    fn addr_slice(&self, a: &Addr, stride: i64) -> Slice {
        let (base, swz) = a.parts();
        match swz {
            None => self.split(base, stride).unwrap_or(Slice::Whole),
            Some((sw, arg)) => {
                let (b, m, s) = sw.params();
                let top = i64::from(b) + i64::from(m) + i64::from(s.unsigned_abs());
                let pow2 = stride > 0 && stride & (stride - 1) == 0;
                if !pow2 || (1i64 << top.min(62)) > stride {
                    return Slice::Whole;
                }
                let env = |n: &str| self.env.get(n).copied();
                match (base.evaluate(&env), self.split(arg, stride)) {
                    (Some(0), Some(sl)) => sl,
                    _ => Slice::Whole,
                }
            }
        }
    }

    /// `off = stride * stage + inner` with `0 <= inner < stride` for every thread: the stage.
    fn split(&self, off: &Int, stride: i64) -> Option<Slice> {
        let env = |n: &str| self.env.get(n).copied();
        let (terms, c0): (Vec<(i64, Int)>, i64) = match off {
            Int::Static(v) => (Vec::new(), *v),
            Int::Dynamic(d) => match d.expr() {
                None => (Vec::new(), d.value()?),
                Some(SymExpr::Sum(ts, c)) => (
                    ts.iter()
                        .map(|(k, t)| (*k, Int::Dynamic(t.clone())))
                        .collect(),
                    *c,
                ),
                Some(_) => (vec![(1, off.clone())], 0),
            },
            Int::Basis(..) => return None,
        };
        let (mut konst, mut rot, mut inner) = (c0, None, (0i64, 0i64));
        for (k, t) in &terms {
            if let Some(v) = t.evaluate(&env) {
                konst = konst.checked_add(k.checked_mul(v)?)?;
            } else if k % stride == 0 && rot.is_none() {
                rot = Some(self.rotation(t, k / stride)?);
            } else {
                let (lo, hi) = self.range(t)?;
                let (a, b) = (k.checked_mul(lo)?, k.checked_mul(hi)?);
                inner = (inner.0 + a.min(b), inner.1 + a.max(b));
            }
        }
        let (stage, rem) = (konst.div_euclid(stride), konst.rem_euclid(stride));
        let (lo, hi) = (inner.0 + rem, inner.1 + rem);
        if lo < 0 || hi >= stride {
            return None;
        }
        match rot {
            None => Some(Slice::Const(stage)),
            Some((var, c, p)) => Some(Slice::Rot {
                var,
                c: (c + stage).rem_euclid(p),
                p,
            }),
        }
    }

    /// `q * ((var + c) % p)` with `q == 1`: `(var, c, p)`.
    fn rotation(&self, t: &Int, q: i64) -> Option<(String, i64, i64)> {
        let env = |n: &str| self.env.get(n).copied();
        let Int::Dynamic(d) = t else { return None };
        let Some(SymExpr::Bin(BinOp::Mod, a, p)) = d.expr() else {
            return None;
        };
        let p = p.value().filter(|&p| p > 0)?;
        if q != 1 {
            return None;
        }
        let (terms, c0) = match a.expr()? {
            SymExpr::Sum(ts, c) => (ts.clone(), *c),
            SymExpr::Index(_) => (vec![(1, a.clone())], 0),
            _ => return None,
        };
        let (mut var, mut c) = (None, c0);
        for (k, t) in &terms {
            match (Int::Dynamic(t.clone()).evaluate(&env), t.expr()) {
                (Some(v), _) => c = c.checked_add(k.checked_mul(v)?)?,
                (None, Some(SymExpr::Index(n))) if *k == 1 && var.is_none() => {
                    var = Some(n.clone())
                }
                _ => return None,
            }
        }
        Some((var?, c.rem_euclid(p), p))
    }

    /// The interval of an offset term: `tid` in `[0, threads)`, loop variables walked one by one
    /// at their value; anything else unbounded (`None`).
    fn range(&self, t: &Int) -> Option<(i64, i64)> {
        match t {
            Int::Static(v) => Some((*v, *v)),
            Int::Dynamic(d) => self.dyn_range(d),
            Int::Basis(..) => None,
        }
    }

    fn dyn_range(&self, d: &cute_layout::symbolic::Dyn) -> Option<(i64, i64)> {
        let Some(e) = d.expr() else {
            let v = d.value()?;
            return Some((v, v));
        };
        let r = |x: &cute_layout::symbolic::Dyn| self.dyn_range(x);
        match e {
            SymExpr::Index(n) if n == "tid" => Some((0, self.k.threads() - 1)),
            SymExpr::Index(n) => self.env.get(n).map(|&v| (v, v)),
            SymExpr::Var(_) => None,
            SymExpr::Sum(ts, c) => ts.iter().try_fold((*c, *c), |(lo, hi), (k, t)| {
                let (a, b) = r(t)?;
                let (a, b) = (k.checked_mul(a)?, k.checked_mul(b)?);
                Some((lo.checked_add(a.min(b))?, hi.checked_add(a.max(b))?))
            }),
            SymExpr::Prod(fs) => fs.iter().try_fold((1i64, 1i64), |(lo, hi), f| {
                let (a, b) = r(f)?;
                let ps = [
                    lo.checked_mul(a)?,
                    lo.checked_mul(b)?,
                    hi.checked_mul(a)?,
                    hi.checked_mul(b)?,
                ];
                Some((*ps.iter().min()?, *ps.iter().max()?))
            }),
            SymExpr::Bin(op, a, b) => {
                let ((alo, ahi), (blo, bhi)) = (r(a)?, r(b)?);
                match op {
                    BinOp::Div if blo == bhi && blo > 0 && alo >= 0 => Some((alo / blo, ahi / blo)),
                    BinOp::Mod if blo == bhi && blo > 0 && alo >= 0 => {
                        if ahi < blo {
                            Some((alo, ahi))
                        } else {
                            Some((0, blo - 1))
                        }
                    }
                    BinOp::Min => Some((alo.min(blo), ahi.min(bhi))),
                    BinOp::Max => Some((alo.max(blo), ahi.max(bhi))),
                    _ => None,
                }
            }
            SymExpr::Abs(_) | SymExpr::Signum(_) => None,
        }
    }

    /// The buffers an access to shared tensor `t` touches: its own at its slice and, for a
    /// buffer over the memory of others (`SmemBuf::reuses`), each of those it overlaps, whole.
    /// (An access to one of those is checked against the reusing buffer's through the entries
    /// this leaves under their names.)
    fn touched(&self, t: &Tensor) -> Vec<(String, Slice)> {
        let Some(b) = smem_name(t) else {
            return Vec::new();
        };
        let mut out = vec![(b.to_string(), self.slice(t, b))];
        let Some(me) = self.k.smem.iter().position(|x| x.name == b) else {
            return out;
        };
        if !self.k.smem[me].reuses {
            return out;
        }
        let (lo, hi) = self.spans[me];
        for (i, other) in self.k.smem.iter().enumerate() {
            let (olo, ohi) = self.spans[i];
            if i != me && olo < hi && lo < ohi {
                out.push((other.name.clone(), Slice::Whole));
            }
        }
        out
    }

    fn read(&self, st: &mut State, b: &str, sl: Slice, here: &str) -> Result<()> {
        if let Some((_, _, w)) = st.written.iter().find(|a| a.0 == b && a.1.overlaps(&sl)) {
            return Err(error(
                self.k,
                here,
                format!("reads {b} after the write at {w} with no __syncthreads() between"),
            ));
        }
        let pending = st
            .pending
            .iter()
            .find(|(_, a)| a.0 == b && a.1.overlaps(&sl));
        if let (Some((_, (_, _, w))), None) = (pending, st.landed.get(b)) {
            return Err(error(
                self.k,
                here,
                format!("reads {b} before the cp.async at {w} is waited for (cp.async.wait_group, then __syncthreads())"),
            ));
        }
        push(&mut st.read, (b.to_string(), sl, here.to_string()));
        Ok(())
    }

    fn war(&self, st: &State, b: &str, sl: &Slice, here: &str) -> Result<()> {
        match st.read.iter().find(|a| a.0 == b && a.1.overlaps(sl)) {
            Some((_, _, r)) => Err(error(
                self.k,
                here,
                format!("writes {b} while other threads may still read it at {r} (no __syncthreads() between)"),
            )),
            None => Ok(()),
        }
    }

    fn write(&self, st: &mut State, b: &str, sl: Slice, here: &str) -> Result<()> {
        self.war(st, b, &sl, here)?;
        push(&mut st.written, (b.to_string(), sl, here.to_string()));
        Ok(())
    }
}

/// The stride of a buffer's stage mode and its number of stages: its layout's last mode, of a
/// static size above 1 and a static stride that the rest of the layout stays below.
fn stage_mode(k: &Kernel, buf: &str) -> Option<(i64, i64)> {
    let l = k.smem_buf(buf)?.layout.shape_layout();
    if l.rank() < 2 {
        return None;
    }
    // coalesced: `tile_to_shape` writes the stage mode as `(_1,_4):(_0,_4096)`
    let last = cute_layout::coalesce(&l.mode(l.rank() - 1).ok()?).ok()?;
    let (p, stride) = (
        last.size().ok()?.as_static()?,
        last.stride().as_int()?.as_static()?,
    );
    let rest = l.take(0, l.rank() - 1).ok()?.cosize().ok()?.as_static()?;
    (p > 1 && stride > 0 && rest <= stride).then_some((stride, p))
}

/// Records an access once per (buffer, slice): the first statement is the one reported.
fn push(v: &mut Vec<Access>, a: Access) {
    if !v.iter().any(|x| x.0 == a.0 && x.1 == a.1) {
        v.push(a);
    }
}

fn barrier(st: &mut State, b: Barrier) {
    match b {
        // a named barrier orders the threads that reach it: the branch this pass walks
        Barrier::Cta | Barrier::Named { .. } | Barrier::Cluster => {
            st.written.clear();
            st.read.clear();
        }
        Barrier::CpAsyncCommit => {
            let g = st.groups;
            st.groups += 1;
            for p in st.pending.iter_mut().filter(|p| p.0.is_none()) {
                p.0 = Some(g);
            }
        }
        Barrier::CpAsyncWait(n) => {
            let keep_from = st.groups.saturating_sub(usize::try_from(n).unwrap_or(0));
            let (done, still): (Vec<_>, Vec<_>) = std::mem::take(&mut st.pending)
                .into_iter()
                .partition(|(g, _)| g.is_some_and(|g| g < keep_from));
            st.pending = still;
            for (_, a) in done {
                st.landed.insert(a.0.clone(), a.2.clone());
                push(&mut st.written, a);
            }
        }
        // a wgmma's shared-memory reads are checked where it is issued (the interpreter runs
        // it there); its fences and groups order nothing this pass tracks
        Barrier::ProxyAsync
        | Barrier::WgmmaFence
        | Barrier::WgmmaCommit
        | Barrier::WgmmaWait(_)
        | Barrier::SetMaxNReg { .. }
        | Barrier::MbarrierInit
        | Barrier::BulkCommit
        | Barrier::BulkWaitRead(_) => {}
    }
}

fn merge(st: &mut State, other: State) {
    for a in other.written {
        push(&mut st.written, a);
    }
    for a in other.read {
        push(&mut st.read, a);
    }
    st.landed.extend(other.landed);
    for p in other.pending {
        if !st.pending.contains(&p) {
            st.pending.push(p);
        }
    }
    st.groups = st.groups.max(other.groups);
}
