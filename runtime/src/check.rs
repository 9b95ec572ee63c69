//! Correctness on the GPU: a generated kernel against the float64 reference, on fresh random
//! inputs each time, with the output poisoned (NaN) before every run that must overwrite it.

use std::time::{SystemTime, UNIX_EPOCH};

use cudarc::cublas::CudaBlas;
use cute_codegen::gemm::{Bias, Epilogue, Major};

use crate::error::{Result, RuntimeError};
use crate::gemm::{launch, reference, Buffers, Problem};
use crate::gpu::{Gpu, Loaded};

/// A small fast generator (xorshift*), seeded fresh for every check.
pub struct Rng(u64);

impl Rng {
    /// A generator seeded from the clock and a counter.
    pub fn fresh(salt: u64) -> Rng {
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64);
        Rng((t ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1)
    }

    /// Uniform in [-1, 1).
    pub fn uniform(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40;
        (x as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    /// `n` values.
    pub fn fill(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.uniform()).collect()
    }
}

/// One check's outcome.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The largest |C - reference| / tolerance (<= 1 passes).
    pub worst: f64,
    /// Where it was: (m, n, got, expected).
    pub at: (i64, i64, f64, f64),
    /// Whether every element is within tolerance (and none is NaN).
    pub pass: bool,
}

impl Outcome {
    /// `pass` or `FAIL`.
    pub fn verdict(&self) -> &'static str {
        if self.pass {
            "pass"
        } else {
            "FAIL"
        }
    }

    /// Where the worst element was: `m=.. n=.. got .. want ..`.
    pub fn worst_at(&self) -> String {
        let (m, n, got, want) = self.at;
        format!("m={m} n={n} got {got} want {want}")
    }
}

/// Elements of C above which [`check`] compares whole columns of a sample (about 512, evenly
/// spaced, the last included) with a float64 reference computed on the host, instead of every
/// element with cuBLAS DGEMM (whose float64 copies of a 70000 x 70000 C would not fit the
/// host); every element of C is still checked to have been written (none left NaN).
pub const FULL_CHECK_MAX: usize = 1 << 28;

/// The columns a sampled check compares: about 512, evenly spaced, the first and last
/// included.
fn sampled_columns(n: i64) -> impl Iterator<Item = i64> {
    let step = (n / 512).max(1);
    (0..n)
        .step_by(step as usize)
        .chain(((n - 1) % step != 0).then_some(n - 1))
}

/// `alpha * sum_k A(m,k) B(k,n) + beta * C(m,n)` in float64 (C not read when `beta == 0`).
fn host_reference(p: &Problem, a: &[f32], b: &[f32], c: &[f32], m: i64, n: i64) -> f64 {
    let (lda, ldb, ldc) = p.lds();
    let at_a = |k: i64| match p.layout.a {
        Major::MN => m + k * lda,
        Major::K => k + m * lda,
    };
    let at_b = |k: i64| match p.layout.b {
        Major::K => k + n * ldb,
        Major::MN => n + k * ldb,
    };
    let dot: f64 = (0..p.k)
        .map(|k| f64::from(a[at_a(k) as usize]) * f64::from(b[at_b(k) as usize]))
        .sum();
    let x = f64::from(p.alpha) * dot;
    if p.beta == 0.0 {
        x
    } else {
        x + f64::from(p.beta) * f64::from(c[(m + n * ldc) as usize])
    }
}

/// Runs `loaded` on a random problem and compares with the float64 reference.
pub fn check(
    gpu: &Gpu,
    blas: &CudaBlas,
    loaded: &Loaded,
    p: &Problem,
    epilogue: &Epilogue,
    salt: u64,
) -> Result<Outcome> {
    check_with(gpu, blas, p, epilogue, salt, &mut |bufs| {
        launch(gpu, loaded, p, bufs)
    })
}

/// [`check`] of any way of computing the GEMM on device buffers (`run` launches it, such as
/// split-K's two kernels; the check waits for the stream).
pub fn check_with(
    gpu: &Gpu,
    blas: &CudaBlas,
    p: &Problem,
    epilogue: &Epilogue,
    salt: u64,
    run: &mut dyn FnMut(&mut Buffers) -> Result<()>,
) -> Result<Outcome> {
    let mut rng = Rng::fresh(salt);
    let (sa, sb, sc) = p.buffer_sizes();
    let a = rng.fill(sa);
    let b = rng.fill(sb);
    let bias = rng.fill(p.m.max(p.n) as usize);
    // With beta == 0 the kernel must write every element: poison C so a missed one shows.
    let c: Vec<f32> = if p.beta == 0.0 {
        vec![f32::NAN; sc]
    } else {
        rng.fill(sc)
    };
    let mut bufs = Buffers::upload(gpu, p, &a, &b, &c, &bias)?;
    run(&mut bufs)?;
    let got = gpu
        .stream
        .clone_dtoh(&bufs.c)
        .map_err(RuntimeError::driver("download of C"))?;
    // |error| <= tolerance: float32 accumulation of K products of values in [-1, 1].
    let tol = 1e-5 + 4e-6 * (p.k as f64) * f64::from(p.alpha.abs().max(1.0));
    let mut out = Outcome {
        worst: 0.0,
        at: (0, 0, 0.0, 0.0),
        pass: true,
    };
    let mut compare = |m: i64, n: i64, want: f64| {
        let mut x = want;
        match epilogue.bias {
            Some(Bias::PerRow) => x += f64::from(bias[m as usize]),
            Some(Bias::PerCol) => x += f64::from(bias[n as usize]),
            None => {}
        }
        if epilogue.relu {
            x = x.max(0.0);
        }
        let g = f64::from(got[(m + n * p.ldc) as usize]);
        let r = if g.is_nan() {
            f64::INFINITY
        } else {
            (g - x).abs() / tol
        };
        if r > out.worst {
            out.worst = r;
            out.at = (m, n, g, x);
        }
    };
    if sc <= FULL_CHECK_MAX {
        let c_ref = if p.beta == 0.0 {
            vec![0.0; c.len()]
        } else {
            c.clone()
        };
        // The padding between ldC and M must be left alone (poisoned C keeps its NaNs there).
        let want = reference(gpu, blas, p, &a, &b, &c_ref)?;
        for n in 0..p.n {
            for m in 0..p.m {
                compare(m, n, want[(m + n * p.ldc) as usize]);
            }
        }
    } else {
        for n in sampled_columns(p.n) {
            for m in 0..p.m {
                compare(m, n, host_reference(p, &a, &b, &c, m, n));
            }
        }
        // every element written: none left poisoned
        for n in 0..p.n {
            for m in 0..p.m {
                if got[(m + n * p.ldc) as usize].is_nan() {
                    compare(m, n, 0.0);
                }
            }
        }
    }
    out.pass = out.worst <= 1.0;
    Ok(out)
}
