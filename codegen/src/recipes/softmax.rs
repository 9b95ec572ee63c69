//! `row-softmax`: `Y(r, :) = softmax(X(r, :))` for row-major `X`, `Y` (M x N, `ldX`, `ldY`), in
//! FP32. One warp per row, eight rows per block. The first pass streams the row once, keeping
//! each lane's running maximum and its sum of `exp(x - max)` rescaled as the maximum grows (the
//! online softmax); two butterflies of shuffles combine the lanes; the second pass reads the
//! row again and writes `exp(x - max) / sum`. Global memory moves in 128-bit vectors when
//! `vector` (4 floats per lane per step), else one float per lane per step.

use cute_layout::atom::{make_tiled_copy, CopyAtom, CopyOp};
use cute_layout::{s, tup, Coord, ElemType::F32, Int, Layout, Tensor, Tiler};

use super::layout_err;
use crate::error::Result;
use crate::ir::{EExpr, Kernel, KernelBuilder, Pred, ScalarOp, Unroll};
use crate::target::Target;

/// Rows per block (one per warp).
const ROWS: i64 = 8;

/// The lowest finite float, for the elements past the row's end (so `exp(lowest - max)` is 0
/// and `exp(lowest - lowest)` is no NaN).
const LOWEST: f64 = -3.0e38;

/// The row softmax, with 128-bit global vectors when `vector`, for `target`.
pub fn row_softmax(vector: bool, target: Target) -> Result<Kernel> {
    let v: i64 = if vector { 4 } else { 1 };
    let name = format!("row_softmax_f32{}", if vector { "_v" } else { "" });
    let e = layout_err(&name, "row-softmax");
    let mut k = KernelBuilder::new(&name);
    k.target(target);
    k.doc("Y = softmax(X) along each row of a row-major M x N matrix (FP32, online max and sum, one warp per row)");
    let (m, n) = (k.param_int("M"), k.param_int("N"));
    let x = k.param_ptr("X", F32, false);
    let ldx = k.param_int("ldX");
    let y = k.param_ptr("Y", F32, true);
    let ldy = k.param_int("ldY");
    k.threads(32 * ROWS)
        .grid([m.ceil_div(&s(ROWS)).map_err(&e)?, s(1), s(1)]);
    let (tid, bx) = (KernelBuilder::tid(), KernelBuilder::block_idx(0));
    let cols = 32 * v;
    let tile = Tiler::from_shape(&tup![s(ROWS), s(cols)]);
    let chunks = n.ceil_div(&s(cols)).map_err(&e)?;

    let atom = CopyAtom::new(
        CopyOp::UniversalCopy {
            bits: (32 * v) as u32,
        },
        F32,
    )
    .map_err(&e)?;
    let tiled = make_tiled_copy(
        &atom,
        &Layout::new(tup![s(ROWS), s(32)], tup![s(32), s(1)]).map_err(&e)?, // (row, lane) -> tid
        &Layout::col_major(&tup![s(1), s(v)]).map_err(&e)?,
    )
    .map_err(&e)?;
    let thr = tiled.get_slice(&tid).map_err(&e)?;
    let gx = Tensor::new(
        x,
        Layout::new(tup![m.clone(), n.clone()], tup![ldx, s(1)]).map_err(&e)?,
    );
    let gy = Tensor::new(
        y,
        Layout::new(tup![m.clone(), n.clone()], tup![ldy, s(1)]).map_err(&e)?,
    );
    let cx = Tensor::identity(&tup![m.clone(), n.clone()]).map_err(&e)?;
    // the (ROWS, cols) block of chunk c, partitioned: (V, 1, 1) per thread
    let part = |t: &Tensor, c: &Int, dst: bool| -> cute_layout::Result<Tensor> {
        let at = Coord::Tuple(vec![bx.clone().into(), c.clone().into()]);
        let tile = t.local_tile(&tile, &at, None)?;
        if dst {
            thr.partition_d(&tile)
        } else {
            thr.partition_s(&tile)
        }
    };
    let frag = Layout::col_major(&tup![s(v), s(1), s(1)]).map_err(&e)?;
    let rx = k.regs("rX", F32, frag.clone())?;
    let re = k.regs("rE", F32, frag)?;
    let bounds = vec![m.clone(), n.clone()];

    k.let_("mx", EExpr::c(LOWEST));
    k.let_("sum", EExpr::c(0.0));
    k.comment("pass 1: each lane's running max and its sum of exp(x - max)");
    k.for_("c", chunks.clone(), Unroll::By(4), |k, c| {
        let t_x = part(&gx, &c, false).map_err(&e)?;
        let t_c = part(&cx, &c, false).map_err(&e)?;
        k.fill(&rx, LOWEST);
        k.copy_if(
            &atom,
            Pred {
                coord: t_c,
                bounds: bounds.clone(),
            },
            &t_x,
            &rx,
        );
        let cm = k.reduce("cmax", ScalarOp::Max, &rx);
        let mn = k.let_("mnew", EExpr::var("mx").max(cm));
        k.map(&re, &[&rx], (EExpr::arg(0) - mn.clone()).exp(), None);
        let cs = k.reduce("csum", ScalarOp::Add, &re);
        k.let_(
            "sum",
            EExpr::var("sum") * (EExpr::var("mx") - mn.clone()).exp() + cs,
        );
        k.let_("mx", mn);
        Ok(())
    })?;
    k.comment("combine the lanes: the row's max, then each lane's sum rescaled to it");
    k.let_("mlane", EExpr::var("mx"));
    let mx = k.shuffle("mx", ScalarOp::Max, 32);
    k.let_(
        "sum",
        EExpr::var("sum") * (EExpr::var("mlane") - mx.clone()).exp(),
    );
    let sum = k.shuffle("sum", ScalarOp::Add, 32);
    k.let_("inv", EExpr::c(1.0) / sum);
    k.comment("pass 2: y = exp(x - max) / sum");
    k.for_("c", chunks, Unroll::By(4), |k, c| {
        let t_x = part(&gx, &c, false).map_err(&e)?;
        let t_y = part(&gy, &c, true).map_err(&e)?;
        let t_c = part(&cx, &c, false).map_err(&e)?;
        let pred = Pred {
            coord: t_c,
            bounds: bounds.clone(),
        };
        k.copy_if(&atom, pred.clone(), &t_x, &rx);
        k.map(
            &re,
            &[&rx],
            (EExpr::arg(0) - mx.clone()).exp() * EExpr::var("inv"),
            None,
        );
        k.copy_if(&atom, pred, &re, &t_y);
        Ok(())
    })?;
    k.finish()
}
