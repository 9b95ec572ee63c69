//! `cute run NAME --split-k S|auto [--serial]` and `cute bench NAME... --split-k S|auto
//! [--serial]`: a named FP32 GEMM as parallel split-K (its partial products over S slices of
//! K, then the reduction that applies its epilogue) or serial split-K (one kernel, the slices
//! adding into C in turn), checked against the float64 reference and timed beside cuBLAS SGEMM
//! like the one-kernel GEMMs.

use std::process::ExitCode;
use std::time::Instant;

use clap::error::ErrorKind;
use cute::codegen::gemm::{Epilogue, SplitKMode};
use cute::codegen::{select, GemmLayout, GemmPlan, Kernel};
use cute::runtime::auto::AutoGemm;
use cute::runtime::bench::{bench_with, Reps, Timing};
use cute::runtime::check::check_with;
use cute::runtime::gemm::{Buffers, Problem};
use cute::runtime::gpu::Gpu;
use cute::runtime::split_k::{Split as Cut, SplitK};
use cute::runtime::tuning::{self, selected, Device, Table};
use cute::runtime::{CudaBlas, RuntimeError};

use super::args::{usage_error, BenchArgs, RunArgs, Split, SELECTOR};
use super::gpu::{gpu_and_blas, gpu_for_run, label};
use super::text::fail;
use super::usage;

/// Refuses `--split-k` for what is no GEMM (the recipes). A GEMM whose plan cannot split K as
/// asked (no k-tile pipeline; a TMA pipeline split serially) is refused by
/// `GemmPlan::with_split_k` / `with_serial_split_k`, with the reason.
pub fn refuse(sub: &str, names: &[&str]) -> Result<(), clap::Error> {
    match names.iter().find(|n| super::recipe::is_recipe(n)) {
        Some(n) => Err(usage_error(
            sub,
            ErrorKind::ArgumentConflict,
            format!("--split-k takes the GEMMs (sgemm-sm80, hgemm-sm80, ...); {n} is not one"),
        )),
        None => Ok(()),
    }
}

/// The slices `--split-k` asks for at `(m, n, k)`.
pub fn slices(split: Split, plan: &GemmPlan, mnk: (i64, i64, i64)) -> i64 {
    match split {
        Split::Auto => select::plan_splits(plan, mnk).0,
        Split::Slices(n) => n,
    }
}

/// What `run` runs: a kernel, its split (`None`: one kernel, or stream-K) and how the split runs.
pub struct Picked {
    pub name: String,
    pub split: Option<Split>,
    pub mode: SplitKMode,
}

impl Picked {
    /// Serial split-K.
    pub fn serial(&self) -> bool {
        self.mode == SplitKMode::Serial
    }
}

/// The kernel `run` takes and its split: the one named, split as `--split-k` (and
/// `--serial`) says; for a selector (`sgemm`, `hgemm`, `bgemm`), its pick for the shape in
/// `layout` (a tuned plan of this device first), printed (with its reasons under `--explain`),
/// `--split-k` overriding its slices and mode.
pub fn pick(a: &RunArgs, layout: GemmLayout, mnk: (i64, i64, i64)) -> Picked {
    let asked = Picked {
        name: a.name.clone(),
        split: a.split.split_k,
        mode: asked_mode(a),
    };
    let Some(dtype) = select::selector_dtype(&a.name) else {
        if a.explain {
            println!(
                "  {} was named: the selectors are `cute run {SELECTOR}` (hgemm, bgemm)",
                a.name
            );
        }
        return asked;
    };
    // the device's identity without a context: the run opens the one it launches on
    let tuned = match Device::probe() {
        Ok(d) => tuned_table(d, a.explain),
        Err(RuntimeError::NoGpu { .. }) => {
            if a.explain {
                println!("  no GPU: the tuning cache is not read");
            }
            None
        }
        Err(e) => {
            println!(
                "  tuning cache not read: {}",
                super::text::lines(&e.to_string())
            );
            None
        }
    };
    let Some(c) = selected(dtype, a.plan.target(), tuned.as_ref(), layout, mnk) else {
        return asked;
    };
    let cut = match c.mode {
        SplitKMode::None => "K not split".to_string(),
        SplitKMode::Stream => "stream-K".to_string(),
        m => format!("K split {} ways ({})", c.splits, m.word()),
    };
    println!("{}{}, {cut}", label("selected"), c.name);
    if a.explain {
        for r in &c.reasons {
            println!("    {r}");
        }
    }
    match a.split.split_k {
        Some(split) => Picked {
            name: c.name,
            split: Some(split),
            mode: asked_mode(a),
        },
        None => Picked {
            name: c.name,
            split: matches!(c.mode, SplitKMode::Parallel | SplitKMode::Serial)
                .then_some(Split::Slices(c.splits)),
            mode: c.mode,
        },
    }
}

/// What `run` does for a GEMM of several kernels (split-K's, stream-K's) before the GPU: prints
/// the time to plan and emit them (since `t`) and their lines, compiles each, opens the GPU.
/// `Err` is the exit code to return: a failure, or success where no GPU is there to go on with.
pub fn compile_for_run(t: Instant, kernels: &[Kernel]) -> Result<(Gpu, CudaBlas), ExitCode> {
    let lines: Vec<String> = kernels
        .iter()
        .map(|k| k.source.lines().count().to_string())
        .collect();
    let names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
    println!(
        "{}{:.2} ms, {} lines of CUDA ({})",
        label("plan + emit"),
        t.elapsed().as_secs_f64() * 1e3,
        lines.join(" + "),
        names.join(" and ")
    );
    for k in kernels {
        super::gpu::compile_step(k, k.target.name()).map_err(fail)?;
    }
    match gpu_for_run() {
        Ok(Some(g)) => Ok(g),
        Ok(None) => Err(ExitCode::SUCCESS),
        Err(e) => Err(fail(e)),
    }
}

/// The mode `--split-k` / `--serial` / `--stream-k` ask for.
fn asked_mode(a: &RunArgs) -> SplitKMode {
    match (a.split.split_k, a.split.serial, a.split.stream_k) {
        (_, _, true) => SplitKMode::Stream,
        (Some(_), true, _) => SplitKMode::Serial,
        (Some(_), false, _) => SplitKMode::Parallel,
        (None, _, _) => SplitKMode::None,
    }
}

/// `cute run NAME --split-k ... [--serial]`: plan, emit and compile the kernels, check with
/// beta 0 and 0.5, time beside cuBLAS.
pub fn run(a: &RunArgs, pk: &Picked, split: Split, layout: GemmLayout, p: &Problem) -> ExitCode {
    let t = Instant::now();
    let plan = match a.plan.plan(&pk.name, layout) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let kernels = match cute::codegen::recipes::emit_split_kernels(&plan, pk.serial()) {
        Ok(k) => k,
        Err(e) => return fail(e),
    };
    let s = slices(split, &plan, (p.m, p.n, p.k));
    let (gpu, blas) = match compile_for_run(t, &kernels) {
        Ok(g) => g,
        Err(code) => return code,
    };
    match on_gpu(&gpu, &blas, plan, &kernels, p, s) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

fn on_gpu(
    gpu: &Gpu,
    blas: &CudaBlas,
    plan: GemmPlan,
    kernels: &[Kernel],
    p: &Problem,
    s: i64,
) -> Result<(), RuntimeError> {
    let epilogue = plan.epilogue.clone();
    let sk = SplitK::from_kernels(gpu, plan, kernels)?;
    let cut = sk.split(p, s)?;
    let how = match sk.is_serial() {
        true => "serial: the slices add into C in turn, a semaphore per output tile".to_string(),
        false => format!(
            "parallel: {} x {} x {} FP32 workspace",
            cut.ldw, p.n, cut.splits
        ),
    };
    println!(
        "{}{} slices of K = {} ({} each; {how})",
        label("split-K"),
        cut.splits,
        p.k,
        cut.kc,
    );
    let what = format!("{} with split-K", sk.plan().name);
    let work = sk.workspace(p, cut)?;
    check_and_time(gpu, blas, &what, &epilogue, p, &mut |q, b| {
        sk.launch(q, b, &work, cut)
    })
}

/// A GEMM of several kernels (`launch` queues them on a problem's buffers) checked against
/// the float64 reference with beta 0 and 0.5, then timed beside cuBLAS SGEMM (CUDA events, a
/// warm-up of 3 runs and 10 ms, median of 20), the time printed.
pub(super) fn check_and_time(
    gpu: &Gpu,
    blas: &CudaBlas,
    what: &str,
    epilogue: &Epilogue,
    p: &Problem,
    launch: &mut dyn FnMut(&Problem, &mut Buffers) -> Result<(), RuntimeError>,
) -> Result<(), RuntimeError> {
    super::gpu::check_betas(what, &mut |beta| {
        let q = Problem { beta, ..*p };
        check_with(gpu, blas, &q, epilogue, 1, &mut |b| launch(&q, b))
    })?;
    let t = bench_with(gpu, blas, p, 20, &mut |b| launch(p, b))?;
    let (ours, theirs) = t.tflops(p);
    println!(
        "{}{:.4} ms = {ours:.2} TFLOP/s (every kernel); cuBLAS SGEMM (pedantic FP32) {:.4} ms = {theirs:.2} TFLOP/s; {:.1}% of cuBLAS",
        label("time"),
        t.kernel_ms,
        t.cublas_ms,
        100.0 * ours / theirs
    );
    Ok(())
}

/// The plans `cute bench NAME...` times (each name in each of its layouts, NN unless asked),
/// and the GPU and cuBLAS handle to time them; `None` (said so) without a GPU.
pub(super) fn bench_plans(
    a: &BenchArgs,
) -> Result<Option<(Vec<GemmPlan>, Gpu, CudaBlas)>, RuntimeError> {
    let layouts = a.plan.layouts(&GemmLayout::all()[..1]);
    let mut plans = Vec::new();
    for name in &a.names {
        for &layout in &layouts {
            plans.push(a.plan.plan(name, layout)?);
        }
    }
    Ok(gpu_and_blas(|why| println!("skipped: {why}"))?.map(|(g, b)| (plans, g, b)))
}

/// The split-K kernels timed as one GEMM beside cuBLAS (CUDA events, a warm-up of 3 runs and
/// 10 ms, median of 20).
fn time(
    gpu: &Gpu,
    blas: &CudaBlas,
    sk: &SplitK,
    p: &Problem,
    cut: Cut,
) -> Result<Timing, RuntimeError> {
    let work = sk.workspace(p, cut)?;
    bench_with(gpu, blas, p, 20, &mut |b| sk.launch(p, b, &work, cut))
}

/// `cute bench NAME... --split-k ...`: one table row per kernel, layout and size, with the
/// slices taken.
pub fn bench(a: &BenchArgs, split: Split, sizes: &[(i64, i64, i64)]) -> ExitCode {
    let named: Vec<&str> = a.names.iter().map(String::as_str).collect();
    if let Err(e) = refuse("bench", &named) {
        return usage(e);
    }
    let (plans, gpu, blas) = match bench_plans(a) {
        Ok(Some(x)) => x,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => return fail(e),
    };
    let mode = match a.split.serial {
        true => "serial split-K (one kernel, the slices in turn)",
        false => "parallel split-K (partials + reduction)",
    };
    println!("# {} ({}), {}; {mode} beside cuBLAS SGEMM in CUBLAS_PEDANTIC_MATH; CUDA events, warm-up of 3 runs and 10 ms, median of 20", gpu.name, gpu.arch, a.plan.target());
    table_header();
    for plan in plans {
        let (name, layout) = (plan.name.clone(), plan.layout);
        let sk = match SplitK::with_mode(&gpu, plan, a.split.serial) {
            Ok(x) => x,
            Err(e) => return fail(e),
        };
        for &(m, n, k) in sizes {
            let row = Problem::new(m, n, k, layout, 1.0, 0.0).and_then(|q| {
                let cut = sk.split(&q, slices(split, sk.plan(), (q.m, q.n, q.k)))?;
                Ok((cut, time(&gpu, &blas, &sk, &q, cut)?, q))
            });
            match row {
                Ok((cut, t, q)) => table_row(&name, &q, cut.splits, &t),
                Err(e) => return fail(e),
            }
        }
    }
    ExitCode::SUCCESS
}

/// `cute bench sgemm`: at each size and layout, the selector's pick timed beside cuBLAS (its
/// split-K as both kernels, or its one kernel).
pub fn bench_selected(a: &BenchArgs, sizes: &[(i64, i64, i64)]) -> ExitCode {
    if a.names.len() > 1 || a.split.split_k.is_some() {
        return usage(usage_error(
            "bench",
            ErrorKind::ArgumentConflict,
            format!("{SELECTOR} (the selector's pick) is benched alone and picks its own split"),
        ));
    }
    let layouts = a.plan.layouts(&GemmLayout::all()[..1]);
    let (gpu, blas) = match gpu_and_blas(|why| println!("skipped: {why}")) {
        Ok(Some(x)) => x,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => return fail(e),
    };
    println!("# {} ({}), {}; the selector's FP32 GEMM beside cuBLAS SGEMM in CUBLAS_PEDANTIC_MATH; CUDA events, warm-up of 3 runs and 10 ms, median of 20", gpu.name, gpu.arch, a.plan.target());
    let tuned = tuned_table_of(&gpu, true);
    table_header();
    for layout in layouts {
        for &(m, n, k) in sizes {
            let Some(c) = selected("f32", a.plan.target(), tuned.as_ref(), layout, (m, n, k))
            else {
                continue;
            };
            let row = Problem::new(m, n, k, layout, 1.0, 0.0).and_then(|q| {
                let plan = a.plan.plan(&c.name, layout)?;
                Ok((time_pick(&gpu, &blas, plan, &q, (c.splits, c.mode), 20)?, q))
            });
            match row {
                Ok(((t, made), q)) => table_row(&c.name, &q, made, &t),
                Err(e) => return fail(e),
            }
        }
    }
    ExitCode::SUCCESS
}

/// `plan` on `q` in `splits` slices of K run as `mode` timed beside cuBLAS: the split-K
/// kernels (serial or parallel), stream-K's, or the one kernel (with the index width `q`
/// needs); gives the slices made too (K may cut into fewer).
pub fn time_pick(
    gpu: &Gpu,
    blas: &CudaBlas,
    plan: GemmPlan,
    q: &Problem,
    (splits, mode): (i64, SplitKMode),
    reps: impl Into<Reps>,
) -> Result<(Timing, i64), RuntimeError> {
    let named = tuning::Selected {
        name: plan.name.clone(),
        splits,
        mode,
        reasons: Vec::new(),
    };
    let g = AutoGemm::with_plan(gpu, plan, q, named)?;
    let t = bench_with(gpu, blas, q, reps, &mut |b| g.launch(q, b))?;
    Ok((t, g.selected().splits))
}

/// This device's tuning results, if any; with `say`, a line on what the cache held.
pub fn tuned_table_of(gpu: &Gpu, say: bool) -> Option<Table> {
    match Device::of(gpu) {
        Ok(d) => tuned_table(d, say),
        Err(e) => {
            println!(
                "  tuning cache not read: {}",
                super::text::lines(&e.to_string())
            );
            None
        }
    }
}

/// The tuning cache's table for `device` (`say`: print what was loaded).
pub fn tuned_table(device: Device, say: bool) -> Option<Table> {
    let load = tuning::load(&device);
    if say {
        println!("  {}", load.describe(&tuning::path()));
    }
    load.table().cloned()
}

/// The columns of the split-K benches' table.
pub(super) fn table_header() {
    println!(
        "| kernel | layout | M x N x K | slices | ms | TFLOP/s | cuBLAS TFLOP/s | % of cuBLAS |"
    );
    println!("|---|---|---|---:|---:|---:|---:|---:|");
}

/// One row: `name` on problem `q` in `splits` slices of K, timed beside cuBLAS.
pub(super) fn table_row(name: &str, q: &Problem, splits: i64, t: &Timing) {
    let (ours, theirs) = t.tflops(q);
    println!(
        "| {name} | {} | {} x {} x {} | {splits} | {:.4} | {ours:.2} | {theirs:.2} | {:.1}% |",
        q.layout,
        q.m,
        q.n,
        q.k,
        t.kernel_ms,
        100.0 * ours / theirs
    );
}
