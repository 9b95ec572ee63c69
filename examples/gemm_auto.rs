//! `AutoGemm`: the GEMM a selector picks for a problem (this device's tuned plan from the
//! tuning cache, else the heuristic), as one call — FP32 at a decode step's 1x4096x4096, a
//! short-K 64x1000x127 and a ragged 300x130x77, in NN and TN; BF16 and FP16 (C in FP32) at
//! 16x4096x4096 (the SM80 tensor-core GEMM split K ways) and 2048x2048x512 (the SM90 one); alpha
//! 1.5 and beta 0.5, compared with a float64 loop on the host. Run with `cargo run --release
//! --example gemm_auto` (on a machine without a GPU it says so).

use cute::codegen::gemm::Major;
use cute::codegen::GemmLayout;
use cute::runtime::auto::AutoGemm;
use cute::runtime::gemm::{Buffers, Problem};
use cute::runtime::gpu::Gpu;
use half::{bf16, f16};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = match Gpu::open() {
        Ok(g) => g,
        Err(e) => {
            println!("skipped: {e}");
            return Ok(());
        }
    };
    let layouts = [GemmLayout::all()[0], GemmLayout::all()[2]];
    for layout in layouts {
        for (m, n, k) in [(1, 4096, 4096), (64, 1000, 127), (300, 130, 77)] {
            let p = Problem::new(m, n, k, layout, 1.5, 0.5)?;
            let gemm = AutoGemm::new(&gpu, &p)?;
            let (sa, sb, sc) = p.buffer_sizes();
            let val = |i: usize, salt: usize| ((i * 7 + salt * 13) % 17) as f32 / 8.0 - 1.0;
            let a: Vec<f32> = (0..sa).map(|i| val(i, 1)).collect();
            let b: Vec<f32> = (0..sb).map(|i| val(i, 2)).collect();
            let c0: Vec<f32> = (0..sc).map(|i| val(i, 3)).collect();
            let mut bufs = Buffers::upload(&gpu, &p, &a, &b, &c0, &[0.0])?;
            gemm.run(&p, &mut bufs)?;
            let c = gpu.stream.clone_dtoh(&bufs.c)?;
            let worst = worst_error(&p, layout, (&a, &b, &c0), &c);
            let s = gemm.selected();
            println!(
                "{layout} {m}x{n}x{k}: {} in {} slices, worst |error| / bound {worst:.2e}",
                s.name, s.splits
            );
            if worst > 1.0 {
                return Err(format!("{layout} {m}x{n}x{k}: wrong result").into());
            }
        }
    }
    let tn = GemmLayout::all()[2];
    for (m, n, k) in [(16, 4096, 4096), (2048, 2048, 512)] {
        sixteen_bit(
            &gpu,
            "bf16",
            Problem::new(m, n, k, tn, 1.5, 0.5)?,
            bf16::from_f32,
        )?;
        sixteen_bit(
            &gpu,
            "f16",
            Problem::new(m, n, k, tn, 1.5, 0.5)?,
            f16::from_f32,
        )?;
    }
    Ok(())
}

/// The 16-bit selector of `dtype` on `p` through `AutoGemm::run_host` (A and B of values
/// exact in 16 bits, C in FP32), checked as the FP32 runs are.
fn sixteen_bit<T: cute::runtime::api::InputElem>(
    gpu: &Gpu,
    dtype: &str,
    p: Problem,
    from: fn(f32) -> T,
) -> Result<(), Box<dyn std::error::Error>> {
    let gemm = AutoGemm::for_dtype(gpu, dtype, &p)?;
    let (sa, sb, sc) = p.buffer_sizes();
    let val = |i: usize, salt: usize| ((i * 7 + salt * 13) % 17) as f32 / 8.0 - 1.0;
    let a: Vec<f32> = (0..sa).map(|i| val(i, 1)).collect();
    let b: Vec<f32> = (0..sb).map(|i| val(i, 2)).collect();
    let c0: Vec<f32> = (0..sc).map(|i| val(i, 3)).collect();
    let (a16, b16): (Vec<T>, Vec<T>) = (
        a.iter().map(|&x| from(x)).collect(),
        b.iter().map(|&x| from(x)).collect(),
    );
    let mut c = c0.clone();
    gemm.run_host(&p, &a16, &b16, &mut c)?;
    let worst = worst_error(&p, p.layout, (&a, &b, &c0), &c);
    let s = gemm.selected();
    let (m, n, k) = (p.m, p.n, p.k);
    println!(
        "{dtype} {} {m}x{n}x{k}: {} in {} slices{}, worst |error| / bound {worst:.2e}",
        p.layout,
        s.name,
        s.splits,
        s.mode.mark()
    );
    if worst > 1.0 {
        return Err(format!("{dtype} {m}x{n}x{k}: wrong result").into());
    }
    Ok(())
}

/// The largest |C - (1.5 A B + 0.5 C0)| against a float64 loop, over its bound: FP32's unit
/// roundoff times (K + 3) times the sum of the terms' magnitudes, twice over.
fn worst_error(
    p: &Problem,
    layout: GemmLayout,
    (a, b, c0): (&[f32], &[f32], &[f32]),
    c: &[f32],
) -> f64 {
    let at = |m: i64, k: i64| match layout.a {
        Major::MN => a[(m + k * p.lda) as usize],
        Major::K => a[(k + m * p.lda) as usize],
    };
    let bt = |k: i64, n: i64| match layout.b {
        Major::K => b[(k + n * p.ldb) as usize],
        Major::MN => b[(n + k * p.ldb) as usize],
    };
    let mut worst = 0.0f64;
    for n in 0..p.n {
        for m in 0..p.m {
            let terms = (0..p.k).map(|k| f64::from(at(m, k)) * f64::from(bt(k, n)));
            let (dot, mag) = terms.fold((0.0, 0.0), |(s, a), t| (s + t, a + t.abs()));
            let i = (m + n * p.ldc) as usize;
            let want = 1.5 * dot + 0.5 * f64::from(c0[i]);
            let bound = 2.0 * f64::from(f32::EPSILON) * (p.k + 3) as f64 * (1.5 * mag + 1.0);
            worst = worst.max((f64::from(c[i]) - want).abs() / bound);
        }
    }
    worst
}
