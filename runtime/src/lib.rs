//! Compiles generated CUDA with NVRTC and launches it through cudarc.
//!
//! Not yet implemented: NVRTC compilation, launch and the cuBLAS baseline arrive with issue 8.
//! This is the only crate that will touch the CUDA driver.
