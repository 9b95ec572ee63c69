//! Stream-K (CUTLASS's stream-K tile scheduler, with its partials reduced by a separate
//! kernel): the partial products of [`GemmPlan::with_stream_k`] — `G` persistent CTAs share
//! the k-tiles of every output tile evenly, each storing one workspace slot per output tile it
//! touches — and [`stream_k_reduce`], which sums each tile's slots in order of the CTA and
//! applies the plan's epilogue. [`schedule`] picks `G` and the slots a CTA needs.
//!
//! It is for the shapes whose output tiles do not divide into whole waves of the SMs (a
//! 1.3-wave problem runs its last 0.3 wave on a third of the SMs): every CTA gets the same
//! number of k-tiles, whatever the tile count.

use cute_layout::ElemType::F32;
use cute_layout::{s, tup, Int, Layout, Tensor};

use super::gemm::declare_bias;
use super::layout_err;
use super::split_k::{case_shape, gather, reduce_slices, scatter, MAX_WORKSPACE};
use crate::error::Result;
use crate::gemm::GemmPlan;
use crate::interp::{Arg, HostBuffer};
use crate::ir::{Kernel, KernelBuilder};

/// Stream-K's launch: `ctas` CTAs (`G`), `slots` workspace slots a CTA (`J`), each a
/// `(BLK_M,BLK_N)` FP32 tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamSchedule {
    pub ctas: i64,
    pub slots: i64,
    /// `BLK_M x BLK_N`: the elements of a slot.
    pub slot_elems: i64,
}

impl StreamSchedule {
    /// The workspace's elements (`G J BLK_M BLK_N`).
    pub fn workspace_elems(&self) -> i64 {
        self.ctas * self.slots * self.slot_elems
    }
}

/// Stream-K of `plan` at `(m, n, k)` over at most `ctas` CTAs: `G = min(ctas, I)` (so every
/// CTA has an iteration), `J = ceil(ceil(I / G) / kt) + 1` (the tiles a range of `ceil(I / G)`
/// iterations can touch). `None` for a plan without a `cp.async` pipeline, a non-positive size,
/// a workspace past `MAX_WORKSPACE` elements, or `(I + 1) G` past 2^31 - 1 (the kernels' 32-bit
/// schedule arithmetic: `c I / G` and its inverse).
pub fn schedule(plan: &GemmPlan, (m, n, k): (i64, i64, i64), ctas: i64) -> Option<StreamSchedule> {
    let ((bm, bn, bk), _) = plan.cp_async_pipeline()?;
    if m <= 0 || n <= 0 || k <= 0 || ctas <= 0 {
        return None;
    }
    let ceil = |a: i64, b: i64| a.saturating_add(b - 1) / b;
    let kt = ceil(k, bk);
    let iters = ceil(m, bm).checked_mul(ceil(n, bn))?.checked_mul(kt)?;
    let g = ctas.min(iters);
    let slots = ceil(ceil(iters, g), kt) + 1;
    let s = StreamSchedule {
        ctas: g,
        slots,
        slot_elems: bm * bn,
    };
    let elems = g.checked_mul(slots)?.checked_mul(bm * bn)?;
    let span = iters.checked_add(1)?.checked_mul(g)?;
    (elems <= MAX_WORKSPACE && span <= i64::from(i32::MAX)).then_some(s)
}

/// The reduction's CTA tile of C: up to 32 rows (a GEMM tile's rows at most, so a CTA lies in
/// one GEMM tile), 256 threads.
fn reduce_tile(bm: i64) -> (i64, i64) {
    let rows = bm.clamp(1, 32);
    (rows, 256 / rows)
}

/// The reduction of `plan`'s stream-K partials: `C = alpha * sum_c W(slot(c, t)) + beta * C`
/// (+ the plan's epilogue) over the CTAs `c` whose range touches the element's output tile
/// `t`, in order of `c`, one thread per element of C. Parameters `M, N, K, alpha, W, beta, C,
/// ldC[, bias], G, J`.
pub fn stream_k_reduce(plan: &GemmPlan) -> Result<Kernel> {
    let e = layout_err(&plan.name, "stream-K reduction");
    let ((bm, bn, bk), _) = plan
        .cp_async_pipeline()
        .ok_or_else(|| plan.error("stream-K", "a cp.async pipeline"))?;
    let (rm, rn) = reduce_tile(bm);
    if bm % rm != 0 || bn % rn != 0 {
        return Err(plan.error(
            "stream-K",
            format!("a {bm}x{bn} tile is not whole {rm}x{rn} reduction tiles"),
        ));
    }
    let mut k = KernelBuilder::new(&format!("{}_streamk_reduce", plan.kernel_name()));
    k.target(plan.target).doc(
        "C = alpha * sum_c W(slot of CTA c for this tile) + beta * C (+ the plan's epilogue): stream-K's reduction, one thread per element of C",
    );
    let (m, n, kk) = (k.param_int("M"), k.param_int("N"), k.param_int("K"));
    k.param_scalar("alpha", F32);
    // the workspace's pointer: each slot is viewed through it below
    let w = match k
        .gmem("W", F32, false, Layout::col_major(&tup![s(1)]).map_err(&e)?)
        .engine()
    {
        cute_layout::Engine::Ptr(p) => p.clone(),
        _ => return Err(plan.error("stream-K", "the workspace is a pointer")),
    };
    k.param_scalar("beta", F32);
    let c = k.gmem("C", plan.output_type(), true, plan.layout.c_layout()); // (M,N)
    k.param_int("ldC");
    let bias = declare_bias(&mut k, plan, [&m, &n])?;
    let (g, j) = (k.param_int("G"), k.param_int("J"));
    let (bx, by) = (KernelBuilder::block_idx(0), KernelBuilder::block_idx(1));
    // the GEMM tile of this CTA, its iterations, and the CTAs whose ranges touch them
    let tiles_m = m.ceil_div(&s(bm)).map_err(&e)?;
    let tm = bx.mul(&s(rm)).and_then(|x| x.div(&s(bm))).map_err(&e)?;
    let tn = by.mul(&s(rn)).and_then(|x| x.div(&s(bn))).map_err(&e)?;
    let t = tn.mul(&tiles_m).and_then(|x| x.add(&tm)).map_err(&e)?;
    let kt = kk.ceil_div(&s(bk)).map_err(&e)?;
    let iters = tiles_m
        .mul(&n.ceil_div(&s(bn)).map_err(&e)?)
        .and_then(|x| x.mul(&kt))
        .map_err(&e)?;
    // the last CTA whose range starts at or before iteration x: floor(((x + 1) G - 1) / I)
    let cta_of = |x: &Int| {
        x.add(&s(1))
            .and_then(|y| y.mul(&g))
            .and_then(|y| y.sub(&s(1)))
            .and_then(|y| y.div(&iters))
            .map_err(&e)
    };
    let first = k.let_index("sk_first", cta_of(&t.mul(&kt).map_err(&e)?)?);
    let last = cta_of(
        &t.add(&s(1))
            .and_then(|x| x.mul(&kt))
            .and_then(|x| x.sub(&s(1)))
            .map_err(&e)?,
    )?;
    let count = last.sub(&first).and_then(|x| x.add(&s(1))).map_err(&e)?;

    // CTA `first + i`'s slot for tile t, as an (M,N):(_1,BLK_M) view whose tile (tm, tn) is it
    let slot_view = |i: &Int| -> Result<Tensor> {
        let cta = first.add(i).map_err(&e)?;
        let t0 = cta
            .mul(&iters)
            .and_then(|x| x.div(&g))
            .and_then(|x| x.div(&kt))
            .map_err(&e)?;
        let slot = cta.mul(&j).and_then(|x| x.add(&t.sub(&t0)?)).map_err(&e)?;
        let shift = slot
            .mul(&s(bm * bn))
            .and_then(|x| x.sub(&tm.mul(&s(bm))?))
            .and_then(|x| x.sub(&tn.mul(&s(bm * bn))?))
            .map_err(&e)?;
        let mut p = w.clone();
        p.offset = shift;
        let l = Layout::new(tup![m.clone(), n.clone()], tup![s(1), s(bm)]).map_err(&e)?;
        Ok(Tensor::new(p, l))
    };
    let out = (&c, bias.as_ref());
    reduce_slices(
        &mut k,
        plan,
        [&m, &n],
        out,
        (rm, rn),
        ("sk_c", count),
        &slot_view,
    )?;
    k.finish()
}

/// A GEMM case's arguments (`gemm_case`'s order: `M, N, K, alpha, A, ldA, B, ldB, beta, C,
/// ldC[, bias]`) laid out for stream-K's two kernels: the case's, then `1`, `0`, the workspace
/// (FP32, NaN-poisoned: every slot the reduction reads must have been written), `BLK_M`, `G`,
/// `J`; the partials' parameters `M, N, K, 1, A, ldA, B, ldB, 0, W, BLK_M, G, J` and the
/// reduction's `M, N, K, alpha, W, beta, C, ldC[, bias], G, J`, as positions in that list.
#[derive(Debug, Clone)]
pub struct StreamCase {
    pub args: Vec<Arg>,
    pub partial: Vec<usize>,
    pub reduce: Vec<usize>,
    pub schedule: StreamSchedule,
}

impl StreamCase {
    /// The position of C in [`StreamCase::args`].
    pub const C: usize = 9;

    /// `plan`'s stream-K of a case's arguments over at most `ctas` CTAs ([`schedule`]).
    pub fn new(plan: &GemmPlan, mut args: Vec<Arg>, ctas: i64) -> Result<StreamCase> {
        let (m, n, k) = case_shape(plan, &args, "stream-K")?;
        let bias = plan.epilogue.bias.is_some();
        let sch = schedule(plan, (m, n, k), ctas)
            .ok_or_else(|| plan.error("stream-K", format!("{m}x{n}x{k} over {ctas} CTAs")))?;
        let bm = plan.cp_async_pipeline().map_or(1, |x| x.0 .0);
        let elems = usize::try_from(sch.workspace_elems()).unwrap_or(0);
        let e = args.len();
        args.extend([
            Arg::Scalar(1.0),
            Arg::Scalar(0.0),
            Arg::Buffer(HostBuffer::from_values(F32, &vec![f64::NAN; elems])),
            Arg::Int(bm),
            Arg::Int(sch.ctas),
            Arg::Int(sch.slots),
        ]);
        let mut reduce = vec![0, 1, 2, 3, e + 2, 8, Self::C, 10];
        if bias {
            reduce.push(11);
        }
        reduce.extend([e + 4, e + 5]);
        Ok(StreamCase {
            args,
            partial: vec![0, 1, 2, e, 4, 5, 6, 7, e + 1, e + 2, e + 3, e + 4, e + 5],
            reduce,
            schedule: sch,
        })
    }
}

impl StreamCase {
    /// The arguments of the kernel whose parameters are `at` (copies).
    pub fn gather(&self, at: &[usize]) -> Vec<Arg> {
        gather(&self.args, at)
    }

    /// Puts back what a kernel whose parameters are `at` wrote into `args` (its buffers).
    pub fn scatter(&mut self, at: &[usize], args: Vec<Arg>) {
        scatter(&mut self.args, at, args)
    }
}

/// The two kernels of `plan`'s stream-K, verified and written (32-bit indices): the partial
/// products (`GemmPlan::with_stream_k`) and their reduction ([`stream_k_reduce`]).
pub fn emit_stream_k(plan: &GemmPlan) -> Result<[crate::Kernel; 2]> {
    let partial =
        crate::gemm::emit_with(&plan.clone().with_stream_k()?, crate::cuda::IndexWidth::I32)?;
    let reduce = crate::cuda::emit(&stream_k_reduce(plan)?)?;
    Ok([partial, reduce])
}
