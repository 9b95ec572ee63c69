//! Copy and MMA atoms and their tilings over threads: CuTe's `Copy_Atom` / `TiledCopy` and
//! `MMA_Atom` / `TiledMMA`, with the SM75/SM80 atom catalog.
//!
//! Atoms are types ([`copy_op`] and [`mma_op`] define zero-sized operation types such as
//! `SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>` and `SM80_16x8x8_F32TF32TF32F32_TN`), each of which
//! gives its runtime description ([`CopyOp`], [`MmaOp`]): the thread and value layouts of CuTe's
//! `Copy_Traits` / `MMA_Traits` and the PTX it lowers to.

pub mod copy_op;
pub mod draw;
pub mod gmma;
pub mod gmma_desc;
pub mod mma_op;
mod tiled_copy;
mod tiled_mma;
pub mod tma;
mod tma_copy;

pub use copy_op::{CopyOp, CopyOperation};
pub use gmma::{Gmma, GmmaMajor};
pub use gmma_desc::{gmma_layout_atom, make_gmma_desc, GmmaDescriptor, GmmaSwizzle};
pub use mma_op::{MmaOp, MmaOperation};
pub use tiled_copy::{
    make_tiled_copy, make_tiled_copy_A, make_tiled_copy_B, make_tiled_copy_C, CopyAtom, ThrCopy,
    TiledCopy,
};
pub use tiled_mma::{make_tiled_mma, MmaAtom, Operand, ThrMma, TiledMma};
pub use tma::{make_tma_box, TmaBox, TmaDim, TmaIssue, TmaSwizzle};
pub use tma_copy::{make_tma_copy, TmaOp, TmaShare, TMA_MULTICAST_MAX};

use crate::error::{Error, Result};
use crate::int::Int;
use crate::layout::Layout;

/// `get_slice(thr_idx)` accepts a symbolic index (`tid`) and a known one in `0..threads`.
/// The thread index of a slice, refused when it is known and outside `0..threads`; a symbol
/// (`tid`) is taken as an index, which may be 0.
fn thread_index(op: &'static str, index: &Int, threads: &Int) -> Result<Int> {
    let out_of_range = match (index, index.value(), threads.value()) {
        (Int::Basis(..), _, _) => true,
        (_, Some(i), Some(n)) => i < 0 || i >= n,
        (_, Some(i), None) => i < 0,
        (_, None, _) => false,
    };
    if out_of_range {
        return Err(Error::ThreadIndex {
            op,
            index: index.clone(),
            threads: threads.clone(),
        });
    }
    index.as_index()
}

/// A layout written in CuTe notation, for the constant layouts of the atom catalog.
///
/// The literals are fixed by this crate and checked by its tests; they are never user input.
pub(crate) fn lit(src: &str) -> Layout {
    match crate::expr::eval(src) {
        Ok(crate::expr::Value::Layout(crate::AnyLayout::Plain(l))) => l,
        other => unreachable!("atom layout literal {src} gave {other:?}"),
    }
}
