//! The GEMM problem of a plan as a [`Case`]: `C = alpha * A * B + beta * C` (+ the plan's bias
//! and ReLU) on fresh random operands, C poisoned with NaN when `beta == 0` (so a kernel that
//! reads it, or leaves an element unwritten, fails), and the float64 reference of every
//! element of C (NaN in the padding rows between M and ldC, which the kernel must not write).
//!
//! Tolerance: each element is an FP32 sum of K products accumulated by `fmaf` in some order,
//! then `alpha * acc`, `fmaf(beta, c, .)` and the bias add; with `u = 2^-24` the error is at
//! most `gamma(K + 3) * (|alpha| sum_k |a b| + |beta c| + |bias|)`, `gamma(n) = n u / (1 - n u)`
//! (Higham, Theorem 3.4, any order of summation). Operands lie in [-1, 1), so the sum is at
//! most K: the case allows `gamma(K + 3) * (|alpha| K + |beta| + 1)` absolutely. 16-bit
//! operands are rounded to their type first and the reference takes the rounded values (their
//! products are exact in FP32); the tensor cores' FP32 accumulation may truncate rather than
//! round, so those cases take `u = 2^-23`.

use cute_layout::ElemType::F32;

use super::problem::{buffer_len, Case, Rng};
use crate::error::{CodegenError, Result};
use crate::gemm::{Bias, GemmPlan, Major};
use crate::interp::{Arg, HostBuffer};

/// The most elements a GEMM case may allocate per buffer (host memory is f64).
const MAX_ELEMENTS: i64 = 1 << 28;

/// `alpha` of every case: not 1, so a kernel that drops it fails.
const ALPHA: f64 = 1.5;

/// The case of GEMM `plan` at `(m, n, k)` with `beta`, data from `seed`. Leading dimensions
/// are multiples of 4 (the 128-bit copies' requirement) padded past the minimum, so a kernel
/// that uses the wrong one fails.
pub fn gemm_case(plan: &GemmPlan, size: (i64, i64, i64), beta: f64, seed: u64) -> Result<Case> {
    case_of(plan, size, beta, seed, true)
}

/// [`gemm_case`]'s arguments without the reference (every expected value NaN) and with unpadded
/// leading dimensions: the operands of a benchmark, whose O(MNK) host reference would take
/// longer than the GPU run.
pub fn gemm_inputs(plan: &GemmPlan, size: (i64, i64, i64), beta: f64, seed: u64) -> Result<Case> {
    case_of(plan, size, beta, seed, false)
}

fn case_of(
    plan: &GemmPlan,
    (m, n, k): (i64, i64, i64),
    beta: f64,
    seed: u64,
    reference: bool,
) -> Result<Case> {
    let bad = |msg: String| CodegenError::Plan {
        plan: plan.name.clone(),
        part: "problem",
        msg,
    };
    if m < 1 || n < 1 || k < 1 {
        return Err(bad(format!("{m}x{n}x{k}: sizes must be positive")));
    }
    let elem = plan.input_type();
    // 128-bit rows of A and B: 4 floats or 8 halves
    let v = 128 / i64::from(elem.bits());
    // a check pads every leading dimension (a kernel that uses the wrong one fails); a
    // benchmark's are the natural ones, rows 16-byte aligned
    let pad = if reference { v } else { 0 };
    let ld = |x: i64| x.saturating_add(v - 1) / v * v + pad;
    let size = |ld: i64, cols: i64| -> Result<usize> {
        buffer_len(ld, cols, MAX_ELEMENTS).ok_or_else(|| {
            bad(format!(
                "{m}x{n}x{k} needs more than 2^28 elements per buffer"
            ))
        })
    };
    let layout = plan.layout;
    let (lda, a_cols) = match layout.a {
        Major::MN => (ld(m), k),
        Major::K => (ld(k), m),
    };
    let (ldb, b_cols) = match layout.b {
        Major::MN => (ld(n), k),
        Major::K => (ld(k), n),
    };
    let ldc = m.saturating_add(3) / 4 * 4 + if reference { 4 } else { 0 };
    let mut rng = Rng::new(seed);
    let a = HostBuffer::from_values(elem, &rng.fill(size(lda, a_cols)?, 1.0));
    let b = HostBuffer::from_values(elem, &rng.fill(size(ldb, b_cols)?, 1.0));
    let bias_len = match plan.epilogue.bias {
        None => 0,
        Some(Bias::PerRow) => m,
        Some(Bias::PerCol) => n,
    };
    let bias = HostBuffer::from_values(F32, &rng.fill(bias_len as usize, 1.0));
    let c_len = size(ldc, n)?;
    let c0: Vec<f64> = (0..c_len as i64)
        .map(|i| {
            if beta == 0.0 || i % ldc >= m {
                f64::NAN
            } else {
                rng.uniform()
            }
        })
        .collect();
    let c = HostBuffer::from_values(F32, &c0);
    let at_a = |i: i64, kk: i64| match layout.a {
        Major::MN => i + kk * lda,
        Major::K => i * lda + kk,
    };
    let at_b = |j: i64, kk: i64| match layout.b {
        Major::MN => j + kk * ldb,
        Major::K => j * ldb + kk,
    };
    let mut expected = vec![f64::NAN; c_len];
    for j in (0..n).filter(|_| reference) {
        for i in 0..m {
            let dot: f64 = (0..k)
                .map(|kk| a.data[at_a(i, kk) as usize] * b.data[at_b(j, kk) as usize])
                .sum();
            let at = (i + j * ldc) as usize;
            let mut x = ALPHA * dot;
            if beta != 0.0 {
                x += beta * c.data[at];
            }
            x += match plan.epilogue.bias {
                None => 0.0,
                Some(Bias::PerRow) => bias.data[i as usize],
                Some(Bias::PerCol) => bias.data[j as usize],
            };
            if plan.epilogue.relu {
                x = x.max(0.0);
            }
            expected[at] = x;
        }
    }
    // the tensor cores' FP32 accumulation may truncate: twice the unit roundoff
    let u = f64::powi(2.0, if elem == F32 { -24 } else { -23 });
    let steps = (k + 3) as f64;
    let gamma = steps * u / (1.0 - steps * u);
    let mut args = vec![
        Arg::Int(m),
        Arg::Int(n),
        Arg::Int(k),
        Arg::Scalar(ALPHA),
        Arg::Buffer(a),
        Arg::Int(lda),
        Arg::Buffer(b),
        Arg::Int(ldb),
        Arg::Scalar(beta),
        Arg::Buffer(c),
        Arg::Int(ldc),
    ];
    if bias_len > 0 {
        args.push(Arg::Buffer(bias));
    }
    Ok(Case {
        recipe: plan.name.clone(),
        m,
        n,
        args,
        output: 9,
        expected,
        abs: gamma * (ALPHA * k as f64 + beta.abs() + 1.0),
        rel: 0.0,
    })
}
