//! The mainloop of the SM90 tensor-core GEMMs (`hgemm-sm90`, `bgemm-sm90`, `tf32gemm-sm90`):
//! warpgroup MMAs (`wgmma`) reading A and B from the shared stages through descriptors, as
//! CUTLASS's SM90 `cp.async` GMMA mainloop does. All threads copy with 128-bit `cp.async`;
//! each k-tile waits for its stage, makes the copies visible to the async proxy
//! (`fence.proxy.async`, then a barrier), issues its k blocks' `wgmma`s as one group and
//! leaves it in flight (`wgmma.wait_group 1`) while the copy of k-tile `kt + PIPE-2` goes into
//! the stage read two k-tiles ago, which every warpgroup finished before this trip's barrier.

use cute_layout::atom::{MmaAtom, Operand};
use cute_layout::{s, Coord, ElemType::F32, Layout, Tensor, X};

use super::gemm_tc::Mainloop;
use crate::error::Result;
use crate::ir::{Cond, KernelBuilder, Unroll};

/// The wgmma mainloop; returns the accumulator `(MMA,MMA_M,MMA_N)` (written by the first k
/// block's wgmmas, zeros when K is 0).
pub(super) fn mainloop(k: &mut KernelBuilder, ml: &Mainloop<'_>) -> Result<Tensor> {
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
    if p.stages < 3 {
        return Err(plan.error(
            "stages",
            format!("{} stages: the wgmma mainloop keeps a k-tile's wgmmas in flight while copying two ahead (3 or more)", p.stages),
        ));
    }
    let t_ca = k.bind("tCsA", thr_mma.partition(Operand::A, s_a).map_err(e)?); // (MMA,MMA_M,MMA_K,PIPE)
    let t_cb = k.bind("tCsB", thr_mma.partition(Operand::B, s_b).map_err(e)?); // (MMA,MMA_N,MMA_K,PIPE)
    let t_cg_c = thr_mma.partition(Operand::C, g_c).map_err(e)?;
    let acc = k.regs(
        "acc",
        F32,
        Layout::col_major(t_cg_c.layout().shape_layout().shape()).map_err(e)?,
    )?; // (MMA,MMA_M,MMA_N)
    let (pipe, ahead) = (s(p.stages), p.stages - 2);
    k.comment("prologue: the first PIPE-2 k-tiles in flight, k-tile k_pipe into stage k_pipe");
    k.for_("k_pipe", s(ahead), Unroll::None, |k, t| {
        k.if_(
            Cond::Lt(t.clone(), k_tiles.clone()),
            |k| {
                copy_a.copy_edge(k, &t, &t, e)?;
                copy_b.copy_edge(k, &t, &t, e)
            },
            |_| Ok(()),
        )?;
        k.cp_async_commit();
        Ok(())
    })?;
    let atom = MmaAtom::new(p.mma.atom().op());
    k.comment(
        "the mainloop: one k-tile per trip, its wgmmas in flight while the next copies are issued",
    );
    k.for_("kt", k_tiles.clone(), Unroll::None, |k, kt| {
        let stage = kt.rem(&pipe).map_err(e)?;
        k.comment("this k-tile's stage: landed, visible to wgmma's async proxy, for every thread");
        k.cp_async_wait(ahead - 1);
        k.fence_proxy_async();
        k.sync();
        let at = |t: &Tensor| {
            t.slice(&Coord::Tuple(vec![X, X, X, stage.clone().into()]))
                .map_err(e)
        };
        k.wgmma_fence();
        // k-tile 0's first k block writes the accumulator (scale-d 0): no zeros before the
        // loop, which ptxas would serialize the wgmmas behind (C7515)
        k.gemm_overwrite(
            &atom,
            [&at(&t_ca)?, &at(&t_cb)?, &acc],
            Cond::Lt(kt.clone(), s(1)),
        );
        k.wgmma_commit();
        k.comment(
            "the previous k-tile's wgmmas are done: two k-tiles ago is free for every warpgroup",
        );
        k.wgmma_wait(1);
        let next = kt.add(&s(ahead)).map_err(e)?;
        let into = next.rem(&pipe).map_err(e)?;
        k.if_(
            Cond::Lt(next.clone(), k_tiles.clone()),
            |k| {
                copy_a.load(k, &next, &into, e)?;
                copy_b.load(k, &next, &into, e)
            },
            |_| Ok(()),
        )?;
        k.cp_async_commit();
        Ok(())
    })?;
    k.wgmma_wait(0);
    k.if_(
        Cond::Le(k_tiles.clone(), s(0)),
        |k| {
            k.comment("K = 0: no wgmma wrote the accumulator");
            k.fill(&acc, 0.0);
            Ok(())
        },
        |_| Ok(()),
    )?;
    Ok(acc)
}
