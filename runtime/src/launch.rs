//! The one launch path: arguments bound to a kernel's parameters by position and checked by
//! type, the grid evaluated from the integer arguments and checked against CUDA's limits, the
//! kernel's divisibility requirements checked, then the launch. The GEMM API and the recipes'
//! runners are layers over it.

use cudarc::driver::{CudaSlice, DevicePtr, LaunchConfig, PushKernelArg};
use cute_codegen::cuda::IndexWidth;
use cute_codegen::{Kernel, ParamType, Requirement};
use cute_layout::ElemType;

use crate::error::{Result, RuntimeError};
use crate::gpu::{Gpu, Loaded};
use crate::tensor_map::{encode, TensorMapArg};

/// A device buffer of a kernel argument.
#[derive(Clone, Copy)]
pub enum Buf<'a> {
    F32(&'a CudaSlice<f32>),
    F64(&'a CudaSlice<f64>),
    /// 16-bit floats (`F16` or `Bf16`) as their bits.
    Bits16(&'a CudaSlice<u16>, ElemType),
    /// 8-bit floats (`E4M3`, `E5M2`) or integers (`I8`, `U8`) as their bits.
    Bits8(&'a CudaSlice<u8>, ElemType),
    /// 32-bit integers (serial split-K's semaphores).
    I32(&'a CudaSlice<i32>),
}

impl Buf<'_> {
    /// The element type.
    pub fn elem(&self) -> ElemType {
        match self {
            Buf::F32(_) => ElemType::F32,
            Buf::F64(_) => ElemType::F64,
            Buf::Bits16(_, e) | Buf::Bits8(_, e) => *e,
            Buf::I32(_) => ElemType::I32,
        }
    }

    /// Elements it holds.
    pub fn len(&self) -> usize {
        match self {
            Buf::F32(s) => s.len(),
            Buf::F64(s) => s.len(),
            Buf::Bits16(s, _) => s.len(),
            Buf::Bits8(s, _) => s.len(),
            Buf::I32(s) => s.len(),
        }
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A kernel argument, by position.
#[derive(Clone, Copy)]
pub enum Arg<'a> {
    /// An integer (passed as the kernel's index type).
    Int(i64),
    /// A scalar (passed as the parameter's type).
    Scalar(f64),
    /// A buffer for a pointer parameter.
    Buf(Buf<'a>),
}

/// CUDA's grid limits: x below 2^31, y and z at most 65535.
const GRID_MAX: [i64; 3] = [(1 << 31) - 1, 65535, 65535];

/// The integer arguments by parameter name.
pub fn int_env<'a>(kernel: &'a Kernel, args: &'a [Arg]) -> impl Fn(&str) -> Option<i64> + 'a {
    move |name: &str| {
        kernel
            .launch
            .params
            .iter()
            .zip(args)
            .find(|(p, _)| p.name == name)
            .and_then(|(_, a)| match a {
                Arg::Int(v) => Some(*v),
                _ => None,
            })
    }
}

/// Checks the arguments against the parameters (count, types, element types, the index width)
/// and the kernel's requirements; returns the grid.
pub fn check_args(kernel: &Kernel, args: &[Arg]) -> Result<[u32; 3]> {
    let bad = |m: String| RuntimeError::Problem(format!("{}: {m}", kernel.name));
    let params = &kernel.launch.params;
    if args.len() != params.len() {
        return Err(bad(format!(
            "{} arguments for {} parameters",
            args.len(),
            params.len()
        )));
    }
    for (i, (p, a)) in params.iter().zip(args).enumerate() {
        let ok = match (p.ty, a) {
            (ParamType::Int, Arg::Int(v)) => {
                kernel.launch.index == IndexWidth::I64 || i32::try_from(*v).is_ok()
            }
            (ParamType::Scalar(ElemType::F32 | ElemType::F64), Arg::Scalar(_)) => true,
            // TF32 operands live in FP32 buffers (the tensor cores read their top 19 bits)
            (ParamType::Ptr { elem, .. } | ParamType::TensorMap { elem }, Arg::Buf(b)) => {
                b.elem() == elem || (elem == ElemType::Tf32 && b.elem() == ElemType::F32)
            }
            _ => false,
        };
        if !ok {
            let why = match a {
                Arg::Int(_) => "a 32-bit kernel takes integers below 2^31".to_string(),
                Arg::Buf(b) => format!("a buffer of {}", b.elem()),
                Arg::Scalar(_) => "a scalar".to_string(),
            };
            return Err(bad(format!(
                "argument {i} does not fit parameter {} ({:?}; {why})",
                p.name, p.ty
            )));
        }
    }
    let env = int_env(kernel, args);
    for r in &kernel.launch.requirements {
        if let Requirement::Divisible { symbol, by, .. } = r {
            match env(symbol) {
                Some(v) if v % by == 0 => {}
                v => return Err(bad(format!("needs {r}, but {symbol} = {}", v.unwrap_or(0)))),
            }
        }
        // device allocations are 256-byte aligned, which covers `Aligned`; lengths are the
        // caller's (the GEMM layer checks its own)
    }
    grid(kernel, &env, "the launch")
}

/// The grid for integer arguments `env`, checked against CUDA's limits (`what` names the
/// problem in messages).
pub fn grid(kernel: &Kernel, env: &dyn Fn(&str) -> Option<i64>, what: &str) -> Result<[u32; 3]> {
    let mut grid = [1u32; 3];
    for ((g, e), (axis, max)) in grid
        .iter_mut()
        .zip(&kernel.launch.grid)
        .zip(["x", "y", "z"].into_iter().zip(GRID_MAX))
    {
        let v = e.evaluate(env).ok_or_else(|| {
            RuntimeError::Problem(format!(
                "{}: grid size {e} has unbound symbols",
                kernel.name
            ))
        })?;
        if !(1..=max).contains(&v) {
            return Err(RuntimeError::Problem(format!(
                "{} on {what}: gridDim.{axis} = {e} = {v}, beyond CUDA's 1..{max}",
                kernel.name
            )));
        }
        *g = v as u32;
    }
    for ((g, c), axis) in grid.iter().zip(kernel.launch.cluster).zip(["x", "y", "z"]) {
        if c < 1 || i64::from(*g) % c != 0 {
            return Err(RuntimeError::Problem(format!(
                "{} on {what}: a cluster of {c} CTAs along {axis} does not divide gridDim.{axis} = {g}",
                kernel.name
            )));
        }
    }
    Ok(grid)
}

/// Launches a loaded kernel (asynchronously on the GPU's stream) after [`check_args`].
pub fn launch(gpu: &Gpu, loaded: &Loaded, args: &[Arg]) -> Result<()> {
    let kernel = &loaded.kernel;
    let grid = check_args(kernel, args)?;
    let spec = &kernel.launch;
    let cfg = LaunchConfig {
        grid_dim: (grid[0], grid[1], grid[2]),
        block_dim: (
            spec.block[0] as u32,
            spec.block[1] as u32,
            spec.block[2] as u32,
        ),
        shared_mem_bytes: spec.dynamic_smem_bytes as u32,
    };
    // the values the builder points at live until the launch
    let wide = spec.index == IndexWidth::I64;
    let ints32: Vec<i32> = args
        .iter()
        .map(|a| match a {
            Arg::Int(v) => *v as i32,
            _ => 0,
        })
        .collect();
    let ints64: Vec<i64> = args
        .iter()
        .map(|a| match a {
            Arg::Int(v) => *v,
            _ => 0,
        })
        .collect();
    let f32s: Vec<f32> = args
        .iter()
        .map(|a| match a {
            Arg::Scalar(v) => *v as f32,
            _ => 0.0,
        })
        .collect();
    let f64s: Vec<f64> = args
        .iter()
        .map(|a| match a {
            Arg::Scalar(v) => *v,
            _ => 0.0,
        })
        .collect();
    let maps = tensor_maps(gpu, kernel, args)?;
    let mut b = gpu.stream.launch_builder(&loaded.func);
    for (i, (p, a)) in spec.params.iter().zip(args).enumerate() {
        match (a, p.ty) {
            (_, ParamType::TensorMap { .. }) => match &maps[i] {
                Some(m) => b.arg(m),
                None => unreachable!("tensor_maps encodes every tensor-map parameter"),
            },
            (Arg::Int(_), _) if wide => b.arg(&ints64[i]),
            (Arg::Int(_), _) => b.arg(&ints32[i]),
            (Arg::Scalar(_), ParamType::Scalar(ElemType::F64)) => b.arg(&f64s[i]),
            (Arg::Scalar(_), _) => b.arg(&f32s[i]),
            (Arg::Buf(Buf::F32(s)), _) => b.arg(*s),
            (Arg::Buf(Buf::F64(s)), _) => b.arg(*s),
            (Arg::Buf(Buf::Bits16(s, _)), _) => b.arg(*s),
            (Arg::Buf(Buf::Bits8(s, _)), _) => b.arg(*s),
            (Arg::Buf(Buf::I32(s)), _) => b.arg(*s),
        };
    }
    // SAFETY: `check_args` matched every argument to its parameter's type and checked the
    // kernel's requirements; the callers check the buffers' lengths against what the kernel
    // addresses (every access outside the problem is predicated).
    unsafe { b.launch(cfg) }.map_err(RuntimeError::driver(format!("launch of {}", kernel.name)))?;
    Ok(())
}

/// The encoded tensor map of each tensor-map parameter (by position; `None` elsewhere), over
/// its argument's buffer.
fn tensor_maps(
    gpu: &Gpu,
    kernel: &cute_codegen::Kernel,
    args: &[Arg],
) -> Result<Vec<Option<TensorMapArg>>> {
    let env = int_env(kernel, args);
    let spec = &kernel.launch;
    spec.params
        .iter()
        .zip(args)
        .map(|(p, a)| {
            let ParamType::TensorMap { .. } = p.ty else {
                return Ok(None);
            };
            let map = spec
                .tensor_maps
                .iter()
                .find(|m| m.param == p.name)
                .ok_or_else(|| {
                    RuntimeError::Problem(format!(
                        "{}: parameter {} has no tensor map",
                        kernel.name, p.name
                    ))
                })?;
            let base = match a {
                Arg::Buf(Buf::F32(s)) => s.device_ptr(&gpu.stream).0,
                Arg::Buf(Buf::F64(s)) => s.device_ptr(&gpu.stream).0,
                Arg::Buf(Buf::Bits16(s, _)) => s.device_ptr(&gpu.stream).0,
                Arg::Buf(Buf::Bits8(s, _)) => s.device_ptr(&gpu.stream).0,
                Arg::Buf(Buf::I32(s)) => s.device_ptr(&gpu.stream).0,
                _ => {
                    return Err(RuntimeError::Problem(format!(
                        "{}: the tensor map {} takes a buffer",
                        kernel.name, p.name
                    )))
                }
            };
            encode(map, base, &env).map(Some)
        })
        .collect()
}
