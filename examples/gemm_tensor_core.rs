//! The `Gemm` API with the tensor-core GEMMs: `hgemm-sm80` on `half::f16` and `bgemm-sm80` on
//! `half::bf16` and `tf32gemm-sm80` on `f32` in every layout, `hgemm-sm90` in every layout and
//! `fp8gemm-sm90` on `float8::F8E4M3` (TN, a BF16 C), on a 296x136x96 problem that does
//! not divide the 128x256 tile, alpha 1.5 and beta 0.5, compared with a float64 loop over the
//! values as the tensor cores read them; then hgemm-sm80 writing an FP16 C and bgemm-sm80 a BF16
//! one (`GemmPlan::with_output`), allowed half an ulp of C's type more; then `Gemm::run_device`
//! on buffers uploaded once. Leading dimensions are
//! whole 16-byte rows (the 128-bit copies' requirement). Run with `cargo run --release --example gemm_tensor_core` (on a machine
//! without a GPU it says so).

use cute::codegen::gemm::Major;
use cute::codegen::{named, GemmLayout};
use cute::layout::ElemType;
use cute::runtime::api::{Gemm, InputElem};
use cute::runtime::gemm::Problem;
use cute::runtime::gpu::Gpu;
use float8::F8E4M3;
use half::{bf16, f16};

type Error = Box<dyn std::error::Error>;

fn main() -> Result<(), Error> {
    let gpu = match Gpu::open() {
        Ok(g) => g,
        Err(e) => {
            println!("skipped: {e}");
            return Ok(());
        }
    };
    let c32: Conv<f32> = (|x| x, f64::from);
    for layout in GemmLayout::all() {
        check(
            &gpu,
            "hgemm-sm80",
            layout,
            (f16::from_f32, f16::to_f64),
            c32,
        )?;
        check(
            &gpu,
            "bgemm-sm80",
            layout,
            (bf16::from_f32, bf16::to_f64),
            c32,
        )?;
    }
    // TF32 keeps 10 bits of mantissa: the reference reads the values as the tensor cores do
    let tf32 = |x: f32| f64::from(f32::from_bits(x.to_bits() & !0x1fff));
    for layout in GemmLayout::all() {
        check(&gpu, "tf32gemm-sm80", layout, (|x| x, tf32), c32)?;
    }
    // the SM90 GEMMs (TMA, mbarriers, wgmma): hgemm-sm90 in every layout, and fp8gemm-sm90
    // (E4M3 A and B, a BF16 C) in TN
    for layout in GemmLayout::all() {
        check(
            &gpu,
            "hgemm-sm90",
            layout,
            (f16::from_f32, f16::to_f64),
            c32,
        )?;
    }
    let e4m3: Conv<F8E4M3> = (F8E4M3::from_f32, |x| x.to_f64());
    let b16: Conv<bf16> = (bf16::from_f32, bf16::to_f64);
    check(&gpu, "fp8gemm-sm90", GemmLayout::all()[2], e4m3, b16)?;
    // a 16-bit C: the FP32 result rounded to C's type
    for layout in GemmLayout::all() {
        let h: Conv<f16> = (f16::from_f32, f16::to_f64);
        let b: Conv<bf16> = (bf16::from_f32, bf16::to_f64);
        check(&gpu, "hgemm-sm80", layout, h, h)?;
        check(&gpu, "bgemm-sm80", layout, b, b)?;
    }
    on_device(&gpu)?;
    refusals(&gpu)
}

/// `Gemm::run_device` on values uploaded once: hgemm-sm80 NT with an FP16 C, run twice on the
/// same device buffers, writes what `run_host` writes, bit for bit.
fn on_device(gpu: &Gpu) -> Result<(), Error> {
    let nt = GemmLayout::all()[1];
    let gemm = Gemm::new(
        gpu,
        named::plan("hgemm-sm80", nt)?.with_output(ElemType::F16)?,
    )?;
    let p = Problem::new(296, 136, 1000, nt, 1.0, 0.0)?;
    let (sa, sb, sc) = p.buffer_sizes();
    let a: Vec<f16> = (0..sa)
        .map(|i| f16::from_f32((i % 13) as f32 / 16.0))
        .collect();
    let b: Vec<f16> = (0..sb)
        .map(|i| f16::from_f32((i % 7) as f32 / 8.0 - 0.5))
        .collect();
    let mut host = vec![f16::ZERO; sc];
    gemm.run_host(&p, &a, &b, &mut host, None)?;
    let (da, db) = (f16::upload(gpu, &a)?, f16::upload(gpu, &b)?);
    let mut dc = f16::upload(gpu, &vec![f16::NAN; sc])?;
    for _ in 0..2 {
        gemm.run_device(&p, &da, &db, &mut dc, None)?;
    }
    let mut c = vec![f16::ZERO; sc];
    f16::download(gpu, &dc, &mut c)?;
    let same = c.iter().zip(&host).all(|(x, y)| x.to_bits() == y.to_bits());
    println!(
        "hgemm-sm80 NT 296x136x1000, C f16, on device buffers: the same bits as run_host: {same}"
    );
    if !same {
        return Err("run_device and run_host disagree".into());
    }
    Ok(())
}

/// A host type's values from `f32` and as `f64`.
type Conv<T> = (fn(f32) -> T, fn(T) -> f64);

/// Bad input is an error before anything runs: FP32 values for an FP16 kernel, and a leading
/// dimension of 20 halves (40 bytes: not whole 16-byte rows).
fn refusals(gpu: &Gpu) -> Result<(), Error> {
    let tn = GemmLayout::all()[2];
    let gemm = Gemm::named(gpu, "hgemm-sm80", tn)?;
    let p = Problem::new(64, 64, 17, tn, 1.0, 0.0)?;
    let (sa, sb, sc) = p.buffer_sizes();
    let mut c = vec![0.0f32; sc];
    let wrong = gemm.run_host(&p, &vec![0.0f32; sa], &vec![0.0f32; sb], &mut c, None);
    let odd = gemm.run_host(&p, &vec![f16::ZERO; sa], &vec![f16::ZERO; sb], &mut c, None);
    for (what, r) in [("FP32 operands", wrong), ("ldA = 20", odd)] {
        match r {
            Err(e) => println!("hgemm-sm80 refuses {what}: {e}"),
            Ok(()) => return Err(format!("hgemm-sm80 ran with {what}").into()),
        }
    }
    Ok(())
}

/// `name` in `layout` through `Gemm::run_host` on A and B of `T` and C of `O` (each made from
/// `f32` and read as `f64` by its [`Conv`]), against the float64 product; a 16-bit C may be off
/// by half an ulp of its type more.
fn check<T: InputElem, O: InputElem>(
    gpu: &Gpu,
    name: &str,
    layout: GemmLayout,
    (from, wide): Conv<T>,
    (from_c, wide_c): Conv<O>,
) -> Result<(), Error> {
    let out = [ElemType::F32, ElemType::F16, ElemType::Bf16]
        .into_iter()
        .find(|&e| O::holds(e))
        .ok_or("C is f32, f16 or bf16")?;
    let half_ulp = match out {
        ElemType::F16 => f64::powi(2.0, -11),
        ElemType::Bf16 => f64::powi(2.0, -8),
        _ => 0.0,
    };
    let gemm = Gemm::new(gpu, named::plan(name, layout)?.with_output(out)?)?;
    let p = Problem::new(296, 136, 96, layout, 1.5, 0.5)?;
    let (sa, sb, sc) = p.buffer_sizes();
    // multiples of 1/8 in [-1, 1]: exact in every type, so only the accumulation errs
    let val = |i: usize, salt: usize| ((i * 7 + salt * 13) % 17) as f32 / 8.0 - 1.0;
    let a: Vec<T> = (0..sa).map(|i| from(val(i, 1))).collect();
    let b: Vec<T> = (0..sb).map(|i| from(val(i, 2))).collect();
    let mut c: Vec<O> = (0..sc).map(|i| from_c(val(i, 3))).collect();
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
            let dot: f64 = (0..p.k).map(|k| wide(at(m, k)) * wide(bt(k, n))).sum();
            let i = (m + n * p.ldc) as usize;
            let want = 1.5 * dot + 0.5 * wide_c(c0[i]);
            // the error beyond the rounding to C's type
            let err = (wide_c(c[i]) - want).abs() - half_ulp * want.abs();
            worst = worst.max(err.max(0.0));
        }
    }
    let c_is = if out == ElemType::F32 {
        String::new()
    } else {
        format!(", C {out}")
    };
    println!("{name} {layout} 296x136x96{c_is}: worst |error| {worst:.2e} beyond C's rounding");
    if worst > 1e-3 {
        return Err(format!("{name} {layout}: wrong result").into());
    }
    Ok(())
}
