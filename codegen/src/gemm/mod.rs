//! GEMM plans and their emitters.

mod common;
mod frag;
mod naive;
mod pipelined;
pub mod plan;
mod tiled;
mod verify;

pub(crate) use frag::{copy as frag_copy, mma as frag_mma, tensor as frag_tensor};
pub use plan::{Bias, Epilogue, GemmLayout, GemmPlan, Major, Pipelined, Policy};
pub(crate) use verify::{bank_ways, copy_bank_ways, smem_offsets};

use crate::error::Result;
use crate::kernel::Kernel;

/// Verifies a plan and lowers it to CUDA C++.
pub fn emit(plan: &GemmPlan) -> Result<Kernel> {
    common::check_names(plan)?;
    match &plan.policy {
        Policy::Naive { .. } => naive::emit(plan),
        Policy::SmemTiled { .. } => tiled::emit(plan),
        Policy::Pipelined(_) => pipelined::emit(plan),
    }
}
