//! Lowers a verified kernel plan built from CuTe values to self-contained CUDA C++.
//!
//! Not yet implemented: the GEMM plan and its emitter arrive with issue 7. The crate exists so
//! that the workspace has its final shape and the crate boundary (no CUDA dependency here) holds
//! from the start.
