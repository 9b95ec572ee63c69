//! TMA loads and mbarriers in a lockstep interpreter. A warp-specialized kernel's producer
//! branch runs (in full) before its consumers' branch, so the producer cannot wait for the
//! consumers here; instead its work is *deferred*: a producer's `wait` that is not yet satisfied
//! becomes a gate, the `arrive.expect_tx` after it opens a deferred phase of that barrier
//! holding the gates, and the TMA loads after that join the phase (their values read from
//! global memory then: TMA reads inputs the kernel does not write). A consumer's `wait` on the
//! barrier completes its deferred phases in order — each phase's gates must hold by then (else
//! the producer would wait forever: a deadlock), its loads' bytes must be the bytes it expects,
//! and its loads land in shared memory (swizzled as TMA swizzles, zeros outside the tensor) —
//! until the phase of the wanted parity has completed. A thread with an open gate may only issue
//! more deferred work; anything else is reported as a wait that never completes.

use std::collections::VecDeque;

use cute_layout::{AnyLayout, Engine, Int, IntTuple, Tensor};

use super::{Machine, Shadow};
use crate::error::Result;
use crate::ir::{BarRef, MbarrierOp, Stmt};

/// One mbarrier.
#[derive(Debug, Default)]
pub(super) struct Bar {
    count: i64,
    arrived: i64,
    completed: u64,
    deferred: VecDeque<Deferred>,
}

/// A phase a producer armed (`arrive.expect_tx`) and the loads that complete it.
#[derive(Debug)]
struct Deferred {
    /// `(barrier, index, parity)` waits that must have completed before the loads land.
    gates: Vec<(String, usize, u64)>,
    expect: i64,
    bytes: i64,
    /// `(buffer, arena slot, value)`.
    writes: Vec<(String, usize, f64)>,
}

/// The statements a thread with an open gate may run: more deferred work and control flow.
pub(super) fn gate_free(s: &Stmt) -> bool {
    matches!(
        s,
        Stmt::Comment(_)
            | Stmt::Bind { .. }
            | Stmt::For { .. }
            | Stmt::Index { .. }
            | Stmt::If { .. }
            | Stmt::Tma { .. }
            | Stmt::TmaStore { .. }
            | Stmt::Mbarrier(MbarrierOp::Wait { .. } | MbarrierOp::ArriveExpectTx { .. })
    )
}

impl Machine<'_> {
    /// Whether any active thread waits on a phase that has not completed.
    pub(super) fn check_gates(&self, here: &str) -> Result<()> {
        for t in 0..self.threads {
            if let Some((name, i, parity)) = self.active[t].then(|| self.gates[t].first()).flatten()
            {
                return Err(self.err(here, Some(t), format!("waits for parity {parity} of {name}[{i}], which no thread completes before this (a deadlock)")));
            }
        }
        Ok(())
    }

    pub(super) fn bar_index(&self, b: &BarRef, t: usize, here: &str) -> Result<(String, usize)> {
        let len = self.k.mbarrier(&b.name).map_or(0, |m| m.len);
        match self.eval(&b.index, t) {
            Some(i) if (0..len).contains(&i) => Ok((b.name.clone(), i as usize)),
            v => Err(self.err(
                here,
                Some(t),
                format!(
                    "{}[{}] = {v:?}: outside the {len} barriers",
                    b.name, b.index
                ),
            )),
        }
    }

    pub(super) fn mbarrier(&mut self, op: &MbarrierOp, here: &str) -> Result<()> {
        for t in 0..self.threads {
            if !self.active[t] {
                continue;
            }
            match op {
                MbarrierOp::Init(name) => {
                    let (len, count) = self.k.mbarrier(name).map_or((0, 0), |m| (m.len, m.count));
                    for i in 0..len as usize {
                        let bar = Bar {
                            count,
                            ..Bar::default()
                        };
                        self.bars.insert((name.clone(), i), bar);
                    }
                }
                MbarrierOp::ArriveExpectTx { bar, bytes } => {
                    let key = self.bar_index(bar, t, here)?;
                    let gates = std::mem::take(&mut self.gates[t]);
                    let count = self.bar(&key, t, here)?.count;
                    if count != 1 {
                        return Err(self.err(here, Some(t), format!("{}[{}] counts {count} arrivals: the interpreter models barriers armed with expected bytes by one thread", key.0, key.1)));
                    }
                    self.bar(&key, t, here)?.deferred.push_back(Deferred {
                        gates,
                        expect: *bytes,
                        bytes: 0,
                        writes: Vec::new(),
                    });
                }
                MbarrierOp::Arrive(bar) => {
                    let key = self.bar_index(bar, t, here)?;
                    self.arrive(&key, t, here)?;
                }
                MbarrierOp::ArriveCluster { bar, cta } => {
                    for key in self.cluster_arrivals(bar, cta, t, here)? {
                        self.arrive(&key, t, here)?;
                    }
                }
                MbarrierOp::Wait { bar, parity } => {
                    let key = self.bar_index(bar, t, here)?;
                    let p = self
                        .eval(parity, t)
                        .filter(|p| (0..2).contains(p))
                        .ok_or_else(|| {
                            self.err(here, Some(t), format!("parity {parity}: 0 or 1"))
                        })? as u64;
                    self.wait(&key, p, t, here)?;
                }
            }
        }
        Ok(())
    }

    /// One arrival on `key`.
    fn arrive(&mut self, key: &(String, usize), t: usize, here: &str) -> Result<()> {
        let b = self.bar(key, t, here)?;
        b.arrived += 1;
        if b.arrived == b.count {
            b.arrived = 0;
            b.completed += 1;
        }
        Ok(())
    }

    /// Every thread's waits hold at the end of the block (a producer's last waits for its
    /// stages to be released, before its CTA exits).
    pub(super) fn check_gates_at_exit(&self) -> Result<()> {
        for (t, gates) in self.gates.iter().enumerate() {
            for (name, i, p) in gates {
                let done = self
                    .bars
                    .get(&(name.clone(), *i))
                    .is_some_and(|b| b.completed % 2 != *p);
                if !done {
                    return Err(self.err("exit", Some(t), format!("waits for parity {p} of {name}[{i}], which no thread completes (a deadlock)")));
                }
            }
        }
        Ok(())
    }

    fn bar(&mut self, key: &(String, usize), t: usize, here: &str) -> Result<&mut Bar> {
        if !self.bars.contains_key(key) {
            return Err(self.err(
                here,
                Some(t),
                format!("{}[{}] is used before mbarrier.init", key.0, key.1),
            ));
        }
        Ok(self.bars.get_mut(key).expect("checked above"))
    }

    /// Thread `t` waits for parity `p` of `key`: deferred phases complete until it has; a wait
    /// nothing can complete yet becomes the thread's gate.
    fn wait(&mut self, key: &(String, usize), p: u64, t: usize, here: &str) -> Result<()> {
        loop {
            let b = self.bar(key, t, here)?;
            if b.completed % 2 != p {
                return Ok(());
            }
            let Some(d) = b.deferred.pop_front() else {
                self.gates[t].push((key.0.clone(), key.1, p));
                return Ok(());
            };
            self.land(key, d, t, here)?;
        }
    }

    /// A deferred phase completes: its gates hold, its bytes are the expected ones, its loads
    /// land.
    fn land(&mut self, key: &(String, usize), d: Deferred, t: usize, here: &str) -> Result<()> {
        for (name, i, p) in &d.gates {
            let done = self
                .bars
                .get(&(name.clone(), *i))
                .is_some_and(|b| b.completed % 2 != *p);
            if !done {
                return Err(self.err(here, Some(t), format!("the loads completing {}[{}] wait for parity {p} of {name}[{i}], which has not completed (the producer would wait forever)", key.0, key.1)));
            }
        }
        if d.bytes != d.expect {
            return Err(self.err(
                here,
                Some(t),
                format!(
                    "{}[{}] expects {} bytes, its TMA loads move {}",
                    key.0, key.1, d.expect, d.bytes
                ),
            ));
        }
        for (_, slot, v) in d.writes {
            self.arena.data[slot] = v;
            self.arena.shadow[slot] = Shadow::default();
        }
        if let Some(b) = self.bars.get_mut(key) {
            b.completed += 1;
        }
        Ok(())
    }

    /// One TMA load by each active thread: the box's values now (zeros outside the tensor),
    /// landing when a consumer waits on the barrier's phase. A multicast load lands the
    /// shares of every CTA of the cluster whose mask names this one (`cluster`).
    pub(super) fn tma(
        &mut self,
        map: &str,
        coords: &[Int],
        dst: &Tensor,
        (bar, multicast): (&BarRef, Option<&Int>),
        here: &str,
    ) -> Result<()> {
        let Some(m) = self.k.tensor_map(map) else {
            return Err(self.err(here, None, format!("{map} has no tensor map")));
        };
        let tma = m.tma.clone();
        for t in 0..self.threads {
            if !self.active[t] {
                continue;
            }
            let issue = |m: &mut Self| m.tma_issue(&tma, (map, coords), dst, bar, t, here);
            let landed = match multicast {
                None => vec![issue(self)?],
                Some(mask) => self.sent_by_cluster(mask, t, here, issue)?,
            };
            for (key, writes, bytes) in landed {
                let b = self.bar(&key, t, here)?;
                let Some(d) = b.deferred.back_mut() else {
                    return Err(self.err(
                        here,
                        Some(t),
                        format!(
                            "a TMA load completes on {}[{}], which no arrive.expect_tx armed",
                            key.0, key.1
                        ),
                    ));
                };
                d.bytes += bytes;
                d.writes.extend(writes);
            }
        }
        Ok(())
    }

    /// Thread `t`'s box of `map` at `coords` into `dst`: the barrier it completes on, its
    /// writes `(buffer, arena slot, value)` and its bytes.
    #[allow(clippy::type_complexity)]
    fn tma_issue(
        &mut self,
        tma: &cute_layout::atom::TmaBox,
        (map, coords): (&str, &[Int]),
        dst: &Tensor,
        bar: &BarRef,
        t: usize,
        here: &str,
    ) -> Result<((String, usize), Vec<(String, usize, f64)>, i64)> {
        let key = self.bar_index(bar, t, here)?;
        let boxes = self.tma_box(tma, coords, t, here)?;
        let n = boxes.len() as i64;
        let (buf, start, swizzle) = self.tma_dst(dst, t, here)?;
        let mut writes = Vec::with_capacity(boxes.len());
        for (i, off) in boxes.into_iter().enumerate() {
            let v = match off {
                Some(off) => self.tma_read(map, off, t, here)?,
                None => 0.0,
            };
            let idx = self.tma_smem_index(&buf, start + i as i64, swizzle.as_ref(), t, here)?;
            writes.push((buf.clone(), self.slot(&buf, idx), v));
        }
        self.tick(n as u64, here)?;
        Ok((key, writes, n * i64::from(tma.elem.bits()) / 8))
    }

    /// One TMA store: each issuing thread's box of `src` written into `map`'s tensor where it
    /// lies inside it, its shared elements marked read until the thread's bulk wait.
    pub(super) fn tma_store(
        &mut self,
        map: &str,
        coords: &[Int],
        src: &Tensor,
        here: &str,
    ) -> Result<()> {
        let Some(m) = self.k.tensor_map(map) else {
            return Err(self.err(here, None, format!("{map} has no tensor map")));
        };
        let tma = m.tma.clone();
        for t in 0..self.threads {
            if !self.active[t] {
                continue;
            }
            let boxes = self.tma_box(&tma, coords, t, here)?;
            let (buf, start, swizzle) = self.tma_dst(src, t, here)?;
            let mut slots = Vec::with_capacity(boxes.len());
            for (i, off) in boxes.into_iter().enumerate() {
                let idx = self.tma_smem_index(&buf, start + i as i64, swizzle.as_ref(), t, here)?;
                let v = self.load(cute_layout::MemSpace::Smem, &buf, idx, t, here)?;
                let slot = self.slot(&buf, idx);
                self.arena.shadow[slot].bulk += 1;
                slots.push(slot);
                if let Some(off) = off {
                    let i = self.tma_element(map, off, t, here)?;
                    self.store(cute_layout::MemSpace::Gmem, map, i, t, v, here)?;
                }
            }
            self.tick(slots.len() as u64, here)?;
            self.bulk[t].push((None, slots));
        }
        Ok(())
    }

    /// The global offset of each element of the box at `coords` (`None` outside the tensor),
    /// the box's first dimension fastest.
    fn tma_box(
        &self,
        tma: &cute_layout::atom::TmaBox,
        coords: &[Int],
        t: usize,
        here: &str,
    ) -> Result<Vec<Option<i64>>> {
        let ev = |i: &Int| {
            self.eval(i, t)
                .ok_or_else(|| self.err(here, Some(t), format!("{i} has no value")))
        };
        let origin: Vec<i64> = coords.iter().map(ev).collect::<Result<_>>()?;
        let extents: Vec<i64> = tma
            .dims
            .iter()
            .map(|d| ev(&d.extent))
            .collect::<Result<_>>()?;
        let strides: Vec<i64> = tma
            .dims
            .iter()
            .map(|d| ev(&d.stride))
            .collect::<Result<_>>()?;
        let boxes: Vec<i64> = tma.dims.iter().map(|d| d.box_extent).collect();
        let n: i64 = boxes.iter().product();
        Ok((0..n)
            .map(|i| {
                let (mut rest, mut inside, mut off) = (i, true, 0i64);
                for d in 0..boxes.len() {
                    let c = origin[d] + rest % boxes[d];
                    rest /= boxes[d];
                    inside &= (0..extents[d]).contains(&c);
                    off += c * strides[d];
                }
                inside.then_some(off)
            })
            .collect())
    }

    /// The shared element of a box's element at unswizzled offset `at` of buffer `buf`.
    fn tma_smem_index(
        &self,
        buf: &str,
        at: i64,
        swizzle: Option<&cute_layout::Swizzle>,
        t: usize,
        here: &str,
    ) -> Result<usize> {
        let idx = match swizzle {
            Some(sw) => sw
                .apply(at)
                .map_err(|e| self.err(here, Some(t), e.to_string()))?,
            None => at,
        };
        let len = self.smem[buf].len as i64;
        usize::try_from(idx)
            .ok()
            .filter(|&i| (i as i64) < len)
            .ok_or_else(|| {
                self.err(
                    here,
                    Some(t),
                    format!(
                        "box element at {at} lands at {buf}[{idx}], outside its {len} elements"
                    ),
                )
            })
    }

    /// Element `off` of the tensor map's buffer (checked: a map wider than its buffer is the
    /// launch's error, not a read past it).
    fn tma_read(&self, map: &str, off: i64, t: usize, here: &str) -> Result<f64> {
        let i = self.tma_element(map, off, t, here)?;
        match self.gbuf.get(map).map(|&b| &self.args[b]) {
            Some(super::Arg::Buffer(b)) => Ok(b.data[i]),
            _ => Err(self.err(here, Some(t), format!("{map} has no buffer"))),
        }
    }

    /// Element `off` of the tensor map's buffer, checked inside it (a map wider than its
    /// buffer is the launch's error, not an access past it).
    fn tma_element(&self, map: &str, off: i64, t: usize, here: &str) -> Result<usize> {
        let len = match self.gbuf.get(map).map(|&i| &self.args[i]) {
            Some(super::Arg::Buffer(b)) => b.data.len(),
            _ => return Err(self.err(here, Some(t), format!("{map} has no buffer"))),
        };
        usize::try_from(off)
            .ok()
            .filter(|&i| i < len)
            .ok_or_else(|| {
                self.err(
                    here,
                    Some(t),
                    format!("the box reaches {map}[{off}], outside its {len} elements"),
                )
            })
    }

    /// A TMA destination's buffer, its first element's unswizzled offset and the buffer's
    /// swizzle.
    fn tma_dst(
        &self,
        dst: &Tensor,
        t: usize,
        here: &str,
    ) -> Result<(String, i64, Option<cute_layout::Swizzle>)> {
        let Engine::Ptr(p) = dst.engine() else {
            return Err(self.err(here, Some(t), format!("{dst}: not a shared tile")));
        };
        let origin = IntTuple::Int(cute_layout::s(0));
        let le = |e: cute_layout::Error| self.err(here, Some(t), format!("{dst}: {e}"));
        let (inside, sw) = match dst.layout() {
            AnyLayout::Plain(l) => (l.crd2idx(&origin).map_err(le)?, None),
            AnyLayout::Composed(l) => (
                l.offset()
                    .add(&l.layout_b().crd2idx(&origin).map_err(le)?)
                    .map_err(le)?,
                Some(l.layout_a()),
            ),
        };
        let off = p.offset.add(&inside).map_err(le)?;
        let start = self
            .eval(&off, t)
            .ok_or_else(|| self.err(here, Some(t), format!("{off} has no value")))?;
        Ok((p.name.clone(), start, sw))
    }
}
