//! `cute tune sgemm|hgemm|bgemm`: times a selector's candidate plans (`select::candidates`) at
//! each shape beside cuBLAS of the dtype, and writes the fastest of each shape class to the
//! tuning cache (`runtime::tuning`) in one write after the last timing.

use std::process::ExitCode;

use cute::codegen::gemm::SplitKMode;
use cute::codegen::{select, GemmLayout};
use cute::runtime::bench::{Method, Reps};
use cute::runtime::gemm::Problem;
use cute::runtime::gpu::Gpu;
use cute::runtime::tensor_core;
use cute::runtime::tuning::{self, Device, ShapeClass, Tuned};
use cute::runtime::{CudaBlas, RuntimeError};

use super::args::TuneArgs;
use super::gpu::gpu_and_blas;
use super::split_k::time_pick;
use super::text::fail;

/// `cute tune sgemm|hgemm|bgemm [--m M --n N --k K | --suite] [--layout L]...`.
pub fn tune(a: &TuneArgs) -> ExitCode {
    let sizes = match a.size.one(1) {
        Some(one) => vec![one],
        None => select::SUITE.to_vec(),
    };
    let dtype = select::selector_dtype(&a.name).unwrap_or("f32");
    let layouts = if dtype == "f32" {
        a.plan.layouts(&GemmLayout::all()[..1])
    } else {
        super::tensor_core::layouts(&a.plan)
    };
    let path = tuning::path();
    let skipped = |why| {
        println!(
            "skipped: {why}; the tuning cache {} is unchanged",
            path.display()
        )
    };
    let (gpu, blas) = match gpu_and_blas(skipped) {
        Ok(Some(x)) => x,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => return fail(e),
    };
    let device = match Device::of(&gpu) {
        Ok(d) => d,
        Err(e) => return fail(e),
    };
    let tc_blas = match dtype {
        "f32" => None,
        _ => match super::tensor_core::blas(&gpu) {
            Ok(b) => Some(b),
            Err(e) => return fail(e),
        },
    };
    let baseline = match dtype {
        "f32" => "cuBLAS SGEMM (CUBLAS_PEDANTIC_MATH)",
        _ => "cublasGemmEx of the same types",
    };
    println!("# tuning the {dtype} selector on {device}, {}; each plan beside {baseline}; CUDA events, warm-up of 3 runs and 10 ms, median of 20", a.plan.target());
    println!("# {}", tuning::load(&device).describe(&path));
    let mut results = Vec::new();
    for &layout in &layouts {
        for &mnk in &sizes {
            let blas = tc_blas.as_ref().unwrap_or(&blas);
            match tune_one(a, dtype, &gpu, blas, layout, mnk) {
                Ok(r) => results.push(r),
                Err(e) => {
                    eprintln!("the tuning cache {} is unchanged", path.display());
                    return fail(e);
                }
            }
        }
    }
    let n = results.len();
    match tuning::record(&device, results) {
        Ok(p) => {
            println!("wrote {n} tuned shape classes to {}", p.display());
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// Times every candidate at `mnk` in `layout`; prints a row each and a line on the heuristic's
/// pick against the fastest; gives the fastest.
fn tune_one(
    a: &TuneArgs,
    dtype: &str,
    gpu: &Gpu,
    blas: &CudaBlas,
    layout: GemmLayout,
    (m, n, k): (i64, i64, i64),
) -> Result<(ShapeClass, Tuned), RuntimeError> {
    let target = a.plan.target();
    let candidates = select::candidates_in(dtype, layout, (m, n, k), &target);
    if candidates.is_empty() {
        return Err(RuntimeError::Problem(format!("no {dtype} plans to tune")));
    }
    println!("\n## {layout} {m} x {n} x {k}: {} plans", candidates.len());
    println!("| kernel | slices | ms | % of cuBLAS | |");
    println!("|---|---:|---:|---:|---|");
    // every candidate timed the way the first one was (launch to launch or not), so they compare
    let mut reps = Reps::from(20);
    let mut timed: Vec<(select::Candidate, i64, f64)> = Vec::with_capacity(candidates.len());
    for (i, c) in candidates.iter().enumerate() {
        let note = if i == 0 { "the heuristic's pick" } else { "" };
        match time_candidate(a, dtype, gpu, blas, layout, (m, n, k), *c, reps) {
            Ok(t) => {
                reps.method = Method::of(t.launch_to_launch);
                let dagger = if t.launch_to_launch { " †" } else { "" };
                println!(
                    "| {} | {}{} | {:.4}{dagger} | {:.1}% | {note} |",
                    c.name,
                    t.made,
                    mark(c.mode, t.made),
                    t.ms,
                    t.percent
                );
                timed.push((*c, t.made, t.ms));
            }
            Err(e) => {
                let e = super::text::lines(&e.to_string()).replace('\n', " ");
                let how = mark(c.mode, c.splits);
                println!("| {} | {}{how} | error: {e} | | {note} |", c.name, c.splits);
            }
        }
    }
    let Some(&(best, made, ms)) = timed.iter().min_by(|x, y| x.2.total_cmp(&y.2)) else {
        return Err(RuntimeError::Problem(format!(
            "{layout} {m}x{n}x{k}: no plan ran"
        )));
    };
    let pick = match timed.first() {
        Some((c, _, t)) if *c == candidates[0] => {
            format!(
                "the heuristic's pick runs at {:.1}% of its speed",
                100.0 * ms / t
            )
        }
        _ => "the heuristic's pick did not run".to_string(),
    };
    println!(
        "best: {} in {made} slices{}, {ms:.4} ms; {pick}",
        best.name,
        mark(best.mode, made)
    );
    let tuned = Tuned {
        kernel: best.name.to_string(),
        splits: made,
        mode: made_mode(best.mode, made),
        ms,
        at: (m, n, k),
    };
    Ok((ShapeClass::of(dtype, layout, (m, n, k)), tuned))
}

/// How a plan that made `slices` slices ran: its mode, or one kernel where a split made one
/// slice (K cut into fewer than asked).
fn made_mode(mode: SplitKMode, slices: i64) -> SplitKMode {
    match mode {
        SplitKMode::Parallel | SplitKMode::Serial if slices <= 1 => SplitKMode::None,
        m => m,
    }
}

/// What follows the slices in the table: ` serial`, ` stream-K` or nothing.
fn mark(mode: SplitKMode, slices: i64) -> &'static str {
    made_mode(mode, slices).mark()
}

/// A candidate's timing: milliseconds, % of cuBLAS's speed, the slices made, the method.
struct Timed {
    ms: f64,
    percent: f64,
    made: i64,
    launch_to_launch: bool,
}

/// One candidate timed beside cuBLAS.
#[allow(clippy::too_many_arguments)]
fn time_candidate(
    a: &TuneArgs,
    dtype: &str,
    gpu: &Gpu,
    blas: &CudaBlas,
    layout: GemmLayout,
    mnk: (i64, i64, i64),
    c: select::Candidate,
    reps: Reps,
) -> Result<Timed, RuntimeError> {
    let plan = a.plan.plan(c.name, layout)?;
    if dtype == "f32" {
        let q = Problem::new(mnk.0, mnk.1, mnk.2, layout, 1.0, 0.0)?;
        let (t, made) = time_pick(gpu, blas, plan, &q, (c.splits, c.mode), reps)?;
        return Ok(Timed {
            ms: t.kernel_ms,
            percent: 100.0 * t.cublas_ms / t.kernel_ms,
            made,
            launch_to_launch: t.launch_to_launch,
        });
    }
    let (t, made) = if c.splits > 1 {
        tensor_core::bench_split(gpu, blas, &plan, mnk, reps, (c.splits, c.mode))?
    } else {
        (tensor_core::bench(gpu, blas, &plan, mnk, reps)?, 1)
    };
    Ok(Timed {
        ms: t.kernel_ms,
        percent: 100.0 * t.cublas_ms / t.kernel_ms,
        made,
        launch_to_launch: t.launch_to_launch,
    })
}
