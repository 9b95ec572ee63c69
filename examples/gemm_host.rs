//! The `Gemm` API on host slices: `sgemm-sm80` in every layout on a ragged 300x130x77 problem with
//! alpha 1.5 and beta 0.5, compared with a float64 loop on the host.
//! Run with `cargo run --release --example gemm_host` (on a machine without a GPU it says so).

use cute::codegen::gemm::Major;
use cute::codegen::GemmLayout;
use cute::runtime::api::Gemm;
use cute::runtime::gemm::Problem;
use cute::runtime::gpu::Gpu;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = match Gpu::open() {
        Ok(g) => g,
        Err(e) => {
            println!("skipped: {e}");
            return Ok(());
        }
    };
    for layout in GemmLayout::all() {
        let gemm = Gemm::named(&gpu, "sgemm-sm80", layout)?;
        let p = Problem::new(300, 130, 77, layout, 1.5, 0.5)?;
        let (sa, sb, sc) = p.buffer_sizes();
        let val = |i: usize, salt: usize| ((i * 7 + salt * 13) % 17) as f32 / 8.0 - 1.0;
        let a: Vec<f32> = (0..sa).map(|i| val(i, 1)).collect();
        let b: Vec<f32> = (0..sb).map(|i| val(i, 2)).collect();
        let mut c: Vec<f32> = (0..sc).map(|i| val(i, 3)).collect();
        let c0 = c.clone();
        gemm.run_host(&p, &a, &b, &mut c, None)?;
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
                let dot: f64 = (0..p.k)
                    .map(|k| f64::from(at(m, k)) * f64::from(bt(k, n)))
                    .sum();
                let i = (m + n * p.ldc) as usize;
                let want = 1.5 * dot + 0.5 * f64::from(c0[i]);
                worst = worst.max((f64::from(c[i]) - want).abs());
            }
        }
        println!("sgemm-sm80 {layout} 300x130x77: worst |error| {worst:.2e}");
        if worst > 1e-3 {
            return Err(format!("{layout}: wrong result").into());
        }
    }
    Ok(())
}
