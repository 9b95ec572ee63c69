//! `cute check`, `cute run` and `cute bench` of the tensor-core GEMMs (`hgemm-sm80`,
//! `bgemm-sm80`, `tf32gemm-sm80`): their problems are `recipes::gemm_case`'s (operands rounded
//! to their type on the host, a float64 reference of the rounded values), run through the one
//! launch path; `bench` and `run` time them beside `cublasGemmEx` of the same types in the same
//! process.

use std::process::ExitCode;

use cute::codegen::gemm::GemmPlan;
use cute::codegen::gemm::SplitKMode;
use cute::codegen::named::{GEMV_NAMES, TENSOR_CORE_NAMES};
use cute::codegen::recipes::emit_split_kernels;
use cute::codegen::GemmLayout;
use cute::runtime::gpu::Gpu;
use cute::runtime::tensor_core;
use cute::runtime::RuntimeError;

use super::args::{BenchArgs, PlanOpts, RunArgs, Split, SplitOpts};
use super::text::fail;

/// Whether `name` is a tensor-core GEMM, or a GEMV of 16-bit A and B (`hgemm-gemv`,
/// `bgemm-gemv`): the GEMMs run with typed operands beside `cublasGemmEx`.
pub fn is_tensor_core(name: &str) -> bool {
    let typed_gemv = || {
        cute::codegen::named::plan(name, GemmLayout::all()[2])
            .is_ok_and(|p| p.input_type() != cute::layout::ElemType::F32)
    };
    TENSOR_CORE_NAMES.contains(&name) || (GEMV_NAMES.contains(&name) && typed_gemv())
}

/// The layouts asked for, TN when none (the one every tensor-core GEMM has, TF32 included).
pub fn layouts(p: &PlanOpts) -> Vec<GemmLayout> {
    p.layouts(&[GemmLayout::all()[2]])
}

/// Whether `name` is a 16-bit tensor-core selector (`hgemm`, `bgemm`).
pub fn is_tensor_core_selector(name: &str) -> bool {
    cute::codegen::select::selector_dtype(name).is_some_and(|d| d != "f32")
}

/// `cute run hgemm|bgemm`: the selector's pick for the shape (a tuned plan first), then `cute
/// run` of that kernel with its split.
pub fn run_selected(a: &RunArgs) -> ExitCode {
    let layout = match layouts(&a.plan).as_slice() {
        [one] => *one,
        _ => {
            let msg = "cute run takes one --layout";
            let e = super::args::usage_error("run", clap::error::ErrorKind::ArgumentConflict, msg);
            return super::usage(e);
        }
    };
    let size = a.size.one(4096).unwrap_or((4096, 4096, 4096));
    println!("{} {layout} M={} N={} K={}", a.name, size.0, size.1, size.2);
    let pk = super::split_k::pick(a, layout, size);
    let serial = pk.serial();
    let picked = RunArgs {
        name: pk.name,
        split: SplitOpts {
            split_k: pk.split,
            serial,
            stream_k: false,
        },
        ..a.clone()
    };
    run(&picked)
}

/// A cuBLAS handle in its default math mode, so it uses its tensor-core kernels (pedantic math,
/// the SIMT comparison's, would refuse them).
pub(super) fn blas(gpu: &Gpu) -> Result<cute::runtime::CudaBlas, RuntimeError> {
    cute::runtime::CudaBlas::new(gpu.stream.clone())
        .map_err(RuntimeError::cublas("creating a cuBLAS handle"))
}

/// Checks each name in each layout at the sizes (or `one`), beta 0 and 0.5: (passed, failed).
pub fn check(
    gpu: &Gpu,
    names: &[String],
    p: &PlanOpts,
    one: Option<(i64, i64, i64)>,
    say: &mut dyn FnMut(String),
) -> Result<(usize, usize), RuntimeError> {
    let sizes = one
        .as_ref()
        .map_or(super::gpu::CHECK_SIZES, std::slice::from_ref);
    let (mut passed, mut failed) = (0, 0);
    let blas = blas(gpu)?;
    for name in names {
        for layout in layouts(p) {
            let plan = p.plan(name, layout)?;
            let kernel = cute::codegen::recipes::gemm(&plan)?;
            for (i, &asked) in sizes.iter().enumerate() {
                // rounded up to what the kernel requires of M, N and K, as the FP32 matrix is
                let size = match one {
                    Some(_) => asked,
                    None => kernel.fit_mnk(asked),
                };
                for beta in [0.0, 0.5] {
                    let seed = super::recipe::fresh_seed() ^ i as u64;
                    let v = tensor_core::check_at(gpu, &blas, &plan, size, beta, seed)?;
                    let (m, n, k) = size;
                    let verdict = if v.ok() { "pass" } else { "FAIL" };
                    say(format!(
                        "{name}{} {layout} {m} {n} {k} {beta} {verdict} max_err={:.3e} ({} elements)",
                        out_suffix(&plan),
                        v.max_err, v.checked
                    ));
                    if v.ok() {
                        passed += 1;
                    } else {
                        failed += 1;
                    }
                }
            }
        }
    }
    Ok((passed, failed))
}

fn plans(a: &BenchArgs) -> Result<Vec<GemmPlan>, RuntimeError> {
    let mut out = Vec::new();
    for name in &a.names {
        for layout in layouts(&a.plan) {
            out.push(a.plan.plan(name, layout)?);
        }
    }
    Ok(out)
}

/// `cute bench` of tensor-core GEMMs beside `cublasGemmEx` (A, B and C of the plan's types,
/// FP32 compute).
pub fn bench(a: &BenchArgs) -> ExitCode {
    let plans = match plans(a) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let gpu = match Gpu::open() {
        Ok(g) => g,
        Err(e) => {
            println!("skipped: {}", super::text::lines(&e.to_string()));
            return ExitCode::SUCCESS;
        }
    };
    let blas = match blas(&gpu) {
        Ok(b) => b,
        Err(e) => return fail(e),
    };
    println!("# {} ({}); cublasGemmEx (A, B and C of the kernel's types; FP32 compute, TF32 tensor cores for tf32; cublasLtMatmul of E4M3 into BF16 for fp8); CUDA events, warm-up of 3 runs and 10 ms, median of 20", gpu.name, gpu.arch);
    println!("| kernel | layout | M x N x K | ms | TFLOP/s | cuBLAS TFLOP/s | % of cuBLAS |");
    println!("|---|---|---|---:|---:|---:|---:|");
    let default = [(4096, 4096, 4096), (8192, 8192, 8192)];
    let one = a.size.one(1);
    let sizes = one.as_ref().map_or(&default[..], std::slice::from_ref);
    for plan in &plans {
        for &(m, n, k) in sizes {
            let timed = match a.split.split_k {
                Some(split) => {
                    let s = super::split_k::slices(split, plan, (m, n, k));
                    let mode = SplitKMode::split_k(a.split.serial);
                    let how = mode.word();
                    tensor_core::bench_split(&gpu, &blas, plan, (m, n, k), 20, (s, mode))
                        .map(|(t, made)| (t, format!(" ({made} slices, {how})")))
                }
                None => {
                    tensor_core::bench(&gpu, &blas, plan, (m, n, k), 20).map(|t| (t, String::new()))
                }
            };
            match timed {
                Ok((t, cut)) => {
                    let (ours, theirs) = t.tflops();
                    println!(
                        "| {}{}{cut} | {} | {m} x {n} x {k} | {:.3} | {ours:.1} | {theirs:.1} | {:.1}% |",
                        plan.name,
                        out_suffix(plan),
                        plan.layout,
                        t.kernel_ms,
                        100.0 * ours / theirs
                    );
                }
                Err(e) => return fail(e),
            }
        }
    }
    ExitCode::SUCCESS
}

/// Compiles through the cache, printing the compile line.
fn compile(k: &cute::codegen::Kernel) -> Result<(), RuntimeError> {
    super::gpu::compile_step(k, k.target.name()).map(drop)
}

/// `cute run NAME --split-k S|auto` of an SM80 or SM90 tensor-core GEMM: its split-K checked with beta
/// 0 and 0.5 against the float64 reference, then timed beside `cublasGemmEx`.
fn run_split(
    gpu: &Gpu,
    blas: &cute::runtime::CudaBlas,
    plan: &GemmPlan,
    size: (i64, i64, i64),
    split: Split,
    serial: bool,
) -> Result<(), RuntimeError> {
    let s = (
        super::split_k::slices(split, plan, size),
        SplitKMode::split_k(serial),
    );
    let (m, n, k) = size;
    for beta in [0.0, 0.5] {
        let seed = super::recipe::fresh_seed();
        let (v, made) = tensor_core::check_split_at(gpu, blas, plan, size, beta, seed, s)?;
        if !v.ok() {
            return Err(RuntimeError::Problem(format!(
                "verification FAILED at {m}x{n}x{k}, beta {beta}, {made} slices of K: {v:?}"
            )));
        }
        println!(
            "  verification:  pass at {m}x{n}x{k}, beta {beta}, {made} slices of K (max |err| {:.3e})",
            v.max_err
        );
    }
    let (t, made) = tensor_core::bench_split(gpu, blas, plan, size, 20, s)?;
    let (ours, theirs) = t.tflops();
    let how = if serial {
        "serial, one kernel"
    } else {
        "parallel, both kernels"
    };
    println!("  time:          {:.4} ms = {ours:.1} TFLOP/s ({made} slices, {how}); cublasGemmEx {:.4} ms = {theirs:.1} TFLOP/s; {:.1}% of cuBLAS", t.kernel_ms, t.cublas_ms, 100.0 * ours / theirs);
    Ok(())
}

/// ` (C half_t)` after a plan's name where C is not FP32.
pub fn out_suffix(plan: &GemmPlan) -> String {
    match plan.output_type() {
        cute::layout::ElemType::F32 => String::new(),
        e => format!(" (C {e})"),
    }
}

/// `cute run hgemm-sm80`: plan, emit and compile (for --arch, TN unless --layout says), then on a
/// GPU a check at the size (at most 1024 a side: the reference is computed on the host) and the
/// timing beside `cublasGemmEx`; without one, what it skipped.
pub fn run(a: &RunArgs) -> ExitCode {
    let layout = match layouts(&a.plan).as_slice() {
        [one] => *one,
        _ => return fail("cute run takes one --layout"),
    };
    let size = a.size.one(4096).unwrap_or((4096, 4096, 4096));
    let (m, n, k) = size;
    println!("{} {layout} M={m} N={n} K={k}", a.name);
    let t = std::time::Instant::now();
    let kernel = match a.plan.plan(&a.name, layout).and_then(|p| {
        Ok((
            p.clone(),
            a.plan.emit(&p, cute::codegen::cuda::IndexWidth::I32)?,
        ))
    }) {
        Ok(pk) => pk,
        Err(e) => return fail(&e),
    };
    println!(
        "{}{:.2} ms, {} lines of CUDA",
        super::gpu::label("plan + emit"),
        t.elapsed().as_secs_f64() * 1e3,
        kernel.1.source.lines().count()
    );
    // a size the kernel cannot take (a GEMV's vectors) is refused before the compile; the
    // leading dimensions are the case's, padded to the operands' vectors
    if let Err(e) = cute::runtime::gemm::check_mnk(&kernel.1, size) {
        return fail(&e);
    }
    let compiled = match a.split.split_k {
        Some(_) => emit_split_kernels(&kernel.0, a.split.serial)
            .map_err(RuntimeError::from)
            .and_then(|ks| ks.iter().try_for_each(compile)),
        None => compile(&kernel.1),
    };
    if let Err(e) = compiled {
        return fail(&e);
    }
    let gpu = match Gpu::open() {
        Ok(g) => g,
        Err(e) => {
            println!(
                "  skipped launch, verification and timing: {}",
                super::text::lines(&e.to_string())
            );
            return ExitCode::SUCCESS;
        }
    };
    let blas = match blas(&gpu) {
        Ok(b) => b,
        Err(e) => return fail(&e),
    };
    if let Some(split) = a.split.split_k {
        return match run_split(&gpu, &blas, &kernel.0, size, split, a.split.serial) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(&e),
        };
    }
    match tensor_core::check_at(
        &gpu,
        &blas,
        &kernel.0,
        size,
        0.5,
        super::recipe::fresh_seed(),
    ) {
        Ok(v) if v.ok() => println!(
            "  verification:  pass at {m}x{n}x{k} (max |err| {:.3e})",
            v.max_err
        ),
        Ok(v) => return fail(format!("verification FAILED at {size:?}: {v:?}")),
        Err(e) => return fail(&e),
    }
    match tensor_core::bench(&gpu, &blas, &kernel.0, size, 20) {
        Ok(t) => {
            let (ours, theirs) = t.tflops();
            println!("  time:          {:.3} ms = {ours:.1} TFLOP/s; cublasGemmEx {:.3} ms = {theirs:.1} TFLOP/s; {:.1}% of cuBLAS", t.kernel_ms, t.cublas_ms, 100.0 * ours / theirs);
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e),
    }
}
