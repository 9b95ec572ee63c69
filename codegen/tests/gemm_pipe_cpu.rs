//! `sgemm-sm80` as an IR recipe (`recipes::sgemm_sm80_ir`), run by the CPU interpreter in every
//! layout against a float64 reference: sizes that divide no tile, a single element, a K of one
//! k-tile and of several, C poisoned with NaN under `beta = 0` (so C must not be read), and a
//! `beta != 0` case. The interpreter also checks what the GPU would get wrong: shared-memory
//! races, reads of `cp.async` data not yet waited for, out-of-bounds accesses, two threads
//! writing one element of C.
//!
//! Tolerance: each C element is an FP32 sum of K products accumulated by `fmaf` in some order
//! (one rounding per step), then `alpha * acc` and `fmaf(beta, c, .)` (two more). With `u =
//! 2^-24`, the error is at most `gamma_(K+2) * (|alpha| sum_k |a_mk b_nk| + |beta c_mn|)` where
//! `gamma_n = n u / (1 - n u)` (Higham, Theorem 3.4, for any order of summation), against the
//! float64 reference computed from the same (FP32-rounded) inputs. The test allows that bound
//! plus a tiny absolute slack for the all-zero sums.

use std::time::Instant;

use cute_codegen::gemm::Major;
use cute_codegen::interp::{run, Arg, HostBuffer};
use cute_codegen::recipes::sgemm_sm80_ir;
use cute_codegen::{GemmLayout, Target};
use cute_layout::ElemType::F32;

/// A small deterministic generator (fresh values per case).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// `x` rounded up to a multiple of 4 (at least 4): the leading dimensions the 128-bit copies need.
fn ld(x: i64) -> i64 {
    (x + 3) / 4 * 4
}

/// The offset of `(r, k)` of an operand `(R,K)` with that contiguous mode.
fn at(major: Major, ld: i64, r: i64, k: i64) -> usize {
    (match major {
        Major::MN => r + k * ld,
        Major::K => r * ld + k,
    }) as usize
}

/// Runs the IR kernel on `(m, n, k)` and compares with float64; returns the seconds it took.
fn case(layout: GemmLayout, (m, n, k): (i64, i64, i64), alpha: f64, beta: f64, seed: u64) -> f64 {
    let kernel = sgemm_sm80_ir(layout, &Target::sm90a()).unwrap();
    let mut r = Rng(seed);
    let (lda, a_len) = match layout.a {
        Major::MN => (ld(m), ld(m) * k),
        Major::K => (ld(k), ld(k) * m),
    };
    let (ldb, b_len) = match layout.b {
        Major::MN => (ld(n), ld(n) * k),
        Major::K => (ld(k), ld(k) * n),
    };
    let ldc = ld(m);
    let a = HostBuffer::from_values(F32, &(0..a_len).map(|_| r.next()).collect::<Vec<_>>());
    let b = HostBuffer::from_values(F32, &(0..b_len).map(|_| r.next()).collect::<Vec<_>>());
    let c0: Vec<f64> = if beta == 0.0 {
        vec![f64::NAN; (ldc * n) as usize]
    } else {
        (0..ldc * n)
            .map(|i| if i % ldc < m { r.next() } else { f64::NAN })
            .collect()
    };
    let c0 = HostBuffer::from_values(F32, &c0);
    let mut args = vec![
        Arg::Int(m),
        Arg::Int(n),
        Arg::Int(k),
        Arg::Scalar(alpha),
        Arg::Buffer(a.clone()),
        Arg::Int(lda),
        Arg::Buffer(b.clone()),
        Arg::Int(ldb),
        Arg::Scalar(beta),
        Arg::Buffer(c0.clone()),
        Arg::Int(ldc),
    ];
    let start = Instant::now();
    run(&kernel, &mut args).unwrap_or_else(|e| panic!("{layout} {m}x{n}x{k}: {e}"));
    let secs = start.elapsed().as_secs_f64();
    let Arg::Buffer(c) = &args[9] else {
        unreachable!("argument 9 is C")
    };
    let u = f64::powi(2.0, -24);
    let gamma = (k + 2) as f64 * u / (1.0 - (k + 2) as f64 * u);
    let mut worst = 0.0f64;
    for j in 0..n {
        for i in 0..ldc {
            let got = c.data[(i + j * ldc) as usize];
            if i >= m {
                assert!(got.is_nan(), "{layout}: C({i},{j}) past M was written");
                continue;
            }
            let (mut sum, mut mag) = (0.0f64, 0.0f64);
            for kk in 0..k {
                let p = a.data[at(layout.a, lda, i, kk)] * b.data[at(layout.b, ldb, j, kk)];
                sum += p;
                mag += p.abs();
            }
            let old = c0.data[(i + j * ldc) as usize];
            let (want, mut bound) = (alpha * sum, alpha.abs() * mag);
            let want = if beta != 0.0 {
                bound += (beta * old).abs();
                want + beta * old
            } else {
                want
            };
            let tol = gamma * bound + 1e-30;
            let err = (got - want).abs();
            assert!(
                err <= tol,
                "{layout} {m}x{n}x{k}: C({i},{j}) = {got}, want {want} (error {err:e} above {tol:e})"
            );
            worst = worst.max(err / tol);
        }
    }
    println!(
        "{layout} {m:>3}x{n:>3}x{k:>3} alpha={alpha} beta={beta}: {secs:6.2} s in the interpreter, worst error {worst:.3} of the bound"
    );
    secs
}

const SIZES: [(i64, i64, i64); 3] = [(1, 1, 1), (17, 17, 17), (130, 67, 33)];

fn layout(s: &str) -> GemmLayout {
    GemmLayout::parse(s).unwrap()
}

fn small(l: &str, seed: u64) {
    for (i, size) in SIZES.into_iter().enumerate() {
        case(layout(l), size, 1.0, 0.0, seed + i as u64);
    }
}

#[test]
fn nn_small_sizes() {
    small("NN", 10);
}

#[test]
fn nt_small_sizes() {
    small("NT", 20);
}

#[test]
fn tn_small_sizes() {
    small("TN", 30);
}

#[test]
fn tt_small_sizes() {
    small("TT", 40);
}

#[test]
fn every_layout_at_127_cubed() {
    for (i, l) in ["NN", "NT", "TN", "TT"].into_iter().enumerate() {
        case(layout(l), (127, 127, 127), 1.0, 0.0, 50 + i as u64);
    }
}

#[test]
fn beta_scales_c_and_alpha_the_product() {
    case(layout("NT"), (130, 67, 33), -0.5, 0.75, 60);
}
