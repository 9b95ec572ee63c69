//! `cute tune sgemm`: times the FP32 selector's candidate plans (`select::sgemm_candidates`)
//! at each shape beside cuBLAS, and writes the fastest of each shape class to the tuning cache
//! (`runtime::tuning`) in one write after the last timing.

use std::process::ExitCode;

use cute::codegen::{select, GemmLayout};
use cute::runtime::gemm::Problem;
use cute::runtime::gpu::Gpu;
use cute::runtime::tuning::{self, Device, ShapeClass, Tuned};
use cute::runtime::{CudaBlas, RuntimeError};

use super::args::TuneArgs;
use super::gpu::gpu_and_blas;
use super::split_k::time_pick;

/// `cute tune sgemm [--m M --n N --k K | --suite] [--layout L]...`.
pub fn tune(a: &TuneArgs) -> ExitCode {
    let sizes = match a.size.one(1) {
        Some(one) => vec![one],
        None => select::SUITE.to_vec(),
    };
    let layouts = a.plan.layouts(&GemmLayout::all()[..1]);
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
    println!("# tuning the FP32 selector on {device}, {}; each plan beside cuBLAS SGEMM (CUBLAS_PEDANTIC_MATH); CUDA events, 3 warm-ups, median of 20", a.plan.target());
    println!("# {}", tuning::load(&device).describe(&path));
    let mut results = Vec::new();
    for &layout in &layouts {
        for &mnk in &sizes {
            match tune_one(a, &gpu, &blas, layout, mnk) {
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
    gpu: &Gpu,
    blas: &CudaBlas,
    layout: GemmLayout,
    (m, n, k): (i64, i64, i64),
) -> Result<(ShapeClass, Tuned), RuntimeError> {
    let q = Problem::new(m, n, k, layout, 1.0, 0.0)?;
    let target = a.plan.target();
    let candidates = select::sgemm_candidates(m, n, k, &target);
    println!("\n## {layout} {m} x {n} x {k}: {} plans", candidates.len());
    println!("| kernel | slices | ms | % of cuBLAS | |");
    println!("|---|---:|---:|---:|---|");
    let mut times = Vec::with_capacity(candidates.len());
    for (i, c) in candidates.iter().enumerate() {
        let t = time_pick(gpu, blas, a.plan.plan(c.name, layout)?, &q, c.splits)?;
        let (ours, theirs) = t.tflops(&q);
        let note = if i == 0 { "the heuristic's pick" } else { "" };
        println!(
            "| {} | {} | {:.4} | {:.1}% | {note} |",
            c.name,
            c.splits,
            t.kernel_ms,
            100.0 * ours / theirs
        );
        times.push(t.kernel_ms);
    }
    let best = (0..times.len())
        .min_by(|&x, &y| times[x].total_cmp(&times[y]))
        .unwrap_or(0);
    let c = candidates[best];
    println!(
        "best: {} in {} slices, {:.4} ms; the heuristic's pick runs at {:.1}% of its speed",
        c.name,
        c.splits,
        times[best],
        100.0 * times[best] / times[0]
    );
    let tuned = Tuned {
        kernel: c.name.to_string(),
        splits: c.splits,
        ms: times[best],
        at: (m, n, k),
    };
    Ok((ShapeClass::of("f32", layout, (m, n, k)), tuned))
}

fn fail(e: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {}", super::text::lines(&e.to_string()));
    ExitCode::FAILURE
}
