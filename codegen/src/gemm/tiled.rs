//! The shared-memory tiled kernel, one output per thread (`tiled-16`, `tiled-32`).
//!
//! Each K step stages a `T x T` tile of A and of B in shared memory (padded to `T+1` rows so the
//! transposing stores of K-major operands are conflict-free); each thread then accumulates one
//! output over the tile. Out-of-range elements load as zero, so any M, N, K works.

use cute_layout::{s, tup, Element, Layout, Tensor};

use super::common::{header, offset, plain_kernel, signature, store_element, sym};
use super::plan::{GemmPlan, Major, Policy};
use crate::error::Result;
use crate::kernel::Kernel;
use crate::writer::Writer;

/// Emits a shared-memory tiled kernel.
pub fn emit(plan: &GemmPlan) -> Result<Kernel> {
    let Policy::SmemTiled { tile } = plan.policy else {
        return Err(plan.error("policy", "not a shared-memory tiled plan"));
    };
    let max_threads = plan.target.max_threads_per_block;
    if tile < 1 || tile.saturating_mul(tile) > max_threads {
        return Err(plan.error(
            "tile",
            format!("{tile}x{tile} threads must be 1..{max_threads}"),
        ));
    }
    let t = tile;
    let err = plan.layout_error("thread coordinates");
    // (tm, tn): this thread's place in the T x T tile, from local_partition of the tile.
    let thr = Layout::col_major(&tup![s(t), s(t)]).map_err(&err)?;
    let tile_id = Tensor::identity(&tup![s(t), s(t)]).map_err(&err)?;
    let mine = tile_id
        .local_partition(&thr, &sym("tid"), None)
        .map_err(&err)?;
    let Element::Coord(tc) = mine.at(&tup![s(0), s(0)]).map_err(&err)? else {
        return Err(plan.error(
            "thread coordinates",
            "a coordinate tensor gives coordinates",
        ));
    };
    let (tm, tn) = (crate::cexpr::c(&tc[0]), crate::cexpr::c(&tc[1]));
    // sX(row, k) in shared memory: (T,T):(1,T+1).
    let smem = Layout::new(tup![s(t), s(t)], tup![s(1), s(t + 1)]).map_err(&err)?;
    let mut w = Writer::new();
    header(
        &mut w,
        plan,
        &format!("{t}x{t} shared-memory tiles, one output per thread"),
    );
    w.comment(format!("sA, sB: (row,k) -> {smem}"));
    signature(&mut w, plan, t * t, 1);
    w.line(format!("__shared__ float sA[{}];", t * (t + 1)));
    w.line(format!("__shared__ float sB[{}];", t * (t + 1)));
    w.line("const int tid = threadIdx.x;");
    w.comment(format!(
        "(tm,tn) = local_partition(make_identity_tensor((_{t},_{t})), {thr}, tid)"
    ));
    w.line(format!("const int tm = {tm};"));
    w.line(format!("const int tn = {tn};"));
    w.line(format!("const int m = blockIdx.x * {t} + tm;"));
    w.line(format!("const int n = blockIdx.y * {t} + tn;"));
    w.line("float acc = 0.0f;");
    w.open(format!("for (int k0 = 0; k0 < K; k0 += {t})"));
    load(
        &mut w,
        plan,
        "A",
        "sA",
        "M",
        plan.layout.a_layout(),
        plan.layout.a,
        t,
        &smem,
    )?;
    load(
        &mut w,
        plan,
        "B",
        "sB",
        "N",
        plan.layout.b_layout(),
        plan.layout.b,
        t,
        &smem,
    )?;
    w.line("__syncthreads();");
    w.line("#pragma unroll");
    w.open(format!("for (int k = 0; k < {t}; ++k)"));
    let sa = offset(&smem, &[sym("tm"), sym("k")]).map_err(&err)?;
    let sb = offset(&smem, &[sym("tn"), sym("k")]).map_err(&err)?;
    w.line(format!("acc = fmaf(sA[{sa}], sB[{sb}], acc);"));
    w.close("");
    w.line("__syncthreads();");
    w.close("");
    let c =
        offset(&plan.layout.c_layout(), &[sym("m"), sym("n")]).map_err(plan.layout_error("C"))?;
    store_element(
        &mut w,
        &plan.epilogue,
        "m < M && n < N",
        "m",
        "n",
        "acc",
        &c,
    );
    w.close("");
    plain_kernel(plan, w, (t, t), t * t)
}

/// One element of an operand's tile per thread, zero-filled outside the matrix. Consecutive
/// threads walk the operand's contiguous mode, so the global loads coalesce.
#[allow(clippy::too_many_arguments)]
fn load(
    w: &mut Writer,
    plan: &GemmPlan,
    g: &str,
    sm: &str,
    rows: &str,
    layout: Layout,
    major: Major,
    t: i64,
    smem: &Layout,
) -> Result<()> {
    let err = plan.layout_error("operand tile");
    let (row_in_tile, k_in_tile) = match major {
        Major::MN => ("tm", "tn"),
        Major::K => ("tn", "tm"),
    };
    let block = if g == "A" { "blockIdx.x" } else { "blockIdx.y" };
    w.open("");
    w.comment(format!(
        "{g}: {layout}, {} consecutive threads along its stride-1 mode",
        if major == Major::MN { rows } else { "K" }
    ));
    w.line(format!("const int r = {block} * {t} + {row_in_tile};"));
    w.line(format!("const int kk = k0 + {k_in_tile};"));
    let goff = offset(&layout, &[sym("r"), sym("kk")]).map_err(&err)?;
    let soff = offset(smem, &[sym(row_in_tile), sym(k_in_tile)]).map_err(&err)?;
    w.line(format!(
        "{sm}[{soff}] = (r < {rows} && kk < K) ? {g}[{goff}] : 0.0f;"
    ));
    w.close("");
    Ok(())
}
