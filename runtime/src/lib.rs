//! Compiles generated CUDA with NVRTC and (issue 8) launches it through cudarc. This is the only
//! crate that touches the CUDA libraries.

mod error;
pub mod nvrtc;

pub use error::{Result, RuntimeError};
