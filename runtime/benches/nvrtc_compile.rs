//! NVRTC compile time of every named kernel for `sm_90a` (the bars: SIMT under 200 ms, SM80
//! tensor-core GEMMs under 300 ms, SM90 ones under 400 ms, on the development machine): the
//! kernel is emitted once, compiled once to warm NVRTC's libraries, then compiled `RUNS` times
//! straight through NVRTC (no compile cache); the median is printed with ptxas's registers.
//! Without NVRTC it says so and exits. Run with `cargo bench -p cute-runtime --bench nvrtc_compile`,
//! optionally followed by kernel names to time only those (`-- hgemm-sm80 bgemm-sm80`), in every
//! layout it has.

use std::time::{Duration, Instant};

use cute_codegen::named::{plan_for, NAMES, TENSOR_CORE_NAMES};
use cute_codegen::{emit, GemmLayout, Target};
use cute_runtime::nvrtc;

const RUNS: usize = 5;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    if let Err(e) = nvrtc::available() {
        println!("skipped: {e}");
        return;
    }
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let target = Target::sm90a();
    println!("| kernel | layout | NVRTC (median of {RUNS}) | registers |");
    println!("|---|---|---:|---:|");
    for name in NAMES.iter().chain(TENSOR_CORE_NAMES) {
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        for layout in GemmLayout::all() {
            // a kernel without this layout (TF32's and FP8's SM90 GEMMs are TN only) is skipped
            let Ok(plan) = plan_for(name, layout, &target) else {
                continue;
            };
            let k = emit(&plan).expect("named plans emit");
            let once = || {
                let start = Instant::now();
                let c = nvrtc::compile(&k.name, &k.source, target.name())
                    .expect("named kernels compile");
                (start.elapsed(), c.registers)
            };
            let (_, regs) = once();
            let t = median((0..RUNS).map(|_| once().0).collect());
            let regs = regs.map_or("?".to_string(), |r| r.to_string());
            println!(
                "| {name} | {layout} | {:.0} ms | {regs} |",
                t.as_secs_f64() * 1e3
            );
        }
    }
}
