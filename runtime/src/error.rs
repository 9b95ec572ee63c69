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
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, RuntimeError>;
