//! Compiles generated CUDA with NVRTC and launches it through cudarc. This is the only crate that
//! touches the CUDA libraries.

pub mod api;
pub mod auto;
pub mod bench;
pub mod cache;
pub mod check;
pub mod cublaslt_fp8;
mod error;
pub mod gemm;
pub mod gpu;
pub mod launch;
pub mod nvrtc;
pub mod recipe;
pub mod split_k;
pub mod stream_k;
pub mod tensor_core;
pub mod tensor_map;
pub mod testing;
pub mod tuning;

pub use error::{Result, RuntimeError, NVRTC_INSTALL};

/// cuBLAS's handle type, for callers that time against it.
pub use cudarc::cublas::CudaBlas;
