//! The pipelined GEMM plans (`sgemm-sm80`, `sgemm-sm80-bias-relu`, `simt-hier`) as IR kernels:
//! `C = alpha * A * B + beta * C` in FP32, written with the [`KernelBuilder`] as CuTe's
//! `sgemm_sm80` tutorial kernel is written, from the plan's CuTe values. For `sgemm-sm80`: its
//! 128x128x32 CTA tile, its 3 shared-memory stages (plain or swizzled `(BLK_M,BLK_K,PIPE)`
//! tiles), its `cp.async` TiledCopies (128-bit `cp.async.cg` along an M-/N-major operand,
//! 32-bit `cp.async.ca` along a K-major one) and its UniversalFMA TiledMMA (16x16 threads, each
//! an 8x8 outer product per k block, its rows and columns two runs of 4 so the fragments load
//! as 128-bit vectors).
//!
//! The mainloop is CuTe's: `PIPE-1` k-tiles in flight before it, then per k-tile its k blocks
//! (in trips of the plan's unrolled k blocks, a rolled loop over the trips), each reading the
//! next k block's fragments from shared memory into the other half of a two-deep register
//! buffer while the FMAs run on this one; k block 0 issues the copy of k-tile `kt + PIPE - 1`
//! into the stage read last in the previous k-tile, and the last k block waits for the next
//! stage (`cp.async.wait_group PIPE-2`, `__syncthreads`) before it reads it. Stages are indexed
//! by the k-tile modulo `PIPE`. Copies of tiles inside the matrix are unpredicated; tiles on its
//! edge are zero-filled by predicated `cp.async` (a partial vector copies its in-bounds prefix).
//! The epilogue computes `alpha * acc + beta * C` (C read only when `beta != 0`), then the
//! plan's bias and ReLU (`recipes::gemm`): staged through the idle stages and stored in rolled
//! loops where the accumulators fit there and indices are 32-bit, else straight from the
//! registers; 128-bit vectors where the CTA's tile lies inside C, element by element under the
//! predicate elsewhere.

use cute_layout::atom::{CopyAtom, CopyOp, MmaAtom, Operand, TiledCopy};
use cute_layout::{s, tup, Coord, ElemType::F32, Int, Layout, Tensor, X};

use super::gemm::{mma_threads, value, CtaTiles, LayoutErr, Problem};
use super::layout_err;
use crate::cuda::IndexWidth;
use crate::error::{CodegenError, Result};
use crate::gemm::{GemmPlan, Pipelined};
use crate::ir::{Cond, Kernel, KernelBuilder, Pred, Unroll};

/// The IR kernel of a pipelined plan (`sgemm-sm80`, `sgemm-sm80-bias-relu`, `simt-hier`),
/// named as the plan names it (`sgemm_sm80_NN`).
///
/// Parameters: `M, N, K, alpha, A, ldA, B, ldB, beta, C, ldC[, bias]`; grid `(ceil(M/BLK_M),
/// ceil(N/BLK_N), 1)`, the TiledMMA's threads, the stages' dynamic shared memory.
///
/// The epilogue stages the accumulators over the stages where they fit and the kernel's indices
/// are 32-bit ([`epilogue_staged`]), else stores them from registers ([`epilogue`]): on the H200
/// the staged form makes the 32-bit mainloop's registers fall right (sgemm-sm80 at or above the
/// template's speed in every layout at 4096³, where the unrolled register epilogue lost 6 to 24%),
/// while the 64-bit build spills 132 bytes with it and ran 70000x70000x64 at 83% of cuBLAS,
/// against 103% from registers (`docs/performance.md`).
pub fn pipelined(plan: &GemmPlan, p: &Pipelined, width: IndexWidth) -> Result<Kernel> {
    let name = plan.kernel_name();
    let e = layout_err(&plan.name, "pipelined");
    let layout = plan.layout;
    let (bm, bn, bk) = p.cta;
    let threads = mma_threads(plan, &p.mma)?;

    let mut k = KernelBuilder::new(&name);
    // the plan's checks (coverage, budgets, copies), and the bank figures they computed
    for line in crate::gemm::pipelined::check(plan, p)? {
        k.note(&line);
    }
    k.target(plan.target).doc(&format!(
        "C = alpha * A * B + beta * C, {layout} layout, {bm}x{bn}x{bk} CTA tile, {} stages, {threads} threads",
        p.stages
    ));
    let pr = Problem::declare(&mut k, plan)?;
    let (m, n) = (pr.m.clone(), pr.n.clone());
    k.min_blocks_per_sm(p.min_blocks_per_sm);
    let CtaTiles {
        g_a, // (BLK_M,BLK_K,k)
        g_b, // (BLK_N,BLK_K,k)
        c_a,
        c_b,
        g_c, // (BLK_M,BLK_N)
        c_c,
        g_bias,
        k_tiles,
    } = pr.cta_tiles(&mut k, p.cta, threads, &e)?;
    let tid = KernelBuilder::tid();

    let s_a = k.smem("sA", F32, p.smem_a.clone()); // (BLK_M,BLK_K,PIPE)
    let s_b = k.smem("sB", F32, p.smem_b.clone()); // (BLK_N,BLK_K,PIPE)

    // gmem -> smem: each operand's cp.async TiledCopy
    let [copy_a, copy_b] = Operand3::pair(
        &mut k,
        &pr,
        [&p.copy_a, &p.copy_b],
        [(&g_a, &c_a, &s_a), (&g_b, &c_b, &s_b)],
        &e,
    )?;

    // the MMA's partitions: smem fragments (MMA,MMA_M,MMA_K,PIPE), the accumulator (MMA,MMA_M,MMA_N)
    let thr_mma = p.mma.get_slice(&tid).map_err(&e)?;
    let t_cs_a = k.bind("tCsA", thr_mma.partition(Operand::A, &s_a).map_err(&e)?);
    let t_cs_b = k.bind("tCsB", thr_mma.partition(Operand::B, &s_b).map_err(&e)?);
    let t_cg_c = k.bind("tCgC", thr_mma.partition(Operand::C, &g_c).map_err(&e)?);
    let t_cc_c = thr_mma.partition(Operand::C, &c_c).map_err(&e)?;
    let t_cg_bias = g_bias
        .map(|b| thr_mma.partition(Operand::C, &b))
        .transpose()
        .map_err(&e)?;
    let acc_layout = Layout::col_major(t_cg_c.layout().shape_layout().shape()).map_err(&e)?;
    let acc = k.regs("acc", F32, acc_layout)?; // (MMA,MMA_M,MMA_N)
    let r_a = KBuffer::new(&mut k, "rA", &t_cs_a, &e)?;
    let r_b = KBuffer::new(&mut k, "rB", &t_cs_b, &e)?;
    let s2r = CopyAtom::new(CopyOp::UniversalCopy { bits: s2r_bits(p) }, F32).map_err(&e)?;
    let mma_atom = MmaAtom::new(p.mma.atom().op());

    pr.each_unit(&mut k, |k| {
        k.comment("the accumulator starts at zero");
        k.fill(&acc, 0.0);
        prologue(k, p, &copy_a, &copy_b, &k_tiles)?;
        k.comment("the first k block's fragments of stage 0");
        k.copy(
            &s2r,
            &r_a.smem(&t_cs_a, &s(0), &s(0), &e)?,
            &r_a.at(&s(0), &e)?,
        );
        k.copy(
            &s2r,
            &r_b.smem(&t_cs_b, &s(0), &s(0), &e)?,
            &r_b.at(&s(0), &e)?,
        );

        let kb_max = t_cs_a
            .layout()
            .shape_layout()
            .mode(2)
            .map_err(&e)?
            .size()
            .map_err(&e)?;
        let kb_max = kb_max
            .as_static()
            .ok_or_else(|| plan.error("mma", "a static number of k blocks"))?;
        let pipe = s(p.stages);
        // k blocks per trip of the k-block loop: all of them, or the plan's rolled factor
        let unroll = p.k_block_unroll.filter(|&u| u < kb_max).unwrap_or(kb_max);
        let trips = kb_max / unroll;
        let reads = |k: &mut KernelBuilder, kn: &Int, stage: &Int, buf: &Int| -> Result<()> {
            k.copy(&s2r, &r_a.smem(&t_cs_a, kn, stage, &e)?, &r_a.at(buf, &e)?);
            k.copy(&s2r, &r_b.smem(&t_cs_b, kn, stage, &e)?, &r_b.at(buf, &e)?);
            Ok(())
        };
        k.comment("the mainloop: one k-tile per trip, its k blocks in trips of unrolled k blocks");
        k.for_("kt", k_tiles.clone(), Unroll::None, |k, kt| {
            let here = kt.rem(&pipe).map_err(&e)?;
            let roll = if trips > 1 { Unroll::None } else { Unroll::Full };
            k.for_("kb0", s(trips), roll, |k, kb0| {
                k.for_("kb1", s(unroll), Unroll::Full, |k, kb1| {
                    let kb = kb0.mul(&s(unroll)).and_then(|x| x.add(&kb1)).map_err(&e)?;
                    // the next k block into the other half of the register buffer (unroll is even)
                    let buf = kb1.add(&s(1)).and_then(|x| x.rem(&s(2))).map_err(&e)?;
                    k.if_(
                        Cond::Lt(kb1.clone(), s(unroll - 1)),
                        |k| reads(k, &kb.add(&s(1)).map_err(&e)?, &here, &buf),
                        |k| {
                            // two reads, not one at a computed stage: each keeps its address an
                            // immediate offset from the trip's (the computed stage measured 2% slower)
                            k.if_(
                                Cond::Lt(kb0.clone(), s(trips - 1)),
                                |k| {
                                    let kn = kb0.add(&s(1)).and_then(|x| x.mul(&s(unroll)));
                                    reads(k, &kn.map_err(&e)?, &here, &buf)
                                },
                                |k| {
                                    k.comment("the next stage: wait for its copies and for every thread to be done with this one");
                                    k.cp_async_wait(p.stages - 2);
                                    k.sync();
                                    let next = kt.add(&s(1)).and_then(|x| x.rem(&pipe));
                                    reads(k, &s(0), &next.map_err(&e)?, &buf)
                                },
                            )?;
                            Ok(())
                        },
                    )?;
                    let first = Cond::And(
                        Box::new(Cond::Le(kb0.clone(), s(0))),
                        Box::new(Cond::Le(kb1.clone(), s(0))),
                    );
                    k.if_(
                        first,
                        |k| issue_ahead(k, p.stages, &kt, &k_tiles, [&copy_a, &copy_b], &e),
                        |_| Ok(()),
                    )?;
                    let cur = kb1.rem(&s(2)).map_err(&e)?;
                    k.gemm(&mma_atom, &r_a.frag(&cur, &e)?, &r_b.frag(&cur, &e)?, &acc);
                    Ok(())
                })?;
                Ok(())
            })?;
            Ok(())
        })?;
        let epi = Epi {
            plan,
            acc: &acc,
            t_cg_c: &t_cg_c,
            t_cc_c: &t_cc_c,
            bias: t_cg_bias.as_ref(),
            m: &m,
            n: &n,
            tile: (bm, bn),
            blk: pr.tile_coords(),
            threads,
        };
        // the accumulators fit in the stages: staged through them, else straight from registers
        let stage_elems =
            |l: &cute_layout::AnyLayout| l.shape_layout().cosize().ok().and_then(|c| c.as_static());
        let stages = stage_elems(&p.smem_a).zip(stage_elems(&p.smem_b));
        let fits = stages.is_some_and(|(a, b)| bm * bn <= a + b);
        pr.serial_turn(k, plan)?;
        if fits && width == IndexWidth::I32 {
            epilogue_staged(k, &epi, &e)?;
        } else {
            epilogue(k, &epi, &e)?;
        }
        pr.serial_done(k, plan)?;
        Ok(())
    })?;
    k.finish()
}

/// The first `PIPE-1` k-tiles in flight ([`prologue_copies`]), then the first one waited for.
fn prologue(
    k: &mut KernelBuilder,
    p: &Pipelined,
    a: &Operand3,
    b: &Operand3,
    k_tiles: &Int,
) -> Result<()> {
    prologue_copies(k, p.stages, a, b, k_tiles)?;
    k.cp_async_wait(p.stages - 2);
    k.sync();
    Ok(())
}

/// The first `stages - 1` k-tiles in flight, by the predicated copies (a tile past K zero-fills
/// nothing: it is skipped), one commit group each.
pub(super) fn prologue_copies(
    k: &mut KernelBuilder,
    stages: i64,
    a: &Operand3,
    b: &Operand3,
    k_tiles: &Int,
) -> Result<()> {
    k.comment("prologue: the first PIPE-1 k-tiles in flight, k-tile k_pipe into stage k_pipe");
    k.for_("k_pipe", s(stages - 1), Unroll::None, |k, t| {
        k.if_(
            Cond::Lt(t.clone(), k_tiles.clone()),
            |k| {
                a.copy_edge(k, &t, &t, &a.err)?;
                b.copy_edge(k, &t, &t, &b.err)
            },
            |_| Ok(()),
        )?;
        k.cp_async_commit();
        Ok(())
    })?;
    Ok(())
}

/// The copy of k-tile `kt + PIPE - 1` into the stage read in the previous k-tile (none past the
/// last k-tile), then its commit group (always: `cp.async.wait_group` counts groups).
pub(super) fn issue_ahead(
    k: &mut KernelBuilder,
    stages: i64,
    kt: &Int,
    k_tiles: &Int,
    [a, b]: [&Operand3; 2],
    e: &LayoutErr<'_>,
) -> Result<()> {
    let ahead = kt.add(&s(stages - 1)).map_err(e)?;
    let into = ahead.rem(&s(stages)).map_err(e)?;
    k.if_(
        Cond::Lt(ahead.clone(), k_tiles.clone()),
        |k| {
            k.comment("k-tile kt + PIPE-1 into the stage read in the previous k-tile");
            a.load(k, &ahead, &into, e)?;
            b.load(k, &ahead, &into, e)
        },
        |_| Ok(()),
    )?;
    k.cp_async_commit();
    Ok(())
}

/// The widest vector (128, 64 or 32 bits) the fragment reads of both shared tiles take: every
/// stride of the stages' layouts other than the unit one a multiple of its elements (a stage
/// stride of 4097 floats puts stage 1 off 16-byte alignment: scalar reads). The alignment pass
/// still proves each read; this only picks the width it can prove.
fn s2r_bits(p: &Pipelined) -> u32 {
    let strides = |l: &cute_layout::AnyLayout| -> Vec<i64> {
        l.shape_layout()
            .stride()
            .leaves()
            .iter()
            .map(|d| d.as_static().unwrap_or(1))
            .filter(|&d| d != 1 && d != 0)
            .collect()
    };
    let all: Vec<i64> = [&p.smem_a, &p.smem_b]
        .into_iter()
        .flat_map(strides)
        .collect();
    [4i64, 2]
        .into_iter()
        .find(|w| all.iter().all(|d| d % w == 0))
        .map_or(32, |w| 32 * w as u32)
}

/// One operand's gmem -> smem copy: its partitions `(CPY,CPY_M,CPY_K,k)` of the global tile
/// and its coordinates, and `(CPY,CPY_M,CPY_K,PIPE)` of the shared stages.
pub(super) struct Operand3 {
    atom: CopyAtom,
    t_g: Tensor,
    t_c: Tensor,
    t_s: Tensor,
    bounds: Vec<Int>,
    /// The tile's rows (BLK_M or BLK_N) and BLK_K, for the inside-the-matrix test.
    tile: (i64, i64),
    /// The tile coordinate along the rows (`bx` or `by`, or a stream-K unit's).
    block: Int,
    err: Box<dyn Fn(cute_layout::Error) -> CodegenError>,
}

impl Operand3 {
    /// A's and B's copies by `copy` from the CTA's tiles and their coordinates into the
    /// stages, `[(g_a, c_a, s_a), (g_b, c_b, s_b)]`: bounded by `(M,K)` and `(N,K)`, their
    /// unpredicated path taken where the tile at `pr.tile_coords()` lies inside the matrix.
    pub(super) fn pair(
        k: &mut KernelBuilder,
        pr: &Problem,
        [copy_a, copy_b]: [&TiledCopy; 2],
        [(g_a, c_a, s_a), (g_b, c_b, s_b)]: [(&Tensor, &Tensor, &Tensor); 2],
        e: &LayoutErr<'_>,
    ) -> Result<[Operand3; 2]> {
        let [blk_m, blk_n] = pr.tile_coords();
        Ok([
            Operand3::new(k, "A", copy_a, g_a, c_a, s_a, [&pr.m, &pr.k], &blk_m, e)?,
            Operand3::new(k, "B", copy_b, g_b, c_b, s_b, [&pr.n, &pr.k], &blk_n, e)?,
        ])
    }

    #[allow(clippy::too_many_arguments)]
    fn new(
        k: &mut KernelBuilder,
        which: &str,
        copy: &TiledCopy,
        g: &Tensor,
        c: &Tensor,
        smem: &Tensor,
        bounds: [&Int; 2],
        block: &Int,
        e: &LayoutErr<'_>,
    ) -> Result<Operand3> {
        let thr = copy.get_slice(&KernelBuilder::tid()).map_err(e)?;
        let t_g = k.bind(&format!("t{which}g{which}"), thr.partition_s(g).map_err(e)?);
        let t_s = k.bind(
            &format!("t{which}s{which}"),
            thr.partition_d(smem).map_err(e)?,
        );
        let t_c = thr.partition_s(c).map_err(e)?;
        let shape = g.layout().shape_layout();
        let dim = |i: usize| -> Result<i64> {
            shape
                .mode(i)
                .and_then(|l| l.size())
                .map_err(e)?
                .as_static()
                .ok_or_else(|| CodegenError::Kernel {
                    kernel: "pipelined GEMM".into(),
                    stmt: format!("operand {which}"),
                    msg: "a static tile".into(),
                })
        };
        let block = block.clone();
        let name = format!("pipelined GEMM operand {which}");
        Ok(Operand3 {
            atom: copy.atom().clone(),
            t_g,
            t_c,
            t_s,
            bounds: bounds.iter().map(|b| (*b).clone()).collect(),
            tile: (dim(0)?, dim(1)?),
            block,
            err: Box::new(move |source| CodegenError::Layout {
                plan: name.clone(),
                part: "copy",
                source,
            }),
        })
    }

    /// `(CPY,CPY_M,CPY_K)` of k-tile `kt` and of stage `stage`.
    fn slices(&self, kt: &Int, stage: &Int, e: &LayoutErr<'_>) -> Result<[Tensor; 3]> {
        let at = |i: &Int| Coord::Tuple(vec![X, X, X, i.clone().into()]);
        Ok([
            self.t_g.slice(&at(kt)).map_err(e)?,
            self.t_c.slice(&at(kt)).map_err(e)?,
            self.t_s.slice(&at(stage)).map_err(e)?,
        ])
    }

    /// The predicated (zero-filling) copy of k-tile `kt` into `stage`.
    pub(super) fn copy_edge(
        &self,
        k: &mut KernelBuilder,
        kt: &Int,
        stage: &Int,
        e: &LayoutErr<'_>,
    ) -> Result<()> {
        let [g, c, st] = self.slices(kt, stage, e)?; // (CPY,CPY_M,CPY_K)

        // rolled loops over the copy's repeats: the edge path runs rarely, so it stays small
        let extent = |i: usize| -> Result<Int> {
            g.layout()
                .shape_layout()
                .mode(i)
                .and_then(|m| m.size())
                .map_err(e)
        };
        k.for_("ci", extent(1)?, Unroll::None, |k, ci| {
            k.for_("cj", extent(2)?, Unroll::None, |k, cj| {
                let at = Coord::Tuple(vec![X, ci.clone().into(), cj.into()]);
                let pred = Pred {
                    coord: c.slice(&at).map_err(e)?,
                    bounds: self.bounds.clone(),
                };
                k.copy_if(
                    &self.atom,
                    pred,
                    &g.slice(&at).map_err(e)?,
                    &st.slice(&at).map_err(e)?,
                );
                Ok(())
            })?;
            Ok(())
        })?;
        Ok(())
    }

    /// The copy of k-tile `kt` into `stage`: unpredicated when the tile lies inside the matrix.
    pub(super) fn load(
        &self,
        k: &mut KernelBuilder,
        kt: &Int,
        stage: &Int,
        e: &LayoutErr<'_>,
    ) -> Result<()> {
        let (rows, bk) = self.tile;
        let row_end = self.block.mul(&s(rows)).and_then(|x| x.add(&s(rows)));
        let k_end = kt.mul(&s(bk)).and_then(|x| x.add(&s(bk)));
        let inside = Cond::And(
            Box::new(Cond::Le(row_end.map_err(e)?, self.bounds[0].clone())),
            Box::new(Cond::Le(k_end.map_err(e)?, self.bounds[1].clone())),
        );
        k.if_(
            inside,
            |k| {
                let [g, _, st] = self.slices(kt, stage, e)?;
                k.copy(&self.atom, &g, &st);
                Ok(())
            },
            |k| self.copy_edge(k, kt, stage, e),
        )?;
        Ok(())
    }
}

/// A two-deep register buffer of one operand's k-block fragments: `(V,R,2)` where `(V,R)` is
/// the fragment's `(MMA,MMA_M)` regrouped as the 128-bit vector and its repeats.
struct KBuffer {
    regs: Tensor,
}

impl KBuffer {
    fn new(k: &mut KernelBuilder, name: &str, t_cs: &Tensor, e: &LayoutErr<'_>) -> Result<KBuffer> {
        let frag = vectors(t_cs.layout().shape_layout(), e)?; // (V,R)
        let shape = tup![
            frag.mode(0).map_err(e)?.shape().clone(),
            frag.mode(1).map_err(e)?.shape().clone(),
            s(2)
        ];
        let regs = k.regs(name, F32, Layout::col_major(&shape).map_err(e)?)?;
        Ok(KBuffer { regs })
    }

    /// Half `buf` as a copy destination: `(V,R)`.
    fn at(&self, buf: &Int, e: &LayoutErr<'_>) -> Result<Tensor> {
        self.regs
            .slice(&Coord::Tuple(vec![X, X, buf.clone().into()]))
            .map_err(e)
    }

    /// Half `buf` as the MMA's operand: `(M,K)` with K of size 1.
    fn frag(&self, buf: &Int, e: &LayoutErr<'_>) -> Result<Tensor> {
        let h = self.at(buf, e)?;
        h.map_layout(|l| {
            let m = Layout::from_modes(vec![l.mode(0)?, l.mode(1)?]);
            Ok(Layout::from_modes(vec![m, Layout::trivial()]))
        })
        .map_err(e)
    }

    /// The smem fragment of k block `kb` of stage `stage`, regrouped as `(V,R)`.
    fn smem(&self, t_cs: &Tensor, kb: &Int, stage: &Int, e: &LayoutErr<'_>) -> Result<Tensor> {
        let t = t_cs
            .slice(&Coord::Tuple(vec![
                X,
                X,
                kb.clone().into(),
                stage.clone().into(),
            ]))
            .map_err(e)?; // (MMA,MMA_M)
        t.map_layout(vectors_of).map_err(e)
    }
}

/// `(MMA,MMA_M,...)` -> `(V,R)`: the first two modes flattened, the leading size-1 MMA mode
/// dropped, the first remaining mode (the 4-run a 128-bit vector reads) kept as mode 0.
fn vectors(l: &Layout, e: &LayoutErr<'_>) -> Result<Layout> {
    let two = l.take(0, 2).map_err(e)?;
    vectors_of(&two).map_err(e)
}

pub(super) fn vectors_of(l: &Layout) -> cute_layout::Result<Layout> {
    let f = l.flatten();
    let modes: Vec<Layout> = f
        .modes()
        .into_iter()
        .filter(|m| m.size().ok().and_then(|s| s.as_static()) != Some(1))
        .collect();
    let (first, rest) = modes.split_first().ok_or_else(|| {
        cute_layout::Error::Eval(format!("{l}: a fragment of one value has no vector"))
    })?;
    let rest = match rest {
        [] => Layout::trivial(),
        [one] => one.clone(),
        many => Layout::from_modes(many.to_vec()),
    };
    Ok(Layout::from_modes(vec![first.clone(), rest]))
}

/// What the epilogue reads.
pub(super) struct Epi<'a> {
    pub plan: &'a GemmPlan,
    pub acc: &'a Tensor,
    pub t_cg_c: &'a Tensor,
    pub t_cc_c: &'a Tensor,
    /// The bias, partitioned as C is.
    pub bias: Option<&'a Tensor>,
    pub m: &'a Int,
    pub n: &'a Int,
    pub tile: (i64, i64),
    /// The output tile's coordinates: `(bx, by)`, or a stream-K unit's.
    pub blk: [Int; 2],
    pub threads: i64,
}

impl Epi<'_> {
    /// `(bx + 1) * BLK_M <= M && (by + 1) * BLK_N <= N`: the CTA's tile lies inside C.
    pub(super) fn inside(&self, e: &LayoutErr<'_>) -> Result<Cond> {
        let [bx, by] = &self.blk;
        let end = |b: &Int, t: i64| b.mul(&s(t)).and_then(|v| v.add(&s(t))).map_err(e);
        Ok(Cond::And(
            Box::new(Cond::Le(end(bx, self.tile.0)?, self.m.clone())),
            Box::new(Cond::Le(end(by, self.tile.1)?, self.n.clone())),
        ))
    }

    /// The epilogue's statement `dst = value(sources)`: the accumulator, C when given, the bias.
    fn map(
        &self,
        k: &mut KernelBuilder,
        dst: &Tensor,
        [acc, c, bias]: [Option<&Tensor>; 3],
        pred: Option<Pred>,
    ) {
        let from: Vec<&Tensor> = [acc, c, bias].into_iter().flatten().collect();
        k.map(dst, &from, value(self.plan, c.is_some()), pred);
    }

    /// The accumulator, C, its coordinates and the bias regrouped as `(V,R)`: the 128-bit
    /// vector and its repeats.
    fn vectors(&self, e: &LayoutErr<'_>) -> Result<(Tensor, Tensor, Tensor, Option<Tensor>)> {
        let regroup = |t: &Tensor| t.map_layout(vectors_of).map_err(e);
        Ok((
            regroup(self.acc)?,
            regroup(self.t_cg_c)?,
            regroup(self.t_cc_c)?,
            self.bias.map(regroup).transpose()?,
        ))
    }

    /// One 128-bit vector of C inside the tile: the accumulator's values `x` become
    /// `value(x, C, bias)` in place (C loaded into `rc` only when `beta != 0`), then are stored
    /// to `g`.
    pub(super) fn store_vector(
        &self,
        k: &mut KernelBuilder,
        vec: &CopyAtom,
        [x, g, rc]: [&Tensor; 3],
        bias: Option<&Tensor>,
    ) -> Result<()> {
        self.store_vector_as(k, vec, [x, g, rc], bias, x)
    }

    /// [`Epi::store_vector`] with the value written into `y` (C's type, converted from FP32 as
    /// it is written) and `y` stored: the 16-bit C of a tensor-core plan.
    pub(super) fn store_vector_as(
        &self,
        k: &mut KernelBuilder,
        vec: &CopyAtom,
        [x, g, rc]: [&Tensor; 3],
        bias: Option<&Tensor>,
        y: &Tensor,
    ) -> Result<()> {
        k.if_(
            super::gemm::reads_c(self.plan),
            |k| {
                k.copy(vec, g, rc);
                self.map(k, y, [Some(x), Some(rc), bias], None);
                Ok(())
            },
            |k| {
                self.map(k, y, [Some(x), None, bias], None);
                Ok(())
            },
        )?;
        k.copy(vec, y, g);
        Ok(())
    }

    /// Elements of C at an edge, each under `pred`: `C = value(src, C, bias)`, C read only when
    /// `beta != 0`.
    pub(super) fn store_elements(
        &self,
        k: &mut KernelBuilder,
        g: &Tensor,
        src: &Tensor,
        bias: Option<&Tensor>,
        pred: &Pred,
    ) -> Result<()> {
        k.if_(
            super::gemm::reads_c(self.plan),
            |k| {
                self.map(k, g, [Some(src), Some(g), bias], Some(pred.clone()));
                Ok(())
            },
            |k| {
                self.map(k, g, [Some(src), None, bias], Some(pred.clone()));
                Ok(())
            },
        )?;
        Ok(())
    }
}

/// The plan's epilogue through shared memory, as CuTe's tutorial kernels stage theirs: once
/// every copy has landed and every thread is done reading the stages, the accumulators are
/// stored over them (`sC`, `(THR,V,R)`, thread-contiguous so a warp's stores hit 32 banks),
/// then read back one 128-bit vector of C at a time in a rolled loop: `alpha * acc + beta *
/// C` (C read only when `beta != 0`), then the bias and ReLU; unpredicated where the CTA's
/// tile lies inside C, else element by element under the `(m < M, n < N)` predicate. The
/// rolled loops keep the epilogue short and its registers few.
fn epilogue_staged(k: &mut KernelBuilder, x: &Epi<'_>, e: &LayoutErr<'_>) -> Result<()> {
    let (acc_v, gc_v, cc_v, bias_v) = x.vectors(e)?; // (V,R)
    let shape = acc_v.layout().shape_layout();
    let size = |i: usize| shape.mode(i).and_then(|m| m.size()).map_err(e);
    let (lanes, reps) = (size(0)?, size(1)?);
    k.comment("the epilogue: the accumulators staged over the idle stages, then C in rolled loops");
    k.cp_async_wait(0);
    k.sync();
    let t = x.threads;
    let staged = Layout::col_major(&tup![s(t), lanes.clone(), reps.clone()]).map_err(e)?;
    let s_c = k.smem_reuse("sC", F32, staged); // (THR,V,R)
    let at_tid = Coord::Tuple(vec![KernelBuilder::tid().into(), X, X]);
    let t_cs_c = k.bind("tCsC", s_c.slice(&at_tid).map_err(e)?); // (V,R)
    let one = CopyAtom::new(CopyOp::UniversalCopy { bits: 32 }, F32).map_err(e)?;
    let vec = CopyAtom::new(CopyOp::UniversalCopy { bits: 128 }, F32).map_err(e)?;
    k.copy(&one, &acc_v, &t_cs_c);
    k.sync();
    let staged = Staged {
        s: &t_cs_c,
        g: &gc_v,
        c: &cc_v,
        bias: bias_v.as_ref(),
        read: &one,
    };
    x.store_staged(k, &staged, (lanes, reps), &vec, e)
}

/// A staged accumulator read back as `(V,R)` vectors of C: the shared tile, C, its coordinates
/// and the bias, each `(V,R)`, and the copy that reads one vector of the tile into registers.
pub(super) struct Staged<'a> {
    pub s: &'a Tensor,
    pub g: &'a Tensor,
    pub c: &'a Tensor,
    pub bias: Option<&'a Tensor>,
    pub read: &'a CopyAtom,
}

impl Epi<'_> {
    /// C from a staged tile, in rolled loops over its `reps` vectors of `lanes`: unpredicated
    /// 128-bit vectors (`vec`) where the CTA's tile lies inside C, element by element under the
    /// `(m < M, n < N)` predicate elsewhere; `value(x, C, bias)` with C read when `beta != 0`.
    pub(super) fn store_staged(
        &self,
        k: &mut KernelBuilder,
        st: &Staged<'_>,
        (lanes, reps): (Int, Int),
        vec: &CopyAtom,
        e: &LayoutErr<'_>,
    ) -> Result<()> {
        let v_layout = Layout::col_major(&tup![lanes.clone()]).map_err(e)?;
        let out = self.plan.output_type();
        let rx = k.regs("rX", F32, v_layout.clone())?; // (V)
        let rc = k.regs("rC", out, v_layout.clone())?; // (V)

        // a C of another type than the accumulator's: the values converted into rY, stored from it
        let ry = if out == F32 {
            rx.clone()
        } else {
            k.regs("rY", out, v_layout)? // (V)
        };
        let col =
            |t: &Tensor, r: &Int| t.slice(&Coord::Tuple(vec![X, r.clone().into()])).map_err(e);
        let reps2 = reps.clone();
        k.if_(
            self.inside(e)?,
            |k| {
                k.comment("the CTA's tile lies inside C: 128-bit vectors, no predicates");
                k.for_("r", reps, Unroll::None, |k, r| {
                    let b = st.bias.map(|b| col(b, &r)).transpose()?;
                    k.copy(st.read, &col(st.s, &r)?, &rx);
                    self.store_vector_as(k, vec, [&rx, &col(st.g, &r)?, &rc], b.as_ref(), &ry)
                })?;
                Ok(())
            },
            |k| {
                k.comment("an edge tile: element by element, predicated, in rolled loops");
                k.for_("r", reps2, Unroll::None, |k, r| {
                    k.for_("v", lanes, Unroll::None, |k, v| {
                        let el = |t: &Tensor| {
                            t.slice(&Coord::Tuple(vec![v.clone().into(), r.clone().into()]))
                                .map_err(e)
                        };
                        let b = st.bias.map(el).transpose()?;
                        let pred = Pred {
                            coord: el(st.c)?,
                            bounds: vec![self.m.clone(), self.n.clone()],
                        };
                        self.store_elements(k, &el(st.g)?, &el(st.s)?, b.as_ref(), &pred)
                    })?;
                    Ok(())
                })?;
                Ok(())
            },
        )?;
        Ok(())
    }
}

/// The plan's epilogue straight from the registers, for a plan whose stages are too small to
/// stage its accumulators: one 128-bit vector of the fragment at a time (unrolled, so one
/// vector of C is live beside the accumulator), unpredicated where the CTA's tile lies inside
/// C, else element by element under the `(m < M, n < N)` predicate; C is read only when `beta
/// != 0`.
fn epilogue(k: &mut KernelBuilder, x: &Epi<'_>, e: &LayoutErr<'_>) -> Result<()> {
    let (acc_v, gc_v, cc_v, bias_v) = x.vectors(e)?; // (V,R)
    let shape = acc_v.layout().shape_layout();
    let size = |i: usize| shape.mode(i).and_then(|m| m.size()).map_err(e);
    let (lanes, reps) = (size(0)?, size(1)?);
    let rc = k.regs("rC", F32, Layout::col_major(&tup![lanes]).map_err(e)?)?; // (V)
    let vec = CopyAtom::new(CopyOp::UniversalCopy { bits: 128 }, F32).map_err(e)?;
    // vector r of a (V,R) tensor: (V)
    let col = |t: &Tensor, r: &Int| t.slice(&Coord::Tuple(vec![X, r.clone().into()])).map_err(e);
    let reps2 = reps.clone();
    k.comment("the epilogue: C = alpha * acc + beta * C (C read only when beta != 0)");
    k.if_(
        x.inside(e)?,
        |k| {
            k.comment("the CTA's tile lies inside C: 128-bit vectors, no predicates");
            k.for_("r", reps, Unroll::Full, |k, r| {
                let (a, g) = (col(&acc_v, &r)?, col(&gc_v, &r)?);
                let b = bias_v.as_ref().map(|b| col(b, &r)).transpose()?;
                x.store_vector(k, &vec, [&a, &g, &rc], b.as_ref())
            })?;
            Ok(())
        },
        |k| {
            k.comment("an edge tile: element by element, predicated");
            k.for_("r", reps2, Unroll::Full, |k, r| {
                let (a, g) = (col(&acc_v, &r)?, col(&gc_v, &r)?);
                let b = bias_v.as_ref().map(|b| col(b, &r)).transpose()?;
                let pred = Pred {
                    coord: col(&cc_v, &r)?,
                    bounds: vec![x.m.clone(), x.n.clone()],
                };
                x.store_elements(k, &g, &a, b.as_ref(), &pred)
            })?;
            Ok(())
        },
    )?;
    Ok(())
}
