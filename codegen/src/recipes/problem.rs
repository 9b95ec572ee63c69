//! The problems the recipes solve: arguments with fresh random data (the output poisoned with
//! NaN), the float64 reference of the output, and the comparison. One definition serves the CPU
//! interpreter's checks (`cute check --cpu`, the tests) and the GPU's (`cute run`).

use cute_layout::ElemType;

use crate::error::{CodegenError, Result};
use crate::interp::{Arg, HostBuffer};

/// One problem of a recipe: its arguments in parameter order, which one is the output, and the
/// reference values of the output (NaN where the kernel defines nothing, such as padding).
#[derive(Debug, Clone)]
pub struct Case {
    pub recipe: String,
    pub m: i64,
    pub n: i64,
    pub args: Vec<Arg>,
    /// The position of the output buffer in `args`.
    pub output: usize,
    /// The float64 reference of every output element (NaN: not written).
    pub expected: Vec<f64>,
    /// An element passes when `|got - want| <= abs + rel * |want|`.
    pub abs: f64,
    pub rel: f64,
}

/// How an output compares with its reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    /// Elements compared.
    pub checked: usize,
    /// Elements outside the tolerance (a NaN counts).
    pub bad: usize,
    /// The largest error.
    pub max_err: f64,
    /// The worst element: (index, got, want).
    pub worst: Option<(usize, f64, f64)>,
}

impl Verdict {
    /// No element outside the tolerance.
    pub fn ok(&self) -> bool {
        self.bad == 0
    }
}

/// A small, fast generator of values in [-1, 1) (SplitMix64).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next value in [-1, 1).
    pub fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    /// `n` values in `[-scale, scale)`.
    pub fn fill(&mut self, n: usize, scale: f64) -> Vec<f64> {
        (0..n).map(|_| scale * self.uniform()).collect()
    }
}

/// `x` rounded up to a multiple of 4 (leading dimensions that keep 128-bit rows aligned).
fn up4(x: i64) -> i64 {
    x.saturating_add(3) / 4 * 4
}

/// The most elements a case may allocate per buffer (host memory is f64).
const MAX_ELEMENTS: i64 = 1 << 31;

/// `ld * cols` elements when that is at most `max`.
pub(crate) fn buffer_len(ld: i64, cols: i64, max: i64) -> Option<usize> {
    ld.checked_mul(cols)
        .filter(|&e| e <= max)
        .and_then(|e| usize::try_from(e).ok())
}

/// The case of recipe `name` at size `m x n` with data from `seed`.
pub fn case(name: &str, m: i64, n: i64, seed: u64) -> Result<Case> {
    let bad = |msg: String| CodegenError::Plan {
        plan: name.to_string(),
        part: "problem",
        msg,
    };
    if m < 1 || n < 1 {
        return Err(bad(format!("{m} x {n}: sizes must be positive")));
    }
    let size = |ld: i64, cols: i64| -> Result<usize> {
        buffer_len(ld, cols, MAX_ELEMENTS).ok_or_else(|| {
            bad(format!(
                "{m} x {n} needs more than 2^31 elements per buffer"
            ))
        })
    };
    let mut rng = Rng::new(seed);
    match name {
        "transpose" | "transpose-f16" => {
            let elem = if name == "transpose" {
                ElemType::F32
            } else {
                ElemType::F16
            };
            let (lda, ldb) = (up4(m), up4(n));
            let a = HostBuffer::from_values(elem, &rng.fill(size(lda, n)?, 1.0));
            let mut expected = vec![f64::NAN; size(ldb, m)?];
            for j in 0..n {
                for i in 0..m {
                    expected[(j + i * ldb) as usize] = a.data[(i + j * lda) as usize];
                }
            }
            let out = HostBuffer::from_values(elem, &vec![f64::NAN; expected.len()]);
            Ok(Case {
                recipe: name.to_string(),
                m,
                n,
                args: vec![
                    Arg::Int(m),
                    Arg::Int(n),
                    Arg::Buffer(a),
                    Arg::Int(lda),
                    Arg::Buffer(out),
                    Arg::Int(ldb),
                ],
                output: 4,
                expected,
                abs: 0.0,
                rel: 0.0,
            })
        }
        "row-softmax" => {
            let (ldx, ldy) = (up4(n), up4(n));
            let x = HostBuffer::from_values(ElemType::F32, &rng.fill(size(ldx, m)?, 8.0));
            let mut expected = vec![f64::NAN; size(ldy, m)?];
            for i in 0..m as usize {
                let row = &x.data[i * ldx as usize..][..n as usize];
                let mx = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let sum: f64 = row.iter().map(|v| (v - mx).exp()).sum();
                for (j, v) in row.iter().enumerate() {
                    expected[i * ldy as usize + j] = (v - mx).exp() / sum;
                }
            }
            let out = HostBuffer::from_values(ElemType::F32, &vec![f64::NAN; expected.len()]);
            Ok(Case {
                recipe: name.to_string(),
                m,
                n,
                args: vec![
                    Arg::Int(m),
                    Arg::Int(n),
                    Arg::Buffer(x),
                    Arg::Int(ldx),
                    Arg::Buffer(out),
                    Arg::Int(ldy),
                ],
                output: 4,
                expected,
                // f32 exp and sums of up to N terms: a few ulps of the largest value, relative
                abs: 1e-7,
                rel: 2e-5,
            })
        }
        _ => Err(CodegenError::Unknown(name.to_string())),
    }
}

impl Case {
    /// The integer arguments by parameter name (for picking a variant).
    pub fn int(&self, kernel: &crate::ir::Kernel, name: &str) -> Option<i64> {
        kernel
            .params
            .iter()
            .zip(&self.args)
            .find(|(p, _)| p.name == name)
            .and_then(|(_, a)| match a {
                Arg::Int(v) => Some(*v),
                _ => None,
            })
    }

    /// Compares an output with the reference (elements the reference leaves NaN are not
    /// checked).
    pub fn check(&self, got: &[f64]) -> Verdict {
        let mut v = Verdict {
            checked: 0,
            bad: 0,
            max_err: 0.0,
            worst: None,
        };
        for (i, (&g, &w)) in got.iter().zip(&self.expected).enumerate() {
            if w.is_nan() {
                continue;
            }
            v.checked += 1;
            let err = (g - w).abs();
            let err = if err.is_nan() { f64::INFINITY } else { err };
            if err > self.abs + self.rel * w.abs() {
                v.bad += 1;
            }
            if err > v.max_err || v.worst.is_none() {
                v.max_err = v.max_err.max(err);
                v.worst = Some((i, g, w));
            }
        }
        v
    }

    /// Elements of the output buffer.
    pub fn output_len(&self) -> usize {
        self.expected.len()
    }

    /// The output buffer's values.
    pub fn output(&self) -> &[f64] {
        match &self.args[self.output] {
            Arg::Buffer(b) => &b.data,
            _ => &[],
        }
    }
}
