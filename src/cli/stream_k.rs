//! `cute run NAME --stream-k` and `cute bench NAME... --stream-k`: a named SIMT GEMM as
//! stream-K (`G` persistent CTAs, one a CTA slot of the GPU, sharing every output tile's
//! k-tiles evenly, then the reduction that applies its epilogue), checked against the float64
//! reference and timed beside cuBLAS SGEMM like the one-kernel GEMMs.

use std::process::ExitCode;
use std::time::Instant;

use cute::codegen::recipes::{emit_stream_k, StreamSchedule};
use cute::codegen::{GemmLayout, GemmPlan, Kernel};
use cute::runtime::bench::{bench_with, Timing};
use cute::runtime::gemm::Problem;
use cute::runtime::gpu::Gpu;
use cute::runtime::stream_k::StreamK;
use cute::runtime::{CudaBlas, RuntimeError};

use super::args::{BenchArgs, RunArgs};
use super::gpu::label;
use super::split_k::{bench_plans, check_and_time, compile_for_run, table_header, table_row};
use super::text::fail;

/// Refuses `--stream-k` for what is no SIMT GEMM: the recipes, the tensor-core GEMMs and the
/// selectors (a TMA or tensor-core plan is refused by `GemmPlan::with_stream_k`, with the reason,
/// too).
pub fn refuse(sub: &str, names: &[&str]) -> Result<(), clap::Error> {
    let not_simt = |n: &&&str| {
        super::recipe::is_recipe(n)
            || super::tensor_core::is_tensor_core(n)
            || cute::codegen::select::selector_dtype(n).is_some()
    };
    match names.iter().find(not_simt) {
        Some(n) => Err(super::args::usage_error(
            sub,
            clap::error::ErrorKind::ArgumentConflict,
            format!("--stream-k takes the SIMT GEMMs (sgemm-sm80, sgemm-sm80-16x128, ...); {n} is not one"),
        )),
        None => Ok(()),
    }
}

/// `cute run NAME --stream-k`: plan, emit and compile both kernels, check with beta 0 and
/// 0.5, time beside cuBLAS.
pub fn run(a: &RunArgs, name: &str, layout: GemmLayout, p: &Problem) -> ExitCode {
    let t = Instant::now();
    let plan = match a.plan.plan(name, layout) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let kernels = match emit_stream_k(&plan) {
        Ok(k) => k,
        Err(e) => return fail(e),
    };
    let (gpu, blas) = match compile_for_run(t, &kernels) {
        Ok(g) => g,
        Err(code) => return code,
    };
    match on_gpu(&gpu, &blas, plan, &kernels, p) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

fn on_gpu(
    gpu: &Gpu,
    blas: &CudaBlas,
    plan: GemmPlan,
    kernels: &[Kernel; 2],
    p: &Problem,
) -> Result<(), RuntimeError> {
    let epilogue = plan.epilogue.clone();
    let sk = StreamK::from_kernels(gpu, plan, kernels)?;
    let n = sk.ctas();
    let sch = sk.schedule(p, n)?;
    println!(
        "{}{} CTAs, up to {} output tiles each ({} x {} x {} FP32 workspace)",
        label("stream-K"),
        sch.ctas,
        sch.slots,
        sch.slot_elems,
        sch.slots,
        sch.ctas
    );
    let what = format!("{} with stream-K", sk.plan().name);
    let work = sk.workspace(sch)?;
    check_and_time(gpu, blas, &what, &epilogue, p, &mut |q, b| {
        sk.launch(q, b, &work, sch)
    })
}

/// Both kernels timed as one GEMM beside cuBLAS (CUDA events, warm-up of 3 runs and 10 ms, median of 20).
fn time(
    gpu: &Gpu,
    blas: &CudaBlas,
    sk: &StreamK,
    p: &Problem,
    sch: StreamSchedule,
) -> Result<Timing, RuntimeError> {
    let work = sk.workspace(sch)?;
    bench_with(gpu, blas, p, 20, &mut |b| sk.launch(p, b, &work, sch))
}

/// `cute bench NAME... --stream-k`: one table row per kernel, layout and size, with the CTAs.
pub fn bench(a: &BenchArgs, sizes: &[(i64, i64, i64)]) -> ExitCode {
    let (plans, gpu, blas) = match bench_plans(a) {
        Ok(Some(x)) => x,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => return fail(e),
    };
    println!("# {} ({}), {}; stream-K (partials + reduction, the CTAs column: G) beside cuBLAS SGEMM in CUBLAS_PEDANTIC_MATH; CUDA events, warm-up of 3 runs and 10 ms, median of 20", gpu.name, gpu.arch, a.plan.target());
    table_header();
    for plan in plans {
        let (name, layout) = (plan.name.clone(), plan.layout);
        let sk = match StreamK::new(&gpu, plan) {
            Ok(x) => x,
            Err(e) => return fail(e),
        };
        let n = sk.ctas();
        for &(m, nn, k) in sizes {
            let row = Problem::new(m, nn, k, layout, 1.0, 0.0).and_then(|q| {
                let sch = sk.schedule(&q, n)?;
                Ok((sch, time(&gpu, &blas, &sk, &q, sch)?, q))
            });
            match row {
                Ok((sch, t, q)) => table_row(&name, &q, sch.ctas, &t),
                Err(e) => return fail(e),
            }
        }
    }
    ExitCode::SUCCESS
}
