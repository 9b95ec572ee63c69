//! A CPU interpreter of the kernel IR: it runs every thread of every block of a small launch,
//! statement by statement in lockstep (loops are CTA-uniform and a condition on the thread
//! index masks the threads that do not take a branch, which holds no barrier, so lockstep is
//! one valid schedule), and reports what the GPU would do wrong instead of doing it:
//!
//! - an access outside a buffer (global, shared or register);
//! - a shared-memory race: an element read after another thread's write, or written after
//!   another thread's read or write, with no `__syncthreads()` between;
//! - a read of shared memory a `cp.async` has not yet delivered (`cp.async.wait_group` counts
//!   the groups as the hardware does; a predicated `cp.async` zero-fills);
//! - two threads writing one global element, and a predicated vector that straddles its bound.
//!
//! Arithmetic is `f32` (`fmaf` rounds once), elements are rounded to their type on every store,
//! warp shuffles run the butterfly the CUDA runs. So its output is what the GPU computes, up to
//! the order of floating-point operations the compiler may not change (none here).

mod host;
mod machine;

pub use host::{c_exp, round, HostBuffer, HostTensor};

use crate::error::Result;
use crate::ir::Kernel;

/// An argument, by position: an integer, a scalar or a buffer for a pointer parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Int(i64),
    Scalar(f64),
    Buffer(HostBuffer),
}

/// What a run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Report {
    /// Blocks run.
    pub blocks: i64,
    /// Threads per block.
    pub threads: i64,
    /// Element operations executed (loads, stores, FMAs).
    pub work: u64,
}

/// The most element operations one run may execute (a bound on the interpreter's time, about a
/// minute on one core; a bigger launch is refused up front or stopped with an error).
pub const MAX_WORK: u64 = 400_000_000;

/// Runs `k` with `args` (one per parameter, in order); buffers of written pointers hold the
/// results afterwards.
pub fn run(k: &Kernel, args: &mut [Arg]) -> Result<Report> {
    machine::run(k, args)
}
