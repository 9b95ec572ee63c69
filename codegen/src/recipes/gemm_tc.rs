//! The tensor-core GEMMs of the SM80 path (`hgemm-sm80`, `bgemm-sm80`, `tf32gemm-sm80`) as IR
//! kernels, written as CuTe's `sgemm_sm80` tutorial writes its half-precision kernel: A and B through
//! `PIPE` swizzled shared stages filled by 128-bit `cp.async` (zero-filled at the matrix's
//! edges), each k block's fragments read by `ldmatrix` TiledCopies made with
//! `make_tiled_copy_A/B(s2r_atom, mma)` (the shared tile partitioned by `partition_S`, the
//! register fragment retiled by `retile_D`), and a TiledMMA of `mma.sync` atoms accumulating
//! in FP32.
//!
//! The mainloop is the SIMT pipeline's (`gemm_pipelined`): `PIPE-1` k-tiles in flight, each k
//! block reading the next one's fragments by ldmatrix before its MMAs run (into the other of two
//! register slots, so `MMA_K` is even); k block 0 issues the
//! copy of k-tile `kt + PIPE - 1` into the stage read last once its MMAs are issued, and the last k block waits for the
//! next stage (`cp.async.wait_group PIPE-2`, `__syncthreads`) and reads its first block. The epilogue stages the accumulators through shared memory
//! and stores C in 128-bit vectors ([`epilogue`]).

use cute_layout::atom::{
    make_tiled_copy, make_tiled_copy_A, make_tiled_copy_B, CopyAtom, CopyOp, MmaAtom, Operand,
};
use cute_layout::{s, tup, Coord, ElemType::F32, Int, Layout, Tensor, X};

use super::gemm::{mma_threads, CtaTiles, LayoutErr, Problem};
use super::gemm_pipelined::{issue_ahead, prologue_copies, vectors_of, Epi, Operand3, Staged};
use super::layout_err;
use crate::cuda::IndexWidth;
use crate::error::Result;
use crate::gemm::{GemmPlan, TensorCore};
use crate::ir::{Cond, Kernel, KernelBuilder, Unroll};

/// The IR kernel of a tensor-core plan, named as the plan names it (`hgemm_sm80_TN`).
///
/// Parameters: `M, N, K, alpha, A, ldA, B, ldB, beta, C, ldC[, bias]` (A and B of the plan's
/// type, C of its output type, the scalars and the bias FP32); grid `(ceil(M/BLK_M), ceil(N/BLK_N), 1)`, the TiledMMA's
/// threads, the stages' dynamic shared memory.
pub fn tensor_core(plan: &GemmPlan, p: &TensorCore, _width: IndexWidth) -> Result<Kernel> {
    check(plan, p)?;
    let name = plan.kernel_name();
    let e = layout_err(&plan.name, "tensor core");
    let (bm, bn, bk) = p.cta;
    let threads = mma_threads(plan, &p.mma)?;
    let gmma = matches!(p.mma.atom().op(), cute_layout::atom::MmaOp::Sm90(_));
    let mut k = KernelBuilder::new(&name);
    let out = match p.out {
        F32 => "FP32 accumulate and out".to_string(),
        o => format!("FP32 accumulate, {o} out"),
    };
    let roles = match (p.tma, p.persistent) {
        (true, false) => format!(
            "{} threads (a TMA producer warpgroup, {threads} consumer threads)",
            super::gemm_ws::THREADS
        ),
        (true, true) => format!(
            "{} threads (a TMA producer warpgroup, {threads} consumer threads), a persistent grid of at most {} CTAs over the tiles in groups of {} M-blocks{}",
            super::gemm_ws::THREADS,
            plan.target.sms,
            p.raster_group,
            match p.cluster {
                (1, 1) => String::new(),
                (cm, 1) => format!(", clusters of {cm} CTAs along M multicasting B's k-tiles"),
                (_, cn) => format!(", clusters of {cn} CTAs along N multicasting A's k-tiles"),
            }
        ),
        (false, _) => format!("{threads} threads"),
    };
    k.target(plan.target).doc(&format!(
        "C = alpha * A * B + beta * C, {} layout, {} in, {out}, {bm}x{bn}x{bk} CTA tile, {} stages, {roles}, {}",
        plan.layout,
        p.elem,
        p.stages,
        p.mma.atom().op()
    ));
    if !p.tma {
        bank_notes(&mut k, p, &e)?;
    }
    let pr = Problem::declare_typed(&mut k, plan, p.elem, p.tma, p.tma && p.persistent)?;
    let (m, n) = (pr.m.clone(), pr.n.clone());
    k.min_blocks_per_sm(p.min_blocks_per_sm);
    // a persistent kernel's CTAs loop over the tiles, whose indices its tiles' expressions read
    let sched = match p.persistent && p.tma {
        true => Some(super::gemm_ws::schedule(
            [&m, &n],
            (bm, bn),
            plan.target.sms,
            p.raster_group,
            p.cluster,
            &e,
        )?),
        false => None,
    };
    let CtaTiles {
        g_a, // (BLK_M,BLK_K,k)
        g_b, // (BLK_N,BLK_K,k)
        c_a,
        c_b,
        g_c, // (BLK_M,BLK_N)
        c_c,
        g_bias,
        k_tiles,
    } = match &sched {
        None => pr.cta_tiles(&mut k, p.cta, threads, &e)?,
        Some(t) => {
            k.threads(threads).grid([t.grid.clone(), s(1), s(1)]);
            if p.cluster != (1, 1) {
                k.cluster([p.cluster.0 * p.cluster.1, 1, 1]);
            }
            pr.cta_tiles_at(p.cta, [&t.blk[0], &t.blk[1]], &e)?
        }
    };
    let tid = KernelBuilder::tid();

    // a GMMA reads its tiles by descriptor: the hardware swizzles addresses, so the stages
    // start on the 1024 bytes of the widest (SW128) swizzle's period
    let align = if gmma { 1024 } else { 128 };
    let s_a = k.smem_aligned("sA", p.elem, p.smem_a.clone(), align); // (BLK_M,BLK_K,PIPE)
    let s_b = k.smem_aligned("sB", p.elem, p.smem_b.clone(), align); // (BLK_N,BLK_K,PIPE)
    let thr_mma = p.mma.get_slice(&tid).map_err(&e)?;
    let epi = |k: &mut KernelBuilder, acc: &Tensor| {
        let tiles = [&g_c, &c_c];
        pr.serial_turn(k, plan)?;
        epilogue(
            k,
            plan,
            p,
            &thr_mma,
            acc,
            tiles,
            g_bias.as_ref(),
            (&m, &n),
            threads,
            &e,
        )?;
        pr.serial_done(k, plan)
    };
    if p.tma {
        let [(box_a, share_a), (box_b, share_b)] =
            super::gemm_ws::tma_boxes(&mut k, plan, (p.elem, p.cluster), [&s_a, &s_b], &e)?;
        let (bx, by) = match &sched {
            Some(t) => (t.blk[0].clone(), t.blk[1].clone()),
            None => (KernelBuilder::block_idx(0), KernelBuilder::block_idx(1)),
        };
        // the boxes of k-tile 0 start at the CTA's first k (a split-K slice's `z Kc`)
        let origin = |b: &Int, rows: i64| -> Result<[Int; 2]> {
            Ok([b.mul(&s(rows)).map_err(&e)?, pr.k0.clone()])
        };
        let ml = super::gemm_ws::WsMainloop {
            p,
            thr_mma: &thr_mma,
            s: [&s_a, &s_b],
            ops: [
                super::gemm_ws::TmaOperand {
                    map: "A",
                    tma: &box_a,
                    origin: origin(&bx, bm)?,
                    share: share_a.as_ref(),
                },
                super::gemm_ws::TmaOperand {
                    map: "B",
                    tma: &box_b,
                    origin: origin(&by, bn)?,
                    share: share_b.as_ref(),
                },
            ],
            g_c: &g_c,
            k_tiles: &k_tiles,
            tiles: sched.as_ref(),
            stores: sched.is_some(),
            e: &e,
        };
        k.threads(super::gemm_ws::THREADS);
        match &sched {
            // a CTA per tile: C staged through the stages' shared memory
            None => super::gemm_ws::body(&mut k, &ml, epi)?,
            // persistent: the producer loads the next tile's stages while the consumers store
            // this one's C through their own shared tiles by TMA
            Some(t) => {
                let store = super::epilogue_tma::TmaStore::declare(
                    &mut k,
                    plan,
                    &p.mma,
                    (bm, bn),
                    p.out,
                    &e,
                )?;
                let tile_c = super::epilogue_tma::TileC {
                    plan,
                    thr_mma: &thr_mma,
                    c_c: &c_c,
                    g_bias: g_bias.as_ref(),
                    mn: [&m, &n],
                    origin: [bx.mul(&s(bm)).map_err(&e)?, by.mul(&s(bn)).map_err(&e)?],
                    trip: t.trip.clone(),
                };
                super::gemm_ws::body(&mut k, &ml, |k, acc| store.store(k, &tile_c, acc, &e))?
            }
        }
        return k.finish();
    }
    let [copy_a, copy_b] = Operand3::pair(
        &mut k,
        &pr,
        [&p.copy_a, &p.copy_b],
        [(&g_a, &c_a, &s_a), (&g_b, &c_b, &s_b)],
        &e,
    )?;

    let ml = Mainloop {
        plan,
        p,
        thr_mma: &thr_mma,
        s: [&s_a, &s_b],
        copies: [&copy_a, &copy_b],
        g_c: &g_c,
        k_tiles: &k_tiles,
        e: &e,
    };
    let acc = if gmma {
        super::gemm_wgmma::mainloop(&mut k, &ml)?
    } else {
        ldsm_mainloop(&mut k, &ml)?
    };
    epi(&mut k, &acc)?;
    k.finish()
}

/// The header's bank figures of the cp.async stages: each operand's writes, and its
/// ldmatrix (or 32-bit) reads where the MMA reads registers.
fn bank_notes(k: &mut KernelBuilder, p: &TensorCore, e: &LayoutErr<'_>) -> Result<()> {
    for (name, which, copy, s2r, smem) in [
        ("sA", Operand::A, &p.copy_a, &p.s2r_a, &p.smem_a),
        ("sB", Operand::B, &p.copy_b, &p.s2r_b, &p.smem_b),
    ] {
        let bits = i64::from(p.elem.bits());
        // an operand the MMA reads from shared memory itself (GMMA) has no fragment reads
        let Some(s2r) = s2r else {
            let (ways, wbits) = crate::gemm::banks::copy_writes(copy, smem, bits).map_err(e)?;
            k.note(&format!(
                "bank conflicts of {name} ({}, warp 0): {} by writes max_ways={ways} ({wbits}-bit), the MMA by descriptor",
                swizzle_name(smem),
                copy.atom().op()
            ));
            continue;
        };
        let banks = crate::gemm::banks::tensor_core_operand(&p.mma, which, copy, s2r, smem, bits)
            .map_err(e)?;
        let sw = swizzle_name(smem);
        k.note(&format!(
            "bank conflicts of {name} ({sw}, warp 0): {} by {}, {} by {}",
            copy.atom().op(),
            banks.write_fmt(),
            s2r.op(),
            banks.read_fmt()
        ));
    }
    Ok(())
}

/// A shared layout's swizzle, as the header names it.
fn swizzle_name(smem: &cute_layout::AnyLayout) -> String {
    match smem {
        cute_layout::AnyLayout::Composed(c) => c.layout_a().to_string(),
        cute_layout::AnyLayout::Plain(_) => "no swizzle".to_string(),
    }
}

/// What a mainloop works on: the plan, the thread's MMA slice, the stages `(rows,BLK_K,PIPE)`
/// of A and B and their global copies, C's tile (for the accumulator's shape) and the k-tiles.
#[derive(Clone, Copy)]
pub(super) struct Mainloop<'a> {
    pub plan: &'a GemmPlan,
    pub p: &'a TensorCore,
    pub thr_mma: &'a cute_layout::atom::ThrMma,
    pub s: [&'a Tensor; 2],
    pub copies: [&'a Operand3; 2],
    pub g_c: &'a Tensor,
    pub k_tiles: &'a Int,
    pub e: &'a LayoutErr<'a>,
}

/// The `mma.sync` mainloop: `PIPE-1` k-tiles in flight, each k block's fragments read by
/// `ldmatrix` into the other of two register slots before this one's MMAs run; returns the
/// accumulator `(MMA,MMA_M,MMA_N)`, filled with zeros first.
fn ldsm_mainloop(k: &mut KernelBuilder, ml: &Mainloop<'_>) -> Result<Tensor> {
    let Mainloop {
        plan,
        p,
        thr_mma,
        s: [s_a, s_b],
        copies: [copy_a, copy_b],
        g_c,
        k_tiles,
        e,
    } = *ml;
    let tid = KernelBuilder::tid();
    // the MMA's fragments (MMA,MMA_M,MMA_K), (MMA,MMA_N,MMA_K) of one stage, the accumulator
    let stage0 = Coord::Tuple(vec![X, X, s(0).into()]);
    let part = |which: Operand, t: &Tensor| -> Result<Layout> {
        let stage = t.slice(&stage0).map_err(e)?;
        let l = thr_mma.partition(which, &stage).map_err(e)?;
        Ok(l.layout().shape_layout().clone())
    };
    let (part_a, part_b) = (part(Operand::A, s_a)?, part(Operand::B, s_b)?); // (MMA,MMA_M|N,MMA_K)
    let k_blocks = part_a.mode(2).and_then(|m| m.size()).map_err(e)?;
    let kb_n = k_blocks.as_static().filter(|n| n % 2 == 0).ok_or_else(|| {
        plan.error(
            "mma",
            "an even number of k blocks per k-tile (BLK_K a multiple of twice the atom's K)",
        )
    })?;
    // two k blocks of fragments: the one the MMAs read and the next one ldmatrix fills
    let two = |name: &str, l: &Layout, k: &mut KernelBuilder| -> Result<Tensor> {
        let shape = tup![
            l.mode(0).map_err(e)?.shape().clone(),
            l.mode(1).map_err(e)?.shape().clone(),
            s(2)
        ];
        k.regs(name, p.elem, Layout::col_major(&shape).map_err(e)?)
    };
    let r_a = two("rA", &part_a, k)?; // (MMA,MMA_M,2)
    let r_b = two("rB", &part_b, k)?; // (MMA,MMA_N,2)
    let t_cg_c = thr_mma.partition(Operand::C, g_c).map_err(e)?;
    let acc_layout = Layout::col_major(t_cg_c.layout().shape_layout().shape()).map_err(e)?;
    let acc = k.regs("acc", F32, acc_layout)?; // (MMA,MMA_M,MMA_N)

    // smem -> registers: ldmatrix, partitioned and retiled as CuTe does
    let s2r = |atom,
               which: Operand,
               smem: &Tensor,
               regs: &Tensor,
               name: &str,
               k: &mut KernelBuilder|
     -> Result<(Tensor, Tensor)> {
        let tiled = match which {
            Operand::A => make_tiled_copy_A(atom, &p.mma),
            _ => make_tiled_copy_B(atom, &p.mma),
        }
        .map_err(e)?;
        let thr = tiled.get_slice(&tid).map_err(e)?;
        let src = k.bind(&format!("tXs{name}"), thr.partition_s(smem).map_err(e)?); // (CPY,CPY_M,CPY_K,PIPE)
        let dst = k.bind(&format!("tXr{name}"), thr.retile(regs).map_err(e)?); // (CPY,CPY_M,CPY_K)
        Ok((src, dst))
    };
    let atom = |a: &Option<CopyAtom>| {
        a.clone().ok_or_else(|| {
            plan.error(
                "copy",
                "an mma.sync reads A and B from registers: a shared->register copy of each",
            )
        })
    };
    let (s2r_a, s2r_b) = (atom(&p.s2r_a)?, atom(&p.s2r_b)?);
    let (t_xs_a, t_xr_a) = s2r(&s2r_a, Operand::A, s_a, &r_a, "A", k)?;
    let (t_xs_b, t_xr_b) = s2r(&s2r_b, Operand::B, s_b, &r_b, "B", k)?;
    k.comment("the accumulator starts at zero");
    k.fill(&acc, 0.0);
    prologue_copies(k, p.stages, copy_a, copy_b, k_tiles)?;
    let pipe = s(p.stages);
    let mma_atom = MmaAtom::new(p.mma.atom().op());
    // k block `kb` of stage `stage` into its registers: (CPY,CPY_M) of A and B by ldmatrix
    let read = |k: &mut KernelBuilder, kb: &Int, stage: &Int| -> Result<()> {
        let slot = kb.rem(&s(2)).map_err(e)?;
        let src = |t: &Tensor| {
            let c = vec![X, X, kb.clone().into(), stage.clone().into()];
            t.slice(&Coord::Tuple(c)).map_err(e)
        };
        let dst = |t: &Tensor| {
            t.slice(&Coord::Tuple(vec![X, X, slot.clone().into()]))
                .map_err(e)
        };
        k.copy(&s2r_a, &src(&t_xs_a)?, &dst(&t_xr_a)?);
        k.copy(&s2r_b, &src(&t_xs_b)?, &dst(&t_xr_b)?);
        Ok(())
    };
    k.cp_async_wait(p.stages - 2);
    k.sync();
    k.comment("the first k block of stage 0");
    read(k, &s(0), &s(0))?;
    k.comment(
        "the mainloop: one k-tile per trip, each k block's MMAs behind the next one's ldmatrix",
    );
    k.for_("kt", k_tiles.clone(), Unroll::None, |k, kt| {
        let stage = kt.rem(&pipe).map_err(e)?;
        k.for_("kb", k_blocks.clone(), Unroll::Full, |k, kb| {
            k.if_(
                Cond::Lt(kb.clone(), s(kb_n - 1)),
                |k| read(k, &kb.add(&s(1)).map_err(e)?, &stage),
                |k| {
                    k.comment("the next stage: wait for its copies and for every thread to be done with this one");
                    k.cp_async_wait(p.stages - 2);
                    k.sync();
                    read(k, &s(0), &kt.add(&s(1)).and_then(|x| x.rem(&pipe)).map_err(e)?)
                },
            )?;
            let slot = kb.rem(&s(2)).map_err(e)?;
            let frag = |t: &Tensor| t.slice(&Coord::Tuple(vec![X, X, slot.clone().into()])).map_err(e);
            k.gemm(&mma_atom, &frag(&r_a)?, &frag(&r_b)?, &acc);
            // after k block 0's MMAs, not before them: ptxas keeps the MMAs behind the copies'
            // branches, so copies issued first leave the tensor pipe idle while both warps of a
            // scheduler compute addresses (458 vs 420 TFLOP/s at 4096^3 TN on the H200)
            k.if_(
                Cond::Le(kb.clone(), s(0)),
                |k| issue_ahead(k, p.stages, &kt, k_tiles, [copy_a, copy_b], e),
                |_| Ok(()),
            )?;
            Ok(())
        })?;
        Ok(())
    })?;
    Ok(acc)
}

/// The plan's parts agree: the TiledMMA's tile divides the CTA tile (its K, BLK_K), the
/// copies run on the TiledMMA's threads and each covers its operand's `(rows, BLK_K)` tile, the
/// stages are `(rows, BLK_K, PIPE)`, and there are at least two of them.
fn check(plan: &GemmPlan, p: &TensorCore) -> Result<()> {
    let e = layout_err(&plan.name, "tensor core");
    let (bm, bn, bk) = p.cta;
    let stat = |i: cute_layout::Int| i.as_static().unwrap_or(0);
    let threads = mma_threads(plan, &p.mma)?;
    let tile = |i: usize| -> Result<i64> { Ok(stat(p.mma.tile_size(i).map_err(&e)?)) };
    let (tm, tn, tk) = (tile(0)?, tile(1)?, tile(2)?);
    if tm == 0 || tn == 0 || tk == 0 || bm % tm != 0 || bn % tn != 0 || bk % tk != 0 {
        return Err(plan.error(
            "mma",
            format!(
                "the TiledMMA's {tm}x{tn}x{tk} tile does not divide the {bm}x{bn}x{bk} CTA tile"
            ),
        ));
    }
    for (which, copy, rows, smem) in [
        ("A", &p.copy_a, bm, &p.smem_a),
        ("B", &p.copy_b, bn, &p.smem_b),
    ] {
        let t = stat(copy.num_threads().map_err(&e)?);
        if t != threads {
            return Err(plan.error(
                "copy",
                format!("the {which} copy runs on {t} threads, the TiledMMA on {threads}"),
            ));
        }
        let covered: Vec<i64> = copy
            .tiler()
            .leaves()
            .iter()
            .map(|x| x.as_static().unwrap_or(0))
            .collect();
        if covered.len() < 2
            || covered[0] == 0
            || covered[1] == 0
            || rows % covered[0] != 0
            || bk % covered[1] != 0
        {
            return Err(plan.error(
                "copy",
                format!(
                    "the {which} copy's tile {:?} does not divide its {rows}x{bk} tile",
                    covered
                ),
            ));
        }
        let shape = smem.shape_layout().shape().product_each().map_err(&e)?;
        let want = tup![s(rows), s(bk), s(p.stages)];
        if shape != want || p.stages < 2 {
            return Err(plan.error(
                "shared memory",
                format!("the {which} stages are {shape}, not ({rows},{bk},PIPE) with PIPE >= 2"),
            ));
        }
    }
    check_cluster(plan, p)
}

/// A cluster is of a persistent TMA plan, along M or along N, of at most 8 CTAs on a target
/// with clusters.
fn check_cluster(plan: &GemmPlan, p: &TensorCore) -> Result<()> {
    let (cm, cn) = p.cluster;
    if (cm, cn) == (1, 1) {
        return Ok(());
    }
    let why = if !(p.tma && p.persistent) {
        Some(
            "a cluster of a persistent TMA plan (its CTAs release each stage before they exit)"
                .to_string(),
        )
    } else if cm < 1 || cn < 1 || (cm > 1 && cn > 1) || cm * cn > 8 {
        Some("a cluster along M or along N of 2 to 8 CTAs".to_string())
    } else if !plan.target.has(crate::target::Feature::Clusters) {
        Some(format!(
            "{} has no thread-block clusters (sm_90a)",
            plan.target
        ))
    } else {
        None
    };
    match why {
        Some(w) => Err(plan.error("cluster", format!("a {cm}x{cn} cluster: {w}"))),
        None => Ok(()),
    }
}

/// The accumulators staged through shared memory for 128-bit stores: once every copy has landed
/// and every thread is done with the stages, each thread writes its fragment into `sC`, the
/// CTA's `(BLK_M,BLK_N)` tile over the stages (columns padded by 4 floats, so a warp's
/// fragment, 8 rows by 4 column pairs, hits 32 banks), then reads it back as 128-bit vectors
/// along M, 32 threads down a column, in a rolled loop: `alpha * acc + beta * C` (C read only
/// when `beta != 0`), then the bias and ReLU; unpredicated where the CTA's tile lies inside C,
/// element by element under `(m < M, n < N)` elsewhere. A 16-bit C is read and written four
/// values (64 bits) per thread, converted to float and back (round to nearest) in registers.
#[allow(clippy::too_many_arguments)]
fn epilogue(
    k: &mut KernelBuilder,
    plan: &GemmPlan,
    p: &TensorCore,
    thr_mma: &cute_layout::atom::ThrMma,
    acc: &Tensor,
    [g_c, c_c]: [&Tensor; 2],
    g_bias: Option<&Tensor>,
    (m, n): (&Int, &Int),
    threads: i64,
    e: &LayoutErr<'_>,
) -> Result<()> {
    let (bm, bn, _) = p.cta;
    k.comment(
        "the epilogue: the accumulators staged through shared memory, then C in 128-bit vectors",
    );
    if !p.tma {
        k.cp_async_wait(0);
    }
    k.sync();
    let pad = Layout::new(tup![s(bm), s(bn)], tup![s(1), s(bm + 4)]).map_err(e)?;
    let s_c = k.smem_reuse("sC", F32, pad); // (BLK_M,BLK_N)
    let t_cs_c = k.bind("tCsC", thr_mma.partition(Operand::C, &s_c).map_err(e)?); // (MMA,MMA_M,MMA_N)
    let one = CopyAtom::new(CopyOp::UniversalCopy { bits: 32 }, F32).map_err(e)?;
    k.copy(&one, acc, &t_cs_c);
    k.sync();
    // sC -> C: 4 floats along M per thread, BLK_M / 4 threads down each column
    let vec = CopyAtom::new(CopyOp::UniversalCopy { bits: 128 }, F32).map_err(e)?;
    let tm = bm / 4;
    let r2g = make_tiled_copy(
        &vec,
        &Layout::col_major(&tup![s(tm), s(threads / tm)]).map_err(e)?,
        &Layout::col_major(&tup![s(4), s(1)]).map_err(e)?,
    )
    .map_err(e)?;
    let thr = r2g.get_slice(&KernelBuilder::tid()).map_err(e)?;
    let regroup = |t: Tensor| t.map_layout(vectors_of).map_err(e); // (V,R)
    let t_sc = regroup(thr.partition_s(&s_c).map_err(e)?)?;
    let t_gc = k.bind("tDgC", regroup(thr.partition_d(g_c).map_err(e)?)?);
    let t_cc = regroup(thr.partition_d(c_c).map_err(e)?)?;
    let t_bias = g_bias
        .map(|b| thr.partition_d(b).map_err(e).and_then(regroup))
        .transpose()?;
    let epi = Epi {
        plan,
        acc,
        t_cg_c: &t_gc,
        t_cc_c: &t_cc,
        bias: t_bias.as_ref(),
        m,
        n,
        tile: (bm, bn),
        blk: [KernelBuilder::block_idx(0), KernelBuilder::block_idx(1)],
        threads,
    };
    let shape = t_sc.layout().shape_layout();
    let size = |i: usize| shape.mode(i).and_then(|x| x.size()).map_err(e);
    let staged = Staged {
        s: &t_sc,
        g: &t_gc,
        c: &t_cc,
        bias: t_bias.as_ref(),
        read: &vec,
    };
    // C's vectors: the four values a thread read from sC, in C's type
    let out = plan.output_type();
    let store = CopyAtom::new(
        CopyOp::UniversalCopy {
            bits: 4 * out.bits(),
        },
        out,
    )
    .map_err(e)?;
    epi.store_staged(k, &staged, (size(0)?, size(1)?), &store, e)
}
