//! Copy and MMA atoms and their tilings over threads: CuTe's `Copy_Atom` / `TiledCopy` and
//! `MMA_Atom` / `TiledMMA`, with the SM75/SM80 atom catalog.
//!
//! Atoms are types ([`copy_op`] and [`mma_op`] define zero-sized operation types such as
//! `SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>` and `SM80_16x8x8_F32TF32TF32F32_TN`), each of which
//! gives its runtime description ([`CopyOp`], [`MmaOp`]): the thread and value layouts of CuTe's
//! `Copy_Traits` / `MMA_Traits` and the PTX it lowers to.

pub mod copy_op;
pub mod draw;
pub mod mma_op;
mod tiled_copy;
mod tiled_mma;

pub use copy_op::{CopyOp, CopyOperation};
pub use mma_op::{MmaOp, MmaOperation};
pub use tiled_copy::{make_tiled_copy, CopyAtom, ThrCopy, TiledCopy};
pub use tiled_mma::{make_tiled_mma, MmaAtom, ThrMma, TiledMma};

use crate::layout::Layout;

/// A layout written in CuTe notation, for the constant layouts of the atom catalog.
///
/// The literals are fixed by this crate and checked by its tests; they are never user input.
pub(crate) fn lit(src: &str) -> Layout {
    match crate::expr::eval(src) {
        Ok(crate::expr::Value::Layout(crate::AnyLayout::Plain(l))) => l,
        other => unreachable!("atom layout literal {src} gave {other:?}"),
    }
}
