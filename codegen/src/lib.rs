//! Lowers a verified kernel plan built from CuTe values to self-contained CUDA C++.
//!
//! The plan holds CuTe values (layouts, tilers, TiledCopy, TiledMMA); the emitter asks the layout
//! algebra for every index, with the thread and block indices as symbols, and writes readable
//! CUDA through [`writer::Writer`]: static values folded to literals, special instructions as
//! inline PTX, no CUTLASS or CuTe headers. This crate knows nothing of CUDA's runtime: the
//! `cute-runtime` crate compiles and launches what it writes.

pub mod cexpr;
pub mod cuda;
mod error;
pub mod gemm;
pub mod interp;
pub mod ir;
pub mod kernel;
mod lower;
pub mod named;
pub mod passes;
pub mod recipes;
pub mod select;
pub mod target;
pub mod writer;

pub use error::{CodegenError, Result};
pub use gemm::{emit, GemmLayout, GemmPlan};
pub use kernel::{Kernel, LaunchSpec, Param, ParamType, Requirement, TensorMap};
pub use target::{Arch, Target};
