//! `cute run`, `cute check`, `cute bench`: generated kernels compiled, launched, verified against
//! a float64 reference and timed against cuBLAS. Without a GPU (or NVRTC) every step that can run
//! does, and the rest is reported as skipped.

use std::process::ExitCode;
use std::time::Instant;

use cute::codegen::gemm::Policy;
use cute::codegen::named::{plan, plan_unrolled, NAMES};
use cute::codegen::{emit, CodegenError, GemmLayout, GemmPlan, Kernel};
use cute::runtime::api::Gemm;
use cute::runtime::bench::bench;
use cute::runtime::cache::{self, Source};
use cute::runtime::check::check;
use cute::runtime::gemm::{pedantic, Problem};
use cute::runtime::gpu::Gpu;
use cute::runtime::CudaBlas;
use cute::runtime::{nvrtc, RuntimeError};

/// Options shared by the GPU commands.
struct Opts {
    names: Vec<String>,
    m: i64,
    n: i64,
    k: i64,
    layouts: Vec<GemmLayout>,
    report: Option<String>,
    /// `--k-block-unroll N`: the pipelined plans unroll N k blocks per trip.
    k_block_unroll: Option<i64>,
}

fn parse(args: &[String], default_size: i64) -> Result<Opts, String> {
    let mut o = Opts {
        names: Vec::new(),
        m: default_size,
        n: default_size,
        k: default_size,
        layouts: Vec::new(),
        report: None,
        k_block_unroll: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut num = |what: &str| -> Result<i64, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{what} needs an integer"))
        };
        match a.as_str() {
            "--m" => o.m = num("--m")?,
            "--n" => o.n = num("--n")?,
            "--k" => o.k = num("--k")?,
            "--k-block-unroll" => o.k_block_unroll = Some(num("--k-block-unroll")?),
            "--layout" => {
                let l = it.next().ok_or("--layout needs NN, NT, TN or TT")?;
                o.layouts
                    .push(GemmLayout::parse(l).ok_or_else(|| format!("unknown layout '{l}'"))?);
            }
            "--report" => o.report = Some(it.next().ok_or("--report needs a file")?.clone()),
            name => o.names.push(name.to_string()),
        }
    }
    if o.layouts.is_empty() {
        o.layouts.push(GemmLayout::parse("NN").ok_or("NN")?);
    }
    Ok(o)
}

/// One kernel of a `check` or `bench` run: planned and emitted before the GPU is looked for, so
/// a plan that cannot be built is an error on any machine.
struct Planned {
    name: String,
    layout: GemmLayout,
    plan: GemmPlan,
    kernel: Kernel,
}

impl Planned {
    /// Compiled (or found in the cache) and loaded.
    fn load<'g>(&self, gpu: &'g Gpu) -> Result<Gemm<'g>, RuntimeError> {
        Gemm::from_kernel(gpu, self.plan.clone(), &self.kernel)
    }
}

/// Every kernel of the options planned and emitted (an error on any machine), then the GPU and
/// cuBLAS; `None` after printing `skipped: why` on a machine without a GPU.
fn planned_on_gpu(o: &Opts) -> Result<Option<(Vec<Planned>, Gpu, CudaBlas)>, String> {
    let planned = plan_all(o).map_err(|e| e.to_string())?;
    Ok(gpu_and_blas("skipped")
        .map_err(|e| e.to_string())?
        .map(|(gpu, blas)| (planned, gpu, blas)))
}

/// Every name x layout of the options, planned and emitted.
fn plan_all(o: &Opts) -> Result<Vec<Planned>, CodegenError> {
    let mut out = Vec::new();
    for name in &o.names {
        for &layout in &o.layouts {
            let plan = plan_unrolled(name, layout, o.k_block_unroll)?;
            let kernel = emit(&plan)?;
            out.push(Planned {
                name: name.clone(),
                layout,
                plan,
                kernel,
            });
        }
    }
    Ok(out)
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    println!("error: {msg}");
    ExitCode::FAILURE
}

/// `cute run NAME [--m M --n N --k K] [--layout L]`: the main job.
pub fn run(args: &[String]) -> ExitCode {
    let o = match parse(args, 4096) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    let [name] = o.names.as_slice() else {
        return fail("run takes one kernel name (cute emit --list)");
    };
    let layout = o.layouts[0];
    let problem = match Problem::new(o.m, o.n, o.k, layout, 1.0, 0.0) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    println!("{name} {layout} M={} N={} K={}", o.m, o.n, o.k);
    let t = Instant::now();
    let (gplan, kernel) = match plan_unrolled(name, layout, o.k_block_unroll)
        .and_then(|p| Ok((p.clone(), emit(&p)?)))
    {
        Ok(pk) => pk,
        Err(e) => return fail(e),
    };
    println!(
        "  plan + emit:   {:.2} ms, {} lines of CUDA",
        t.elapsed().as_secs_f64() * 1e3,
        kernel.source.lines().count()
    );
    match nvrtc::available() {
        Ok(()) => {
            // through the cache, so the launch below finds the cubin
            let t = Instant::now();
            match cache::compile(&kernel.name, &kernel.source, "sm_90a") {
                Ok((c, src)) => println!(
                    "  NVRTC sm_90a:  {}, {} registers, {} bytes spilled",
                    match src {
                        Source::Compiled => format!("{:.0} ms", t.elapsed().as_secs_f64() * 1e3),
                        Source::Memory | Source::Disk => "from the compile cache".to_string(),
                    },
                    c.registers.map_or("?".into(), |r| r.to_string()),
                    c.spill_bytes
                        .map_or("? (no ptxas report)".into(), |r| r.to_string())
                ),
                Err(e) => return fail(e),
            }
        }
        Err(e) => println!("  skipped compile: {e}"),
    }
    let Some((gpu, blas)) = (match gpu_and_blas("  skipped launch, verification and timing") {
        Ok(g) => g,
        Err(e) => return fail(e),
    }) else {
        return ExitCode::SUCCESS;
    };
    match on_gpu(&gpu, &blas, gplan, &kernel, &problem) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

/// The GPU and cuBLAS (pedantic FP32), or `None` after printing `{skipped}: why` on a machine
/// without a GPU.
fn gpu_and_blas(skipped: &str) -> Result<Option<(Gpu, CudaBlas)>, RuntimeError> {
    let gpu = match Gpu::open() {
        Ok(g) => g,
        Err(e) => {
            println!("{skipped}: {e}");
            return Ok(None);
        }
    };
    let blas =
        CudaBlas::new(gpu.stream.clone()).map_err(|e| RuntimeError::Cublas(format!("{e:?}")))?;
    pedantic(&blas)?;
    Ok(Some((gpu, blas)))
}

fn on_gpu(
    gpu: &Gpu,
    blas: &CudaBlas,
    gplan: GemmPlan,
    kernel: &Kernel,
    p: &Problem,
) -> Result<(), RuntimeError> {
    let gemm = Gemm::from_kernel(gpu, gplan, kernel)?;
    let loaded = gemm.loaded();
    println!(
        "  GPU:           {} ({}), {} registers per thread (from the loaded function), {}",
        gpu.name,
        gpu.arch,
        loaded.func.num_regs().map_or("?".into(), |r| r.to_string()),
        match loaded.source {
            Source::Compiled => format!("compiled in {:.0} ms", loaded.compile_ms),
            Source::Memory | Source::Disk => "from the compile cache".to_string(),
        }
    );
    for beta in [0.0f32, 0.5] {
        let q = Problem { beta, ..*p };
        let out = check(gpu, blas, loaded, &q, &gemm.plan().epilogue, 1)?;
        println!(
            "  check beta={beta}: {} (worst |error|/tolerance {:.3} at m={} n={}: {} vs {})",
            if out.pass { "pass" } else { "FAIL" },
            out.worst,
            out.at.0,
            out.at.1,
            out.at.2,
            out.at.3
        );
        if !out.pass {
            return Err(RuntimeError::Problem(format!(
                "{} computed a wrong result",
                loaded.kernel.name
            )));
        }
    }
    let t = bench(gpu, blas, loaded, p, 20)?;
    let (ours, theirs) = t.tflops(p);
    println!(
        "  time:          {:.3} ms = {ours:.1} TFLOP/s; cuBLAS SGEMM (pedantic FP32) {:.3} ms = {theirs:.1} TFLOP/s; {:.1}% of cuBLAS",
        t.kernel_ms,
        t.cublas_ms,
        100.0 * ours / theirs
    );
    Ok(())
}

/// Sizes of the correctness matrix: (M, N, K).
const CHECK_SIZES: &[(i64, i64, i64)] = &[
    (1, 1, 1),
    (17, 17, 17),
    (127, 127, 127),
    (1000, 1000, 1000),
    (1024, 1024, 1024),
    (4096, 4096, 4096),
    (300, 17, 1000),
    (64, 1000, 127),
];

/// `cute check [NAME...] [--layout L]... [--report FILE]`: every kernel x layout x size.
pub fn check_all(args: &[String]) -> ExitCode {
    let mut o = match parse(args, 0) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    if o.names.is_empty() {
        // every kernel; with --k-block-unroll, those that have a k-block loop
        o.names = NAMES
            .iter()
            .filter(|n| {
                o.k_block_unroll.is_none()
                    || plan(n, GemmLayout::all()[0])
                        .is_ok_and(|p| matches!(p.policy, Policy::Pipelined(_)))
            })
            .map(|s| s.to_string())
            .collect();
    }
    if args.iter().all(|a| a != "--layout") {
        o.layouts = GemmLayout::all().to_vec();
    }
    let (planned, gpu, blas) = match planned_on_gpu(&o) {
        Ok(Some(x)) => x,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => return fail(e),
    };
    let mut lines = vec![format!(
        "# cute check on {} ({}): kernel layout M N K beta result worst",
        gpu.name, gpu.arch
    )];
    let (mut passed, mut failed) = (0, 0);
    for p in &planned {
        let (name, layout) = (p.name.as_str(), p.layout);
        let gemm = match p.load(&gpu) {
            Ok(g) => g,
            Err(e) => return fail(e),
        };
        let (loaded, epilogue) = (gemm.loaded(), &gemm.plan().epilogue);
        // `--m/--n/--k` pick one size (as the sanitizer script does); otherwise the matrix
        let one = [(o.m.max(1), o.n.max(1), o.k.max(1))];
        let sizes: &[(i64, i64, i64)] = if o.m > 0 || o.n > 0 || o.k > 0 {
            &one
        } else {
            CHECK_SIZES
        };
        for (i, &(m, n, k)) in sizes.iter().enumerate() {
            if name.starts_with("naive") && m * n * k > 1 << 31 {
                continue;
            }
            for beta in [0.0f32, 0.5] {
                let p = match Problem::new(m, n, k, layout, 1.5, beta) {
                    Ok(p) => p,
                    Err(e) => return fail(e),
                };
                let line = match check(&gpu, &blas, loaded, &p, epilogue, i as u64) {
                    Ok(out) => {
                        if out.pass {
                            passed += 1
                        } else {
                            failed += 1
                        }
                        format!("{name} {layout} {m} {n} {k} {beta} {} {:.3} (m={} n={} got {} want {})", if out.pass { "pass" } else { "FAIL" }, out.worst, out.at.0, out.at.1, out.at.2, out.at.3)
                    }
                    Err(e) => {
                        failed += 1;
                        format!("{name} {layout} {m} {n} {k} {beta} ERROR {e}")
                    }
                };
                println!("{line}");
                lines.push(line);
            }
        }
    }
    let summary = format!("{passed} passed, {failed} failed");
    println!("{summary}");
    lines.push(summary);
    if let Some(path) = &o.report {
        let _ = std::fs::write(path, lines.join("\n") + "\n");
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `cute bench NAME... [--layout L]`: TFLOP/s and % of cuBLAS at 1024..8192 and a non-square size.
pub fn bench_all(args: &[String]) -> ExitCode {
    let o = match parse(args, 0) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    if o.names.is_empty() {
        return fail("bench needs kernel names (cute emit --list)");
    }
    let (planned, gpu, blas) = match planned_on_gpu(&o) {
        Ok(Some(x)) => x,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => return fail(e),
    };
    println!("# {} ({}); cuBLAS SGEMM in CUBLAS_PEDANTIC_MATH (pure FP32); CUDA events, 3 warm-ups, median of 20", gpu.name, gpu.arch);
    println!("| kernel | layout | M x N x K | ms | TFLOP/s | cuBLAS TFLOP/s | % of cuBLAS |");
    println!("|---|---|---|---:|---:|---:|---:|");
    let sizes = [
        (1024, 1024, 1024),
        (2048, 2048, 2048),
        (4096, 4096, 4096),
        (8192, 8192, 8192),
        (8192, 2048, 4096),
    ];
    for p in &planned {
        let (name, layout) = (p.name.as_str(), p.layout);
        let gemm = match p.load(&gpu) {
            Ok(g) => g,
            Err(e) => return fail(e),
        };
        for (m, n, k) in sizes {
            let p = match Problem::new(m, n, k, layout, 1.0, 0.0) {
                Ok(p) => p,
                Err(e) => return fail(e),
            };
            match bench(&gpu, &blas, gemm.loaded(), &p, 20) {
                Ok(t) => {
                    let (ours, theirs) = t.tflops(&p);
                    println!("| {name} | {layout} | {m} x {n} x {k} | {:.3} | {ours:.1} | {theirs:.1} | {:.1}% |", t.kernel_ms, 100.0 * ours / theirs);
                }
                Err(e) => return fail(e),
            }
        }
    }
    ExitCode::SUCCESS
}
