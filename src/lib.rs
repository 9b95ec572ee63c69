//! `cute`: CuTe's layout algebra in Rust, and a CUDA code generator built on it.
//!
//! This facade re-exports the workspace crates so examples and tests read like CuTe:
//!
//! ```
//! use cute::layout::expr::eval_str;
//! assert_eq!(eval_str("complement((_2,_2):(_1,_6), _24)").unwrap(), "(_3,_2):(_2,_12)");
//! ```

pub use cute_codegen as codegen;
pub use cute_layout as layout;
pub use cute_macros as macros;
pub use cute_macros::{cute, layout, shape, stride, tile};
pub use cute_runtime as runtime;

/// The README's Rust examples are doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
