//! CuTe's layout algebra in Rust, agreeing with C++ CuTe exactly and printed exactly as CuTe
//! prints.
//!
//! Values: [`Int`] (static `_8` or dynamic `8` / `M`), [`IntTuple`], [`Layout`], [`Tiler`],
//! [`Coord`]. Each algebra operation is one function with CuTe's name, e.g. [`composition`],
//! [`complement`], [`logical_divide`], [`blocked_product`]. The [`expr`] module parses and
//! evaluates CuTe C++ spelling:
//!
//! ```
//! use cute_layout::expr::eval_str;
//! assert_eq!(
//!     eval_str("logical_divide((4096,1024):(_1,4096), (_128,_32))").unwrap(),
//!     "((_128,32),(_32,32)):((_1,_128),(4096,131072))"
//! );
//! ```
//!
//! Nothing here panics on user input: impossible algebra returns an [`Error`] that names the
//! operation and the condition that failed.

mod access;
pub mod atom;
mod by_mode;
mod cast;
mod coalesce;
mod complement;
mod composed;
mod composed_fn;
mod composition;
mod coord;
mod divide;
mod error;
pub mod expr;
mod int;
pub mod int_tuple;
mod inverse;
mod layout;
mod max_common;
mod mixed_bits;
mod numeric;
mod print;
mod print_layout;
mod product;
pub mod static_int;
pub mod stride;
pub mod svg;
mod swizzle;
mod swizzle_algebra;
mod swizzle_slice;
pub mod symbolic;
mod tensor;
mod tile_to_shape;
mod tiler;

pub use access::{
    bank_cells, bank_conflicts, bank_conflicts_of, coalescing, AccessCell, BankReport,
    CoalescingReport, WarpBanks, WarpSectors, MAX_ACCESSES,
};
pub use cast::{downcast, upcast};
pub use coalesce::{coalesce, coalesce_profile, filter, filter_profile, filter_zeros};
pub use complement::{complement, complement_default};
pub use composed::{compose_swizzle, AnyLayout, ComposedLayout};
pub use composed_fn::{compose3, FnComposed, Part};
pub use composition::{composition, composition_tiler};
pub use coord::{dice, make_step, slice, Coord, Step, X};
pub use divide::{flat_divide, logical_divide, tiled_divide, zipped_divide};
pub use error::{Error, Result};
pub use int::{d, s, Int};
pub use int_tuple::IntTuple;
pub use inverse::{left_inverse, right_inverse, Inverse};
pub use layout::Layout;
pub use max_common::{max_common_layout, max_common_vector};
pub use numeric::{bfloat16_t, half_t, tfloat32_t, ElemType, Numeric};
pub use print_layout::{print_layout, MAX_CELLS};
pub use product::{
    blocked_product, flat_product, logical_product, raked_product, tiled_product, zipped_product,
};
pub use static_int::{IntoInt, C};
pub use stride::Major;
pub use swizzle::{Sw, Swizzle};
pub use swizzle_algebra::{
    composition_composed, composition_of_composed, composition_swizzle, composition_swizzles,
    logical_product_swizzled, make_fragment_like, make_layout_of_swizzle, make_swizzle,
    max_common_layout_any, max_common_vector_any, recast_layout, recast_swizzle,
};
pub use tensor::{
    local_partition, local_tile, make_gmem_ptr, make_identity_tensor, make_rmem_ptr, make_smem_ptr,
    make_tensor, Element, Engine, MemSpace, Ptr, Tensor,
};
pub use tile_to_shape::{tile_to_shape, ModeOrder};
pub use tiler::Tiler;
