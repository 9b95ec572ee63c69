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
//! round, so those cases take `u = 2^-23`. A 16-bit C (a tensor-core plan's output type) is
//! rounded to its type on the host too (the reference reads the rounded values), and the
//! kernel's final rounding adds the output type's unit roundoff relative to the value: `2^-11`
//! (FP16) or `2^-8` (BF16).
//!
//! 8-bit operands (FP8) are drawn from {-1, -1/2, 0, 1/2, 1}: Hopper's FP8 wgmma keeps fewer
//! bits of its accumulator than FP32 (about 14, DeepSeek-V3's report), and sums of these
//! products are quarter-integers, exact in 14 bits while below 2^11 in magnitude (at K <= 2048
//! always; at larger K the random walk stays far below), so the FP32 bound above holds.

use cute_layout::ElemType::{self, F32};

use super::problem::{buffer_len, Case, Rng};
use crate::error::{CodegenError, Result};
use crate::gemm::{Bias, GemmLayout, GemmPlan, Major};
use crate::interp::{Arg, HostBuffer};

/// The most elements a GEMM case may allocate per buffer (host memory is f64).
const MAX_ELEMENTS: i64 = 1 << 28;

/// A and B's values: uniform in [-1, 1), or for 8-bit types on the grid {-1, -1/2, 0, 1/2, 1}
/// (see the module's tolerance).
fn operand(elem: ElemType, mut v: Vec<f64>) -> Vec<f64> {
    if elem.bits() == 8 {
        for x in &mut v {
            *x = (*x * 2.0).round() / 2.0;
        }
    }
    v
}

/// `alpha` of every case: not 1, so a kernel that drops it fails.
const ALPHA: f64 = 1.5;

/// The case of GEMM `plan` at `(m, n, k)` with `beta`, data from `seed`. Leading dimensions
/// are multiples of 4 (the 128-bit copies' requirement) padded past the minimum, so a kernel
/// that uses the wrong one fails.
pub fn gemm_case(plan: &GemmPlan, size: (i64, i64, i64), beta: f64, seed: u64) -> Result<Case> {
    let mut case = case_of(plan, size, beta, seed, true)?;
    let abc = host_abc(&operands(plan, &case).ok_or_else(|| unshaped(plan))?);
    set_reference(plan, &mut case, abc)?;
    Ok(case)
}

/// [`gemm_case`] without its reference (every expected value NaN): the caller computes
/// `alpha * A * B + beta * C` from [`operands`] (the runtime with cuBLAS DGEMM, where the
/// O(MNK) host loop would take minutes) and hands it to [`set_reference`].
pub fn gemm_case_unreferenced(
    plan: &GemmPlan,
    size: (i64, i64, i64),
    beta: f64,
    seed: u64,
) -> Result<Case> {
    case_of(plan, size, beta, seed, true)
}

/// [`gemm_case`]'s arguments without the reference (every expected value NaN) and with unpadded
/// leading dimensions: the operands of a benchmark, whose O(MNK) host reference would take
/// longer than the GPU run.
pub fn gemm_inputs(plan: &GemmPlan, size: (i64, i64, i64), beta: f64, seed: u64) -> Result<Case> {
    case_of(plan, size, beta, seed, false)
}

/// A GEMM case's arguments by role (the order [`gemm_case`] writes them in): C is
/// `(m, n)` column-major with `ldc`; A is `(m, k)` and B `(n, k)`, each stored along the
/// plan's major.
pub struct GemmOperands<'a> {
    pub m: i64,
    pub n: i64,
    pub k: i64,
    pub alpha: f64,
    pub a: &'a HostBuffer,
    pub lda: i64,
    pub b: &'a HostBuffer,
    pub ldb: i64,
    pub beta: f64,
    pub c: &'a HostBuffer,
    pub ldc: i64,
    pub layout: GemmLayout,
}

/// The operands of `plan`'s case made by [`gemm_case`], [`gemm_case_unreferenced`] or
/// [`gemm_inputs`] (`None` for another case).
pub fn operands<'a>(plan: &GemmPlan, case: &'a Case) -> Option<GemmOperands<'a>> {
    let int = |i: usize| match case.args.get(i)? {
        Arg::Int(v) => Some(*v),
        _ => None,
    };
    let scalar = |i: usize| match case.args.get(i)? {
        Arg::Scalar(v) => Some(*v),
        _ => None,
    };
    let buf = |i: usize| match case.args.get(i)? {
        Arg::Buffer(b) => Some(b),
        _ => None,
    };
    Some(GemmOperands {
        m: int(0)?,
        n: int(1)?,
        k: int(2)?,
        alpha: scalar(3)?,
        a: buf(4)?,
        lda: int(5)?,
        b: buf(6)?,
        ldb: int(7)?,
        beta: scalar(8)?,
        c: buf(9)?,
        ldc: int(10)?,
        layout: plan.layout,
    })
}

fn unshaped(plan: &GemmPlan) -> CodegenError {
    CodegenError::Plan {
        plan: plan.name.clone(),
        part: "problem",
        msg: "the case is not a GEMM case's argument list".into(),
    }
}

/// `alpha * A * B + beta * C` of every element of C (`ldc * n`, C not read when `beta == 0`),
/// in float64 on the host.
fn host_abc(o: &GemmOperands) -> Vec<f64> {
    let at_a = |i: i64, kk: i64| match o.layout.a {
        Major::MN => i + kk * o.lda,
        Major::K => i * o.lda + kk,
    };
    let at_b = |j: i64, kk: i64| match o.layout.b {
        Major::MN => j + kk * o.ldb,
        Major::K => j * o.ldb + kk,
    };
    let mut abc = vec![f64::NAN; o.c.data.len()];
    for j in 0..o.n {
        for i in 0..o.m {
            let dot: f64 = (0..o.k)
                .map(|kk| o.a.data[at_a(i, kk) as usize] * o.b.data[at_b(j, kk) as usize])
                .sum();
            let at = (i + j * o.ldc) as usize;
            abc[at] = o.alpha * dot;
            if o.beta != 0.0 {
                abc[at] += o.beta * o.c.data[at];
            }
        }
    }
    abc
}

/// Sets the case's reference from `abc = alpha * A * B + beta * C` (`ldc * n` values, by
/// `host_abc` or the caller's DGEMM): the plan's bias and ReLU applied, the padding rows
/// between M and ldC NaN (the kernel must not write them).
pub fn set_reference(plan: &GemmPlan, case: &mut Case, abc: Vec<f64>) -> Result<()> {
    let o = operands(plan, case).ok_or_else(|| unshaped(plan))?;
    let (m, ldc) = (o.m, o.ldc);
    if abc.len() != o.c.data.len() {
        return Err(CodegenError::Plan {
            plan: plan.name.clone(),
            part: "problem",
            msg: format!(
                "a reference of {} values for a C of {}",
                abc.len(),
                o.c.data.len()
            ),
        });
    }
    let bias = match case.args.get(11) {
        Some(Arg::Buffer(b)) => Some(b.data.clone()),
        _ => None,
    };
    let mut expected = abc;
    for (at, x) in expected.iter_mut().enumerate() {
        let (i, j) = (at as i64 % ldc, at as i64 / ldc);
        if i >= m {
            *x = f64::NAN;
            continue;
        }
        *x += match (plan.epilogue.bias, &bias) {
            (Some(Bias::PerRow), Some(b)) => b[i as usize],
            (Some(Bias::PerCol), Some(b)) => b[j as usize],
            _ => 0.0,
        };
        if plan.epilogue.relu {
            *x = x.max(0.0);
        }
    }
    case.expected = expected;
    Ok(())
}

fn case_of(
    plan: &GemmPlan,
    (m, n, k): (i64, i64, i64),
    beta: f64,
    seed: u64,
    pad: bool,
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
    // C's rows 16-byte aligned too, in its own type (a TMA map of C needs them so)
    let vc = 128 / i64::from(plan.output_type().bits());
    let (pad, pad_c) = if pad { (v, vc) } else { (0, 0) };
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
    let ldc = m.saturating_add(vc - 1) / vc * vc + pad_c;
    let mut rng = Rng::new(seed);
    let a = HostBuffer::from_values(elem, &operand(elem, rng.fill(size(lda, a_cols)?, 1.0)));
    let b = HostBuffer::from_values(elem, &operand(elem, rng.fill(size(ldb, b_cols)?, 1.0)));
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
    let out = plan.output_type();
    let c = HostBuffer::from_values(out, &c0);
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
        expected: vec![f64::NAN; c_len],
        abs: gamma * (ALPHA * k as f64 + beta.abs() + 1.0),
        // the kernel rounds its FP32 result to C's type: half an ulp of it
        rel: match out {
            ElemType::F16 => f64::powi(2.0, -11),
            ElemType::Bf16 => f64::powi(2.0, -8),
            _ => 0.0,
        },
    })
}
