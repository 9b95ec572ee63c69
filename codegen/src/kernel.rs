//! An emitted kernel: its name, its CUDA C++ source, and how to launch it.

use std::fmt;

use cute_layout::{ElemType, Int};

use crate::target::Target;

/// A kernel parameter: a name and a type. The runtime binds arguments to parameters by position
/// and checks each one's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub ty: ParamType,
}

/// The type of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    /// An integer size, leading dimension or count (`int`, or `long long` in a kernel built
    /// for 64-bit indices).
    Int,
    /// A scalar of an element type (`float alpha`).
    Scalar(ElemType),
    /// A global pointer: `const T*` (read) or `T*` (written), aligned to `align` bytes.
    Ptr {
        elem: ElemType,
        writable: bool,
        align: i64,
    },
    /// A TMA tensor map over a global tensor of `elem` (`const __grid_constant__
    /// cute_tensor_map`, CUDA's 128-byte `CUtensorMap`): the argument is the tensor's buffer,
    /// which the runtime encodes as the kernel's [`TensorMap`] of that name says.
    TensorMap { elem: ElemType },
}

/// The tensor map a [`ParamType::TensorMap`] parameter is encoded with
/// (`cuTensorMapEncodeTiled`): its dimensions' extents and strides as expressions of the
/// integer parameters, its box, swizzle and element type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorMap {
    /// The parameter.
    pub param: String,
    /// The box and the tensor's dimensions (`cute_layout::atom::make_tma_box`).
    pub tma: cute_layout::atom::TmaBox,
}

impl Param {
    /// An integer parameter (`M`, `ldA`).
    pub fn int(name: &str) -> Param {
        Param::new(name, ParamType::Int)
    }

    /// A scalar parameter (`alpha`).
    pub fn scalar(name: &str, elem: ElemType) -> Param {
        Param::new(name, ParamType::Scalar(elem))
    }

    /// A read-only global pointer, 16-byte aligned.
    pub fn input(name: &str, elem: ElemType) -> Param {
        Param::new(
            name,
            ParamType::Ptr {
                elem,
                writable: false,
                align: 16,
            },
        )
    }

    /// A written global pointer, 16-byte aligned.
    pub fn output(name: &str, elem: ElemType) -> Param {
        Param::new(
            name,
            ParamType::Ptr {
                elem,
                writable: true,
                align: 16,
            },
        )
    }

    fn new(name: &str, ty: ParamType) -> Param {
        Param {
            name: name.to_string(),
            ty,
        }
    }

    /// The parameter's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its C++ declaration, integers declared as `index` (`int` or `long long`).
    ///
    /// ```
    /// # use cute_codegen::Param;
    /// # use cute_layout::ElemType::F32;
    /// assert_eq!(Param::input("A", F32).declaration("int"), "const float* __restrict__ A");
    /// assert_eq!(Param::int("M").declaration("long long"), "long long M");
    /// ```
    pub fn declaration(&self, index: &str) -> String {
        let n = &self.name;
        match self.ty {
            ParamType::Int => format!("{index} {n}"),
            ParamType::Scalar(e) => format!("{} {n}", crate::cuda::ctype(e)),
            ParamType::Ptr {
                elem,
                writable: false,
                ..
            } => {
                format!("const {}* __restrict__ {n}", crate::cuda::ctype(elem))
            }
            ParamType::Ptr {
                elem,
                writable: true,
                ..
            } => {
                format!("{}* __restrict__ {n}", crate::cuda::ctype(elem))
            }
            ParamType::TensorMap { .. } => {
                format!("const __grid_constant__ cute_tensor_map {n}")
            }
        }
    }
}

/// A condition the runtime checks before launching (the divisible-only fast paths and vector
/// widths that need alignment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requirement {
    /// `symbol % by == 0` (e.g. `M % 128 == 0`, `ldA % 4 == 0`), for what `from` says (the
    /// statement or plan part that needs it).
    Divisible {
        symbol: String,
        by: i64,
        from: String,
    },
    /// The pointer is aligned to `bytes`, for what `from` says.
    Aligned {
        pointer: String,
        bytes: i64,
        from: String,
    },
    /// The buffer holds at least `symbol` elements (a fused bias: one per row, `M`, or per
    /// column, `N`).
    Length { buffer: String, symbol: String },
}

impl Requirement {
    /// The condition alone, without where it came from (`ldA % 4 == 0`).
    pub fn condition(&self) -> String {
        match self {
            Requirement::Divisible { symbol, by, .. } => format!("{symbol} % {by} == 0"),
            Requirement::Aligned { pointer, bytes, .. } => {
                format!("{pointer} aligned to {bytes} bytes")
            }
            Requirement::Length { buffer, symbol } => format!("{buffer} holds {symbol} values"),
        }
    }

    /// For a `Divisible` requirement that the integer arguments `ints` fail, what the value is
    /// (`K = 4098`, `Kc = ?` where `ints` does not know the symbol); `None` where it is met or is
    /// not a divisibility requirement. The one test of divisibility for the IR's callers and
    /// the runtime's launch checks.
    pub fn divisible_unmet(&self, ints: &dyn Fn(&str) -> Option<i64>) -> Option<String> {
        match self {
            Requirement::Divisible { symbol, by, .. } => match ints(symbol) {
                Some(v) if *by != 0 && v % by == 0 => None,
                v => Some(format!(
                    "{symbol} = {}",
                    v.map_or("?".into(), |v| v.to_string())
                )),
            },
            _ => None,
        }
    }
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Requirement::Divisible { symbol, by, from } => {
                write!(f, "{symbol} % {by} == 0 ({from})")
            }
            Requirement::Aligned {
                pointer,
                bytes,
                from,
            } => write!(f, "{pointer} aligned to {bytes} bytes ({from})"),
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
    /// The width of its index arithmetic (and of its integer parameters).
    pub index: crate::cuda::IndexWidth,
    /// How each tensor-map parameter is encoded.
    pub tensor_maps: Vec<TensorMap>,
    /// The thread-block cluster (`__cluster_dims__`, compiled into the kernel), whose
    /// dimensions must divide the grid's.
    pub cluster: [i64; 3],
}

impl LaunchSpec {
    /// `(M, N, K)` rounded up to what the kernel requires of them ([`crate::ir::fit_mnk`]).
    pub fn fit_mnk(&self, mnk: (i64, i64, i64)) -> (i64, i64, i64) {
        crate::ir::fit_mnk(&self.requirements, mnk)
    }

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
