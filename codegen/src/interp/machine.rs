//! The interpreter's machine: the launch's blocks one after another, each block's threads in
//! lockstep, with shadow state for the checks the module documents.

mod cluster;
mod pipeline;
mod semaphore;
mod warp;

use std::collections::HashMap;
use std::rc::Rc;

use cute_layout::atom::CopyOp;
use cute_layout::{Engine, Int, MemSpace, Tensor};

use super::{Arg, Report, MAX_WORK};
use crate::cuda::fma_order;
use crate::error::{CodegenError, Result};
use crate::ir::index::{addr, coord, size, Addr};
use crate::ir::{Barrier, Cond, EExpr, Kernel, ParamType, Pred, Stmt};
use crate::kernel::Requirement;
use crate::passes::{atom_values, describe};

/// Several threads read an element since the last barrier.
const SEVERAL: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, Default)]
struct Shadow {
    w_epoch: u64,
    writer: u32,
    r_epoch: u64,
    reader: u32,
    pending: u32,
    /// TMA stores that read the element and have not been waited for (`bulk`).
    bulk: u32,
}

/// A shared buffer in the CTA's shared memory: its first byte and its element type. Elements
/// live at their byte address in one arena, so a buffer that reuses the memory of others
/// (`KernelBuilder::smem_reuse`) sees what they hold and races with their accesses.
struct Smem {
    base: usize,
    bytes: usize,
    len: usize,
    elem: cute_layout::ElemType,
}

/// The CTA's shared memory, one slot per byte (an element at the slot of its first byte).
#[derive(Default)]
struct Arena {
    data: Vec<f64>,
    shadow: Vec<Shadow>,
}

struct Pending {
    group: Option<usize>,
    buf: String,
    idx: usize,
    value: f64,
}

struct Machine<'a> {
    k: &'a Kernel,
    ints: HashMap<String, i64>,
    scalars: HashMap<String, f32>,
    args: &'a mut [Arg],
    gbuf: HashMap<String, usize>,
    gwriter: HashMap<String, Vec<i64>>,
    smem: HashMap<String, Smem>,
    arena: Arena,
    regs: HashMap<String, Vec<Vec<f64>>>,
    vars: Vec<HashMap<String, f32>>,
    pending: Vec<Vec<Pending>>,
    groups: Vec<usize>,
    /// Each thread's TMA stores not yet waited for: their bulk group (`None` until committed)
    /// and the arena slots they read.
    bulk: Vec<Vec<(Option<usize>, Vec<usize>)>>,
    bulk_groups: Vec<usize>,
    /// The threads executing the current statement: all of them, except inside a condition
    /// that depends on the thread index.
    active: Vec<bool>,
    epoch: u64,
    work: u64,
    threads: usize,
    block: [i64; 3],
    block_linear: i64,
    addrs: HashMap<usize, Vec<Addr>>,
    coords: HashMap<usize, Vec<Vec<Int>>>,
    /// Every thread's element indices of a tensor, by tensor and the values of the names its
    /// offsets read (`tid` aside): a loop's k blocks resolve their fragments once per run.
    resolved: HashMap<(usize, Vec<i64>), Rc<Resolved>>,
    /// The names (`tid` aside) each tensor's offsets read.
    names: HashMap<usize, Vec<String>>,
    /// The last resolution of each tensor, with the generation of the integers it was made at.
    current: HashMap<usize, (u64, Rc<Resolved>)>,
    /// Bumped whenever an integer (a loop variable, a block index) changes.
    generation: u64,
    /// The mbarriers, by array and index (`pipeline`).
    bars: HashMap<(String, usize), pipeline::Bar>,
    /// Each thread's waits that nothing has completed yet (a producer's, `pipeline`).
    gates: Vec<Vec<(String, usize, u64)>>,
    /// The CTA-uniform indices bound so far and their expressions, in order (a cluster's
    /// other CTAs evaluate them again, `cluster`).
    index_defs: Vec<(String, Int)>,
    /// What the global semaphores order (`semaphore`).
    sems: semaphore::Semaphores,
}

/// A tensor's elements for every thread: `idx[t * n + j]` is element `j` of thread `t` in
/// buffer `name` of `space` (in bounds: checked when resolved).
struct Resolved {
    space: MemSpace,
    name: String,
    n: usize,
    idx: Vec<u32>,
    /// No element is [`OUTSIDE`].
    complete: bool,
}

/// The index of an element outside its buffer (reported when it is accessed).
const OUTSIDE: u32 = u32::MAX;

/// Resolutions kept at most (then the cache starts again).
const MAX_RESOLVED: usize = 1 << 14;

pub(super) fn run(k: &Kernel, args: &mut [Arg]) -> Result<Report> {
    crate::passes::verify(k)?;
    let fail = |m: String| CodegenError::Kernel {
        kernel: k.name.clone(),
        stmt: "arguments".into(),
        msg: m,
    };

    if args.len() != k.params.len() {
        return Err(fail(format!(
            "{} arguments for {} parameters",
            args.len(),
            k.params.len()
        )));
    }
    let mut ints = HashMap::new();
    let mut scalars = HashMap::new();
    let mut gbuf = HashMap::new();
    let mut gwriter = HashMap::new();
    for (i, (p, a)) in k.params.iter().zip(args.iter()).enumerate() {
        match (p.ty, a) {
            (ParamType::Int, Arg::Int(v)) => {
                ints.insert(p.name.clone(), *v);
            }
            (ParamType::Scalar(_), Arg::Scalar(v)) => {
                scalars.insert(p.name.clone(), *v as f32);
            }
            (ParamType::TensorMap { elem }, Arg::Buffer(b)) if b.elem == elem => {
                gbuf.insert(p.name.clone(), i);
            }
            (ParamType::Ptr { elem, writable, .. }, Arg::Buffer(b)) if b.elem == elem => {
                gbuf.insert(p.name.clone(), i);
                if writable {
                    gwriter.insert(p.name.clone(), vec![-1; b.data.len()]);
                }
            }
            (ty, a) => {
                return Err(fail(format!(
                    "argument {i} ({}): {ty:?} given {}",
                    p.name,
                    kind(a)
                )))
            }
        }
    }
    for r in &k.requirements {
        if let Requirement::Divisible { symbol, by, .. } = r {
            if ints.get(symbol).is_some_and(|v| v % by != 0) {
                return Err(fail(format!("the launch needs {r}")));
            }
        }
    }
    let env = |n: &str| ints.get(n).copied();
    let mut grid = [1i64; 3];
    for (g, e) in grid.iter_mut().zip(&k.grid) {
        *g = e
            .evaluate(&env)
            .filter(|&v| v >= 0)
            .ok_or_else(|| fail(format!("the grid dimension {e} has no value")))?;
    }
    let threads = usize::try_from(k.threads()).unwrap_or(0);
    let mut m = Machine {
        k,
        ints,
        scalars,
        args,
        gbuf,
        gwriter,
        smem: HashMap::new(),
        arena: Arena::default(),
        regs: HashMap::new(),
        vars: Vec::new(),
        pending: Vec::new(),
        groups: Vec::new(),
        bulk: Vec::new(),
        bulk_groups: Vec::new(),
        active: Vec::new(),
        epoch: 1,
        work: 0,
        threads,
        block: [0; 3],
        block_linear: 0,
        addrs: HashMap::new(),
        coords: HashMap::new(),
        resolved: HashMap::new(),
        names: HashMap::new(),
        current: HashMap::new(),
        generation: 0,
        bars: HashMap::new(),
        gates: Vec::new(),
        index_defs: Vec::new(),
        sems: semaphore::Semaphores::default(),
    };
    for ((g, c), axis) in grid.iter().zip(k.cluster).zip(["x", "y", "z"]) {
        if c < 1 || g % c != 0 {
            return Err(fail(format!(
                "a cluster of {c} CTAs along {axis} does not divide the grid's {g}"
            )));
        }
    }
    let blocks = grid[0].saturating_mul(grid[1]).saturating_mul(grid[2]);
    if (blocks as u64).saturating_mul(threads as u64) > MAX_WORK {
        return Err(fail(format!("{blocks} blocks of {threads} threads: too large to interpret (at most {MAX_WORK} thread-blocks' worth)")));
    }
    for bz in 0..grid[2] {
        for by in 0..grid[1] {
            for bx in 0..grid[0] {
                m.block = [bx, by, bz];
                m.block_linear = bx + grid[0] * (by + grid[1] * bz);
                m.start_block();
                m.body(&k.body, "body")?;
                m.check_gates_at_exit()?;
            }
        }
    }
    Ok(Report {
        blocks,
        threads: threads as i64,
        work: m.work,
    })
}

fn kind(a: &Arg) -> String {
    match a {
        Arg::Int(v) => format!("the integer {v}"),
        Arg::Scalar(v) => format!("the scalar {v}"),
        Arg::Buffer(b) => format!("a buffer of {} {}", b.data.len(), b.elem),
    }
}

impl Machine<'_> {
    fn start_block(&mut self) {
        for (i, n) in ["bx", "by", "bz"].iter().enumerate() {
            self.ints.insert(n.to_string(), self.block[i]);
        }
        self.generation += 1;
        self.bars.clear();
        self.gates = vec![Vec::new(); self.threads];
        self.index_defs.clear();
        self.sems.before.clear();
        self.smem.clear();
        let (offs, total) = crate::cuda::smem_layout(self.k);
        for (b, off) in self.k.smem.iter().zip(offs) {
            self.smem.insert(
                b.name.clone(),
                Smem {
                    base: usize::try_from(off).unwrap_or(0),
                    bytes: (b.elem.bits() as usize / 8).max(1),
                    len: b.elements().unwrap_or(0) as usize,
                    elem: b.elem,
                },
            );
        }
        // shared memory starts as garbage: NaN makes a read of it visible in the output
        let total = usize::try_from(total).unwrap_or(0);
        self.arena = Arena {
            data: vec![f64::NAN; total],
            shadow: vec![Shadow::default(); total],
        };
        self.regs.clear();
        for r in &self.k.regs {
            self.regs.insert(
                r.name.clone(),
                vec![vec![f64::NAN; r.size as usize]; self.threads],
            );
        }
        self.vars = vec![HashMap::new(); self.threads];
        self.pending = (0..self.threads).map(|_| Vec::new()).collect();
        self.groups = vec![0; self.threads];
        self.bulk = vec![Vec::new(); self.threads];
        self.bulk_groups = vec![0; self.threads];
        self.active = vec![true; self.threads];
        self.epoch += 1;
    }

    fn err(&self, path: &str, t: Option<usize>, msg: impl Into<String>) -> CodegenError {
        let [x, y, z] = self.block;
        let who = match t {
            Some(t) => format!(" (block ({x},{y},{z}), thread {t})"),
            None => format!(" (block ({x},{y},{z}))"),
        };
        CodegenError::Kernel {
            kernel: self.k.name.clone(),
            stmt: format!("{path}{who}"),
            msg: msg.into(),
        }
    }

    fn tick(&mut self, n: u64, path: &str) -> Result<()> {
        self.work += n;
        if self.work > MAX_WORK {
            return Err(self.err(
                path,
                None,
                format!("more than {MAX_WORK} element operations: too large to interpret"),
            ));
        }
        Ok(())
    }

    fn eval(&self, i: &Int, t: usize) -> Option<i64> {
        i.evaluate(&|n: &str| {
            if n == "tid" {
                Some(t as i64)
            } else {
                self.ints.get(n).copied()
            }
        })
    }

    fn body(&mut self, stmts: &[Stmt], path: &str) -> Result<()> {
        for (i, s) in stmts.iter().enumerate() {
            let here = format!("{path}[{i}] {}", describe(s));
            self.statement(s, &here, &format!("{path}[{i}]"))?;
        }
        Ok(())
    }

    fn statement(&mut self, s: &Stmt, here: &str, at: &str) -> Result<()> {
        if !pipeline::gate_free(s) {
            self.check_gates(here)?;
        }
        match s {
            Stmt::Comment(_) | Stmt::Bind { .. } => Ok(()),
            Stmt::For {
                var, extent, body, ..
            } => {
                let n = self.eval(extent, 0).ok_or_else(|| {
                    self.err(here, None, format!("the extent {extent} has no value"))
                })?;
                for v in 0..n {
                    self.ints.insert(var.clone(), v);
                    self.generation += 1;
                    self.body(body, &format!("{at}.for {var}={v}"))?;
                }
                self.ints.remove(var);
                self.generation += 1;
                Ok(())
            }
            Stmt::If { cond, then, els } if cond.per_thread() => {
                // each thread takes its own branch: the other threads sit the branch out
                if cond.elects() {
                    self.whole_warps("elect.sync", here)?;
                }
                let mut taken = Vec::with_capacity(self.threads);
                for t in 0..self.threads {
                    if !self.active[t] {
                        taken.push(false);
                        continue;
                    }
                    let c = self
                        .cond(cond, t)
                        .ok_or_else(|| self.err(here, Some(t), "the condition has no value"))?;
                    taken.push(c);
                }
                let outer = std::mem::take(&mut self.active);
                self.active = outer.iter().zip(&taken).map(|(a, c)| *a && *c).collect();
                let r = self.body(then, &format!("{at}.then"));
                self.active = outer.iter().zip(&taken).map(|(a, c)| *a && !*c).collect();
                let r = r.and_then(|()| self.body(els, &format!("{at}.else")));
                self.active = outer;
                r
            }
            Stmt::If { cond, then, els } => {
                let c = self
                    .cond(cond, 0)
                    .ok_or_else(|| self.err(here, None, "the condition has no value"))?;
                if c {
                    self.body(then, &format!("{at}.then"))
                } else {
                    self.body(els, &format!("{at}.else"))
                }
            }
            Stmt::Copy {
                atom,
                src,
                dst,
                pred,
            } if crate::lower::ldmatrix::matrices(atom.op()).is_some()
                || crate::lower::stmatrix::matrices(atom.op()).is_some() =>
            {
                self.warp_copy(atom, src, dst, here)
            }
            Stmt::Copy {
                atom,
                src,
                dst,
                pred,
            } => self.copy(atom.op(), atom.val_type(), src, dst, pred.as_ref(), here),
            Stmt::Gemm {
                atom,
                a,
                b,
                c,
                overwrite,
            } if !matches!(atom.op(), cute_layout::atom::MmaOp::UniversalFma { .. }) => {
                // a block-uniform condition: thread 0's value
                let first = overwrite
                    .as_ref()
                    .map(|c| self.cond(c, 0).unwrap_or(false))
                    .unwrap_or(false);
                self.warp_gemm(atom.op(), [a, b, c], first, here)
            }
            Stmt::Gemm { a, b, c, .. } => self.gemm(a, b, c, here),
            Stmt::Map { dst, srcs, f, pred } => self.map(dst, srcs, f, pred.as_ref(), here),
            Stmt::Reduce { var, op, src } => {
                let n = size(src).unwrap_or(0);
                for t in 0..self.threads {
                    if !self.active[t] {
                        continue;
                    }
                    let mut acc = 0.0f32;
                    for j in 0..n {
                        let x = self.read(src, j, t, here)? as f32;
                        acc = if j == 0 { x } else { op.apply(acc, x) };
                    }
                    self.vars[t].insert(var.clone(), acc);
                }
                self.tick(n as u64 * self.threads as u64, here)
            }
            Stmt::Shuffle { var, op, across } => {
                let mut o = (*across / 2) as usize;
                while o > 0 {
                    let now: Vec<f32> = (0..self.threads)
                        .map(|t| self.vars[t].get(var).copied().unwrap_or(f32::NAN))
                        .collect();
                    for t in 0..self.threads {
                        if !self.active[t] {
                            continue;
                        }
                        let other = now.get(t ^ o).copied().unwrap_or(f32::NAN);
                        self.vars[t].insert(var.clone(), op.apply(now[t], other));
                    }
                    o /= 2;
                }
                Ok(())
            }
            Stmt::Let { var, f } => {
                for t in 0..self.threads {
                    if !self.active[t] {
                        continue;
                    }
                    let v = self
                        .expr(f, &[], t)
                        .ok_or_else(|| self.err(here, Some(t), "the expression has no value"))?;
                    self.vars[t].insert(var.clone(), v);
                }
                Ok(())
            }
            Stmt::Index { var, value } => {
                let v = self.eval(value, 0).ok_or_else(|| {
                    self.err(here, None, format!("the index {value} has no value"))
                })?;
                self.ints.insert(var.clone(), v);
                self.index_defs.retain(|(n, _)| n != var);
                self.index_defs.push((var.clone(), value.clone()));
                self.generation += 1;
                Ok(())
            }
            Stmt::Barrier(b) => {
                self.barrier(*b, here)?;
                Ok(())
            }
            Stmt::Tma {
                map,
                coords,
                dst,
                bar,
                multicast,
            } => self.tma(map, coords, dst, (bar, multicast.as_ref()), here),
            Stmt::TmaStore { map, coords, src } => self.tma_store(map, coords, src, here),
            Stmt::Mbarrier(op) => self.mbarrier(op, here),
            Stmt::Semaphore(op) => self.semaphore(op, here),
        }
    }

    /// The condition's value for thread `t`.
    fn cond(&self, c: &Cond, t: usize) -> Option<bool> {
        Some(match c {
            Cond::Lt(a, b) => self.eval(a, t)? < self.eval(b, t)?,
            Cond::Le(a, b) => self.eval(a, t)? <= self.eval(b, t)?,
            Cond::And(a, b) => self.cond(a, t)? && self.cond(b, t)?,
            // a scalar parameter, or a per-thread scalar (serial split-K's `beta_z`)
            Cond::NonZero(p) => *self.scalars.get(p).or_else(|| self.vars[t].get(p))? != 0.0,
            // the lowest lane of the warp (every lane active: `whole_warps` in `If`)
            Cond::Elect => self.active[t] && t.is_multiple_of(32),
        })
    }

    fn expr(&self, f: &EExpr, args: &[f32], t: usize) -> Option<f32> {
        f.eval(args, &|e: &EExpr| match e {
            EExpr::Param(n) => self.scalars.get(n).copied(),
            EExpr::Var(n) => self.vars[t].get(n).copied(),
            _ => None,
        })
    }

    fn addr_of(&mut self, t: &Tensor, j: i64, here: &str) -> Result<Addr> {
        let key = t as *const Tensor as usize;
        if !self.addrs.contains_key(&key) {
            let n = size(t).unwrap_or(0);
            let v = (0..n)
                .map(|j| addr(t, j))
                .collect::<cute_layout::Result<Vec<_>>>()
                .map_err(|e| self.err(here, None, format!("{t}: {e}")))?;
            self.addrs.insert(key, v);
        }
        Ok(self.addrs[&key][j as usize].clone())
    }

    fn in_bounds(&mut self, p: &Pred, j: i64, t: usize, here: &str) -> Result<bool> {
        let key = &p.coord as *const Tensor as usize;
        if !self.coords.contains_key(&key) {
            let n = size(&p.coord).unwrap_or(0);
            let v = (0..n)
                .map(|j| coord(&p.coord, j))
                .collect::<cute_layout::Result<Vec<_>>>()
                .map_err(|e| self.err(here, None, format!("predicate: {e}")))?;
            self.coords.insert(key, v);
        }
        let c = &self.coords[&key][j as usize];
        let mut ok = true;
        for (x, b) in c.iter().zip(&p.bounds) {
            let (x, b) = (self.eval(x, t), self.eval(b, t));
            match (x, b) {
                (Some(x), Some(b)) => ok &= x < b,
                _ => return Err(self.err(here, Some(t), "a predicate coordinate has no value")),
            }
        }
        Ok(ok)
    }

    /// The (space, buffer, index) of element `j` of `tensor` for thread `t`.
    fn locate(
        &mut self,
        tensor: &Tensor,
        j: i64,
        t: usize,
        here: &str,
    ) -> Result<(MemSpace, String, usize)> {
        let Engine::Ptr(p) = tensor.engine() else {
            return Err(self.err(here, Some(t), "a coordinate tensor holds no data"));
        };
        let a = self.addr_of(tensor, j, here)?;
        let i = a
            .eval(&|n: &str| {
                if n == "tid" {
                    Some(t as i64)
                } else {
                    self.ints.get(n).copied()
                }
            })
            .ok_or_else(|| {
                self.err(
                    here,
                    Some(t),
                    format!("the offset of element {j} of {tensor} has no value"),
                )
            })?;
        let len = match p.space {
            MemSpace::Gmem => match self.gbuf.get(&p.name).map(|&i| &self.args[i]) {
                Some(Arg::Buffer(b)) => b.data.len(),
                _ => 0,
            },
            MemSpace::Smem => self.smem.get(&p.name).map_or(0, |s| s.len),
            MemSpace::Rmem => self.regs.get(&p.name).map_or(0, |r| r[t].len()),
        };
        match usize::try_from(i) {
            Ok(u) if u < len => Ok((p.space, p.name.clone(), u)),
            _ => Err(self.err(
                here,
                Some(t),
                format!(
                    "{}[{i}] is outside the buffer of {len} elements (element {j} of {tensor})",
                    p.name
                ),
            )),
        }
    }

    /// Every thread's elements of `tensor` at the current integers (cached).
    fn resolve(&mut self, tensor: &Tensor, here: &str) -> Result<Rc<Resolved>> {
        let key = tensor as *const Tensor as usize;
        if let Some((g, r)) = self.current.get(&key) {
            if *g == self.generation {
                return Ok(r.clone());
            }
        }
        if !self.names.contains_key(&key) {
            let n = size(tensor).unwrap_or(0);
            let mut names = std::collections::BTreeSet::new();
            for j in 0..n {
                let a = self.addr_of(tensor, j, here)?;
                let (base, swz) = a.parts();
                names.extend(crate::ir::sym::names(base));
                if let Some((_, arg)) = swz {
                    names.extend(crate::ir::sym::names(arg));
                }
            }
            names.remove("tid");
            self.names.insert(key, names.into_iter().collect());
        }
        let vals: Vec<i64> = self.names[&key]
            .iter()
            .map(|n| self.ints.get(n).copied().unwrap_or(i64::MIN))
            .collect();
        let ck = (key, vals);
        let r = match self.resolved.get(&ck) {
            Some(r) => r.clone(),
            None => {
                let Engine::Ptr(p) = tensor.engine() else {
                    return Err(self.err(here, None, "a coordinate tensor holds no data"));
                };
                let n = size(tensor).unwrap_or(0);
                let mut idx = Vec::with_capacity(self.threads * n as usize);
                for t in 0..self.threads {
                    for j in 0..n {
                        // an element outside its buffer is an error only if it is accessed
                        let i = self.locate(tensor, j, t, here).ok().map(|l| l.2);
                        idx.push(i.and_then(|i| u32::try_from(i).ok()).unwrap_or(OUTSIDE));
                    }
                }
                let r = Rc::new(Resolved {
                    space: p.space,
                    name: p.name.clone(),
                    n: n as usize,
                    complete: !idx.contains(&OUTSIDE),
                    idx,
                });
                if self.resolved.len() >= MAX_RESOLVED {
                    self.resolved.clear();
                }
                self.resolved.insert(ck, r.clone());
                r
            }
        };
        self.current.insert(key, (self.generation, r.clone()));
        Ok(r)
    }

    /// Element `j` of thread `t`: its index in its buffer (the error of an access outside it).
    fn index(
        &mut self,
        r: &Resolved,
        tensor: &Tensor,
        j: i64,
        t: usize,
        here: &str,
    ) -> Result<usize> {
        match r.idx.get(t * r.n + j as usize) {
            Some(&i) if i != OUTSIDE => Ok(i as usize),
            _ => self.locate(tensor, j, t, here).map(|l| l.2),
        }
    }

    fn read(&mut self, tensor: &Tensor, j: i64, t: usize, here: &str) -> Result<f64> {
        let r = self.resolve(tensor, here)?;
        let i = self.index(&r, tensor, j, t, here)?;
        self.load(r.space, &r.name, i, t, here)
    }

    fn load(&mut self, space: MemSpace, name: &str, i: usize, t: usize, here: &str) -> Result<f64> {
        match space {
            MemSpace::Gmem => match &self.args[self.gbuf[name]] {
                Arg::Buffer(b) => Ok(b.data[i]),
                _ => Ok(f64::NAN),
            },
            MemSpace::Rmem => Ok(self.regs[name][t][i]),
            MemSpace::Smem => {
                let epoch = self.epoch;
                let slot = self.slot(name, i);
                let sh = self.arena.shadow[slot];
                if sh.pending > 0 {
                    return Err(self.err(here, Some(t), format!("reads {name}[{i}] before the cp.async that writes it has landed (cp.async.wait_group)")));
                }
                if sh.w_epoch == epoch && sh.writer != t as u32 {
                    return Err(self.err(here, Some(t), format!("reads {name}[{i}], written by thread {} with no __syncthreads() between (a race)", sh.writer)));
                }
                let sh = &mut self.arena.shadow[slot];
                if sh.r_epoch == epoch && sh.reader != t as u32 {
                    sh.reader = SEVERAL;
                } else if sh.r_epoch != epoch {
                    sh.r_epoch = epoch;
                    sh.reader = t as u32;
                }
                Ok(self.arena.data[slot])
            }
        }
    }

    fn write(&mut self, tensor: &Tensor, j: i64, t: usize, v: f64, here: &str) -> Result<()> {
        let r = self.resolve(tensor, here)?;
        let i = self.index(&r, tensor, j, t, here)?;
        self.store(r.space, &r.name, i, t, v, here)
    }

    fn store(
        &mut self,
        space: MemSpace,
        name: &str,
        i: usize,
        t: usize,
        v: f64,
        here: &str,
    ) -> Result<()> {
        match space {
            MemSpace::Gmem => {
                let who = self.block_linear * self.threads as i64 + t as i64;
                if let Some(w) = self.gwriter.get_mut(name) {
                    // two CTAs that a semaphore orders may write one element in turn
                    let ordered = self
                        .sems
                        .before
                        .contains(&(w[i] / self.threads.max(1) as i64));
                    if w[i] >= 0 && w[i] != who && !ordered {
                        let other = w[i];
                        return Err(self.err(here, Some(t), format!("{name}[{i}] is written by two threads (global thread {other} and {who})")));
                    }
                    w[i] = who;
                }
                if let Some(Arg::Buffer(b)) = self.args.get_mut(self.gbuf[name]) {
                    b.set(i, v);
                }
                Ok(())
            }
            MemSpace::Rmem => {
                let elem = self
                    .k
                    .reg_buf(name)
                    .map(|r| r.elem)
                    .unwrap_or(cute_layout::ElemType::F32);
                if let Some(r) = self.regs.get_mut(name) {
                    r[t][i] = super::round(elem, v);
                }
                Ok(())
            }
            MemSpace::Smem => {
                self.smem_write_check(name, i, t, here)?;
                let slot = self.slot(name, i);
                let elem = self.smem[name].elem;
                let sh = &mut self.arena.shadow[slot];
                sh.w_epoch = self.epoch;
                sh.writer = t as u32;
                self.arena.data[slot] = super::round(elem, v);
                Ok(())
            }
        }
    }

    /// The arena slot of element `i` of shared buffer `name` (in bounds: `locate` checked it).
    fn slot(&self, name: &str, i: usize) -> usize {
        let b = &self.smem[name];
        b.base + i * b.bytes
    }

    fn smem_write_check(&self, name: &str, i: usize, t: usize, here: &str) -> Result<()> {
        let sh = self.arena.shadow[self.slot(name, i)];
        let me = t as u32;
        if sh.bulk > 0 {
            return Err(self.err(here, Some(t), format!("writes {name}[{i}] while a TMA store still reads it (no cp.async.bulk.wait_group.read between)")));
        }
        if sh.w_epoch == self.epoch && sh.writer != me {
            return Err(self.err(here, Some(t), format!("writes {name}[{i}], also written by thread {} with no __syncthreads() between (a race)", sh.writer)));
        }
        if sh.r_epoch == self.epoch && sh.reader != me {
            let who = if sh.reader == SEVERAL {
                "other threads".to_string()
            } else {
                format!("thread {}", sh.reader)
            };
            return Err(self.err(
                here,
                Some(t),
                format!(
                    "writes {name}[{i}], read by {who} with no __syncthreads() between (a race)"
                ),
            ));
        }
        Ok(())
    }

    fn copy(
        &mut self,
        op: CopyOp,
        elem: cute_layout::ElemType,
        src: &Tensor,
        dst: &Tensor,
        pred: Option<&Pred>,
        here: &str,
    ) -> Result<()> {
        let vals = atom_values(op, elem).unwrap_or(1).max(1);
        let n = size(src).unwrap_or(0);
        let zfill = op.ptx_zfill().is_some();
        let (rs, rd) = (self.resolve(src, here)?, self.resolve(dst, here)?);
        for t in 0..self.threads {
            if !self.active[t] {
                continue;
            }
            for v in (0..n).step_by(vals as usize) {
                if zfill {
                    self.zfill_vector(src, dst, pred, v, vals, t, here)?;
                    continue;
                }
                let ok = match pred {
                    None => true,
                    Some(p) => {
                        let first = self.in_bounds(p, v, t, here)?;
                        for e in 1..vals {
                            if self.in_bounds(p, v + e, t, here)? != first {
                                return Err(self.err(here, Some(t), format!("the {vals}-element vector at element {v} is partly in bounds: a vector copy cannot be predicated per element")));
                            }
                        }
                        first
                    }
                };
                for e in 0..vals {
                    if op.is_async() {
                        self.async_element(src, dst, v + e, ok, t, here)?;
                    } else if ok {
                        let i = self.index(&rs, src, v + e, t, here)?;
                        let x = self.load(rs.space, &rs.name, i, t, here)?;
                        let o = self.index(&rd, dst, v + e, t, here)?;
                        self.store(rd.space, &rd.name, o, t, x, here)?;
                    }
                }
            }
        }
        self.tick(n as u64 * self.threads as u64, here)
    }

    /// One zero-filling vector: its elements in bounds must be a prefix (the `src-size` of the
    /// instruction); they are copied, the rest zero-filled.
    #[allow(clippy::too_many_arguments)]
    fn zfill_vector(
        &mut self,
        src: &Tensor,
        dst: &Tensor,
        pred: Option<&Pred>,
        v: i64,
        vals: i64,
        t: usize,
        here: &str,
    ) -> Result<()> {
        let mut prefix = true;
        for e in 0..vals {
            let ok = match pred {
                None => true,
                Some(p) => self.in_bounds(p, v + e, t, here)?,
            };
            if ok && !prefix {
                return Err(self.err(here, Some(t), format!("the {vals}-element vector at element {v} is in bounds after an element out of bounds: a zero-filling copy reads a prefix")));
            }
            prefix &= ok;
            self.async_element(src, dst, v + e, ok, t, here)?;
        }
        Ok(())
    }

    /// One element of an asynchronous copy, pending until its group is waited for.
    fn async_element(
        &mut self,
        src: &Tensor,
        dst: &Tensor,
        j: i64,
        ok: bool,
        t: usize,
        here: &str,
    ) -> Result<()> {
        let value = if ok { self.read(src, j, t, here)? } else { 0.0 };
        let (_, buf, idx) = self.locate(dst, j, t, here)?;
        self.smem_write_check(&buf, idx, t, here)?;
        let slot = self.slot(&buf, idx);
        self.arena.shadow[slot].pending += 1;
        self.pending[t].push(Pending {
            group: None,
            buf,
            idx,
            value,
        });
        Ok(())
    }

    fn gemm(&mut self, a: &Tensor, b: &Tensor, c: &Tensor, here: &str) -> Result<()> {
        let order = fma_order(a, b).ok_or_else(|| self.err(here, None, "fragment shapes"))?;
        let (ra, rb, rc) = (
            self.resolve(a, here)?,
            self.resolve(b, here)?,
            self.resolve(c, here)?,
        );
        let f32_acc = self.k.reg_buf(&rc.name).map(|r| r.elem) == Some(cute_layout::ElemType::F32);
        let complete = ra.complete && rb.complete && rc.complete;
        if f32_acc && complete && rc.name != ra.name && rc.name != rb.name {
            // registers only: the fragments' indices resolved, no shadow state to keep
            let mut acc = self.regs.remove(&rc.name).unwrap_or_default();
            let (fa, fb) = (&self.regs[&ra.name], &self.regs[&rb.name]);
            for (t, acc_t) in acc.iter_mut().enumerate() {
                if !self.active[t] {
                    continue;
                }
                let (ia0, ib0, ic0) = (t * ra.n, t * rb.n, t * rc.n);
                for &(ia, ib, ic) in &order {
                    let x = fa[t][ra.idx[ia0 + ia as usize] as usize] as f32;
                    let y = fb[t][rb.idx[ib0 + ib as usize] as usize] as f32;
                    let ci = rc.idx[ic0 + ic as usize] as usize;
                    acc_t[ci] = f64::from(x.mul_add(y, acc_t[ci] as f32));
                }
            }
            self.regs.insert(rc.name.clone(), acc);
            return self.tick(order.len() as u64 * self.threads as u64, here);
        }
        for t in 0..self.threads {
            if !self.active[t] {
                continue;
            }
            for &(ia, ib, ic) in &order {
                let x = self.read(a, ia, t, here)? as f32;
                let y = self.read(b, ib, t, here)? as f32;
                let z = self.read(c, ic, t, here)? as f32;
                self.write(c, ic, t, f64::from(x.mul_add(y, z)), here)?;
            }
        }
        self.tick(order.len() as u64 * self.threads as u64, here)
    }

    fn map(
        &mut self,
        dst: &Tensor,
        srcs: &[Tensor],
        f: &EExpr,
        pred: Option<&Pred>,
        here: &str,
    ) -> Result<()> {
        let n = size(dst).unwrap_or(0);
        for t in 0..self.threads {
            if !self.active[t] {
                continue;
            }
            for j in 0..n {
                if let Some(p) = pred {
                    if !self.in_bounds(p, j, t, here)? {
                        continue;
                    }
                }
                let mut args = Vec::with_capacity(srcs.len());
                for s in srcs {
                    args.push(self.read(s, j, t, here)? as f32);
                }
                let v = self
                    .expr(f, &args, t)
                    .ok_or_else(|| self.err(here, Some(t), "the expression has no value"))?;
                self.write(dst, j, t, f64::from(v), here)?;
            }
        }
        self.tick(
            n as u64 * self.threads as u64 * (srcs.len() as u64 + 1),
            here,
        )
    }

    fn barrier(&mut self, b: Barrier, here: &str) -> Result<()> {
        match b {
            Barrier::Cta if self.active.iter().any(|a| !a) => {
                return Err(self.err(
                    here,
                    None,
                    "__syncthreads() reached by only some threads (under a condition on the thread index)",
                ))
            }
            Barrier::Cta => self.epoch += 1,
            // every CTA of the cluster runs the same statements (the interpreter's model of a
            // cluster, `pipeline`): its barrier orders this CTA's threads as __syncthreads does
            Barrier::Cluster if self.active.iter().any(|a| !a) => {
                return Err(self.err(
                    here,
                    None,
                    "a cluster barrier reached by only some threads (under a condition on the thread index)",
                ))
            }
            Barrier::Cluster => self.epoch += 1,
            Barrier::CpAsyncCommit => {
                for t in 0..self.threads {
                    if !self.active[t] {
                        continue;
                    }
                    let g = self.groups[t];
                    self.groups[t] += 1;
                    for p in self.pending[t].iter_mut().filter(|p| p.group.is_none()) {
                        p.group = Some(g);
                    }
                }
            }
            Barrier::CpAsyncWait(n) => {
                for t in 0..self.threads {
                    if !self.active[t] {
                        continue;
                    }
                    let keep_from = self.groups[t].saturating_sub(usize::try_from(n).unwrap_or(0));
                    let (done, still): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending[t])
                        .into_iter()
                        .partition(|p| p.group.is_some_and(|g| g < keep_from));
                    self.pending[t] = still;
                    for p in done {
                        let slot = self.slot(&p.buf, p.idx);
                        self.arena.shadow[slot].pending -= 1;
                        self.store(MemSpace::Smem, &p.buf, p.idx, t, p.value, here)?;
                    }
                }
            }
            // the interpreter runs a wgmma when it is issued, its operands read then and its
            // accumulator written then: the fences and groups order nothing further here
            Barrier::ProxyAsync | Barrier::WgmmaFence | Barrier::WgmmaCommit | Barrier::WgmmaWait(_) => {}
            // the threads of a named barrier are the active ones (checked: whole warps)
            Barrier::Named { .. } => self.epoch += 1,
            Barrier::SetMaxNReg { .. } | Barrier::MbarrierInit => {}
            Barrier::BulkCommit => {
                for t in (0..self.threads).filter(|&t| self.active[t]) {
                    let g = self.bulk_groups[t];
                    self.bulk_groups[t] += 1;
                    for b in self.bulk[t].iter_mut().filter(|b| b.0.is_none()) {
                        b.0 = Some(g);
                    }
                }
            }
            Barrier::BulkWaitRead(n) => {
                for t in (0..self.threads).filter(|&t| self.active[t]) {
                    let keep_from =
                        self.bulk_groups[t].saturating_sub(usize::try_from(n).unwrap_or(0));
                    let (done, still): (Vec<_>, Vec<_>) = std::mem::take(&mut self.bulk[t])
                        .into_iter()
                        .partition(|b| b.0.is_some_and(|g| g < keep_from));
                    self.bulk[t] = still;
                    for slot in done.into_iter().flat_map(|b| b.1) {
                        self.arena.shadow[slot].bulk -= 1;
                    }
                }
            }
        }
        Ok(())
    }
}
