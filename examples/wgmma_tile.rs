//! One warpgroup's `wgmma` tile on the GPU (`recipes::wgmma_tile`): A and B staged in shared
//! memory in GMMA layout atoms, read by descriptors `make_gmma_desc` derives from those
//! layouts, for FP16 and BF16 in both majors and TF32 (SS and RS), FP16 accumulators over FP16
//! and FP8, and the 8-bit integer MMAs, on fresh random values, against a float64 product of
//! the same rounded values. It is the hardware's check of the descriptors
//! (start address, LBO, SBO, swizzle mode) the code generator writes.
//! Run with `cargo run --release --example wgmma_tile` (without an sm_90 GPU it says so).

use cute::codegen::cuda::emit;
use cute::codegen::interp::{round, Arg, HostBuffer};
use cute::codegen::recipes::wgmma_tile;
use cute::layout::ElemType;
use cute::runtime::gpu::Gpu;
use cute::runtime::launch::launch;
use cute::runtime::recipe::{args, download, upload};

type Error = Box<dyn std::error::Error>;

fn main() -> Result<(), Error> {
    let gpu = match Gpu::open() {
        Ok(g) if g.arch.starts_with("sm_90") => g,
        Ok(g) => {
            println!("skipped: {} is {}, wgmma needs sm_90a", g.name, g.arch);
            return Ok(());
        }
        Err(e) => {
            println!("skipped: {e}");
            return Ok(());
        }
    };
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    let (k, mn) = ("GMMA::Major::K", "GMMA::Major::MN");
    let cases = [
        (
            format!("SM90_64x64x16_F32F16F16_SS<{k},{k}>"),
            (ElemType::F16, ElemType::F16),
            64,
            64,
            (true, true),
            1e-3,
        ),
        (
            format!("SM90_64x256x16_F32F16F16_SS<{k},{k}>"),
            (ElemType::F16, ElemType::F16),
            256,
            128,
            (true, true),
            1e-3,
        ),
        (
            format!("SM90_64x128x16_F32BF16BF16_SS<{k},{mn}>"),
            (ElemType::Bf16, ElemType::Bf16),
            128,
            64,
            (true, false),
            1e-3,
        ),
        (
            format!("SM90_64x64x16_F32F16F16_SS<{mn},{k}>"),
            (ElemType::F16, ElemType::F16),
            64,
            64,
            (false, true),
            1e-3,
        ),
        (
            format!("SM90_64x32x16_F32BF16BF16_SS<{mn},{mn}>"),
            (ElemType::Bf16, ElemType::Bf16),
            32,
            64,
            (false, false),
            1e-3,
        ),
        (
            "SM90_64x64x8_F32TF32TF32_SS_TN<>".to_string(),
            (ElemType::Tf32, ElemType::Tf32),
            64,
            64,
            (true, true),
            1e-3,
        ),
        // A from registers (RS): each thread's ALayout_64xK fragment, B by descriptor
        (
            format!("SM90_64x128x16_F32F16F16_RS<{k},{mn}>"),
            (ElemType::F16, ElemType::F16),
            128,
            64,
            (true, false),
            1e-3,
        ),
        (
            format!("SM90_64x64x16_F32BF16BF16_RS<{k},{k}>"),
            (ElemType::Bf16, ElemType::Bf16),
            64,
            128,
            (true, true),
            1e-3,
        ),
        (
            "SM90_64x32x8_F32TF32TF32_RS_TN<>".to_string(),
            (ElemType::Tf32, ElemType::Tf32),
            32,
            32,
            (true, true),
            1e-3,
        ),
        // an FP16 accumulator (two values a register, `.f16`): within FP16's rounding of the sums
        (
            format!("SM90_64x128x16_F16F16F16_SS<{k},{mn}>"),
            (ElemType::F16, ElemType::F16),
            128,
            64,
            (true, false),
            3e-2,
        ),
        (
            format!("SM90_64x64x16_F16F16F16_RS<{k},{k}>"),
            (ElemType::F16, ElemType::F16),
            64,
            64,
            (true, true),
            3e-2,
        ),
        (
            "SM90_64x64x32_F16E4M3E4M3_SS_TN<>".to_string(),
            (ElemType::E4M3, ElemType::E4M3),
            64,
            64,
            (true, true),
            3e-2,
        ),
        // the integer MMAs accumulate exactly
        (
            "SM90_64x64x32_S32S8S8_SS_TN".to_string(),
            (ElemType::I8, ElemType::I8),
            64,
            128,
            (true, true),
            0.0,
        ),
        (
            "SM90_64x32x32_S32U8S8_SS_TN".to_string(),
            (ElemType::U8, ElemType::I8),
            32,
            64,
            (true, true),
            0.0,
        ),
    ];
    for (i, (atom, types, n, kk, majors, tol)) in cases.iter().enumerate() {
        let worst = check(
            &gpu,
            atom,
            *types,
            (*n, *kk),
            *majors,
            seed.wrapping_add(i as u64),
        )?;
        println!("{atom} 64x{n}x{kk}: worst |error| {worst:.2e} against float64 (bound {tol:.0e})");
        if worst > *tol {
            return Err(format!("{atom}: wrong result").into());
        }
    }
    Ok(())
}

/// Runs the tile once on values in [-1, 1) rounded to A's and B's types (8-bit integers: in
/// [-64, 64) or [0, 128)) and returns the largest error.
fn check(
    gpu: &Gpu,
    atom: &str,
    (ta, tb): (ElemType, ElemType),
    (n, k): (usize, usize),
    (a_k, b_k): (bool, bool),
    seed: u64,
) -> Result<f64, Error> {
    let kern = wgmma_tile(atom, k as i64)?;
    let loaded = gpu.load(&emit(&kern)?)?;
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % 2048) as f64 / 1024.0 - 1.0
    };
    let mut value = |t: ElemType| match t {
        ElemType::I8 => (next() * 64.0).floor(),
        ElemType::U8 => ((next() + 1.0) * 64.0).floor(),
        _ => round(t, next()),
    };
    let a: Vec<f64> = (0..64 * k).map(|_| value(ta)).collect();
    let b: Vec<f64> = (0..n * k).map(|_| value(tb)).collect();
    let host = [
        Arg::Buffer(HostBuffer::from_values(ta, &a)),
        Arg::Buffer(HostBuffer::from_values(tb, &b)),
        Arg::Buffer(HostBuffer::from_values(
            ElemType::F32,
            &vec![f64::NAN; 64 * n],
        )),
    ];
    let dev = upload(gpu, &host)?;
    launch(gpu, &loaded, &args(&dev))?;
    gpu.stream.synchronize()?;
    let c = download(gpu, &dev[2])?;
    let at_a = |mi: usize, q: usize| if a_k { a[mi * k + q] } else { a[mi + 64 * q] };
    let at_b = |ni: usize, q: usize| if b_k { b[ni * k + q] } else { b[ni + n * q] };
    let mut worst = 0.0f64;
    for ni in 0..n {
        for mi in 0..64 {
            let want: f64 = (0..k).map(|q| at_a(mi, q) * at_b(ni, q)).sum();
            worst = worst.max((c.data[mi + 64 * ni] - want).abs());
        }
    }
    Ok(worst)
}
