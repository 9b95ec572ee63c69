//! Thread-block clusters in an interpreter that runs one CTA at a time. The CTAs of a cluster
//! run the same statements (their control flow does not depend on the rank: the kernels'
//! loops and conditions read parameters, the cluster's shared tile coordinates, loop
//! variables and the thread index), so when this CTA reaches a statement that another CTA's
//! copy of it aims at this one — a multicast TMA load whose mask names this CTA, an arrival on
//! this CTA's mbarrier — the interpreter evaluates that CTA's copy (its block index, and the
//! CTA-uniform indices bound from it, evaluated again) and applies what lands here. Each CTA
//! thus sees exactly the boxes and arrivals the cluster sends it, computed from the other CTAs'
//! own expressions: a share multicast to the wrong offset, or a release that misses a CTA,
//! shows as a wrong result or a deadlock.

use cute_layout::Int;

use super::Machine;
use crate::error::Result;
use crate::ir::BarRef;

impl Machine<'_> {
    /// This CTA's rank in its cluster (x fastest) and the blocks of its cluster, by rank.
    fn cluster(&self) -> (i64, Vec<[i64; 3]>) {
        let c = self.k.cluster;
        let base: Vec<i64> = (0..3)
            .map(|i| self.block[i] - self.block[i] % c[i])
            .collect();
        let at = |i: usize| self.block[i] % c[i];
        let rank = at(0) + c[0] * (at(1) + c[1] * at(2));
        let mut blocks = Vec::new();
        for z in 0..c[2] {
            for y in 0..c[1] {
                for x in 0..c[0] {
                    blocks.push([base[0] + x, base[1] + y, base[2] + z]);
                }
            }
        }
        (rank, blocks)
    }

    /// `f` run as the CTA `block` of this cluster: its block index, and the indices bound so
    /// far evaluated again from it; this CTA's afterwards.
    fn as_block<R>(&mut self, block: [i64; 3], f: impl FnOnce(&mut Self) -> R) -> R {
        if block == self.block {
            return f(self);
        }
        let (saved_ints, saved_block) = (self.ints.clone(), self.block);
        self.block = block;
        for (i, n) in ["bx", "by", "bz"].iter().enumerate() {
            self.ints.insert(n.to_string(), block[i]);
        }
        for (var, value) in self.index_defs.clone() {
            if let Some(v) = self.eval(&value, 0) {
                self.ints.insert(var, v);
            }
        }
        self.generation += 1;
        let r = f(self);
        self.ints = saved_ints;
        self.block = saved_block;
        self.generation += 1;
        r
    }

    /// What the cluster's copies of a multicast load send this CTA: `issue` run as each CTA
    /// whose mask (evaluated there) names this one.
    pub(super) fn sent_by_cluster<R>(
        &mut self,
        mask: &Int,
        t: usize,
        here: &str,
        mut issue: impl FnMut(&mut Self) -> Result<R>,
    ) -> Result<Vec<R>> {
        let (rank, blocks) = self.cluster();
        let mut out = Vec::new();
        for block in blocks {
            let sent = self.as_block(block, |m| -> Result<Option<R>> {
                let bits = m.eval(mask, t).filter(|b| (1..1 << 16).contains(b));
                let bits = bits.ok_or_else(|| {
                    m.err(
                        here,
                        Some(t),
                        format!("the multicast mask {mask}: 1 to 2^16 - 1"),
                    )
                })?;
                match bits >> rank & 1 {
                    1 => issue(m).map(Some),
                    _ => Ok(None),
                }
            })?;
            out.extend(sent);
        }
        Ok(out)
    }

    /// The barriers of this CTA that thread `t`'s copies in the cluster arrive on when they
    /// arrive on `bar` of CTA `cta` (one per CTA of the cluster whose `cta` is this one).
    pub(super) fn cluster_arrivals(
        &mut self,
        bar: &BarRef,
        cta: &Int,
        t: usize,
        here: &str,
    ) -> Result<Vec<(String, usize)>> {
        let (rank, blocks) = self.cluster();
        let size = blocks.len() as i64;
        let mut out = Vec::new();
        for block in blocks {
            let key = self.as_block(block, |m| -> Result<Option<(String, usize)>> {
                let to = m.eval(cta, t).filter(|r| (0..size).contains(r));
                let to = to.ok_or_else(|| {
                    m.err(
                        here,
                        Some(t),
                        format!("the CTA {cta}: a rank of the cluster's {size}"),
                    )
                })?;
                match to == rank {
                    true => m.bar_index(bar, t, here).map(Some),
                    false => Ok(None),
                }
            })?;
            out.extend(key);
        }
        Ok(out)
    }
}
