//! Parallel split-K (CUTLASS's `GemmSplitKParallel`): the partial products of
//! [`GemmPlan::with_split_k`] — CTA `z` of the grid's third dimension multiplies over its own
//! range of K and stores the FP32 product to slice `z` of a workspace `W (M,N,S)` — and
//! [`split_k_reduce`], which sums the slices in order of `z` and applies the plan's epilogue
//! (`alpha`, `beta`, the bias, the ReLU) as it writes C. [`k_chunk`] is how K is cut.
//!
//! Serial split-K ([`GemmPlan::with_serial_split_k`]) is one kernel: the slices of a tile add
//! into C in turn, ordered by a semaphore per tile ([`SplitCase::serial`], [`semaphores`]).
//!
//! It is for the shapes whose output tiles leave most SMs idle (small M or N, long K: a decode
//! step's `1 x 4096 x 4096`), where one CTA per output tile would walk all of K alone.

use cute_layout::ElemType::{F32, I32};
use cute_layout::{s, tup, Coord, Int, Layout, Tensor, Tiler, X};

use super::gemm::{declare_bias, Output};
use super::gemm_simple::epilogue;
use super::layout_err;
use crate::cuda::IndexWidth;
use crate::error::Result;
use crate::gemm::GemmPlan;
use crate::interp::{Arg, HostBuffer};
use crate::ir::{Cond, EExpr, Kernel, KernelBuilder, Unroll};

/// The most elements a split-K workspace may hold (2^28 FP32 values, 1 GiB: a problem that
/// splits has few output tiles, so a legitimate one is far smaller).
pub const MAX_WORKSPACE: i64 = 1 << 28;

/// The leading dimension of the workspace of an `m`-row C: `m` rounded up to 4 (16-byte
/// columns).
pub fn workspace_ld(m: i64) -> i64 {
    m.max(0).saturating_add(3) / 4 * 4
}

/// The elements of a workspace `(ldw, n, splits)`; `None` on overflow, a negative extent, or
/// past [`MAX_WORKSPACE`].
pub fn workspace_len(ldw: i64, n: i64, splits: i64) -> Option<usize> {
    ldw.checked_mul(n)
        .and_then(|x| x.checked_mul(splits))
        .filter(|&e| (0..=MAX_WORKSPACE).contains(&e))
        .and_then(|e| usize::try_from(e).ok())
}

/// The reduction's CTA tile of C `(32,8)`, a thread per element, threads along M first (C is
/// column-major, so a warp reads and writes 32 consecutive elements).
const TILE: (i64, i64) = (32, 8);

/// `(Kc, S)`: the k range of each split, a multiple of the plan's BLK_K, and how many splits
/// that makes (`ceil(K / Kc)`, at most `splits`; every one takes at least one k element).
/// `None` for a plan that does not split K or non-positive sizes.
pub fn k_chunk(plan: &GemmPlan, k: i64, splits: i64) -> Option<(i64, i64)> {
    let bk = plan.split_k_pipeline()?.0 .2;
    if k <= 0 || splits <= 0 || bk <= 0 {
        return None;
    }
    let ceil = |a: i64, b: i64| a.saturating_add(b - 1) / b;
    let tiles = ceil(k, bk);
    let per = ceil(tiles, splits.min(tiles));
    let kc = per.checked_mul(bk)?;
    Some((kc, ceil(k, kc)))
}

/// A GEMM case's arguments (`gemm_case`'s order: `M, N, K, alpha, A, ldA, B, ldB, beta, C,
/// ldC[, bias]`) laid out for split-K's two kernels: the case's arguments, then `1`, `0`, the
/// workspace (FP32, NaN-poisoned: every element the reduction reads must have been written),
/// `ldW`, `Kc` and `S`; each kernel's parameters as positions in that list.
#[derive(Debug, Clone)]
pub struct SplitCase {
    pub args: Vec<Arg>,
    /// The partial products' parameters: `M, N, K, 1, A, ldA, B, ldB, 0, W, ldW, Kc`.
    pub partial: Vec<usize>,
    /// The reduction's: `M, N, S, alpha, W, ldW, beta, C, ldC[, bias]`.
    pub reduce: Vec<usize>,
    /// Slices of K.
    pub splits: i64,
    /// The k range of each slice.
    pub kc: i64,
    /// The workspace's leading dimension (M rounded up to 4).
    pub ldw: i64,
}

impl SplitCase {
    /// The position of C in [`SplitCase::args`].
    pub const C: usize = 9;

    /// `plan`'s split-K of a case's arguments into at most `splits` slices ([`k_chunk`]).
    pub fn new(plan: &GemmPlan, mut args: Vec<Arg>, splits: i64) -> Result<SplitCase> {
        let bad = |msg: String| plan.error("split-K", msg);
        let (m, n, k) = case_shape(plan, &args, "split-K")?;
        let bias = plan.epilogue.bias.is_some();
        let (kc, s) =
            k_chunk(plan, k, splits).ok_or_else(|| bad(format!("K = {k} into {splits} slices")))?;
        let ldw = workspace_ld(m);
        let elems = workspace_len(ldw, n, s).ok_or_else(|| {
            bad(format!(
                "a workspace of {ldw} x {n} x {s} exceeds {MAX_WORKSPACE} elements"
            ))
        })?;
        let e = args.len();
        args.extend([
            Arg::Scalar(1.0),
            Arg::Scalar(0.0),
            Arg::Buffer(HostBuffer::from_values(F32, &vec![f64::NAN; elems])),
            Arg::Int(ldw),
            Arg::Int(kc),
            Arg::Int(s),
        ]);
        let mut reduce = vec![0, 1, e + 5, 3, e + 2, e + 3, 8, Self::C, 10];
        if bias {
            reduce.push(11);
        }
        Ok(SplitCase {
            args,
            partial: vec![0, 1, 2, e, 4, 5, 6, 7, e + 1, e + 2, e + 3, e + 4],
            reduce,
            splits: s,
            kc,
            ldw,
        })
    }

    /// Serial split-K's arguments (`GemmPlan::with_serial_split_k`): the case's, then `Kc` and
    /// the semaphores `Sem` (zeros, one per output tile); [`SplitCase::partial`] lists the one
    /// kernel's parameters, [`SplitCase::reduce`] is empty and `ldw` 0.
    pub fn serial(plan: &GemmPlan, mut args: Vec<Arg>, splits: i64) -> Result<SplitCase> {
        let bad = |msg: String| plan.error("split-K", msg);
        let (m, n, k) = case_shape(plan, &args, "split-K")?;
        let tiles = semaphores(plan, m, n)
            .ok_or_else(|| bad(format!("{m} x {n} is no tile count of this plan")))?;
        let (kc, s) =
            k_chunk(plan, k, splits).ok_or_else(|| bad(format!("K = {k} into {splits} slices")))?;
        let e = args.len();
        args.extend([
            Arg::Int(kc),
            Arg::Buffer(HostBuffer::from_values(I32, &vec![0.0; tiles])),
        ]);
        Ok(SplitCase {
            args,
            partial: (0..e + 2).collect(),
            reduce: Vec::new(),
            splits: s,
            kc,
            ldw: 0,
        })
    }

    /// The arguments of the kernel whose parameters are `at` (copies).
    pub fn gather(&self, at: &[usize]) -> Vec<Arg> {
        gather(&self.args, at)
    }

    /// Puts back what a kernel whose parameters are `at` wrote into `args` (its buffers).
    pub fn scatter(&mut self, at: &[usize], args: Vec<Arg>) {
        scatter(&mut self.args, at, args)
    }
}

/// The arguments at positions `at` of `all` (copies): one kernel's of a two-kernel case.
pub(super) fn gather(all: &[Arg], at: &[usize]) -> Vec<Arg> {
    at.iter().map(|&i| all[i].clone()).collect()
}

/// Puts the buffers of `args`, a kernel's arguments gathered from positions `at`, back into
/// `all` (what the kernel wrote).
pub(super) fn scatter(all: &mut [Arg], at: &[usize], args: Vec<Arg>) {
    for (&i, a) in at.iter().zip(args) {
        if matches!(a, Arg::Buffer(_)) {
            all[i] = a;
        }
    }
}

/// The semaphores serial split-K needs for an `m x n` C: one per output tile of `plan`
/// (`None` for a plan that does not split, a negative size or past [`MAX_WORKSPACE`]).
pub fn semaphores(plan: &GemmPlan, m: i64, n: i64) -> Option<usize> {
    let ((bm, bn, _), _) = plan.cp_async_pipeline()?;
    let ceil = |a: i64, b: i64| (a >= 0).then(|| a.saturating_add(b - 1) / b);
    let tiles = ceil(m, bm)?.checked_mul(ceil(n, bn)?)?;
    usize::try_from(tiles)
        .ok()
        .filter(|&t| t as i64 <= MAX_WORKSPACE)
}

/// The `(M, N, K)` of a GEMM case's arguments (`gemm_case`'s order), checked: three integers
/// first, and the count of the plan's case (11, 12 with a bias); errors name `part`.
pub(super) fn case_shape(
    plan: &GemmPlan,
    args: &[Arg],
    part: &'static str,
) -> Result<(i64, i64, i64)> {
    let (m, n, k) = match args.get(..3) {
        Some([Arg::Int(m), Arg::Int(n), Arg::Int(k)]) => (*m, *n, *k),
        _ => return Err(plan.error(part, "the GEMM case's M, N, K are not integers")),
    };
    let want = 11 + usize::from(plan.epilogue.bias.is_some());
    if args.len() != want {
        let msg = format!("{} arguments, not a GEMM case's {want}", args.len());
        return Err(plan.error(part, msg));
    }
    Ok((m, n, k))
}

/// The kernel of `plan`'s serial split-K, verified and written (32-bit indices).
pub fn emit_serial_split_k(plan: &GemmPlan) -> Result<crate::Kernel> {
    crate::gemm::emit_with(&plan.clone().with_serial_split_k()?, IndexWidth::I32)
}

/// The kernels of `plan`'s split-K, in launch order: serial split-K's one
/// ([`emit_serial_split_k`]), or parallel split-K's partials and reduction ([`emit_split_k`]).
pub fn emit_split_kernels(plan: &GemmPlan, serial: bool) -> Result<Vec<crate::Kernel>> {
    Ok(match serial {
        true => vec![emit_serial_split_k(plan)?],
        false => emit_split_k(plan)?.to_vec(),
    })
}

/// The two kernels of `plan`'s parallel split-K, verified and written (32-bit indices): the
/// partial products (`GemmPlan::with_split_k`) and their reduction ([`split_k_reduce`]).
pub fn emit_split_k(plan: &GemmPlan) -> Result<[crate::Kernel; 2]> {
    let partial = crate::gemm::emit_with(&plan.clone().with_split_k()?, IndexWidth::I32)?;
    let reduce = crate::cuda::emit(&split_k_reduce(plan)?)?;
    Ok([partial, reduce])
}

/// The body of a reduction of FP32 partials into C (split-K's and stream-K's), one thread per
/// element of C in `tile`-shaped CTAs at `(bx, by)` (the grid set here): in bounds, `acc` is the
/// sum of `slice(i)(m, n)` over `i` in `0..count` (the loop variable `var`), in order of `i`,
/// then the plan's epilogue writes C (`c`, with the `bias` broadcast over it). `slice(i)` is an
/// `(M,N)` FP32 tensor: slice `i` of the partials.
pub(super) fn reduce_slices(
    k: &mut KernelBuilder,
    plan: &GemmPlan,
    [m, n]: [&Int; 2],
    (c, bias): (&Tensor, Option<&Tensor>),
    (rm, rn): (i64, i64),
    (var, count): (&str, Int),
    slice: &dyn Fn(&Int) -> Result<Tensor>,
) -> Result<()> {
    let e = layout_err(&plan.name, "reduction");
    k.threads(rm * rn).grid([
        m.ceil_div(&s(rm)).map_err(&e)?,
        n.ceil_div(&s(rn)).map_err(&e)?,
        s(1),
    ]);
    let (tid, bx, by) = (
        KernelBuilder::tid(),
        KernelBuilder::block_idx(0),
        KernelBuilder::block_idx(1),
    );
    let thr = Layout::col_major(&tup![s(rm), s(rn)]).map_err(&e)?; // (RM,RN) -> thread
    let tile = Tiler::from_shape(&tup![s(rm), s(rn)]);
    let at = Coord::Tuple(vec![Coord::Int(bx), Coord::Int(by)]);
    let part = |t: &Tensor| {
        t.local_tile(&tile, &at, None)? // (RM,RN)
            .local_partition(&thr, &tid, None) // (1,1)
    };
    let id_c = Tensor::identity(&tup![m.clone(), n.clone()]).map_err(&e)?;
    let mn = crate::ir::index::coord(&part(&id_c).map_err(&e)?, 0).map_err(&e)?;
    let inside = Cond::And(
        Box::new(Cond::Lt(mn[0].clone(), m.clone())),
        Box::new(Cond::Lt(mn[1].clone(), n.clone())),
    );
    let acc = k.regs(
        "acc",
        F32,
        Layout::col_major(&tup![s(1), s(1)]).map_err(&e)?,
    )?; // (1,1)
    let out = Output {
        m,
        n,
        c,
        id_c: &id_c,
        bias,
    };
    k.if_(
        inside,
        |k| {
            k.fill(&acc, 0.0);
            k.for_(var, count, Unroll::None, |k, i| {
                let w_i = part(&slice(&i)?).map_err(&e)?; // (1,1)
                k.map(&acc, &[&acc, &w_i], EExpr::arg(0) + EExpr::arg(1), None);
                Ok(())
            })?;
            epilogue(k, plan, &out, &acc, &part, false)
        },
        |_| Ok(()),
    )?;
    Ok(())
}

/// The reduction of `plan`'s split-K partials: `C = alpha * sum_z W(_,_,z) + beta * C` and
/// the rest of the plan's epilogue, one thread per element of C (the sum in order of `z`, so
/// the result does not depend on the schedule). Parameters `M, N, S, alpha, W, ldW, beta, C,
/// ldC[, bias]`: `W` is FP32 `(M,N,S):(_1,ldW,ldW*N)`, C of the plan's output type.
pub fn split_k_reduce(plan: &GemmPlan) -> Result<Kernel> {
    let e = layout_err(&plan.name, "split-K reduction");
    let mut k = KernelBuilder::new(&format!("{}_splitk_reduce", plan.kernel_name()));
    k.target(plan.target).doc(
        "C = alpha * sum_z W(_,_,z) + beta * C (+ the plan's epilogue): parallel split-K's reduction, one thread per element of C",
    );
    let (m, n, splits) = (k.param_int("M"), k.param_int("N"), k.param_int("S"));
    k.param_scalar("alpha", F32);
    let ldw = Int::symbol("ldW");
    let slice = ldw.mul(&n).map_err(&e)?;
    let w = k.gmem(
        "W",
        F32,
        false,
        Layout::new(
            tup![m.clone(), n.clone(), splits.clone()],
            tup![s(1), ldw, slice],
        )
        .map_err(&e)?,
    ); // (M,N,S)
    k.param_int("ldW");
    k.param_scalar("beta", F32);
    let c = k.gmem("C", plan.output_type(), true, plan.layout.c_layout()); // (M,N)
    k.param_int("ldC");
    let bias = declare_bias(&mut k, plan, [&m, &n])?;
    let slice_z = |z: &Int| {
        w.slice(&Coord::Tuple(vec![X, X, Coord::Int(z.clone())]))
            .map_err(&e)
    }; // (M,N)
    let out = (&c, bias.as_ref());
    reduce_slices(&mut k, plan, [&m, &n], out, TILE, ("z", splits), &slice_z)?;
    k.finish()
}
