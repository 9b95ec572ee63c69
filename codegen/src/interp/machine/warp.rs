//! The warp-collective atoms, as the hardware runs them: each statement sees all 32 lanes of a
//! warp at once (the interpreter runs a block's threads in lockstep), so an `ldmatrix` or an
//! `mma.sync` gathers its operands from every lane by the atom's thread-value layouts and
//! scatters its result the same way. Every lane of the warp must take part (`.sync.aligned`).

use cute_layout::atom::{CopyAtom, MmaOp};
use cute_layout::{ElemType, Layout, Tensor};

use super::Machine;
use crate::error::Result;
use crate::ir::index::{mma_order, size, warp_dims};

/// The element of the atom's tile that `(thread, value)` holds: `tv(lane + 32 * value)`.
fn at(tv: &Layout, lane: usize, v: i64) -> Option<i64> {
    at_in(tv, 32, lane, v)
}

/// The same for an atom of `group` threads (a warpgroup's 128).
fn at_in(tv: &Layout, group: i64, lane: usize, v: i64) -> Option<i64> {
    tv.eval(lane as i64 + group * v).ok()
}

impl Machine<'_> {
    /// The active warps of the block, each with all its lanes active (or an error naming the
    /// first that is not).
    pub(super) fn whole_warps(&self, what: &str, here: &str) -> Result<Vec<usize>> {
        self.whole_groups(what, 32, here)
    }

    /// The groups of `group` threads (warps, warpgroups) that run the statement: each group
    /// all active or all not (a warp-specialized kernel's consumer warpgroups issue wgmmas
    /// while its producer's are in the other branch).
    fn whole_groups(&self, what: &str, group: usize, here: &str) -> Result<Vec<usize>> {
        let unit = if group == 32 { "warp" } else { "warpgroup" };
        if !self.threads.is_multiple_of(group) {
            return Err(self.err(
                here,
                None,
                format!("{what} needs whole {unit}s ({} threads)", self.threads),
            ));
        }
        let mut groups = Vec::new();
        for g in 0..self.threads / group {
            let lanes = &self.active[g * group..(g + 1) * group];
            if let Some(l) = lanes
                .iter()
                .position(|a| !a)
                .filter(|_| lanes.iter().any(|a| *a))
            {
                let msg = format!(
                    "{what} is {unit}-collective: thread {l} of {unit} {g} does not take part"
                );
                return Err(self.err(here, Some(g * group + l), msg));
            }
            if lanes.iter().all(|a| *a) {
                groups.push(g);
            }
        }
        Ok(groups)
    }

    /// `copy(atom, src, dst)` of a warp-collective atom (`ldmatrix`, `stmatrix`): per atom, the tile
    /// element each lane's source value `v` is (`ValLayoutSrc`) gathered from all lanes, then
    /// each lane's destination value `v` read back at `ValLayoutDst`'s element.
    pub(super) fn warp_copy(
        &mut self,
        atom: &CopyAtom,
        src: &Tensor,
        dst: &Tensor,
        here: &str,
    ) -> Result<()> {
        let op = atom.op();
        let elem = atom.val_type();
        let (vs, vd) = crate::lower::ldmatrix::values(op, elem)
            .or_else(|| crate::lower::stmatrix::values(op, elem))
            .ok_or_else(|| self.err(here, None, format!("{op}: 16-bit values")))?;
        let layout = |l: cute_layout::Result<Layout>| {
            l.map_err(|e| self.err(here, None, format!("{op}: {e}")))
        };
        let (stv, dtv) = (
            layout(atom.val_layout_src())?,
            layout(atom.val_layout_dst())?,
        );
        let warps = self.whole_warps(&op.to_string(), here)?;
        let atoms = size(src).unwrap_or(0) / vs;
        for &w in &warps {
            for j in 0..atoms {
                let mut tile = std::collections::HashMap::new();
                for lane in 0..32 {
                    for v in 0..vs {
                        let x = at(&stv, lane, v)
                            .ok_or_else(|| self.err(here, None, "source layout"))?;
                        let value = self.read(src, j * vs + v, 32 * w + lane, here)?;
                        tile.insert(x, value);
                    }
                }
                for lane in 0..32 {
                    for v in 0..vd {
                        let x = at(&dtv, lane, v)
                            .ok_or_else(|| self.err(here, None, "destination layout"))?;
                        let value = *tile.get(&x).ok_or_else(|| {
                            self.err(
                                here,
                                Some(32 * w + lane),
                                format!("{op}: no lane supplies element {x} of the tile"),
                            )
                        })?;
                        self.write(dst, j * vd + v, 32 * w + lane, value, here)?;
                    }
                }
            }
        }
        self.tick((atoms * (vs + vd)) as u64 * self.threads as u64, here)
    }

    /// `gemm(mma, a, b, c)` of a warp or warpgroup MMA: per `(k, m, n)` of the fragments, the
    /// atom's `M x K`, `N x K` and `M x N` tiles gathered from the group's threads by `ALayout`,
    /// `BLayout` and `CLayout` (a GMMA's shared-memory operand is every thread's whole tile),
    /// `D = A * B + C` (products summed in f64, TF32 operands rounded to TF32 first), and `D`
    /// written back by `CLayout` (rounded to the accumulator's type).
    pub(super) fn warp_gemm(
        &mut self,
        op: MmaOp,
        [a, b, c]: [&Tensor; 3],
        overwrite: bool,
        here: &str,
    ) -> Result<()> {
        let group = op
            .thr_id()
            .size()
            .ok()
            .and_then(|n| n.as_static())
            .unwrap_or(32);
        let warps = self.whole_groups(&op.to_string(), group as usize, here)?;
        // a shared-memory operand (GMMA SS) is the same tile for every thread: read it once
        let shared = |t: &Tensor| matches!(t.engine(), cute_layout::Engine::Ptr(p) if p.space == cute_layout::MemSpace::Smem);
        let (a_once, b_once) = (shared(a), shared(b));
        let dims = |t: &Tensor| {
            warp_dims(t).ok_or_else(|| self.err(here, None, format!("{t}: not a (V,X,Y) fragment")))
        };
        let ((va, mm, ka), (vb, nn, _), (vc, _, _)) = (dims(a)?, dims(b)?, dims(c)?);
        let shape = op.shape_mnk();
        let dim = |i: usize| {
            shape
                .leaves()
                .get(i)
                .and_then(|x| x.as_static())
                .unwrap_or(1)
        };
        let (am, an, ak) = (dim(0), dim(1), dim(2));
        let (al, bl, cl) = (op.a_layout(), op.b_layout(), op.c_layout());
        let [_, ta, tb, _] = op.types();
        let input = |t: ElemType, x: f64| {
            if t == ElemType::Tf32 {
                crate::interp::round(t, x)
            } else {
                x
            }
        };
        let order = mma_order(mm, nn, ka);
        for &w in &warps {
            for &(kk, m, n) in &order {
                let mut ta_ = vec![0.0; (am * ak) as usize];
                let mut tb_ = vec![0.0; (an * ak) as usize];
                let mut tc_ = vec![0.0; (am * an) as usize];
                let g = group as usize;
                for lane in 0..g {
                    let t = g * w + lane;
                    if lane == 0 || !a_once {
                        for v in 0..va {
                            let x = at_in(&al, group, lane, v).unwrap_or(-1) as usize;
                            ta_[x] = input(ta, self.read(a, v + va * (m + mm * kk), t, here)?);
                        }
                    }
                    if lane == 0 || !b_once {
                        for v in 0..vb {
                            let x = at_in(&bl, group, lane, v).unwrap_or(-1) as usize;
                            tb_[x] = input(tb, self.read(b, v + vb * (n + nn * kk), t, here)?);
                        }
                    }
                    // the first k block of an overwriting gemm does not read C
                    if !(overwrite && kk == 0) {
                        for v in 0..vc {
                            let x = at_in(&cl, group, lane, v).unwrap_or(-1) as usize;
                            tc_[x] = self.read(c, v + vc * (m + mm * n), t, here)?;
                        }
                    }
                }
                for lane in 0..g {
                    let t = g * w + lane;
                    for v in 0..vc {
                        let x = at_in(&cl, group, lane, v).unwrap_or(-1);
                        let (mi, ni) = (x % am, x / am);
                        let dot: f64 = (0..ak)
                            .map(|q| ta_[(mi + am * q) as usize] * tb_[(ni + an * q) as usize])
                            .sum();
                        self.write(c, v + vc * (m + mm * n), t, tc_[x as usize] + dot, here)?;
                    }
                }
            }
        }
        self.tick(
            (order.len() as i64 * am * an * ak) as u64 * warps.len() as u64,
            here,
        )
    }
}
