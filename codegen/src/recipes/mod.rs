//! Kernels written with the builder ([`crate::ir::KernelBuilder`]) as a CuTe kernel body is
//! written: the named recipes `transpose` (a tiled transpose through a swizzled shared tile) and
//! `row-softmax` (a fused elementwise and row-reduction kernel), and the IR kernel of every GEMM
//! plan ([`gemm`]), with the problems that check them on the CPU ([`case`], [`gemm_case`]).
//!
//! Each named recipe comes in variants, fastest first: a 128-bit vector variant whose launch
//! requirements (divisible sizes and leading dimensions, from the alignment pass) may not hold,
//! then a scalar one that runs anywhere. The runtime launches the first whose requirements hold.

mod epilogue_tma;
mod gemm;
mod gemm_case;
mod gemm_pipelined;
pub mod gemm_simple;
mod gemm_tc;
mod gemm_wgmma;
mod gemm_ws;
mod gemv;
pub mod problem;
mod softmax;
mod split_k;
mod stream_k;
mod transpose;
mod wgmma_tile;

pub use gemm::{gemm, gemm_for};
pub use gemm_case::{
    gemm_case, gemm_case_unreferenced, gemm_inputs, operands, set_reference, GemmOperands,
};
pub use problem::{case, Case, Verdict};
pub use softmax::row_softmax;
pub use split_k::{
    emit_serial_split_k, emit_split_k, emit_split_kernels, k_chunk, semaphores, split_k_reduce,
    workspace_ld, workspace_len, SplitCase, MAX_WORKSPACE,
};
pub use stream_k::{emit_stream_k, schedule, stream_k_reduce, StreamCase, StreamSchedule};
pub use transpose::transpose;
pub use wgmma_tile::wgmma_tile;

use cute_layout::ElemType;

use crate::error::{CodegenError, Result};
use crate::ir::Kernel;
use crate::target::Target;

/// The recipe names, as `cute emit --list` prints them.
pub const NAMES: &[&str] = &["transpose", "transpose-f16", "row-softmax"];

/// The variants of the recipe called `name` for sm_90a, fastest first.
pub fn variants(name: &str) -> Result<Vec<Kernel>> {
    variants_for(name, Target::default())
}

/// The variants of the recipe called `name`, checked and written for `target`, fastest first.
pub fn variants_for(name: &str, t: Target) -> Result<Vec<Kernel>> {
    match name {
        "transpose" => Ok(vec![
            transpose(ElemType::F32, true, t)?,
            transpose(ElemType::F32, false, t)?,
        ]),
        "transpose-f16" => Ok(vec![
            transpose(ElemType::F16, true, t)?,
            transpose(ElemType::F16, false, t)?,
        ]),
        "row-softmax" => Ok(vec![row_softmax(true, t)?, row_softmax(false, t)?]),
        _ => Err(CodegenError::Unknown(name.to_string())),
    }
}

/// The first variant of `name` whose launch requirements hold for the case's integers (the
/// last variant of every recipe runs anywhere).
pub fn pick(variants: &[Kernel], case: &Case) -> Option<usize> {
    variants
        .iter()
        .position(|k| k.admits(&|n| case.int(k, n)).is_ok())
}

/// The layout algebra's error, for the recipe and its step.
pub(crate) fn layout_err(
    name: &str,
    part: &'static str,
) -> impl Fn(cute_layout::Error) -> CodegenError {
    let name = name.to_string();
    move |source| CodegenError::Layout {
        plan: name.clone(),
        part,
        source,
    }
}
