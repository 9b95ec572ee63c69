//! CuTe literals and expressions checked at Rust compile time. The logic lives in
//! `cute-macros-core` (a normal library, unit-tested and fuzzed); these are thin fronts.
//!
//! ```ignore
//! use cute::{layout, shape, cute};
//! let l = layout!((_128,_32,_3):(_1,_128,_4096));             // a Layout, built at compile time
//! let m: i64 = 4096;
//! let a = layout!((m, _32):(_1, m));                          // (4096,_32):(_1,4096)
//! let c = cute!{ composition((_6,_2):(_8,_2), (_4,_3):(_3,_1)) }; // ((_2,_2),_3):((_24,_2),_8)
//! ```

use cute_macros_core::{expand, Macro};
use proc_macro::TokenStream;

/// `shape!((_128,_32,_3))`: an `IntTuple` in CuTe notation (`_N` static, `8` dynamic, an
/// identifier a Rust variable).
#[proc_macro]
pub fn shape(input: TokenStream) -> TokenStream {
    expand(Macro::Shape, input.into()).into()
}

/// `stride!((_1,_128,_4096))`: an `IntTuple` of strides.
#[proc_macro]
pub fn stride(input: TokenStream) -> TokenStream {
    expand(Macro::Stride, input.into()).into()
}

/// `layout!((_128,_32,_3):(_1,_128,_4096))`: a `Layout`; shape and stride are checked for
/// congruence at compile time.
#[proc_macro]
pub fn layout(input: TokenStream) -> TokenStream {
    expand(Macro::Layout, input.into()).into()
}

/// `tile!(_4:_2, (_2,_4):(_1,_8))`: a by-mode `Tiler` (`make_tile(...)`).
#[proc_macro]
pub fn tile(input: TokenStream) -> TokenStream {
    expand(Macro::Tile, input.into()).into()
}

/// `cute!{ EXPR }`: any expression of the CuTe expression language. Without Rust variables it is
/// evaluated while the program compiles and expands to the value (a `Layout`, `IntTuple`, `Int`,
/// `TiledCopy`, ...); with variables it expands to the runtime evaluation, a
/// `cute::layout::Result<T>` of the type the context asks for. Errors the compiler can see
/// (ranks, divisibility, unknown functions or atoms, a TiledCopy whose values do not fit the
/// atom) are compile errors.
#[proc_macro]
pub fn cute(input: TokenStream) -> TokenStream {
    expand(Macro::Cute, input.into()).into()
}
