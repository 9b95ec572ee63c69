//! An emitted kernel: its name, its CUDA C++ source, and how to launch it.

use std::fmt;

use cute_layout::Int;

use crate::target::Target;

/// A kernel parameter, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Param {
    /// An `int` problem symbol (`M`, `N`, `K`, `ldA`, ...).
    Int(&'static str),
    /// A `float` scalar (`alpha`, `beta`).
    Float(&'static str),
    /// A `const float*` input.
    In(&'static str),
    /// A `float*` output.
    Out(&'static str),
}

impl Param {
    /// The parameter's name.
    pub fn name(&self) -> &'static str {
        match self {
            Param::Int(n) | Param::Float(n) | Param::In(n) | Param::Out(n) => n,
        }
    }

    /// Its C++ declaration.
    pub fn declaration(&self) -> String {
        match self {
            Param::Int(n) => format!("int {n}"),
            Param::Float(n) => format!("float {n}"),
            Param::In(n) => format!("const float* __restrict__ {n}"),
            Param::Out(n) => format!("float* __restrict__ {n}"),
        }
    }
}

/// A condition the runtime checks before launching (the divisible-only fast paths and vector
/// widths that need alignment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requirement {
    /// `symbol % by == 0` (e.g. `M % 128 == 0`, `ldA % 4 == 0`).
    Divisible { symbol: &'static str, by: i64 },
    /// The pointer is aligned to `bytes`.
    Aligned { pointer: &'static str, bytes: i64 },
    /// The buffer holds at least `symbol` elements (a fused bias: one per row, `M`, or per
    /// column, `N`).
    Length {
        buffer: &'static str,
        symbol: &'static str,
    },
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Requirement::Divisible { symbol, by } => write!(f, "{symbol} % {by} == 0"),
            Requirement::Aligned { pointer, bytes } => {
                write!(f, "{pointer} aligned to {bytes} bytes")
            }
            Requirement::Length { buffer, symbol } => {
                write!(f, "{buffer} holds {symbol} values")
            }
        }
    }
}

/// How to launch a kernel: sizes as expressions of the problem symbols.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchSpec {
    /// gridDim.x, .y, .z.
    pub grid: [Int; 3],
    /// blockDim.x, .y, .z.
    pub block: [i64; 3],
    /// Dynamic shared memory in bytes (above 48 KiB the runtime must opt in).
    pub dynamic_smem_bytes: i64,
    /// The parameters, in order.
    pub params: Vec<Param>,
    /// What must hold for this kernel to be launched.
    pub requirements: Vec<Requirement>,
}

impl LaunchSpec {
    /// Whether the kernel needs the opt-in to more than 48 KiB of dynamic shared memory.
    pub fn needs_smem_opt_in(&self) -> bool {
        self.dynamic_smem_bytes > 48 * 1024
    }
}

/// A generated kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// The `extern "C"` name.
    pub name: String,
    /// Self-contained CUDA C++ (no headers).
    pub source: String,
    /// The launch.
    pub launch: LaunchSpec,
    /// The GPU it was verified and written for; the runtime compiles it for `target.name()`.
    pub target: Target,
}
