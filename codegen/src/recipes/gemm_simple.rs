//! The four simple GEMMs (`naive-rows`, `naive-cols`, `tiled-16`, `tiled-32`) written with the
//! builder as CuTe kernel bodies: `C = alpha * A * B + beta * C` for the problem of
//! [`crate::gemm::GemmPlan`] (A `(M,K)`, B `(N,K)`, C `(M,N)` column-major, the BLAS layout
//! saying which mode of A and B is contiguous), predicated for any M, N, K.
//!
//! They compute what the template emitter's kernels of the same names compute, thread for
//! thread: the same parameters in the same order, the same grid and block, the same element per
//! thread, the same `fmaf` chain over k ascending, the same epilogue (`x = alpha * acc`, then
//! `x = fmaf(beta, C, x)` only when `beta != 0`, so a C of garbage is never read).
//!
//! - naive: one thread per element of C. A `(BLK_M,BLK_N)` CTA tile, a thread layout over it
//!   (`(8,32):(32,1)` for `naive-rows`, `(32,8):(1,32)` for `naive-cols`); a thread whose
//!   element (the identity tensor's coordinate) lies inside C copies, at each k step, its
//!   element of A and of B into registers and accumulates them with `gemm(UniversalFMA)`, then
//!   stores; the others do nothing (a condition on the thread index, as the template returns).
//! - tiled: a `T x T` CTA tile of `T*T` threads, `(T,T):(1,T+1)` shared tiles of A and B per k
//!   tile (the padding keeps the transposing stores of K-major operands conflict-free). Each
//!   thread loads one element of each operand tile, consecutive threads along the operand's
//!   contiguous mode so the loads coalesce (zero outside the matrix: `clear` then `copy_if` into
//!   registers, then the shared store); after a barrier, each k of the tile copies the thread's
//!   element of its row of `sA` and of `sB` into registers and accumulates.

use cute_layout::atom::{CopyAtom, CopyOp, MmaAtom, MmaOp};
use cute_layout::{make_step, s, tup, Coord, ElemType::F32, Int, Layout, Tensor, Tiler, X};

use super::gemm::{value, Output, Problem};
use super::layout_err;
use crate::error::{CodegenError, Result};
use crate::gemm::{GemmPlan, Major};
use crate::ir::{Cond, Kernel, KernelBuilder, Unroll};
use crate::target::Target;

/// A naive GEMM: one thread per element of a `tile = (BLK_M,BLK_N)` CTA tile of C, thread
/// `thr(m,n)` taking element `(m,n)`. `thr` must have the tile's shape and be a bijection onto
/// `0..BLK_M*BLK_N` threads.
pub fn naive(plan: &GemmPlan, tile: (i64, i64), thr: &Layout) -> Result<Kernel> {
    let (name, layout, target) = (plan.name.as_str(), plan.layout, plan.target);
    let threads = naive_threads(name, target, tile, thr)?;
    let e = layout_err(name, "naive");
    let mut k = KernelBuilder::new(&plan.kernel_name());
    k.doc(&format!(
        "C = alpha * A * B + beta * C, {layout} layout, one thread per output element; threads over the ({},{}) block tile: {thr}",
        tile.0, tile.1
    ));
    let p = Problem::declare(&mut k, plan)?;
    k.target(target).threads(threads).grid([
        p.m.ceil_div(&s(tile.0)).map_err(&e)?,
        p.n.ceil_div(&s(tile.1)).map_err(&e)?,
        s(1),
    ]);
    let (tid, bx, by) = indices();
    let (m_of, n_of) = (
        make_step([s(1).into(), X]), // Step<_1,X>: the thread's m
        make_step([X, s(1).into()]), // Step<X,_1>: the thread's n
    );
    let copy = universal_copy(name)?;
    let fma = MmaAtom::new(MmaOp::universal_fma(F32, F32, F32, F32));
    let frag = Layout::col_major(&tup![s(1), s(1)]).map_err(&e)?;
    let t_cr_a = k.regs("tCrA", F32, frag.clone())?; // (1,1): (m,k)
    let t_cr_b = k.regs("tCrB", F32, frag.clone())?; // (1,1): (n,k)
    let t_cr_c = k.regs("tCrC", F32, frag)?; // (1,1): (m,n)
    k.fill(&t_cr_c, 0.0);
    // per k: the (BLK_M,1) tile of A and (BLK_N,1) tile of B, the thread's element of each
    let (a_tile, b_tile) = (
        Tiler::from_shape(&tup![s(tile.0), s(1)]),
        Tiler::from_shape(&tup![s(tile.1), s(1)]),
    );
    let c_tile = Tiler::from_shape(&tup![s(tile.0), s(tile.1)]);
    let part_c = |t: &Tensor| {
        t.local_tile(&c_tile, &coord2(&bx, &by), None)? // (BLK_M,BLK_N)
            .local_partition(thr, &tid, None) // (1,1)
    };
    // the thread's output (m, n): a thread outside C computes nothing, so inside the condition
    // its loads and its store need no predicate
    let mn = crate::ir::index::coord(&part_c(&p.id_c).map_err(&e)?, 0).map_err(&e)?;
    let inside = Cond::And(
        Box::new(Cond::Lt(mn[0].clone(), p.m.clone())),
        Box::new(Cond::Lt(mn[1].clone(), p.n.clone())),
    );
    k.if_(
        inside,
        |k| {
            k.for_("k", p.k.clone(), Unroll::Auto, |k, kk| {
                let part = |t: &Tensor, tiler: &Tiler, at: &Coord, step: &Coord| {
                    t.local_tile(tiler, at, None)? // (BLK,1)
                        .local_partition(thr, &tid, Some(step)) // (1,1)
                };
                let t_ag_a = part(&p.a, &a_tile, &coord2(&bx, &kk), &m_of).map_err(&e)?;
                let t_bg_b = part(&p.b, &b_tile, &coord2(&by, &kk), &n_of).map_err(&e)?;
                k.copy(&copy, &t_ag_a, &t_cr_a);
                k.copy(&copy, &t_bg_b, &t_cr_b);
                k.gemm(&fma, &t_cr_a, &t_cr_b, &t_cr_c);
                Ok(())
            })?;
            epilogue(k, plan, &p.output(), &t_cr_c, &part_c, false)
        },
        |_| Ok(()),
    )?;
    k.finish()
}

/// The threads of a naive tile, after checking `thr` maps it one to one onto them.
fn naive_threads(name: &str, target: Target, tile: (i64, i64), thr: &Layout) -> Result<i64> {
    let err = |msg: String| CodegenError::Plan {
        plan: name.to_string(),
        part: "thread layout",
        msg,
    };
    let max = target.max_threads_per_block;
    let threads = tile
        .0
        .checked_mul(tile.1)
        .filter(|&t| tile.0 > 0 && tile.1 > 0 && t <= max);
    let threads = threads.ok_or_else(|| {
        err(format!(
            "{}x{}: a tile of 1 to {max} outputs, one per thread",
            tile.0, tile.1
        ))
    })?;
    let shape: Vec<Option<i64>> = thr
        .shape()
        .product_each()
        .map_err(layout_err(name, "thread layout"))?
        .leaves()
        .iter()
        .map(Int::as_static)
        .collect();
    if shape != [Some(tile.0), Some(tile.1)] {
        return Err(err(format!(
            "{thr} must have the tile's shape ({},{})",
            tile.0, tile.1
        )));
    }
    let image: std::collections::BTreeSet<i64> =
        (0..threads).filter_map(|i| thr.eval(i).ok()).collect();
    if image.len() as i64 != threads || image.iter().any(|&t| !(0..threads).contains(&t)) {
        return Err(err(format!(
            "{thr} must be a bijection onto threads 0..{threads}, one per output"
        )));
    }
    Ok(threads)
}

/// A shared-memory tiled GEMM with `T x T` tiles and the padded `(T,T):(1,T+1)` shared layout.
pub fn tiled(plan: &GemmPlan, t: i64) -> Result<Kernel> {
    check_tile(plan, t)?;
    let smem = Layout::new(tup![s(t), s(t)], tup![s(1), s(t + 1)])
        .map_err(layout_err(&plan.name, "shared tile"))?;
    tiled_with_smem(plan, t, &smem)
}

/// A shared-memory tiled GEMM with `T x T` tiles held in shared memory as `smem` (a `(T,T)`
/// layout of `(row,k)`; any layout is taken as given, so one that maps two elements to one
/// place is a race the interpreter reports).
pub fn tiled_with_smem(plan: &GemmPlan, t: i64, smem: &Layout) -> Result<Kernel> {
    let (name, layout, target) = (plan.name.as_str(), plan.layout, plan.target);
    check_tile(plan, t)?;
    let e = layout_err(name, "tiled");
    let mut k = KernelBuilder::new(&plan.kernel_name());
    k.doc(&format!(
        "C = alpha * A * B + beta * C, {layout} layout, {t}x{t} shared-memory tiles, one output per thread; sA, sB: (row,k) -> {smem}"
    ));
    let p = Problem::declare(&mut k, plan)?;
    k.target(target).threads(t * t).grid([
        p.m.ceil_div(&s(t)).map_err(&e)?,
        p.n.ceil_div(&s(t)).map_err(&e)?,
        s(1),
    ]);
    let (tid, bx, by) = indices();
    let copy = universal_copy(name)?;
    let fma = MmaAtom::new(MmaOp::universal_fma(F32, F32, F32, F32));
    let tile = Tiler::from_shape(&tup![s(t), s(t)]);
    let s_a = k.smem("sA", F32, smem.clone()); // (BLK_M,BLK_K)
    let s_b = k.smem("sB", F32, smem.clone()); // (BLK_N,BLK_K)

    // the loads: one element of each operand tile per thread, threads along its contiguous mode
    let thr_a = load_threads(t, layout.a).map_err(&e)?; // (BLK_M,BLK_K) -> tid
    let thr_b = load_threads(t, layout.b).map_err(&e)?; // (BLK_N,BLK_K) -> tid
    let t_as_a = k.bind("tAsA", s_a.local_partition(&thr_a, &tid, None).map_err(&e)?); // (1,1)
    let t_bs_b = k.bind("tBsB", s_b.local_partition(&thr_b, &tid, None).map_err(&e)?); // (1,1)

    // the compute: thread (tm,tn) of (T,T):(1,T) reads row tm of sA and row tn of sB
    let thr_c = Layout::col_major(&tup![s(t), s(t)]).map_err(&e)?; // (BLK_M,BLK_N) -> tid
    let m_of = make_step([s(1).into(), X]);
    let n_of = make_step([X, s(1).into()]);
    let t_cs_a = k.bind(
        "tCsA",
        s_a.local_partition(&thr_c, &tid, Some(&m_of)).map_err(&e)?,
    ); // (1,BLK_K)
    let t_cs_b = k.bind(
        "tCsB",
        s_b.local_partition(&thr_c, &tid, Some(&n_of)).map_err(&e)?,
    ); // (1,BLK_K)
    let frag = Layout::col_major(&tup![s(1), s(1)]).map_err(&e)?;
    let t_ar_a = k.regs("tArA", F32, frag.clone())?; // (1,1)
    let t_br_b = k.regs("tBrB", F32, frag.clone())?; // (1,1)
    let t_cr_a = k.regs("tCrA", F32, frag.clone())?; // (1,1): (m,k)
    let t_cr_b = k.regs("tCrB", F32, frag.clone())?; // (1,1): (n,k)
    let t_cr_c = k.regs("tCrC", F32, frag)?; // (1,1): (m,n)
    k.fill(&t_cr_c, 0.0);
    let k_tiles = p.k.ceil_div(&s(t)).map_err(&e)?;
    k.for_("k_tile", k_tiles, Unroll::Auto, |k, kt| {
        let part = |x: &Tensor, blk: &Int, thr: &Layout| {
            x.local_tile(&tile, &coord2(blk, &kt), None)? // (BLK,BLK_K)
                .local_partition(thr, &tid, None) // (1,1)
        };
        let t_ag_a = part(&p.a, &bx, &thr_a).map_err(&e)?;
        let t_ac_a = part(&p.id_a, &bx, &thr_a).map_err(&e)?;
        let t_bg_b = part(&p.b, &by, &thr_b).map_err(&e)?;
        let t_bc_b = part(&p.id_b, &by, &thr_b).map_err(&e)?;
        k.fill(&t_ar_a, 0.0);
        k.copy_if(&copy, p.pred_a(t_ac_a), &t_ag_a, &t_ar_a);
        k.copy(&copy, &t_ar_a, &t_as_a);
        k.fill(&t_br_b, 0.0);
        k.copy_if(&copy, p.pred_b(t_bc_b), &t_bg_b, &t_br_b);
        k.copy(&copy, &t_br_b, &t_bs_b);
        k.sync();
        k.for_("k_block", s(t), Unroll::Full, |k, kb| {
            let at = Coord::Tuple(vec![X, Coord::Int(kb)]);
            k.copy(&copy, &t_cs_a.slice(&at).map_err(&e)?, &t_cr_a); // (1)
            k.copy(&copy, &t_cs_b.slice(&at).map_err(&e)?, &t_cr_b); // (1)
            k.gemm(&fma, &t_cr_a, &t_cr_b, &t_cr_c);
            Ok(())
        })?;
        k.sync();
        Ok(())
    })?;
    let part_c = |x: &Tensor| {
        x.local_tile(&tile, &coord2(&bx, &by), None)? // (BLK_M,BLK_N)
            .local_partition(&thr_c, &tid, None) // (1,1)
    };
    epilogue(&mut k, plan, &p.output(), &t_cr_c, &part_c, true)?;
    k.finish()
}

/// A `T x T` tile of `T*T` threads must fit the target's block.
fn check_tile(plan: &GemmPlan, t: i64) -> Result<()> {
    let max = plan.target.max_threads_per_block;
    if t < 1 || t.saturating_mul(t) > max {
        return Err(CodegenError::Plan {
            plan: plan.name.clone(),
            part: "tile",
            msg: format!("{t}x{t} threads must be 1..{max}"),
        });
    }
    Ok(())
}

/// The threads of a `(T,T)` operand tile `(row,k)`: consecutive threads along the operand's
/// contiguous mode (`(T,T):(1,T)` when the row mode is, `(T,T):(T,1)` when k is).
fn load_threads(t: i64, major: Major) -> cute_layout::Result<Layout> {
    match major {
        Major::MN => Layout::new(tup![s(t), s(t)], tup![s(1), s(t)]),
        Major::K => Layout::new(tup![s(t), s(t)], tup![s(t), s(1)]),
    }
}

/// The plan's epilogue over the thread's elements (those in bounds when `predicated`), as the
/// template emitter writes it: `x = alpha * acc`, then `x = fmaf(beta, C, x)` only when
/// `beta != 0`, then the bias and the ReLU the plan asks for. `part` partitions an `(M,N)`
/// tensor as C is.
pub(super) fn epilogue(
    k: &mut KernelBuilder,
    plan: &GemmPlan,
    p: &Output<'_>,
    acc: &Tensor,
    part: &dyn Fn(&Tensor) -> cute_layout::Result<Tensor>,
    predicated: bool,
) -> Result<()> {
    let e = layout_err(&plan.name, "epilogue");
    let c = k.bind("tCgC", part(p.c).map_err(&e)?);
    let pred = if predicated {
        Some(p.pred(part(p.id_c).map_err(&e)?))
    } else {
        None
    };
    let bias = p.bias.map(part).transpose().map_err(&e)?;
    let srcs = |with_c: bool| -> Vec<&Tensor> {
        let mut v = vec![acc];
        if with_c {
            v.push(&c);
        }
        v.extend(bias.as_ref());
        v
    };
    k.if_(
        super::gemm::reads_c(plan),
        |k| {
            k.map(&c, &srcs(true), value(plan, true), pred.clone());
            Ok(())
        },
        |k| {
            k.map(&c, &srcs(false), value(plan, false), pred.clone());
            Ok(())
        },
    )?;
    Ok(())
}

/// `UniversalCopy<float>`: one element.
fn universal_copy(name: &str) -> Result<CopyAtom> {
    CopyAtom::new(CopyOp::UniversalCopy { bits: 32 }, F32).map_err(layout_err(name, "copy atom"))
}

/// `tid`, `blockIdx.x`, `blockIdx.y`.
fn indices() -> (Int, Int, Int) {
    (
        KernelBuilder::tid(),
        KernelBuilder::block_idx(0),
        KernelBuilder::block_idx(1),
    )
}

/// `make_coord(x, y)`.
fn coord2(x: &Int, y: &Int) -> Coord {
    Coord::Tuple(vec![Coord::Int(x.clone()), Coord::Int(y.clone())])
}
