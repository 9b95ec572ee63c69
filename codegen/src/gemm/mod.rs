//! GEMM plans and their emitters.

pub mod banks;
pub(crate) mod common;
mod frag;
pub mod k_major;
mod naive;
pub(crate) mod pipelined;
pub mod plan;
mod tiled;
mod verify;

pub(crate) use frag::{copy as frag_copy, mma as frag_mma, tensor as frag_tensor};
pub use k_major::{KMajorTile, K_MAJOR_PAD};
pub use plan::{
    Bias, Epilogue, GemmLayout, GemmPlan, Gemv, Major, Pipelined, Policy, SplitKMode, TensorCore,
};
pub(crate) use verify::{bank_ways, copy_bank_ways, smem_offsets};

use crate::cuda::IndexWidth;
use crate::error::Result;
use crate::kernel::Kernel;

/// Which emitter writes a plan's CUDA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emitter {
    /// The kernel IR: the plan's recipe built with the builder (`recipes::gemm`), lowered by
    /// the one CUDA writer (`cuda::emit_with`), 32- or 64-bit index arithmetic.
    Ir,
    /// The template emitter: CUDA written directly from the plan, 32-bit index arithmetic.
    Template,
}

/// The emitter a plan's 32-bit kernel comes from: the IR for every plan (its kernels measured
/// at or above the template's speed on the H200 in one GPU call: the naive and tiled plans at
/// 2048^3, the pipelined ones at 4096^3, docs/performance.md), the template only for epilogue
/// functors, which are C++ text. The gate is `cute bench --emitter ir` beside `--emitter
/// template` in one GPU call. This is the one place that decides.
pub fn default_emitter(plan: &GemmPlan) -> Emitter {
    match plan.policy {
        _ if !plan.epilogue.functors.is_empty() => Emitter::Template,
        Policy::Naive { .. }
        | Policy::SmemTiled { .. }
        | Policy::Pipelined(_)
        | Policy::TensorCore(_)
        | Policy::Gemv(_) => Emitter::Ir,
    }
}

/// Verifies a plan and lowers it to CUDA C++ with 32-bit index arithmetic, by its
/// [`default_emitter`].
pub fn emit(plan: &GemmPlan) -> Result<Kernel> {
    emit_by(plan, default_emitter(plan), IndexWidth::I32)
}

/// Verifies a plan and lowers it with index arithmetic `width` bits wide: 32-bit by its
/// [`default_emitter`], 64-bit by the IR (the only emitter with 64-bit indices).
pub fn emit_with(plan: &GemmPlan, width: IndexWidth) -> Result<Kernel> {
    match width {
        IndexWidth::I32 => emit(plan),
        IndexWidth::I64 => emit_by(plan, Emitter::Ir, width),
    }
}

/// Verifies a plan and lowers it by `emitter`. The plan's own checks run first either way: the
/// kernel name and functors (`common::check_names`), a pipelined plan's coverage, budgets and
/// copies (`pipelined::check`, which the IR recipe calls); the naive and tiled recipes check their tiles themselves. The IR
/// refuses epilogue functors, the template 64-bit indices.
pub fn emit_by(plan: &GemmPlan, emitter: Emitter, width: IndexWidth) -> Result<Kernel> {
    match (emitter, width) {
        (Emitter::Template, IndexWidth::I32) => emit_template(plan),
        (Emitter::Template, IndexWidth::I64) => Err(plan.error(
            "index width",
            "the template emitter writes 32-bit index arithmetic only; the IR writes 64-bit",
        )),
        (Emitter::Ir, _) => {
            common::check_names(plan)?;
            // the recipe checks its plan (a pipelined one: `pipelined::check`), and its kernel
            // comes checked from `KernelBuilder::finish`
            crate::cuda::emit_finished(&crate::recipes::gemm_for(plan, width)?, width)
        }
    }
}

/// The template emitter: the plan's checks, then CUDA C++ written directly from the plan (the
/// emitter the IR replaced, kept for what the IR does not express and as the reference its
/// kernels are measured against).
pub fn emit_template(plan: &GemmPlan) -> Result<Kernel> {
    common::check_names(plan)?;
    match &plan.policy {
        Policy::Naive { .. } => naive::emit(plan),
        Policy::SmemTiled { .. } => tiled::emit(plan),
        Policy::Pipelined(_) => pipelined::emit(plan),
        Policy::TensorCore(_) | Policy::Gemv(_) => Err(plan.error(
            "emitter",
            "the template emitter writes the SIMT tile kernels only; tensor-core and GEMV plans come from the IR",
        )),
    }
}
