//! Kernels that are not GEMMs, written with the builder ([`crate::ir::KernelBuilder`]) as a CuTe
//! kernel body is written: `transpose` (a tiled transpose through a swizzled shared tile) and
//! `row-softmax` (a fused elementwise and row-reduction kernel).
//!
//! Each recipe comes in variants, fastest first: a 128-bit vector variant whose launch
//! requirements (divisible sizes and leading dimensions, from the alignment pass) may not hold,
//! then a scalar one that runs anywhere. The runtime launches the first whose requirements hold.

mod gemm_pipelined;
mod softmax;
mod transpose;

pub use gemm_pipelined::sgemm_sm80_ir;
pub use softmax::row_softmax;
pub use transpose::transpose;

use cute_layout::ElemType;

use crate::error::{CodegenError, Result};
use crate::ir::Kernel;

/// The recipe names, as `cute emit --list` prints them.
pub const NAMES: &[&str] = &["transpose", "transpose-f16", "row-softmax"];

/// The variants of the recipe called `name`, fastest first.
pub fn variants(name: &str) -> Result<Vec<Kernel>> {
    match name {
        "transpose" => Ok(vec![
            transpose(ElemType::F32, true)?,
            transpose(ElemType::F32, false)?,
        ]),
        "transpose-f16" => Ok(vec![
            transpose(ElemType::F16, true)?,
            transpose(ElemType::F16, false)?,
        ]),
        "row-softmax" => Ok(vec![row_softmax(true)?, row_softmax(false)?]),
        _ => Err(CodegenError::Unknown(name.to_string())),
    }
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
