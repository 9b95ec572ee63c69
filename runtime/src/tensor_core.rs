//! The tensor-core GEMMs (`hgemm-sm80`, `bgemm-sm80`, `tf32gemm-sm80`) on the GPU: checked on
//! the problems of `recipes::gemm_case` (A and B rounded to their type on the host, C poisoned
//! with NaN where `beta == 0`) against the float64 reference of the rounded values (cuBLAS
//! DGEMM, so 4096^3 checks in a second) through the one launch path, and timed beside cuBLAS of the same types (`cublasGemmEx`: A and B 16-bit with FP32
//! compute, or FP32 with `CUBLAS_COMPUTE_32F_FAST_TF32`; C of the plan's output type, FP32,
//! FP16 or BF16) on the same buffers in the same process.

use cudarc::cublas::sys::{cublasComputeType_t, cublasGemmAlgo_t, cublasOperation_t, cudaDataType};
use cudarc::cublas::CudaBlas;
use cudarc::driver::{DevicePtr, DevicePtrMut};
use cute_codegen::cuda::IndexWidth;
use cute_codegen::gemm::{GemmPlan, Major, SplitKMode};
use cute_codegen::recipes::{
    emit_split_kernels, gemm, gemm_case_unreferenced, gemm_inputs, operands, set_reference, Case,
    SplitCase, Verdict,
};
use cute_layout::ElemType;

use crate::bench::{time, time_back_to_back, Reps};
use crate::error::{Result, RuntimeError};
use crate::gemm::{dgemm, Problem};
use crate::gpu::{Gpu, Loaded};
use crate::launch::launch;
use crate::recipe::{args, check, download, prepare, upload, width_for, DeviceArg, Prepared};

/// The plan's kernel, lowered for the case's index width, compiled and loaded.
pub fn load(gpu: &Gpu, plan: &GemmPlan, case: &Case) -> Result<Prepared> {
    prepare(gpu, &[gemm(plan)?], case)
}

/// One check of the plan at `(m, n, k)` with `beta`, on fresh random operands (`seed`).
pub fn check_at(
    gpu: &Gpu,
    blas: &CudaBlas,
    plan: &GemmPlan,
    size: (i64, i64, i64),
    beta: f64,
    seed: u64,
) -> Result<Verdict> {
    let mut case = gemm_case_unreferenced(plan, size, beta, seed)?;
    let abc = reference(gpu, blas, plan, &case)?;
    set_reference(plan, &mut case, abc)?;
    let p = load(gpu, plan, &case)?;
    check(gpu, &p, &case)
}

/// `alpha * A * B + beta * C` of the case's rounded operands by cuBLAS DGEMM.
fn reference(gpu: &Gpu, blas: &CudaBlas, plan: &GemmPlan, case: &Case) -> Result<Vec<f64>> {
    let o = operands(plan, case)
        .ok_or_else(|| RuntimeError::Problem(format!("{}: not a GEMM case", plan.name)))?;
    let p = Problem {
        m: o.m,
        n: o.n,
        k: o.k,
        layout: o.layout,
        alpha: o.alpha as f32,
        beta: o.beta as f32,
        lda: o.lda,
        ldb: o.ldb,
        ldc: o.ldc,
    };
    let (a, b, c) = (&o.a.data, &o.b.data, &o.c.data);
    dgemm(gpu, blas, &p, (o.alpha, o.beta), [a, b, c])
}

/// The median of cuBLASLt's FP8 GEMM (E4M3 in, BF16 out, TN) on the kernel's buffers.
fn fp8_baseline(
    gpu: &Gpu,
    dev: &mut [DeviceArg],
    (ia, ib, ic): (usize, usize, usize),
    (m, n, k): (i32, i32, i32),
    (lda, ldb, ldc): (i32, i32, i32),
    reps: usize,
) -> Result<f64> {
    let stream = gpu.stream.clone();
    let ptr = |d: &DeviceArg| match d {
        DeviceArg::Bits8(x, _) => Ok(x.device_ptr(&stream).0),
        DeviceArg::Bits16(x, _) => Ok(x.device_ptr(&stream).0),
        _ => Err(RuntimeError::Problem(
            "FP8 A, B and a BF16 C are device buffers".into(),
        )),
    };
    let (pa, pb, pc) = (ptr(&dev[ia])?, ptr(&dev[ib])?, ptr(&dev[ic])?);
    let lt = crate::cublaslt_fp8::Fp8Gemm::new(
        gpu,
        (m.into(), n.into(), k.into()),
        (lda.into(), ldb.into(), ldc.into()),
    )?;
    time(gpu, 3, reps, || lt.run(gpu, (pa, pb, pc), 1.5, 0.0))
}

/// Medians in milliseconds of the kernel and of `cublasGemmEx` on the same problem.
pub struct ExTiming {
    pub kernel_ms: f64,
    pub cublas_ms: f64,
    pub flops: f64,
    /// Whether both were timed launch to launch (`bench::LAUNCH_TO_LAUNCH_BELOW_MS`).
    pub launch_to_launch: bool,
}

impl ExTiming {
    /// TFLOP/s of the kernel and of cuBLAS.
    pub fn tflops(&self) -> (f64, f64) {
        (
            self.flops / self.kernel_ms / 1e9,
            self.flops / self.cublas_ms / 1e9,
        )
    }
}

/// cuBLAS's type of the operands and its compute type for them: FP32 compute, TF32 tensor cores
/// for FP32 operands read as TF32.
fn data_type(e: ElemType) -> Result<(cudaDataType, cublasComputeType_t)> {
    use cublasComputeType_t::{CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
    Ok(match e {
        ElemType::F16 => (cudaDataType::CUDA_R_16F, CUBLAS_COMPUTE_32F),
        ElemType::Bf16 => (cudaDataType::CUDA_R_16BF, CUBLAS_COMPUTE_32F),
        ElemType::Tf32 => (cudaDataType::CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32),
        e => {
            return Err(RuntimeError::Problem(format!(
                "cublasGemmEx of {e} is not wired"
            )))
        }
    })
}

/// Times the plan's kernel and `cublasGemmEx` (FP32 compute) at `(m, n, k)`, `beta = 0`, on the
/// same device buffers: warm-up, CUDA events, the median of `reps`.
pub fn bench(
    gpu: &Gpu,
    blas: &CudaBlas,
    plan: &GemmPlan,
    size: (i64, i64, i64),
    reps: impl Into<Reps>,
) -> Result<ExTiming> {
    let case = gemm_inputs(plan, size, 0.0, size.0 as u64 ^ 0x5eed)?;
    let p = load(gpu, plan, &case)?;
    let mut dev = upload(gpu, &case.args)?;
    versus_cublas(
        gpu,
        blas,
        plan,
        &case.args,
        &mut dev,
        size,
        reps.into(),
        &mut |d| launch(gpu, &p.loaded, &args(d)),
    )
}

/// A case's arguments laid out for split-K in at most `splits` slices run as `mode`: serial
/// split-K (one kernel), else parallel (two); stream-K is the SIMT GEMMs' alone.
fn split_case(
    plan: &GemmPlan,
    args: Vec<cute_codegen::interp::Arg>,
    (splits, mode): (i64, SplitKMode),
) -> Result<SplitCase> {
    Ok(match mode {
        SplitKMode::Serial => SplitCase::serial(plan, args, splits)?,
        SplitKMode::Stream => {
            return Err(RuntimeError::Problem(format!(
                "{}: stream-K takes the SIMT GEMMs",
                plan.name
            )))
        }
        _ => SplitCase::new(plan, args, splits)?,
    })
}

/// [`bench`] of the plan's split-K (parallel: both kernels; serial: its one;
/// `recipes::SplitCase`) in at most `split.0` slices; gives the slices made too.
pub fn bench_split(
    gpu: &Gpu,
    blas: &CudaBlas,
    plan: &GemmPlan,
    size: (i64, i64, i64),
    reps: impl Into<Reps>,
    split: (i64, SplitKMode),
) -> Result<(ExTiming, i64)> {
    let case = gemm_inputs(plan, size, 0.0, size.0 as u64 ^ 0x5eed)?;
    let sc = split_case(plan, case.args, split)?;
    let kernels = load_split(gpu, plan, &sc, split.1 == SplitKMode::Serial)?;
    let mut dev = upload(gpu, &sc.args)?;
    let t = versus_cublas(
        gpu,
        blas,
        plan,
        &sc.args,
        &mut dev,
        size,
        reps.into(),
        &mut |d| launch_split(gpu, &kernels, &sc, d),
    )?;
    Ok((t, sc.splits))
}

/// One check of the plan's split-K in at most `split.0` slices, run as `split.1`, at `(m, n, k)` with
/// `beta`, on fresh random operands (`seed`), against the float64 reference; gives the slices
/// made too.
pub fn check_split_at(
    gpu: &Gpu,
    blas: &CudaBlas,
    plan: &GemmPlan,
    size: (i64, i64, i64),
    beta: f64,
    seed: u64,
    split: (i64, SplitKMode),
) -> Result<(Verdict, i64)> {
    let mut case = gemm_case_unreferenced(plan, size, beta, seed)?;
    let abc = reference(gpu, blas, plan, &case)?;
    set_reference(plan, &mut case, abc)?;
    let sc = split_case(plan, case.args.clone(), split)?;
    let kernels = load_split(gpu, plan, &sc, split.1 == SplitKMode::Serial)?;
    let dev = upload(gpu, &sc.args)?;
    launch_split(gpu, &kernels, &sc, &dev)?;
    gpu.stream
        .synchronize()
        .map_err(RuntimeError::driver(format!(
            "running {}'s split-K",
            plan.name
        )))?;
    let out = download(gpu, &dev[SplitCase::C])?;
    Ok((case.check(&out.data), sc.splits))
}

/// `plan`'s split-K kernels, loaded: the partial products and the reduction
/// (`recipes::emit_split_k`), or serial split-K's one (`emit_serial_split_k`); 32-bit indices,
/// which `sc`'s sizes must fit.
fn load_split(gpu: &Gpu, plan: &GemmPlan, sc: &SplitCase, serial: bool) -> Result<Vec<Loaded>> {
    if width_for(&sc.args) != IndexWidth::I32 {
        return Err(RuntimeError::Problem(format!(
            "{}: split-K takes 32-bit indices; these operands need 64",
            plan.name
        )));
    }
    let kernels = emit_split_kernels(plan, serial)?;
    kernels.iter().map(|k| gpu.load(k)).collect()
}

/// The split-K kernels on `dev` (`sc.args` uploaded), back to back on the GPU's stream: the
/// partial products with `sc.partial`'s arguments, then the reduction (if any) with
/// `sc.reduce`'s.
fn launch_split(gpu: &Gpu, k: &[Loaded], sc: &SplitCase, dev: &[DeviceArg]) -> Result<()> {
    let all = args(dev);
    let pick = |at: &[usize]| at.iter().map(|&i| all[i]).collect::<Vec<_>>();
    for (kernel, at) in k.iter().zip([&sc.partial, &sc.reduce]) {
        launch(gpu, kernel, &pick(at))?;
    }
    Ok(())
}

/// Times `kernel` on `dev` (a GEMM case's arguments `host`, uploaded, maybe followed by more)
/// and `cublasGemmEx` of the same problem on the same buffers.
#[allow(clippy::too_many_arguments)]
fn versus_cublas(
    gpu: &Gpu,
    blas: &CudaBlas,
    plan: &GemmPlan,
    host: &[cute_codegen::interp::Arg],
    dev: &mut [DeviceArg],
    size: (i64, i64, i64),
    reps: Reps,
    kernel: &mut dyn FnMut(&[DeviceArg]) -> Result<()>,
) -> Result<ExTiming> {
    let Reps { count, method } = reps;
    let ir = gemm(plan)?;
    // the kernel's parameters by name: cuBLAS gets the same problem and buffers
    let at = |name: &str| {
        ir.params
            .iter()
            .position(|q| q.name() == name)
            .ok_or_else(|| RuntimeError::Problem(format!("{}: no parameter {name}", ir.name)))
    };
    let int = |name: &str| match host[at(name)?] {
        cute_codegen::interp::Arg::Int(v) => i32::try_from(v)
            .map_err(|_| RuntimeError::Problem(format!("{name} = {v} is above cuBLAS's int"))),
        _ => Err(RuntimeError::Problem(format!("{name} is not an integer"))),
    };
    let (m, n, k) = (int("M")?, int("N")?, int("K")?);
    let (lda, ldb, ldc) = (int("ldA")?, int("ldB")?, int("ldC")?);
    let (ia, ib, ic) = (at("A")?, at("B")?, at("C")?);
    let (alpha, beta) = (1.5f32, 0.0f32);
    if plan.input_type() == ElemType::E4M3 {
        let cublas_ms = fp8_baseline(gpu, dev, (ia, ib, ic), (m, n, k), (lda, ldb, ldc), count)?;
        let kernel_ms = time(gpu, 3, count, || kernel(dev))?;
        return Ok(ExTiming {
            kernel_ms,
            cublas_ms,
            flops: 2.0 * (size.0 * size.1 * size.2) as f64,
            launch_to_launch: false,
        });
    }
    let (elem, compute) = data_type(plan.input_type())?;
    let op = |t: bool| {
        if t {
            cublasOperation_t::CUBLAS_OP_T
        } else {
            cublasOperation_t::CUBLAS_OP_N
        }
    };
    let (ta, tb) = (plan.layout.a == Major::K, plan.layout.b == Major::MN);
    if !(ia < ic && ib < ic) {
        return Err(RuntimeError::Problem(format!(
            "{}: C comes after A and B",
            ir.name
        )));
    }
    let (left, right) = dev.split_at_mut(ic);
    let stream = gpu.stream.clone();
    let c_type = match plan.output_type() {
        ElemType::F32 => cudaDataType::CUDA_R_32F,
        e => data_type(e)?.0,
    };
    // an operand's device address: 16-bit values, or floats read as TF32
    let ptr = |d: &DeviceArg| match d {
        DeviceArg::Bits16(x, _) => Ok(x.device_ptr(&stream).0),
        DeviceArg::F32(x) => Ok(x.device_ptr(&stream).0),
        _ => Err(RuntimeError::Problem("A and B are device buffers".into())),
    };
    let (pa, pb) = (ptr(&left[ia])?, ptr(&left[ib])?);
    let mut call = || -> Result<()> {
        let (pc, _gc) = match &mut right[0] {
            DeviceArg::F32(x) => x.device_ptr_mut(&stream),
            DeviceArg::Bits16(x, _) => x.device_ptr_mut(&stream),
            _ => return Err(RuntimeError::Problem("C is a device buffer".into())),
        };
        // SAFETY: the buffers hold the case's lda x cols, ldb x cols and ldc x n elements,
        // which `gemm_case` sized for (m, n, k) and these leading dimensions.
        unsafe {
            cudarc::cublas::sys::cublasGemmEx(
                *blas.handle(),
                op(ta),
                op(tb),
                m,
                n,
                k,
                (&alpha as *const f32).cast(),
                pa as *const _,
                elem,
                lda,
                pb as *const _,
                elem,
                ldb,
                (&beta as *const f32).cast(),
                pc as *mut _,
                c_type,
                ldc,
                compute,
                cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        }
        .result()
        .map_err(RuntimeError::cublas("GemmEx"))
    };
    let cublas_ms = time(gpu, 3, count, &mut call)?;
    let flops = 2.0 * (size.0 * size.1 * size.2) as f64;
    if method.launch_to_launch(cublas_ms) {
        let cublas_ms = time_back_to_back(gpu, 3, count, &mut call)?;
        let kernel_ms = time_back_to_back(gpu, 3, count, || kernel(dev))?;
        return Ok(ExTiming {
            kernel_ms,
            cublas_ms,
            flops,
            launch_to_launch: true,
        });
    }
    let kernel_ms = time(gpu, 3, count, || kernel(dev))?;
    Ok(ExTiming {
        kernel_ms,
        cublas_ms,
        flops,
        launch_to_launch: false,
    })
}
