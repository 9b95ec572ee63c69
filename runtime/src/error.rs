//! The runtime crate's error type.

use thiserror::Error;

/// What went wrong compiling or running a kernel.
#[derive(Debug, Clone, Error)]
pub enum RuntimeError {
    /// NVRTC (libnvrtc) could not be found.
    #[error("NVRTC not found: {0}")]
    NvrtcMissing(String),
    /// NVRTC refused the source: its log, and the source with line numbers.
    #[error("NVRTC failed to compile {kernel} for {arch}:\n{log}\n--- source ---\n{numbered}")]
    Compile {
        kernel: String,
        arch: String,
        log: String,
        numbered: String,
    },
    /// An NVRTC call failed.
    #[error("NVRTC: {0}")]
    Nvrtc(String),
    /// No GPU or no driver.
    #[error("no GPU: {0}")]
    NoGpu(String),
    /// A driver call (load, launch, copy) failed.
    #[error("CUDA driver: {0}")]
    Driver(String),
    /// cuBLAS failed.
    #[error("cuBLAS: {0}")]
    Cublas(String),
    /// A problem the kernel cannot run (sizes, buffers, a requirement of its fast path).
    #[error("{0}")]
    Problem(String),
    /// Code generation failed.
    #[error(transparent)]
    Codegen(#[from] cute_codegen::CodegenError),
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, RuntimeError>;
