//! GEMM plans and their emitters.

mod common;
mod naive;
pub mod plan;
mod tiled;

pub use plan::{Bias, Epilogue, GemmLayout, GemmPlan, Major, Pipelined, Policy};

use crate::error::Result;
use crate::kernel::Kernel;

/// Verifies a plan and lowers it to CUDA C++.
pub fn emit(plan: &GemmPlan) -> Result<Kernel> {
    match &plan.policy {
        Policy::Naive { .. } => naive::emit(plan),
        Policy::SmemTiled { .. } => tiled::emit(plan),
        Policy::Pipelined(_) => Err(plan.error("policy", "pipelined plans are not emitted yet")),
    }
}
