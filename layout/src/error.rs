//! The one error type of the layout crate.

use thiserror::Error;

/// Everything that can go wrong in the algebra, the parser or the evaluator.
///
/// Each message names the operation and the condition that failed, with the inputs in CuTe
/// notation, e.g. `composition: shape _3 of B does not divide ... (Shape Divisibility Condition)`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Error {
    /// An algebra operation whose precondition does not hold (C++ CuTe rejects it at compile time
    /// with a `static_assert`).
    #[error("{op}: {msg}")]
    Algebra { op: &'static str, msg: String },
    /// An arithmetic result that does not fit in 64 bits, or a division by zero. `op` is the
    /// CuTe operation being evaluated when it is known.
    #[error("{op}: {what} in {expr}")]
    Arithmetic {
        op: String,
        what: &'static str,
        expr: String,
    },
    /// A malformed expression.
    #[error("parse error at column {col}: {msg}")]
    Parse { col: usize, msg: String },
    /// A well-formed expression that cannot be evaluated (unknown function, wrong argument kind).
    #[error("{0}")]
    Eval(String),
    /// A thread index outside `0..threads` given to a tiling (`TiledCopy::get_slice(256)` of a
    /// 256-thread copy). C++ CuTe does not check; its partitions would address other threads'
    /// data.
    #[error("{op}: thread index {index} is out of range for {threads} threads (0..{threads})")]
    ThreadIndex {
        op: &'static str,
        index: crate::int::Int,
        threads: crate::int::Int,
    },
    /// An operation that needs known values met a symbolic one (`M`): swizzling, tables and
    /// pictures need numbers. Not an error of the expression itself, so the proc-macros defer such
    /// expressions to run time.
    #[error("{0}")]
    Symbolic(String),
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Reports the error as raised inside the operation `name` the user called: an arithmetic
    /// error gets its name, an inner operation's error is prefixed with it
    /// (`blocked_product: logical_product: ...`).
    pub fn in_op(self, name: &'static str) -> Error {
        match self {
            Error::Arithmetic { op, what, expr } if op == ARITHMETIC => Error::Arithmetic {
                op: name.to_string(),
                what,
                expr,
            },
            Error::Algebra { op, msg } if op != name => Error::Algebra {
                op: name,
                msg: format!("{op}: {msg}"),
            },
            other => other,
        }
    }
}

/// The operation named by arithmetic errors raised outside any named operation.
pub(crate) const ARITHMETIC: &str = "integer arithmetic";

/// Shorthand for [`Error::Algebra`].
pub(crate) fn algebra(op: &'static str, msg: impl Into<String>) -> Error {
    Error::Algebra {
        op,
        msg: msg.into(),
    }
}
