//! Plan + emit time of every named kernel, the tensor-core ones in TN (the layout algebra computing every index, the bank
//! analysis choosing swizzles, the verification and the writer): 2 warm-ups, median of 15.
//! NVRTC's compile time is reported by `cute run` (it needs the NVRTC library).
//! Run with `cargo bench -p cute-codegen --bench emit`.

use std::time::{Duration, Instant};

use cute_codegen::{emit, named, GemmLayout};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    println!("| kernel | layout | plan + emit (median of 15) | lines of CUDA |");
    println!("|---|---|---:|---:|");
    let (all, tn) = (GemmLayout::all().to_vec(), vec![GemmLayout::all()[2]]);
    let kernels = named::NAMES
        .iter()
        .map(|n| (n, &all))
        .chain(named::TENSOR_CORE_NAMES.iter().map(|n| (n, &tn)));
    for (name, layouts) in kernels {
        for &layout in layouts {
            let once = || {
                let start = Instant::now();
                let plan = named::plan(name, layout).expect("named plan");
                let k = emit(&plan).expect("named plans emit");
                (start.elapsed(), k.source.lines().count())
            };
            let (_, lines) = once();
            once();
            let t = median((0..15).map(|_| once().0).collect());
            println!(
                "| {name} | {layout} | {:.2} ms | {lines} |",
                t.as_secs_f64() * 1e3
            );
        }
    }
}
