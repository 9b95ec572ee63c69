//! The GEMM plans as IR kernels: [`gemm`] builds the kernel of any [`GemmPlan`] with the
//! builder, as a CuTe kernel body is written (`naive` and `tiled` in [`super::gemm_simple`], the
//! `cp.async` pipeline in [`super::gemm_pipelined`]), with what they share: the parameters
//! `M, N, K, alpha, A, ldA, B, ldB, beta, C, ldC[, bias]` in that order, the global tensors and
//! the identity tensors that predicate them ([`Problem`]), and the epilogue's expression
//! ([`value`]).
//!
//! The epilogue computes what the plan's [`crate::gemm::Epilogue`] says, in its order: `x = alpha * acc`,
//! `x = fmaf(beta, C, x)` only when `beta != 0` (so a C of garbage is never read), `x += bias`,
//! `x = max(x, 0)`. A per-row bias is the tensor `(M,N):(_1,_0)` over the bias pointer (a
//! per-column one `(M,N):(_0,_1)`), tiled and partitioned as C is.

use cute_layout::{s, tup, Coord, ElemType, ElemType::F32, Int, Layout, Tensor, Tiler, X};

use super::layout_err;
use super::{gemm_pipelined, gemm_simple, gemm_tc, gemv};
use crate::cuda::IndexWidth;
use crate::error::Result;
use crate::gemm::{Bias, GemmPlan, Policy, SplitKMode};
use crate::ir::{Cond, EExpr, Kernel, KernelBuilder, Pred, Unroll};

/// The IR kernel of a plan, named as the plan names it (`sgemm_sm80_NN`), for the plan's
/// target, as it is written with 32-bit index arithmetic. Epilogue functors (C++ text) have no
/// IR form: an epilogue is an [`EExpr`].
pub fn gemm(plan: &GemmPlan) -> Result<Kernel> {
    gemm_for(plan, IndexWidth::I32)
}

/// The IR kernel of a plan as it is written with index arithmetic `width` bits wide: the
/// pipelined recipe picks its epilogue by it (`gemm_pipelined::pipelined`).
pub fn gemm_for(plan: &GemmPlan, width: IndexWidth) -> Result<Kernel> {
    if !plan.epilogue.functors.is_empty() {
        return Err(plan.error(
            "epilogue",
            "functors are C++ text, which the IR does not take: write the epilogue as an EExpr",
        ));
    }
    match &plan.policy {
        Policy::Naive { tile, thr } => gemm_simple::naive(plan, *tile, thr),
        Policy::SmemTiled { tile } => gemm_simple::tiled(plan, *tile),
        Policy::Pipelined(p) => gemm_pipelined::pipelined(plan, p, width),
        Policy::TensorCore(p) => gemm_tc::tensor_core(plan, p, width),
        Policy::Gemv(g) => gemv::gemv(plan, g),
    }
}

/// The GEMM's parameters, as tensors over the problem symbols, and the identity tensors that
/// predicate them.
pub(crate) struct Problem {
    pub m: Int,
    pub n: Int,
    pub k: Int,
    /// `(M,K)`.
    pub a: Tensor,
    /// `(N,K)`.
    pub b: Tensor,
    /// `(M,N)`.
    pub c: Tensor,
    /// `(M,N)`, broadcast along the mode the bias does not index.
    pub bias: Option<Tensor>,
    pub id_a: Tensor,
    pub id_b: Tensor,
    pub id_c: Tensor,
    /// The CTAs along K (the grid's third dimension): `ceil(K / Kc)` for split-K partials, 1.
    pub splits: Int,
    /// The first k of the CTA's range of K (`z Kc` for a split-K slice, 0): where A's and B's
    /// TMA boxes start along K (the pointer operands are moved there already).
    pub k0: Int,
    /// Serial split-K's semaphores, one per output tile `(ceil(M/BLK_M), ceil(N/BLK_N))`.
    pub sem: Option<Tensor>,
    /// Stream-K's schedule of the CTA's units.
    pub stream: Option<StreamK>,
}

impl Problem {
    /// Declares `M, N, K, alpha, A, ldA, B, ldB, beta, C, ldC` and, when the epilogue adds one,
    /// `bias`, in that order.
    pub fn declare(k: &mut KernelBuilder, plan: &GemmPlan) -> Result<Problem> {
        Problem::declare_typed(k, plan, F32, false, false)
    }

    /// [`Problem::declare`] with A and B of type `elem` and C of the plan's output type (the
    /// scalars and the bias FP32); A and B are tensor maps where `tma` holds.
    pub fn declare_typed(
        k: &mut KernelBuilder,
        plan: &GemmPlan,
        elem: ElemType,
        tma: bool,
        store_by_tma: bool,
    ) -> Result<Problem> {
        let layout = plan.layout;
        let (m, n, kk) = (k.param_int("M"), k.param_int("N"), k.param_int("K"));
        k.param_scalar("alpha", F32);
        // A and B as pointers, or as the tensor maps TMA reads them through
        let input = |k: &mut KernelBuilder, name: &str, l: Layout| match tma {
            true => k.gmem_map(name, elem, l),
            false => k.gmem(name, elem, false, l),
        };
        let a = input(k, "A", layout.a_layout());
        k.param_int("ldA");
        let b = input(k, "B", layout.b_layout());
        k.param_int("ldB");
        k.param_scalar("beta", F32);
        // C as a pointer, or as the tensor map a TMA-store epilogue writes (and reads) through
        let c = match store_by_tma {
            true => k.gmem_map("C", plan.output_type(), layout.c_layout()),
            false => k.gmem("C", plan.output_type(), true, layout.c_layout()),
        };
        k.param_int("ldC");
        let e = layout_err(&plan.name, "problem tensors");
        let bias = declare_bias(k, plan, [&m, &n])?;
        let mut stream = None;
        let KRange {
            a,
            b,
            c,
            k: kk,
            splits,
            k0,
        } = match plan.split_k {
            SplitKMode::None => KRange {
                a,
                b,
                c,
                k: kk,
                splits: s(1),
                k0: s(0),
            },
            SplitKMode::Parallel => split_k(k, [a, b, c], [&m, &n, &kk], true, &e)?,
            SplitKMode::Serial => split_k(k, [a, b, c], [&m, &n, &kk], false, &e)?,
            SplitKMode::Stream => {
                let sk = StreamK::declare(k, plan, [&m, &n, &kk], &e)?;
                let moved = sk.operands([a, b, c], [&m, &n], &e)?;
                stream = Some(sk);
                moved
            }
        };
        let sem = match plan.split_k {
            SplitKMode::Serial => Some(declare_semaphores(k, plan, [&m, &n], &e)?),
            _ => None,
        };
        let id = |x: &Int, y: &Int| Tensor::identity(&tup![x.clone(), y.clone()]).map_err(&e);
        let (id_a, id_b, id_c) = (id(&m, &kk)?, id(&n, &kk)?, id(&m, &n)?);
        Ok(Problem {
            m,
            n,
            k: kk,
            a,
            b,
            c,
            bias,
            id_a,
            id_b,
            id_c,
            splits,
            k0,
            sem,
            stream,
        })
    }

    /// The CTA `(bx, by)`'s tiles of A, B, C (and the bias) and their coordinates, for a
    /// `(BLK_M, BLK_N, BLK_K)` tile, and the grid and thread count of the launch: CuTe's
    /// `local_tile(mA, cta_tiler, cta_coord, Step<_1,X,_1>{})` and its siblings.
    pub fn cta_tiles(
        &self,
        k: &mut KernelBuilder,
        (bm, bn, bk): (i64, i64, i64),
        threads: i64,
        e: &LayoutErr<'_>,
    ) -> Result<CtaTiles> {
        if let Some(sk) = &self.stream {
            k.threads(threads).grid([Int::symbol("G"), s(1), s(1)]);
            return self.cta_tiles_at((bm, bn, bk), [&sk.blk[0], &sk.blk[1]], e);
        }
        k.threads(threads).grid([
            self.m.ceil_div(&s(bm)).map_err(e)?,
            self.n.ceil_div(&s(bn)).map_err(e)?,
            self.splits.clone(),
        ]);
        let (bx, by) = (KernelBuilder::block_idx(0), KernelBuilder::block_idx(1));
        self.cta_tiles_at((bm, bn, bk), [&bx, &by], e)
    }

    /// The tiles of output tile `(m_blk, n_blk)` (a persistent kernel's, expressions of its
    /// tile loop), as [`Problem::cta_tiles`] gives block `(bx, by)`'s.
    pub fn cta_tiles_at(
        &self,
        (bm, bn, bk): (i64, i64, i64),
        [m_blk, n_blk]: [&Int; 2],
        e: &LayoutErr<'_>,
    ) -> Result<CtaTiles> {
        let tile = |r: i64, c: i64| Tiler::from_shape(&tup![s(r), s(c)]);
        let at = |i: &Int| Coord::Tuple(vec![i.clone().into(), X]);
        let mn = Coord::Tuple(vec![m_blk.clone().into(), n_blk.clone().into()]);
        let mk =
            |t: &Tensor, i: &Int, rows: i64| t.local_tile(&tile(rows, bk), &at(i), None).map_err(e);
        let c_tile = |t: &Tensor| t.local_tile(&tile(bm, bn), &mn, None).map_err(e);
        Ok(CtaTiles {
            g_a: mk(&self.a, m_blk, bm)?,
            g_b: mk(&self.b, n_blk, bn)?,
            c_a: mk(&self.id_a, m_blk, bm)?,
            c_b: mk(&self.id_b, n_blk, bn)?,
            g_c: c_tile(&self.c)?,
            c_c: c_tile(&self.id_c)?,
            g_bias: self.bias.as_ref().map(c_tile).transpose()?,
            k_tiles: self.k.ceil_div(&s(bk)).map_err(e)?,
        })
    }

    /// Serial split-K, before the epilogue reads C: CTA `z` waits until its tile's semaphore
    /// holds `z` (slices `0 .. z-1` are in C), and sets the slice's scalars — `beta_z` (`beta`
    /// in slice 0, else 1: C holds the slices before), `bias_z` (1 in slice 0, else 0) and
    /// `relu_lo` (0 in the last slice, else -inf: the ReLU applies once, to the whole sum).
    /// Nothing for the other plans.
    pub fn serial_turn(&self, k: &mut KernelBuilder, plan: &GemmPlan) -> Result<()> {
        let Some(sem) = self.tile_semaphore(plan)? else {
            return Ok(());
        };
        let z = KernelBuilder::block_idx(2);
        k.comment("serial split-K: slice z adds into C after slice z-1 of this tile");
        k.semaphore_wait(&sem, z.clone());
        let epi = &plan.epilogue;
        let bias = epi.bias.is_some();
        k.if_(
            Cond::Lt(z.clone(), s(1)),
            |k| {
                k.let_("beta_z", EExpr::param("beta"));
                if bias {
                    k.let_("bias_z", EExpr::c(1.0));
                }
                Ok(())
            },
            |k| {
                k.let_("beta_z", EExpr::c(1.0));
                if bias {
                    k.let_("bias_z", EExpr::c(0.0));
                }
                Ok(())
            },
        )?;
        if epi.relu {
            let next = z.add(&s(1)).map_err(layout_err(&plan.name, "split-K"))?;
            k.if_(
                Cond::Lt(next, self.splits.clone()),
                |k| {
                    k.let_("relu_lo", EExpr::c(f64::NEG_INFINITY));
                    Ok(())
                },
                |k| {
                    k.let_("relu_lo", EExpr::c(0.0));
                    Ok(())
                },
            )?;
        }
        Ok(())
    }

    /// Serial split-K, after the epilogue: the tile's semaphore released with `z + 1`, by the
    /// last slice with 0 (zeros for the next launch). Nothing for the other plans.
    pub fn serial_done(&self, k: &mut KernelBuilder, plan: &GemmPlan) -> Result<()> {
        let Some(sem) = self.tile_semaphore(plan)? else {
            return Ok(());
        };
        let e = layout_err(&plan.name, "split-K");
        let next = KernelBuilder::block_idx(2)
            .add(&s(1))
            .and_then(|x| x.rem(&self.splits))
            .map_err(&e)?;
        k.semaphore_release(&sem, next);
        Ok(())
    }

    /// The semaphore of block `(bx, by)`'s tile (one element), for a serial split-K.
    fn tile_semaphore(&self, plan: &GemmPlan) -> Result<Option<Tensor>> {
        let Some(sem) = &self.sem else {
            return Ok(None);
        };
        let e = layout_err(&plan.name, "split-K");
        let at = Coord::Tuple(vec![
            KernelBuilder::block_idx(0).into(),
            KernelBuilder::block_idx(1).into(),
        ]);
        let one = Tiler::from_shape(&tup![s(1), s(1)]);
        Ok(Some(sem.local_tile(&one, &at, None).map_err(&e)?)) // (1,1)
    }

    /// The coordinates of the CTA's output tile: `(bx, by)`, or a stream-K unit's.
    pub fn tile_coords(&self) -> [Int; 2] {
        match &self.stream {
            Some(sk) => sk.blk.clone(),
            None => [KernelBuilder::block_idx(0), KernelBuilder::block_idx(1)],
        }
    }

    /// Stream-K: `body` once per unit of the CTA's range, each unit's indices bound first and
    /// the CTA's barrier before it (the last unit's epilogue reused the stages); other plans:
    /// `body` once.
    pub fn each_unit(
        &self,
        k: &mut KernelBuilder,
        body: impl FnOnce(&mut KernelBuilder) -> Result<()>,
    ) -> Result<()> {
        let Some(sk) = &self.stream else {
            return body(k);
        };
        k.comment("stream-K: the CTA's units, one output tile's k-tiles each");
        for (name, value) in &sk.prelude {
            k.let_index(name, value.clone());
        }
        k.for_(STREAM_UNIT, sk.units.clone(), Unroll::None, |k, _| {
            for (name, value) in &sk.indices {
                k.let_index(name, value.clone());
            }
            k.sync();
            body(k)
        })?;
        Ok(())
    }

    /// What an epilogue writes: C, its coordinates, the bias.
    pub fn output(&self) -> Output<'_> {
        Output {
            m: &self.m,
            n: &self.n,
            c: &self.c,
            id_c: &self.id_c,
            bias: self.bias.as_ref(),
        }
    }

    /// In bounds of A: `m < M && k < K`.
    pub fn pred_a(&self, coord: Tensor) -> Pred {
        Pred {
            coord,
            bounds: vec![self.m.clone(), self.k.clone()],
        }
    }

    /// In bounds of B: `n < N && k < K`.
    pub fn pred_b(&self, coord: Tensor) -> Pred {
        Pred {
            coord,
            bounds: vec![self.n.clone(), self.k.clone()],
        }
    }
}

/// Declares `bias` when the plan's epilogue adds one: `(M,N)` broadcast along the mode it
/// does not index, with its launch requirements.
pub(crate) fn declare_bias(
    k: &mut KernelBuilder,
    plan: &GemmPlan,
    [m, n]: [&Int; 2],
) -> Result<Option<Tensor>> {
    let Some(which) = plan.epilogue.bias else {
        return Ok(None);
    };
    let stride = match which {
        Bias::PerRow => tup![s(1), s(0)],
        Bias::PerCol => tup![s(0), s(1)],
    };
    let l =
        Layout::new(tup![m.clone(), n.clone()], stride).map_err(layout_err(&plan.name, "bias"))?;
    let t = k.gmem("bias", F32, false, l);
    for r in crate::gemm::common::buffer_requirements(plan) {
        k.require(r);
    }
    Ok(Some(t))
}

/// Serial split-K's semaphores: `Sem`, one `int` per output tile, `(ceil(M/BLK_M),
/// ceil(N/BLK_N))` column-major (block `(bx, by)`'s at `bx + gridDim.x by`).
fn declare_semaphores(
    k: &mut KernelBuilder,
    plan: &GemmPlan,
    [m, n]: [&Int; 2],
    e: &LayoutErr<'_>,
) -> Result<Tensor> {
    let ((bm, bn, _), _) = plan
        .cp_async_pipeline()
        .ok_or_else(|| plan.error("split-K", "a cp.async pipeline"))?;
    let tiles = tup![
        m.ceil_div(&s(bm)).map_err(e)?,
        n.ceil_div(&s(bn)).map_err(e)?
    ];
    let l = Layout::col_major(&tiles).map_err(e)?;
    Ok(k.gmem("Sem", ElemType::I32, true, l)) // (TILES_M,TILES_N)
}

/// Stream-K's schedule (`GemmPlan::with_stream_k`): CTA `c = bx` of `G` takes the iterations
/// `[c I / G, (c+1) I / G)` of `I = tiles * kt` (`kt = ceil(K / BLK_K)` k-tiles a tile,
/// tile-major), `units` of them a tile each; unit `u` (the loop variable `unit`) binds the
/// indices `sk_tm`, `sk_tn` (its output tile), `sk_k0` and `sk_kl` (the first k and the k
/// length of its k-tiles) and `sk_slot` (its workspace slot, `c J + u`).
pub(crate) struct StreamK {
    /// The CTA's indices bound once, before its units: its first and last iteration, the
    /// k-tiles a tile, the tile of its first iteration (`sk_start`, `sk_end`, `sk_kt`, `sk_t0`).
    pub prelude: Vec<(String, Int)>,
    /// The CTA's units (CTA-uniform).
    pub units: Int,
    /// The unit's indices, in order: name and value (of `bx`, the parameters and `unit`).
    pub indices: Vec<(String, Int)>,
    /// The unit's output tile: `(sk_tm, sk_tn)`.
    pub blk: [Int; 2],
    /// `(BLK_M, BLK_N)`.
    tile: (i64, i64),
}

/// The loop variable of stream-K's units.
pub(crate) const STREAM_UNIT: &str = "unit";

impl StreamK {
    /// Declares `G` and `J` and works out the CTA's schedule.
    fn declare(
        k: &mut KernelBuilder,
        plan: &GemmPlan,
        [m, n, kk]: [&Int; 3],
        e: &LayoutErr<'_>,
    ) -> Result<StreamK> {
        let ((bm, bn, bk), _) = plan
            .cp_async_pipeline()
            .ok_or_else(|| plan.error("stream-K", "a cp.async pipeline"))?;
        let (g, j) = (k.param_int("G"), k.param_int("J"));
        let tiles_m = m.ceil_div(&s(bm)).map_err(e)?;
        let tiles = tiles_m.mul(&n.ceil_div(&s(bn)).map_err(e)?).map_err(e)?;
        let kt = kk.ceil_div(&s(bk)).map_err(e)?;
        let iters = tiles.mul(&kt).map_err(e)?; // I
        let c = KernelBuilder::block_idx(0);
        let at = |c: &Int| c.mul(&iters).and_then(|x| x.div(&g)).map_err(e);
        let prelude = vec![
            ("sk_start".to_string(), at(&c)?),
            ("sk_end".to_string(), at(&c.add(&s(1)).map_err(e)?)?),
            ("sk_kt".to_string(), kt),
            (
                "sk_t0".to_string(),
                Int::index("sk_start")
                    .div(&Int::index("sk_kt"))
                    .map_err(e)?,
            ),
        ];
        let (start, end, kt, t0) = (
            Int::index("sk_start"),
            Int::index("sk_end"),
            Int::index("sk_kt"),
            Int::index("sk_t0"),
        );
        // the tiles of the CTA's first and last iterations (G <= I: every CTA has one)
        let units = end
            .sub(&s(1))
            .and_then(|x| x.div(&kt))
            .and_then(|x| x.sub(&t0))
            .and_then(|x| x.add(&s(1)))
            .map_err(e)?;
        let t = t0.add(&Int::index(STREAM_UNIT)).map_err(e)?;
        let t_start = t.mul(&kt).map_err(e)?; // the tile's first iteration
        let t_end = t_start.add(&kt).map_err(e)?;
        let kb = start
            .max(&t_start)
            .and_then(|x| x.sub(&t_start))
            .map_err(e)?;
        let ke = end.min(&t_end).and_then(|x| x.sub(&t_start)).map_err(e)?;
        let k0 = kb.mul(&s(bk)).map_err(e)?;
        let kl = ke
            .mul(&s(bk))
            .and_then(|x| x.min(kk))
            .and_then(|x| x.sub(&Int::index("sk_k0")))
            .map_err(e)?;
        let indices = vec![
            ("sk_tm".to_string(), t.rem(&tiles_m).map_err(e)?),
            ("sk_tn".to_string(), t.div(&tiles_m).map_err(e)?),
            ("sk_k0".to_string(), k0),
            ("sk_kl".to_string(), kl),
            (
                "sk_slot".to_string(),
                c.mul(&j)
                    .and_then(|x| x.add(&Int::index(STREAM_UNIT)))
                    .map_err(e)?,
            ),
        ];
        Ok(StreamK {
            prelude,
            units,
            indices,
            blk: [Int::index("sk_tm"), Int::index("sk_tn")],
            tile: (bm, bn),
        })
    }

    /// A and B from the unit's first k on (`sk_kl` long), and C as the unit's workspace slot:
    /// `(M,N):(_1,BLK_M)` over the `C` pointer moved so that the unit's tile lands on slot
    /// `sk_slot` (`BLK_M x BLK_N` floats, column-major).
    fn operands(
        &self,
        [a, b, c]: [Tensor; 3],
        [m, n]: [&Int; 2],
        e: &LayoutErr<'_>,
    ) -> Result<KRange> {
        let (bm, bn) = self.tile;
        let (k0, kl) = (Int::index("sk_k0"), Int::index("sk_kl"));
        let from_k0 = |t: &Tensor, rows: &Int| k_range(t, rows, &k0, &kl, e);
        let [tm, tn] = &self.blk;
        // slot * BLK_M BLK_N - tm BLK_M - tn BLK_N BLK_M: element (tm BLK_M, tn BLK_N) at the slot
        let shift = Int::index("sk_slot")
            .mul(&s(bm * bn))
            .and_then(|x| x.sub(&tm.mul(&s(bm))?))
            .and_then(|x| x.sub(&tn.mul(&s(bn * bm))?))
            .map_err(e)?;
        let slots = match c.engine() {
            cute_layout::Engine::Ptr(p) => {
                let mut p = p.clone();
                p.offset = p.offset.add(&shift).map_err(e)?;
                let l = Layout::new(tup![m.clone(), n.clone()], tup![s(1), s(bm)]).map_err(e)?;
                Tensor::new(p, cute_layout::AnyLayout::from(l))
            }
            _ => c,
        };
        Ok(KRange {
            a: from_k0(&a, m)?,
            b: from_k0(&b, n)?,
            c: slots,
            k: kl.clone(),
            splits: s(1),
            k0,
        })
    }
}

/// A CTA's view of the problem along K: A `(M,K')`, B `(N,K')` and C (or its workspace slice or
/// slot) as the CTA's range of K sees them, that range's length `K'`, the CTAs along K (the
/// grid's third dimension) and the range's first k.
struct KRange {
    a: Tensor,
    b: Tensor,
    c: Tensor,
    k: Int,
    splits: Int,
    k0: Int,
}

/// `t` (`(rows,K)`) from k = `k0` on, `len` long (CuTe's `domain_offset`; its strides kept).
fn k_range(t: &Tensor, rows: &Int, k0: &Int, len: &Int, e: &LayoutErr<'_>) -> Result<Tensor> {
    let moved = offset(t, &tup![s(0), k0.clone()], e)?;
    let stride = t.layout().shape_layout().stride().clone();
    let view = Layout::new(tup![rows.clone(), len.clone()], stride).map_err(e)?;
    Ok(moved.with_layout(view.into()))
}

/// The split-K slices' view of the problem (`GemmPlan::with_split_k`,
/// `with_serial_split_k`): declares `Kc`, and gives CTA `z = bz` A `(M,K')` and B `(N,K')`
/// from k = `z Kc` on, `K' = min(Kc, K - z Kc)` (CuTe's `domain_offset`), C (with `slices`:
/// parallel split-K) its workspace slice `(M,N)` at `z ldC N`, the splits `ceil(K / Kc)` and
/// `z Kc`.
fn split_k(
    k: &mut KernelBuilder,
    [a, b, c]: [Tensor; 3],
    [m, n, kk]: [&Int; 3],
    slices: bool,
    e: &LayoutErr<'_>,
) -> Result<KRange> {
    let kc = k.param_int("Kc");
    let z = KernelBuilder::block_idx(2);
    let k0 = z.mul(&kc).map_err(e)?;
    let k_here = kc.min(&kk.sub(&k0).map_err(e)?).map_err(e)?; // K'

    // the tensor from k0 on (its K mode K' long), and C's slice z
    let from_k0 = |t: &Tensor, rows: &Int| k_range(t, rows, &k0, &k_here, e);
    let slice = Int::symbol("ldC")
        .mul(n)
        .and_then(|x| x.mul(&z))
        .map_err(e)?;
    let c = match c.engine() {
        cute_layout::Engine::Ptr(p) if slices => {
            let mut p = p.clone();
            p.offset = p.offset.add(&slice).map_err(e)?;
            Tensor::new(p, c.layout().clone())
        }
        _ => c,
    };
    let splits = kk.ceil_div(&kc).map_err(e)?;
    Ok(KRange {
        a: from_k0(&a, m)?,
        b: from_k0(&b, n)?,
        c,
        k: k_here,
        splits,
        k0,
    })
}

/// The tensor `t` with its pointer moved to the element at `coord` (its layout kept).
fn offset(t: &Tensor, coord: &cute_layout::IntTuple, e: &LayoutErr<'_>) -> Result<Tensor> {
    match t.at(coord).map_err(e)? {
        cute_layout::Element::Offset(p) => Ok(Tensor::new(p, t.layout().clone())),
        cute_layout::Element::Coord(_) => Ok(t.clone()),
    }
}

/// What an epilogue writes: C `(M,N)`, its identity tensor and the bias broadcast over it.
pub(crate) struct Output<'a> {
    pub m: &'a Int,
    pub n: &'a Int,
    pub c: &'a Tensor,
    pub id_c: &'a Tensor,
    pub bias: Option<&'a Tensor>,
}

impl Output<'_> {
    /// In bounds of C: `m < M && n < N`.
    pub fn pred(&self, coord: Tensor) -> Pred {
        Pred {
            coord,
            bounds: vec![self.m.clone(), self.n.clone()],
        }
    }
}

/// How a recipe turns the layout algebra's errors into its own (`super::layout_err`).
pub(crate) type LayoutErr<'a> = dyn Fn(cute_layout::Error) -> crate::error::CodegenError + 'a;

/// The threads of a plan's TiledMMA, which must be a static count.
pub(crate) fn mma_threads(plan: &GemmPlan, mma: &cute_layout::atom::TiledMma) -> Result<i64> {
    let e = layout_err(&plan.name, "mma");
    mma.num_threads()
        .map_err(&e)?
        .as_static()
        .ok_or_else(|| plan.error("mma", "a static thread count"))
}

/// One CTA's tiles: `(BLK_M,BLK_K,k)` of A and its coordinates, `(BLK_N,BLK_K,k)` of B,
/// `(BLK_M,BLK_N)` of C (and the bias), and the number of k-tiles.
pub(crate) struct CtaTiles {
    pub g_a: Tensor,
    pub g_b: Tensor,
    pub c_a: Tensor,
    pub c_b: Tensor,
    pub g_c: Tensor,
    pub c_c: Tensor,
    pub g_bias: Option<Tensor>,
    pub k_tiles: Int,
}

/// The scale of C the plan's epilogue reads C by (when it is not zero): the parameter `beta`,
/// or a serial split-K slice's `beta_z` ([`Problem::serial_turn`]).
pub(crate) fn beta(plan: &GemmPlan) -> &'static str {
    match plan.split_k {
        SplitKMode::Serial => "beta_z",
        _ => "beta",
    }
}

/// `beta != 0` (or `beta_z != 0`): the epilogue reads C.
pub(crate) fn reads_c(plan: &GemmPlan) -> Cond {
    Cond::NonZero(beta(plan).to_string())
}

/// The epilogue's value of one element of C from the map's sources: the accumulator (source
/// 0), then C when `with_c` (source 1), then the bias when the epilogue adds one. A serial
/// split-K slice scales C by `beta_z`, the bias by `bias_z` and clamps at `relu_lo`
/// ([`Problem::serial_turn`]).
pub(crate) fn value(plan: &GemmPlan, with_c: bool) -> EExpr {
    let epi = &plan.epilogue;
    let serial = plan.split_k == SplitKMode::Serial;
    let mut x = EExpr::param("alpha") * EExpr::arg(0);
    if with_c {
        let beta = match serial {
            true => EExpr::var(beta(plan)),
            false => EExpr::param("beta"),
        };
        x = beta.fma(EExpr::arg(1), x);
    }
    if epi.bias.is_some() {
        let b = EExpr::arg(1 + usize::from(with_c));
        x = match serial {
            true => EExpr::var("bias_z").fma(b, x),
            false => x + b,
        };
    }
    if epi.relu {
        x = match serial {
            true => x.max(EExpr::var("relu_lo")),
            false => x.relu(),
        };
    }
    x
}
