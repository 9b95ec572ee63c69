//! Running a recipe (`transpose`, `row-softmax`, a user's IR kernel) on the GPU: the variant
//! whose requirements the problem meets, lowered with 32-bit index arithmetic when every buffer
//! fits in 2^31 - 1 elements and 64-bit otherwise, compiled (through the cache), launched through
//! the one launch path, checked against the case's float64 reference, and timed beside the
//! device's own copy of the same bytes (`cuMemcpyDtoD`).

use cudarc::driver::CudaSlice;
use cute_codegen::cuda::{emit_with, IndexWidth};
use cute_codegen::interp::{Arg as HostArg, HostBuffer};
use cute_codegen::ir;
use cute_codegen::recipes::{pick, Case, Verdict};
use cute_layout::ElemType;

use crate::bench::time;
use crate::error::{Result, RuntimeError};
use crate::gpu::{Gpu, Loaded};
use crate::launch::{launch, Arg, Buf};

/// A variant chosen for a case, lowered and loaded.
pub struct Prepared {
    /// The IR kernel.
    pub ir: ir::Kernel,
    /// The index width chosen for the case.
    pub width: IndexWidth,
    /// The compiled and loaded kernel.
    pub loaded: Loaded,
}

/// The index width a case needs: 32-bit when every integer and every buffer fits.
pub fn width_for(args: &[HostArg]) -> IndexWidth {
    let small = args.iter().all(|a| match a {
        HostArg::Int(v) => i32::try_from(*v).is_ok(),
        HostArg::Scalar(_) => true,
        HostArg::Buffer(b) => b.data.len() <= i32::MAX as usize,
    });
    if small {
        IndexWidth::I32
    } else {
        IndexWidth::I64
    }
}

/// The first variant whose requirements hold, lowered for the case's index width, compiled and
/// loaded.
pub fn prepare(gpu: &Gpu, variants: &[ir::Kernel], case: &Case) -> Result<Prepared> {
    let i = pick(variants, case).ok_or_else(|| {
        RuntimeError::Problem(format!(
            "{}: no variant's requirements hold for {} x {}",
            case.recipe, case.m, case.n
        ))
    })?;
    let width = width_for(&case.args);
    let kernel = emit_with(&variants[i], width)?;
    let loaded = gpu.load(&kernel)?;
    Ok(Prepared {
        ir: variants[i].clone(),
        width,
        loaded,
    })
}

/// Device copies of a case's arguments.
pub enum DeviceArg {
    Int(i64),
    Scalar(f64),
    F32(CudaSlice<f32>),
    F64(CudaSlice<f64>),
    Bits16(CudaSlice<u16>, ElemType),
    /// 8-bit floats or integers as their bits.
    Bits8(CudaSlice<u8>, ElemType),
    /// 32-bit integers (serial split-K's semaphores).
    I32(CudaSlice<i32>),
}

/// Uploads a case's arguments.
pub fn upload(gpu: &Gpu, args: &[HostArg]) -> Result<Vec<DeviceArg>> {
    let up = || RuntimeError::driver("upload");
    args.iter()
        .map(|a| {
            Ok(match a {
                HostArg::Int(v) => DeviceArg::Int(*v),
                HostArg::Scalar(v) => DeviceArg::Scalar(*v),
                HostArg::Buffer(b) => match b.elem {
                    // TF32 values are floats (rounded to TF32 by the host buffer)
                    ElemType::F32 | ElemType::Tf32 => {
                        let v: Vec<f32> = b.data.iter().map(|&x| x as f32).collect();
                        DeviceArg::F32(gpu.stream.clone_htod(&v).map_err(up())?)
                    }
                    ElemType::F64 => DeviceArg::F64(gpu.stream.clone_htod(&b.data).map_err(up())?),
                    ElemType::F16 | ElemType::Bf16 => {
                        let v: Vec<u16> = b.data.iter().map(|&x| bits16(b.elem, x)).collect();
                        DeviceArg::Bits16(gpu.stream.clone_htod(&v).map_err(up())?, b.elem)
                    }
                    ElemType::E4M3 | ElemType::E5M2 | ElemType::I8 | ElemType::U8 => {
                        let v: Vec<u8> = b.data.iter().map(|&x| bits8(b.elem, x)).collect();
                        DeviceArg::Bits8(gpu.stream.clone_htod(&v).map_err(up())?, b.elem)
                    }
                    ElemType::I32 => {
                        // the interpreter's buffers hold integral values (saturating casts)
                        let v: Vec<i32> = b.data.iter().map(|&x| x as i32).collect();
                        DeviceArg::I32(gpu.stream.clone_htod(&v).map_err(up())?)
                    }
                    e => {
                        return Err(RuntimeError::Problem(format!(
                            "buffers of {e} are not uploaded yet"
                        )))
                    }
                },
            })
        })
        .collect()
}

fn bits8(e: ElemType, x: f64) -> u8 {
    match e {
        // integers saturate to their range (`as` from f64 does)
        ElemType::I8 => (x as i8) as u8,
        ElemType::U8 => x as u8,
        ElemType::E5M2 => float8::F8E5M2::from_f64(x).to_bits(),
        _ => float8::F8E4M3::from_f64(x).to_bits(),
    }
}

fn bits16(e: ElemType, x: f64) -> u16 {
    match e {
        ElemType::Bf16 => half::bf16::from_f64(x).to_bits(),
        _ => half::f16::from_f64(x).to_bits(),
    }
}

/// The launch arguments of device copies.
pub fn args(dev: &[DeviceArg]) -> Vec<Arg<'_>> {
    dev.iter()
        .map(|d| match d {
            DeviceArg::Int(v) => Arg::Int(*v),
            DeviceArg::Scalar(v) => Arg::Scalar(*v),
            DeviceArg::F32(s) => Arg::Buf(Buf::F32(s)),
            DeviceArg::F64(s) => Arg::Buf(Buf::F64(s)),
            DeviceArg::Bits16(s, e) => Arg::Buf(Buf::Bits16(s, *e)),
            DeviceArg::Bits8(s, e) => Arg::Buf(Buf::Bits8(s, *e)),
            DeviceArg::I32(s) => Arg::Buf(Buf::I32(s)),
        })
        .collect()
}

/// A device buffer's values, as a host buffer of its type.
pub fn download(gpu: &Gpu, d: &DeviceArg) -> Result<HostBuffer> {
    let down = || RuntimeError::driver("download");
    Ok(match d {
        DeviceArg::F32(s) => {
            let v = gpu.stream.clone_dtoh(s).map_err(down())?;
            HostBuffer {
                elem: ElemType::F32,
                data: v.into_iter().map(f64::from).collect(),
            }
        }
        DeviceArg::F64(s) => HostBuffer {
            elem: ElemType::F64,
            data: gpu.stream.clone_dtoh(s).map_err(down())?,
        },
        DeviceArg::Bits16(s, e) => {
            let v = gpu.stream.clone_dtoh(s).map_err(down())?;
            let data = v
                .into_iter()
                .map(|b| match e {
                    ElemType::Bf16 => half::bf16::from_bits(b).to_f64(),
                    _ => half::f16::from_bits(b).to_f64(),
                })
                .collect();
            HostBuffer { elem: *e, data }
        }
        DeviceArg::Bits8(s, e) => {
            let v = gpu.stream.clone_dtoh(s).map_err(down())?;
            let data = v
                .into_iter()
                .map(|b| match e {
                    ElemType::I8 => f64::from(b as i8),
                    ElemType::U8 => f64::from(b),
                    ElemType::E5M2 => float8::F8E5M2::from_bits(b).to_f64(),
                    _ => float8::F8E4M3::from_bits(b).to_f64(),
                })
                .collect();
            HostBuffer { elem: *e, data }
        }
        DeviceArg::I32(s) => HostBuffer {
            elem: ElemType::I32,
            data: (gpu.stream.clone_dtoh(s).map_err(down())?)
                .into_iter()
                .map(f64::from)
                .collect(),
        },
        DeviceArg::Int(_) | DeviceArg::Scalar(_) => {
            return Err(RuntimeError::Problem("not a buffer".into()))
        }
    })
}

/// Runs a prepared kernel once on fresh device copies of the case (its output poisoned) and
/// compares the output with the reference.
pub fn check(gpu: &Gpu, p: &Prepared, case: &Case) -> Result<Verdict> {
    let dev = upload(gpu, &case.args)?;
    launch(gpu, &p.loaded, &args(&dev))?;
    gpu.stream
        .synchronize()
        .map_err(RuntimeError::driver(format!(
            "running {}",
            p.loaded.kernel.name
        )))?;
    let out = download(gpu, &dev[case.output])?;
    Ok(case.check(&out.data))
}

/// Medians in milliseconds of the kernel and of `cuMemcpyDtoD` of the bytes it reads and writes
/// once (the output buffer's bytes: a copy reads and writes them as the kernel does).
pub struct CopyTiming {
    pub kernel_ms: f64,
    pub copy_ms: f64,
    /// The bytes the kernel must read plus those it must write (the problem's, not padding).
    pub bytes: f64,
}

impl CopyTiming {
    /// GB/s of the kernel and of the copy (read + write).
    pub fn gbps(&self) -> (f64, f64) {
        (
            self.bytes / self.kernel_ms / 1e6,
            self.bytes / self.copy_ms / 1e6,
        )
    }
}

/// Times a prepared kernel on a case (warm-up, events, the median of `reps`) and the device's
/// copy of the output buffer's size in the same process.
pub fn time_against_copy(gpu: &Gpu, p: &Prepared, case: &Case, reps: usize) -> Result<CopyTiming> {
    let dev = upload(gpu, &case.args)?;
    let a = args(&dev);
    let kernel_ms = time(gpu, 3, reps, || launch(gpu, &p.loaded, &a))?;
    let elem_bits = match &case.args[case.output] {
        HostArg::Buffer(b) => f64::from(b.elem.bits()),
        _ => 32.0,
    };
    let useful = (case.m * case.n) as f64 * elem_bits / 8.0;
    let n = case.output_len();
    let copy_ms = match &dev[case.output] {
        DeviceArg::F32(_) => copy_time(gpu, n, 0f32, reps)?,
        DeviceArg::Bits16(..) => copy_time(gpu, n, 0u16, reps)?,
        DeviceArg::Bits8(..) => copy_time(gpu, n, 0u8, reps)?,
        _ => copy_time(gpu, n, 0f64, reps)?,
    };
    Ok(CopyTiming {
        kernel_ms,
        copy_ms,
        bytes: 2.0 * useful,
    })
}

/// The median time of copying `n` elements device to device.
fn copy_time<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
    gpu: &Gpu,
    n: usize,
    _: T,
    reps: usize,
) -> Result<f64> {
    let alloc = || RuntimeError::driver("allocating the copy's buffers");
    let src = gpu.stream.alloc_zeros::<T>(n).map_err(alloc())?;
    let mut dst = gpu.stream.alloc_zeros::<T>(n).map_err(alloc())?;
    time(gpu, 3, reps, || {
        gpu.stream
            .memcpy_dtod(&src, &mut dst)
            .map_err(RuntimeError::driver("cuMemcpyDtoD"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_bit_integers_are_their_twos_complement_bits() {
        assert_eq!(bits8(ElemType::I8, -64.0), 0xc0);
        assert_eq!(bits8(ElemType::I8, 63.0), 63);
        assert_eq!(bits8(ElemType::U8, 127.0), 127);
        // out of range saturates instead of wrapping
        assert_eq!(bits8(ElemType::I8, 300.0), 127);
        assert_eq!(bits8(ElemType::U8, -1.0), 0);
        assert_eq!(bits8(ElemType::E4M3, 1.0), 0x38);
    }
}
