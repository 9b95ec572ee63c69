//! CuTe literals and expressions checked at Rust compile time. The logic lives in
//! `cute-macros-core` (a normal library, unit-tested and fuzzed); these are thin fronts.
//!
//! ```
//! use cute::layout::Layout;
//! use cute::{cute, layout};
//!
//! let s_a: Layout = layout!((_128,_32,_3):(_1,_128,_4096)); // built at compile time
//! assert_eq!(s_a.to_string(), "(_128,_32,_3):(_1,_128,_4096)");
//! let c: Layout = cute! { composition((_6,_2):(_8,_2), (_4,_3):(_3,_1)) }; // computed by the compiler
//! assert_eq!(c.to_string(), "((_2,_2),_3):((_24,_2),_8)");
//! ```
//!
//! # Rust values
//!
//! A dynamic operand is a Rust value: an identifier is a Rust variable, and any other Rust
//! expression is written in braces, `{m * 2}`, `{self.ld}`, `{v.len()}`, `{Int::symbol("M")}`
//! (parsed with `syn`). A Rust integer becomes a dynamic value; a `cute::layout::Int` is itself (a
//! kernel-parameter symbol stays a symbol). A field access or a path such as `self.ld` is accepted
//! only inside braces: outside them `.` is CuTe notation's method call
//! (`tiled_copy.get_slice(tid)`). Braces work wherever a variable does: shapes, strides, tiler
//! elements, function arguments and coordinates in `cute!{}`.
//!
//! ```
//! use cute::layout::{Int, Layout};
//! use cute::{cute, layout, shape};
//!
//! struct Operand {
//!     ld: i64,
//! }
//!
//! impl Operand {
//!     /// (M,BLK_K) -> offset, column-major with leading dimension `ld`.
//!     fn layout(&self, m: i64) -> Layout {
//!         layout!(({m * 2}, _32):(_1, {self.ld}))
//!     }
//! }
//!
//! let a = Operand { ld: 4096 };
//! assert_eq!(a.layout(2048).to_string(), "(4096,_32):(_1,4096)");
//! let tile = vec![128, 32];
//! assert_eq!(shape!(({tile.len()}, _8)).to_string(), "(2,_8)");
//! let (i, j) = (3, 2);
//! let offset: Int = cute! { ((_4,_8):(_1,{a.ld}))({i + 1}, {j}) }?; // 4 + 2*4096
//! assert_eq!(offset.to_string(), "8196");
//! # Ok::<(), cute::layout::Error>(())
//! ```
//!
//! The structure is still checked while the program compiles, each variable and each group in
//! braces standing for a fresh symbol; the message shows the group as written:
//!
//! ```compile_fail
//! let m: i64 = 4096;
//! // error: layout!: make_layout: shape ({m * 2},_3) and stride (_1) are not congruent (rank mismatch)
//! let _ = cute::layout!(({m * 2}, _3):(_1));
//! ```
//!
//! At run time each group is evaluated once, left to right, where the macro is (so `?` and
//! `self` work inside it). A group that is not a Rust expression is a compile error pointing at
//! it, and so is a value that is neither a Rust integer nor an `Int` (`{ "x" }`).

use cute_macros_core::{expand, Macro};
use proc_macro::TokenStream;

/// `shape!((_128,_32,_3))`: an `IntTuple` in CuTe notation (`_N` static, `8` dynamic, an
/// identifier a Rust variable, `{m * 2}` any Rust expression).
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
/// `TiledCopy`, ...); with variables or `{ Rust expressions }` it expands to the runtime
/// evaluation, a `cute::layout::Result<T>` of the type the context asks for. Errors the compiler
/// can see (ranks, divisibility, unknown functions or atoms, a TiledCopy whose values do not fit
/// the atom) are compile errors.
#[proc_macro]
pub fn cute(input: TokenStream) -> TokenStream {
    expand(Macro::Cute, input.into()).into()
}
