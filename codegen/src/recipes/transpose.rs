//! `transpose`: `B = A^T` for a column-major `A` (M x N, `ldA`) into a column-major `B` (N x M,
//! `ldB`), through a 64 x 64 shared tile. Global memory is read and written in 128-bit vectors
//! (4 floats or 8 halves) along each matrix's contiguous mode; the shared tile is written in
//! vectors along m and read element by element along n, and its swizzle
//! `Sw<3, log2(V), 6>` spreads both access patterns over all 32 banks (each read phase's
//! threads differ in n's vector index, which the swizzle XORs into the bank bits).

use cute_layout::atom::{make_tiled_copy, CopyAtom, CopyOp};
use cute_layout::{compose_swizzle, s, tup, Coord, ElemType, Int, Layout, Swizzle, Tensor, Tiler};

use super::layout_err;
use crate::error::Result;
use crate::ir::{Kernel, KernelBuilder, Pred};
use crate::target::Target;

/// The tile edge.
const T: i64 = 64;
/// Threads per block.
const THREADS: i64 = 256;

/// The transpose of `elem` elements, with 128-bit global vectors when `vector`, for `target`.
pub fn transpose(elem: ElemType, vector: bool, target: Target) -> Result<Kernel> {
    let bits = i64::from(elem.bits());
    let v = if vector { 128 / bits } else { 1 };
    let short = if elem == ElemType::F16 { "f16" } else { "f32" };
    let name = format!("transpose_{short}{}", if vector { "_v" } else { "" });
    let e = layout_err(&name, "transpose");
    let mut k = KernelBuilder::new(&name);
    k.target(target);
    k.doc(&format!(
        "B (N x M, ldB) = A^T for A (M x N, ldA), column-major {elem}; 64x64 tiles through a swizzled shared tile, {}-bit global accesses",
        v * bits
    ));
    let (m, n) = (k.param_int("M"), k.param_int("N"));
    let a = k.param_ptr("A", elem, false);
    let lda = k.param_int("ldA");
    let b = k.param_ptr("B", elem, true);
    let ldb = k.param_int("ldB");
    k.threads(THREADS).grid([
        m.ceil_div(&s(T)).map_err(&e)?,
        n.ceil_div(&s(T)).map_err(&e)?,
        s(1),
    ]);
    let (tid, bx, by) = (
        KernelBuilder::tid(),
        KernelBuilder::block_idx(0),
        KernelBuilder::block_idx(1),
    );
    let tile = Tiler::from_shape(&tup![s(T), s(T)]);
    let at = |i: &Int, j: &Int| Coord::Tuple(vec![i.clone().into(), j.clone().into()]);

    // the A tile (m, n) and its coordinates
    let ga = Tensor::new(
        a,
        Layout::new(tup![m.clone(), n.clone()], tup![s(1), lda]).map_err(&e)?,
    );
    let ga = ga.local_tile(&tile, &at(&bx, &by), None).map_err(&e)?; // (64,64)
    let ca = Tensor::identity(&tup![m.clone(), n.clone()]).map_err(&e)?;
    let ca = ca.local_tile(&tile, &at(&bx, &by), None).map_err(&e)?;
    // the shared tile, m contiguous, swizzled
    let log2v = v.trailing_zeros() as i64;
    let sw = Swizzle::new(3, log2v, 6).map_err(&e)?;
    let sa_layout = compose_swizzle(sw, &Layout::col_major(&tup![s(T), s(T)]).map_err(&e)?);
    let sa = k.smem("sA", elem, sa_layout);

    // gmem -> smem: V elements along m per thread, threads m-major
    let vec_op = CopyOp::UniversalCopy {
        bits: (v * bits) as u32,
    };
    let one_op = CopyOp::UniversalCopy { bits: bits as u32 };
    let g2s_atom = CopyAtom::new(vec_op, elem).map_err(&e)?;
    let tm = T / v;
    let g2s = make_tiled_copy(
        &g2s_atom,
        &Layout::col_major(&tup![s(tm), s(THREADS / tm)]).map_err(&e)?,
        &Layout::col_major(&tup![s(v), s(1)]).map_err(&e)?,
    )
    .map_err(&e)?;
    let thr = g2s.get_slice(&tid).map_err(&e)?;
    let t_ga = k.bind("tAgA", thr.partition_s(&ga).map_err(&e)?);
    let t_ca = thr.partition_s(&ca).map_err(&e)?;
    let t_sa = k.bind("tAsA", thr.partition_d(&sa).map_err(&e)?);
    k.copy_if(
        &g2s_atom,
        Pred {
            coord: t_ca,
            bounds: vec![m.clone(), n.clone()],
        },
        &t_ga,
        &t_sa,
    );
    k.sync();

    // smem -> registers -> gmem: the tile read as (n, m); V elements along n per thread, a warp
    // 8 vectors along n by 4 along m
    let gb = Tensor::new(
        b,
        Layout::new(tup![n.clone(), m.clone()], tup![s(1), ldb]).map_err(&e)?,
    );
    let gb = gb.local_tile(&tile, &at(&by, &bx), None).map_err(&e)?; // (64,64)
    let cb = Tensor::identity(&tup![n.clone(), m.clone()]).map_err(&e)?;
    let cb = cb.local_tile(&tile, &at(&by, &bx), None).map_err(&e)?;
    let sat = sa.map_layout(|l| l.select(&[1, 0])).map_err(&e)?; // (n, m)
    let tn = (T / v).min(8);
    let r2g = make_tiled_copy(
        &g2s_atom,
        &Layout::col_major(&tup![s(tn), s(THREADS / tn)]).map_err(&e)?,
        &Layout::col_major(&tup![s(v), s(1)]).map_err(&e)?,
    )
    .map_err(&e)?;
    let thr = r2g.get_slice(&tid).map_err(&e)?;
    let t_sb = k.bind("tBsA", thr.partition_s(&sat).map_err(&e)?);
    let t_gb = k.bind("tBgB", thr.partition_d(&gb).map_err(&e)?);
    let t_cb = thr.partition_d(&cb).map_err(&e)?;
    let frag = Layout::col_major(t_gb.layout().shape_layout().shape()).map_err(&e)?;
    let t_rb = k.regs("tBrB", elem, frag)?;
    let pred_b = Pred {
        coord: t_cb,
        bounds: vec![n, m],
    };
    let s2r_atom = CopyAtom::new(one_op, elem).map_err(&e)?;
    k.copy_if(&s2r_atom, pred_b.clone(), &t_sb, &t_rb);
    k.copy_if(&g2s_atom, pred_b, &t_rb, &t_gb);
    k.finish()
}
