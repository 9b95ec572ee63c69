//! The warp-specialized SM90 mainloop (CUTLASS's `KernelTmaWarpSpecializedCooperative`
//! structure): a producer warpgroup whose one elected thread loads A and B by TMA into `PIPE`
//! stages, and two consumer warpgroups that issue the k-tiles' `wgmma`s from them, the two sides
//! ordered by mbarriers — `full[s]` (the producer's arrival with the stage's bytes expected,
//! completed by TMA's transactions) and `empty[s]` (every consumer thread's arrival once the
//! wgmmas reading the stage are done). The producer gives its registers to the consumers
//! (`setmaxnreg.dec 40` / `.inc 232`: 128 x 40 + 256 x 232 registers fit the SM's 64K).
//!
//! The producer is the last warpgroup, so the consumers are threads `0..256` and the TiledMMA
//! and the epilogue partition by `tid` as the cp.async kernels do; the epilogue's barriers are
//! `bar.sync 1, 256` (the producer has left).
//!
//! Phases: k-tile `kt` uses stage `kt % PIPE` for the `kt / PIPE`-th time, so the consumers wait
//! for parity `(kt / PIPE) % 2` of `full`, and the producer for parity `(kt / PIPE + 1) % 2` of
//! `empty` — the phase before, which a fresh barrier counts as complete (the first `PIPE`
//! k-tiles do not wait).

use cute_layout::atom::{MmaAtom, Operand, TmaBox, TmaShare};
use cute_layout::{s, Coord, ElemType::F32, Int, Layout, Tensor, X};

use super::gemm::LayoutErr;
use crate::error::Result;
use crate::gemm::{GemmPlan, TensorCore};
use crate::ir::{Barrier, Cond, KernelBuilder, Unroll};

/// Threads of the consumer warpgroups (the TiledMMA's) and of the whole block.
pub(super) const CONSUMERS: i64 = 256;
pub(super) const THREADS: i64 = CONSUMERS + 128;

/// Registers per thread after `setmaxnreg`: the producer's and the consumers'.
const PRODUCER_REGS: i64 = 40;
const CONSUMER_REGS: i64 = 232;

/// The named barrier of the consumer warpgroups.
pub(super) const CONSUMER_BARRIER: Barrier = Barrier::Named {
    id: 1,
    threads: CONSUMERS,
};

/// One operand loaded by TMA: its tensor-map parameter, its box, and the global coordinates
/// (along the map's modes: rows, then K) of its CTA tile for k-tile 0.
pub(super) struct TmaOperand<'a> {
    pub map: &'a str,
    pub tma: &'a TmaBox,
    pub origin: [Int; 2],
    /// Shared by the CTAs of the cluster: this CTA's share of every k-tile, multicast to all
    /// of them (`SM90_TMA_LOAD_MULTICAST`).
    pub share: Option<&'a TmaShare>,
}

/// What the warp-specialized mainloop works on.
pub(super) struct WsMainloop<'a> {
    pub p: &'a TensorCore,
    pub thr_mma: &'a cute_layout::atom::ThrMma,
    /// The stages `(rows,BLK_K,PIPE)` of A and B.
    pub s: [&'a Tensor; 2],
    pub ops: [TmaOperand<'a>; 2],
    pub g_c: &'a Tensor,
    pub k_tiles: &'a Int,
    /// A persistent kernel's schedule (its loop over the tiles `ti`, whose coordinates the
    /// tiles' expressions read); `None`: the CTA's one tile.
    pub tiles: Option<&'a Schedule>,
    /// The epilogue stores C by TMA (the consumers' thread 0 waits for its last stores).
    pub stores: bool,
    pub e: &'a LayoutErr<'a>,
}

/// The tile loop variable of a persistent kernel.
pub(super) const TILE_VAR: &str = "ti";

impl WsMainloop<'_> {
    /// The CTAs of the plan's cluster.
    fn cluster_size(&self) -> i64 {
        self.p.cluster.0 * self.p.cluster.1
    }

    /// `f` once per tile of this CTA (when persistent, in a loop over `ti` whose trips bind
    /// the tile's coordinates first).
    fn each_tile(
        &self,
        k: &mut KernelBuilder,
        f: impl FnOnce(&mut KernelBuilder) -> Result<()>,
    ) -> Result<()> {
        match self.tiles {
            None => f(k),
            Some(t) => {
                k.for_(TILE_VAR, t.mine.clone(), Unroll::None, |k, _| {
                    for (name, value) in BLK.iter().zip(&t.values) {
                        k.let_index(name, value.clone());
                    }
                    f(k)
                })?;
                Ok(())
            }
        }
    }

    /// The pipeline's running k-tile count at k-tile `kt` of this tile: `ti * k_tiles + kt`
    /// (stages and phases continue from tile to tile).
    fn iteration(&self, kt: &Int) -> Result<Int> {
        match self.tiles {
            None => Ok(kt.clone()),
            Some(_) => Int::index(TILE_VAR)
                .mul(self.k_tiles)
                .and_then(|x| x.add(kt))
                .map_err(self.e),
        }
    }
}

/// The kernel body: barrier setup, the producer's branch, and the consumers' mainloop followed
/// by `epilogue(k, acc)` under the consumers' named barrier.
pub(super) fn body(
    k: &mut KernelBuilder,
    ml: &WsMainloop<'_>,
    epilogue: impl FnOnce(&mut KernelBuilder, &Tensor) -> Result<()>,
) -> Result<()> {
    let (tid, stages) = (KernelBuilder::tid(), ml.p.stages);
    let cluster = ml.cluster_size();
    k.mbarriers("full", stages, 1);
    // a cluster's stages are released by one thread of each consumer warpgroup of each CTA
    // that multicasts into them; a CTA's own, by every consumer thread
    let releases = match cluster {
        1 => CONSUMERS,
        c => CONSUMERS / 128 * c,
    };
    k.mbarriers("empty", stages, releases);
    k.comment("thread 0 sets up the pipeline's barriers; every thread sees them initialised");
    k.if_(
        Cond::Lt(tid.clone(), s(1)),
        |k| {
            for name in k.mbarrier_arrays() {
                k.mbarrier_init(&name);
            }
            k.fence_mbarrier_init();
            Ok(())
        },
        |_| Ok(()),
    )?;
    match cluster {
        1 => k.sync(),
        _ => {
            k.comment("and every CTA of the cluster, before any multicast or remote arrival");
            k.cluster_sync()
        }
    };
    k.if_(
        Cond::Le(s(CONSUMERS), tid.clone()),
        |k| producer(k, ml),
        |k| {
            k.comment("the consumer warpgroups");
            k.setmaxnreg(true, CONSUMER_REGS);
            ml.each_tile(k, |k| {
                let acc = consumer(k, ml)?;
                k.with_sync(CONSUMER_BARRIER, |k| epilogue(k, &acc))?;
                Ok(())
            })?;
            if ml.stores {
                k.if_(
                    Cond::Lt(KernelBuilder::tid(), s(1)),
                    |k| {
                        k.comment("the last TMA stores have read their tiles before the CTA exits");
                        k.bulk_wait_read(0);
                        Ok(())
                    },
                    |_| Ok(()),
                )?;
            }
            Ok(())
        },
    )?;
    Ok(())
}

/// The producer warpgroup: one thread of its first warp (`elect.sync`) waits for each stage
/// to be empty, arms its `full` barrier with the bytes of A's and B's boxes and issues the TMA
/// loads.
fn producer(k: &mut KernelBuilder, ml: &WsMainloop<'_>) -> Result<()> {
    let tid = KernelBuilder::tid();
    k.comment("the producer warpgroup: its registers go to the consumers");
    k.setmaxnreg(false, PRODUCER_REGS);
    k.if_(
        Cond::Lt(tid, s(CONSUMERS + 32)),
        |k| {
            k.if_(Cond::Elect, |k| producer_thread(k, ml), |_| Ok(()))?;
            Ok(())
        },
        |_| Ok(()),
    )?;
    Ok(())
}

/// The producer's one thread (elected in its first warp): every k-tile of every tile, then
/// in a cluster the wait for its stages' last release.
fn producer_thread(k: &mut KernelBuilder, ml: &WsMainloop<'_>) -> Result<()> {
    k.comment("one thread: k-tile kt into stage kt % PIPE once the consumers have emptied it");
    ml.each_tile(k, |k| {
        k.for_("kt", ml.k_tiles.clone(), Unroll::None, |k, kt| {
            load_k_tile(k, ml, &kt)
        })?;
        Ok(())
    })?;
    match ml.cluster_size() {
        1 => Ok(()),
        _ => producer_tail(k, ml),
    }
}

/// The producer waits for every stage to be released before its CTA exits: the cluster's
/// other CTAs arrive on its `empty` barriers until their last k-tile is done (CUTLASS's
/// `load_tail`). The `PIPE` acquisitions after the last k-tile, as a next tile's would be.
fn producer_tail(k: &mut KernelBuilder, ml: &WsMainloop<'_>) -> Result<()> {
    let (e, pipe) = (ml.e, s(ml.p.stages));
    let done = match ml.tiles {
        Some(t) => t.mine.mul(ml.k_tiles).map_err(e)?,
        None => ml.k_tiles.clone(),
    };
    k.comment("every stage released by the cluster's consumers before this CTA exits");
    k.for_("kt", pipe, Unroll::None, |k, j| {
        let (stage, parity) = producer_phase(ml, &done.add(&j).map_err(e)?)?;
        k.mbarrier_wait("empty", &stage, parity);
        Ok(())
    })?;
    Ok(())
}

/// The stage of the pipeline's iteration `it` and the parity of `empty` its producer waits
/// for: the phase before its own, which a fresh barrier counts as complete.
fn producer_phase(ml: &WsMainloop<'_>, it: &Int) -> Result<(Int, Int)> {
    let (e, pipe) = (ml.e, s(ml.p.stages));
    let stage = it.rem(&pipe).map_err(e)?;
    let parity = it
        .div(&pipe)
        .and_then(|x| x.add(&s(1)))
        .and_then(|x| x.rem(&s(2)))
        .map_err(e)?;
    Ok((stage, parity))
}

/// The consumers release `stage` to the producers that load into it: every consumer thread
/// arrives on this CTA's `empty` barrier; in a cluster, thread `r` of each consumer warpgroup
/// on CTA `r`'s.
fn release(k: &mut KernelBuilder, ml: &WsMainloop<'_>, stage: &Int) -> Result<()> {
    match ml.cluster_size() {
        1 => {
            k.mbarrier_arrive("empty", stage);
        }
        c => {
            let r = KernelBuilder::tid().rem(&s(128)).map_err(ml.e)?;
            k.if_(
                Cond::Lt(r.clone(), s(c)),
                |k| {
                    k.mbarrier_arrive_cluster("empty", stage, r.clone());
                    Ok(())
                },
                |_| Ok(()),
            )?;
        }
    }
    Ok(())
}

/// One k-tile's loads: wait for its stage to be empty, arm its `full` barrier with the bytes
/// of A's and B's boxes, issue the boxes.
fn load_k_tile(k: &mut KernelBuilder, ml: &WsMainloop<'_>, kt: &Int) -> Result<()> {
    let e = ml.e;
    let (stage, parity) = producer_phase(ml, &ml.iteration(kt)?)?;
    let bytes: i64 = ml.ops.iter().map(|o| o.tma.tile_bytes()).sum();
    k.mbarrier_wait("empty", &stage, parity);
    k.mbarrier_arrive_expect_tx("full", &stage, bytes);
    for (op, smem) in ml.ops.iter().zip(ml.s) {
        let tile = smem
            .slice(&Coord::Tuple(vec![X, X, stage.clone().into()]))
            .map_err(e)?; // (rows,BLK_K)
        let Some(share) = op.share else {
            for issue in &op.tma.issues {
                let coords = box_coords(op, issue, kt, ml.p.cta.2, e)?;
                let dst = offset_by(&tile, &s(issue.smem_offset), e)?;
                k.tma_load(op.map, coords, &dst, ("full", &stage));
            }
            continue;
        };
        // this CTA's share (rank r: r steps into the tile), to every CTA of the cluster
        let rank = ml.tiles.map_or_else(|| s(0), |t| t.rank.clone());
        let mask = s((1 << ml.cluster_size()) - 1);
        for issue in &share.boxes.issues {
            let coords = box_coords(op, issue, kt, ml.p.cta.2, e)?;
            let coords = coords
                .iter()
                .zip(&share.boxes.dims)
                .map(|(c, d)| {
                    let step = share.coord_step.get(d.mode).copied().unwrap_or(0);
                    c.add(&rank.mul(&s(step)).map_err(e)?).map_err(e)
                })
                .collect::<Result<Vec<_>>>()?;
            let at = rank
                .mul(&s(share.smem_step))
                .and_then(|x| x.add(&s(issue.smem_offset)))
                .map_err(e)?;
            let dst = offset_by(&tile, &at, e)?;
            k.tma_load_multicast(op.map, coords, &dst, ("full", &stage), mask.clone());
        }
    }
    Ok(())
}

/// The coordinates (innermost map dimension first) of one box of k-tile `kt`.
fn box_coords(
    op: &TmaOperand<'_>,
    issue: &cute_layout::atom::TmaIssue,
    kt: &Int,
    bk: i64,
    e: &LayoutErr<'_>,
) -> Result<Vec<Int>> {
    let k0 = kt.mul(&s(bk)).map_err(e)?;
    op.tma
        .dims
        .iter()
        .map(|d| {
            let base = match d.mode {
                0 => op.origin[0].clone(),
                _ => op.origin[1].add(&k0).map_err(e)?,
            };
            let at = issue.coord.get(d.mode).copied().unwrap_or(0);
            base.add(&s(at)).map_err(e)
        })
        .collect()
}

/// The tensor `t` with its pointer moved `by` elements (a box's start inside its stage).
pub(super) fn offset_by(t: &Tensor, by: &Int, e: &LayoutErr<'_>) -> Result<Tensor> {
    match t.engine() {
        cute_layout::Engine::Ptr(p) => {
            let mut p = p.clone();
            p.offset = p.offset.add(by).map_err(e)?;
            Ok(Tensor::from_engine(
                cute_layout::Engine::Ptr(p),
                t.layout().clone(),
            ))
        }
        cute_layout::Engine::Coord(_) => Ok(t.clone()),
    }
}

/// The consumer warpgroups: per k-tile, wait for its stage, issue its wgmmas as one group,
/// and once the previous k-tile's group is complete release that k-tile's stage. Returns the
/// accumulator `(MMA,MMA_M,MMA_N)`.
fn consumer(k: &mut KernelBuilder, ml: &WsMainloop<'_>) -> Result<Tensor> {
    let e = ml.e;
    let [s_a, s_b] = ml.s;
    let t_ca = k.bind("tCsA", ml.thr_mma.partition(Operand::A, s_a).map_err(e)?); // (MMA,MMA_M,MMA_K,PIPE)
    let t_cb = k.bind("tCsB", ml.thr_mma.partition(Operand::B, s_b).map_err(e)?); // (MMA,MMA_N,MMA_K,PIPE)
    let t_cg_c = ml.thr_mma.partition(Operand::C, ml.g_c).map_err(e)?;
    let acc = k.regs(
        "acc",
        F32,
        Layout::col_major(t_cg_c.layout().shape_layout().shape()).map_err(e)?,
    )?; // (MMA,MMA_M,MMA_N)
    let pipe = s(ml.p.stages);
    let atom = MmaAtom::new(ml.p.mma.atom().op());
    k.for_("kt", ml.k_tiles.clone(), Unroll::None, |k, kt| {
        let it = ml.iteration(&kt)?;
        let stage = it.rem(&pipe).map_err(e)?;
        let parity = it.div(&pipe).and_then(|x| x.rem(&s(2))).map_err(e)?;
        k.comment("this k-tile's stage has landed");
        k.mbarrier_wait("full", &stage, parity);
        let at = |t: &Tensor| {
            t.slice(&Coord::Tuple(vec![X, X, X, stage.clone().into()]))
                .map_err(e)
        };
        k.wgmma_fence();
        // k-tile 0's first k block writes the accumulator (scale-d 0): no zeros first, which
        // ptxas would serialize the wgmmas behind (C7515)
        k.gemm_overwrite(
            &atom,
            [&at(&t_ca)?, &at(&t_cb)?, &acc],
            Cond::Lt(kt.clone(), s(1)),
        );
        k.wgmma_commit();
        k.wgmma_wait(1);
        k.comment("the previous k-tile's wgmmas are done: its stage goes back to the producer");
        let prev = it
            .add(&pipe)
            .and_then(|x| x.sub(&s(1)))
            .and_then(|x| x.rem(&pipe))
            .map_err(e)?;
        k.if_(
            Cond::Lt(s(0), kt.clone()),
            |k| release(k, ml, &prev),
            |_| Ok(()),
        )?;
        Ok(())
    })?;
    k.wgmma_wait(0);
    if ml.tiles.is_some() {
        k.comment(
            "the tile's last stage goes back too: the next tile's k-tiles continue the pipeline",
        );
        let last = ml.iteration(&ml.k_tiles.sub(&s(1)).map_err(e)?)?;
        let stage = last.rem(&pipe).map_err(e)?;
        k.if_(
            Cond::Lt(s(0), ml.k_tiles.clone()),
            |k| release(k, ml, &stage),
            |_| Ok(()),
        )?;
    }
    k.if_(
        Cond::Le(ml.k_tiles.clone(), s(0)),
        |k| {
            k.comment("K = 0: no wgmma wrote the accumulator");
            k.fill(&acc, 0.0);
            Ok(())
        },
        |_| Ok(()),
    )?;
    Ok(acc)
}

/// A TMA-loaded operand's boxes: the whole stage's, and this CTA's share when the cluster's
/// CTAs share the operand.
pub(super) type OperandBoxes = (TmaBox, Option<TmaShare>);

/// The TMA boxes of A's and B's stages (`make_tma_box` of the global operand and stage 0 of
/// its shared tile), registered as the tensor maps `A` and `B`, with the header's notes. In a
/// cluster along M the CTAs share B's k-tiles, along N A's: that operand's map is encoded with
/// the box of one CTA's share.
pub(super) fn tma_boxes(
    k: &mut KernelBuilder,
    plan: &GemmPlan,
    (elem, (cm, cn)): (cute_layout::ElemType, (i64, i64)),
    stages: [&Tensor; 2],
    e: &LayoutErr<'_>,
) -> Result<[OperandBoxes; 2]> {
    let layout = plan.layout;
    let mut out = Vec::with_capacity(2);
    for ((name, gmem, ctas), smem) in [("A", layout.a_layout(), cn), ("B", layout.b_layout(), cm)]
        .into_iter()
        .zip(stages)
    {
        let stage = smem
            .slice(&Coord::Tuple(vec![X, X, s(0).into()]))
            .map_err(e)?; // (rows,BLK_K)
        let tma = cute_layout::atom::make_tma_box(&gmem, stage.layout(), elem).map_err(e)?;
        k.note(&format!(
            "s{name}: loaded by TMA, {tma}; the MMA reads it by descriptor"
        ));
        let share = match ctas {
            1 => None,
            c => Some(tma.multicast(c).map_err(e)?),
        };
        match &share {
            None => k.tensor_map(name, tma.clone()),
            Some(sh) => {
                k.note(&format!(
                    "s{name}: shared by the cluster's {ctas} CTAs, each multicasting {} to all",
                    sh.boxes
                ));
                k.tensor_map(name, sh.boxes.clone())
            }
        };
        out.push((tma, share));
    }
    let b = out.pop();
    let a = out.pop();
    match (a, b) {
        (Some(a), Some(b)) => Ok([a, b]),
        _ => Err(plan.error("tma", "two operands")),
    }
}

/// A persistent kernel's schedule: `grid` CTAs (the tiles, at most the target's SMs), in
/// clusters of `cm x cn` neighbouring tiles (one of them 1); cluster `bx / (cm cn)` takes the
/// cluster tiles `t = bx / (cm cn) + ti * clusters` for `ti < mine`, in a grouped raster:
/// `group` consecutive M-blocks walk every N-block, M-blocks fastest, before the next group
/// (the last group as wide as the M-blocks left), so a wave's CTAs share both A's and B's
/// k-tiles in L2. The CTA of rank `r` in its cluster takes the cluster tile's `r`-th tile.
pub(super) struct Schedule {
    /// The tile's coordinates `(m_blk, n_blk)` as its statements read them: indices bound at
    /// the top of each trip of the tile loop.
    pub blk: [Int; 2],
    /// The trip of the tile loop.
    pub trip: Int,
    /// Their values in the trip `ti`.
    values: [Int; 2],
    pub grid: Int,
    pub mine: Int,
    /// The CTA's rank in its cluster (`bx % (cm cn)`; 0 without one).
    pub rank: Int,
}

/// The names of the tile coordinates.
const BLK: [&str; 2] = ["m_blk", "n_blk"];

/// The schedule of `(bm, bn)` tiles over an `m x n` C on `sms` SMs, `group` M-blocks a group,
/// in clusters of `(cm, cn)` tiles.
pub(super) fn schedule(
    [m, n]: [&Int; 2],
    (bm, bn): (i64, i64),
    sms: i64,
    group: i64,
    (cm, cn): (i64, i64),
    e: &LayoutErr<'_>,
) -> Result<Schedule> {
    let c = cm * cn;
    // the cluster tiles: cm x cn tiles each
    let per = |x: &Int, b: i64, by: i64| {
        let t = x.ceil_div(&s(b)).map_err(e)?;
        match by {
            1 => Ok(t),
            _ => t.ceil_div(&s(by)).map_err(e),
        }
    };
    let (tiles_m, tiles_n) = (per(m, bm, cm)?, per(n, bn, cn)?);
    let tiles = tiles_m.mul(&tiles_n).map_err(e)?;
    let clusters = tiles.min(&s((sms / c).max(1))).map_err(e)?;
    let bx = KernelBuilder::block_idx(0);
    let (grid, cid, rank) = match c {
        1 => (clusters.clone(), bx, s(0)),
        _ => (
            clusters.mul(&s(c)).map_err(e)?,
            bx.div(&s(c)).map_err(e)?,
            bx.rem(&s(c)).map_err(e)?,
        ),
    };
    let t = Int::index(TILE_VAR)
        .mul(&clusters)
        .and_then(|x| x.add(&cid))
        .map_err(e)?;
    let g = s((group / cm).max(1));
    let span = g.mul(&tiles_n).map_err(e)?; // the tiles of one group
    let first = t.div(&span).and_then(|x| x.mul(&g)).map_err(e)?; // the group's first M-block
    let width = tiles_m.sub(&first).and_then(|x| x.min(&g)).map_err(e)?;
    let within = t.rem(&span).map_err(e)?;
    let mut blk_m = first.add(&within.rem(&width).map_err(e)?).map_err(e)?;
    let mut blk_n = within.div(&width).map_err(e)?;
    if cm > 1 {
        blk_m = blk_m.mul(&s(cm)).and_then(|x| x.add(&rank)).map_err(e)?;
    }
    if cn > 1 {
        blk_n = blk_n.mul(&s(cn)).and_then(|x| x.add(&rank)).map_err(e)?;
    }
    Ok(Schedule {
        blk: BLK.map(Int::index),
        trip: Int::index(TILE_VAR),
        values: [blk_m, blk_n],
        mine: tiles
            .sub(&cid)
            .and_then(|x| x.ceil_div(&clusters))
            .map_err(e)?,
        grid,
        rank,
    })
}
