//! Global semaphores as the interpreter runs them: its CTAs run one after the other in the
//! grid's linear order, so a wait must find its value already released (by a CTA launched
//! before it, as on the GPU, where those are resident first) or the launch would hang: that
//! is an error naming the value found. A release hands the releasing CTA's history on: a CTA
//! that waits for it may write the global elements the CTAs before it wrote (serial split-K's
//! slices of one tile), which two unordered CTAs may not.

use std::collections::HashSet;

use super::Machine;
use crate::error::Result;
use crate::ir::SemOp;

/// What the semaphores of a launch carry.
#[derive(Default)]
pub(super) struct Semaphores {
    /// The CTAs (linear indices) ordered before the running one by the waits it passed.
    pub before: HashSet<i64>,
    /// Each released semaphore (buffer, element): the releasing CTA and those before it.
    pub released: std::collections::HashMap<(String, usize), HashSet<i64>>,
}

impl Machine<'_> {
    pub(super) fn semaphore(&mut self, op: &SemOp, here: &str) -> Result<()> {
        if self.active.iter().any(|a| !a) {
            return Err(self.err(
                here,
                None,
                "a semaphore reached by only some threads (under a condition on the thread index)",
            ));
        }
        let (sem, value) = op.parts();
        let want = self
            .eval(value, 0)
            .ok_or_else(|| self.err(here, None, format!("the value {value} has no value")))?;
        let r = self.resolve(sem, here)?;
        let i = self.index(&r, sem, 0, 0, here)?;
        self.epoch += 1; // the CTA's barrier
        self.work += 1;
        let key = (r.name.clone(), i);
        match op {
            SemOp::Wait { .. } => {
                let held = self.gread(&r.name, i);
                if held != want as f64 {
                    return Err(self.err(here, Some(0), format!("waits for {}[{i}] to hold {want}, which holds {held}: no CTA launched before this one releases it, so the launch would hang", r.name)));
                }
                if let Some(hist) = self.sems.released.get(&key) {
                    let hist = hist.clone();
                    self.sems.before.extend(hist);
                }
            }
            SemOp::Release { .. } => {
                let mut hist = self.sems.before.clone();
                hist.insert(self.block_linear);
                self.sems.released.insert(key, hist);
                self.gset(&r.name, i, want as f64);
            }
        }
        Ok(())
    }

    fn gread(&self, name: &str, i: usize) -> f64 {
        match self.gbuf.get(name).and_then(|&b| self.args.get(b)) {
            Some(crate::interp::Arg::Buffer(b)) => b.data.get(i).copied().unwrap_or(f64::NAN),
            _ => f64::NAN,
        }
    }

    fn gset(&mut self, name: &str, i: usize, v: f64) {
        if let Some(crate::interp::Arg::Buffer(b)) =
            self.gbuf.get(name).and_then(|&b| self.args.get_mut(b))
        {
            b.set(i, v);
        }
    }
}
