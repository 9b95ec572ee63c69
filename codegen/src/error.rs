//! The codegen crate's error type.

use thiserror::Error;

/// A plan that cannot be lowered: the message names the plan part and the failed condition.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CodegenError {
    /// A part of the plan does not fit the others (verification before emission).
    #[error("plan {plan}: {part}: {msg}")]
    Plan {
        plan: String,
        part: &'static str,
        msg: String,
    },
    /// The layout algebra refused an operation while planning.
    #[error("plan {plan}: {part}: {source}")]
    Layout {
        plan: String,
        part: &'static str,
        source: cute_layout::Error,
    },
    /// A kernel built with the IR that does not check: the statement and the condition.
    #[error("kernel {kernel}: {stmt}: {msg}")]
    Kernel {
        kernel: String,
        stmt: String,
        msg: String,
    },
    /// No target of that name (`Target::parse`).
    #[error("unknown target '{0}': the code generator targets sm_80, sm_86, sm_89, sm_90a")]
    UnknownTarget(String),
    /// No plan of that name.
    #[error("unknown kernel '{0}' (cute emit --list names them)")]
    Unknown(String),
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, CodegenError>;
