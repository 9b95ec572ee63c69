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
    if a.plan.k_major_tile.is_some() {
        return super::usage(super::args::usage_error(
            "tune",
            clap::error::ErrorKind::ArgumentConflict,
            "--k-major-tile: the tuning cache keeps the plans as named, and `cute run` builds them so; time the other tiles with `cute bench --k-major-tile`",
        ));
    }
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
    let mut picks = Vec::new();
    for &layout in &layouts {
        for &mnk in &sizes {
            let blas = tc_blas.as_ref().unwrap_or(&blas);
            match tune_one(a, dtype, &gpu, blas, layout, mnk) {
                Ok((r, pick)) => {
                    picks.push((layout, mnk, pick));
                    results.push(r);
                }
                Err(e) => {
                    eprintln!("the tuning cache {} is unchanged", path.display());
                    return fail(e);
                }
            }
        }
    }
    if let Some(s) = picks_summary(&picks) {
        println!("\n{s}");
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

/// How far the heuristic's picks were from the fastest plans (issue 17's bar: within 5%): the
/// shapes within it and the furthest pick, for a tune of several shapes (`None` for one).
fn picks_summary(picks: &[Pick]) -> Option<String> {
    if picks.len() < 2 {
        return None;
    }
    let ran: Vec<_> = picks
        .iter()
        .filter_map(|&(l, s, p)| p.map(|p| (l, s, p)))
        .collect();
    let within = ran.iter().filter(|x| x.2 >= PICK_WITHIN).count();
    let mut out = format!(
        "the heuristic's pick ran within {:.0}% of the fastest plan at {within} of {} shapes",
        100.0 * (1.0 - PICK_WITHIN),
        picks.len()
    );
    if let Some((l, (m, n, k), p)) = ran.iter().min_by(|x, y| x.2.total_cmp(&y.2)) {
        out += &format!(
            "; the furthest: {l} {m} x {n} x {k}, at {:.1}% of the fastest's speed",
            100.0 * p
        );
    }
    Some(out)
}

/// A tuned shape and the heuristic's pick's share of the fastest plan's speed there (`None`:
/// the pick did not run).
type Pick = (GemmLayout, (i64, i64, i64), Option<f64>);

/// The share of the fastest plan's speed a pick within 5% of it reaches.
const PICK_WITHIN: f64 = 0.95;

/// Times every candidate at `mnk` in `layout`; prints a row each and a line on the heuristic's
/// pick against the fastest; gives the fastest and the pick's share of its speed (`None`
/// where the pick did not run).
fn tune_one(
    a: &TuneArgs,
    dtype: &str,
    gpu: &Gpu,
    blas: &CudaBlas,
    layout: GemmLayout,
    (m, n, k): (i64, i64, i64),
) -> Result<((ShapeClass, Tuned), Option<f64>), RuntimeError> {
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
    let share = match timed.first() {
        Some((c, _, t)) if *c == candidates[0] => Some(ms / t),
        _ => None,
    };
    let pick = match share {
        Some(x) => format!(
            "the heuristic's pick runs at {:.1}% of its speed",
            100.0 * x
        ),
        None => "the heuristic's pick did not run".to_string(),
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
    Ok(((ShapeClass::of(dtype, layout, (m, n, k)), tuned), share))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_the_picks_within_5_percent_and_names_the_furthest() {
        let (tn, nn) = (GemmLayout::all()[2], GemmLayout::all()[0]);
        let picks = [
            (tn, (512, 512, 512), Some(0.86)),
            (tn, (1024, 1024, 1024), Some(1.0)),
            (nn, (64, 4096, 4096), Some(0.951)),
            (tn, (1, 1, 1), None),
        ];
        let s = picks_summary(&picks).unwrap();
        assert!(
            s.contains("within 5% of the fastest plan at 2 of 4 shapes"),
            "{s}"
        );
        assert!(
            s.contains("the furthest: TN 512 x 512 x 512, at 86.0%"),
            "{s}"
        );
        assert_eq!(picks_summary(&picks[..1]), None);
        let none = [(tn, (1, 1, 1), None), (nn, (2, 2, 2), None)];
        assert!(!picks_summary(&none).unwrap().contains("furthest"));
    }
}
