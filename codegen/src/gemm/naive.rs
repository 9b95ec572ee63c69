//! One thread per output element: the course's first kernels (`naive-rows`, `naive-cols`).

use cute_layout::{s, Coord, Element, Layout, Tensor, Tiler};

use super::common::{header, offset, plain_kernel, signature, store_element, sym};
use super::plan::{GemmPlan, Policy};
use crate::error::Result;
use crate::kernel::Kernel;
use crate::writer::Writer;

/// Emits a naive kernel.
pub fn emit(plan: &GemmPlan) -> Result<Kernel> {
    let Policy::Naive { tile, thr } = &plan.policy else {
        return Err(plan.error("policy", "not a naive plan"));
    };
    let max_threads = plan.target.max_threads_per_block;
    if tile.0 <= 0 || tile.1 <= 0 || tile.0.checked_mul(tile.1).is_none_or(|t| t > max_threads) {
        return Err(plan.error(
            "tile",
            format!(
                "{}x{}: a tile of 1 to {max_threads} outputs, one per thread",
                tile.0, tile.1
            ),
        ));
    }
    let shape = thr
        .shape()
        .product_each()
        .map_err(plan.layout_error("thread layout"))?
        .leaves();
    if shape.len() != 2
        || shape[0].as_static() != Some(tile.0)
        || shape[1].as_static() != Some(tile.1)
    {
        return Err(plan.error(
            "thread layout",
            format!("{thr} must have the tile's shape ({},{})", tile.0, tile.1),
        ));
    }
    let threads = thr
        .size()
        .map_err(plan.layout_error("thread layout"))?
        .as_static()
        .unwrap_or(0);
    if threads != tile.0 * tile.1 || threads <= 0 || threads > max_threads {
        return Err(plan.error(
            "thread layout",
            format!(
                "{thr} must map the {}x{} tile to 1..{max_threads} threads, one each",
                tile.0, tile.1
            ),
        ));
    }
    let image: std::collections::BTreeSet<i64> =
        (0..threads).filter_map(|i| thr.eval(i).ok()).collect();
    if image.len() as i64 != threads || image.iter().any(|&t| !(0..threads).contains(&t)) {
        return Err(plan.error(
            "thread layout",
            format!("{thr} must be a bijection onto threads 0..{threads}, one per output"),
        ));
    }
    let (m, n) = coordinates(plan, *tile, thr)?;
    let mut w = Writer::new();
    header(&mut w, plan, "one thread per output element");
    w.comment(format!(
        "threads over the ({},{}) block tile: {thr}",
        tile.0, tile.1
    ));
    signature(&mut w, plan, threads, 1);
    w.line("const int tid = threadIdx.x;");
    w.line("const int bm = blockIdx.x;");
    w.line("const int bn = blockIdx.y;");
    w.comment("this thread's output: local_partition(local_tile(make_identity_tensor((M,N)), tile, (bm,bn)), thr, tid)");
    w.line(format!("const int m = {m};"));
    w.line(format!("const int n = {n};"));
    w.line("if (m >= M || n >= N) return;");
    let a =
        offset(&plan.layout.a_layout(), &[sym("m"), sym("k")]).map_err(plan.layout_error("A"))?;
    let b =
        offset(&plan.layout.b_layout(), &[sym("n"), sym("k")]).map_err(plan.layout_error("B"))?;
    let c =
        offset(&plan.layout.c_layout(), &[sym("m"), sym("n")]).map_err(plan.layout_error("C"))?;
    w.line("float acc = 0.0f;");
    w.open("for (int k = 0; k < K; ++k)");
    w.line(format!("acc = fmaf(A[{a}], B[{b}], acc);"));
    w.close("");
    store_element(&mut w, &plan.epilogue, "", "m", "n", "acc", &c);
    w.close("");
    plain_kernel(plan, w, *tile, threads)
}

/// The (m, n) C++ expressions of thread `tid`'s element, from the coordinate tensor.
fn coordinates(plan: &GemmPlan, tile: (i64, i64), thr: &Layout) -> Result<(String, String)> {
    let err = plan.layout_error("thread coordinates");
    let c_id = Tensor::identity(&cute_layout::tup![sym("M"), sym("N")]).map_err(&err)?;
    let t = Tiler::from_shape(&cute_layout::tup![s(tile.0), s(tile.1)]);
    let cta = c_id
        .local_tile(
            &t,
            &Coord::Tuple(vec![Coord::Int(sym("bm")), Coord::Int(sym("bn"))]),
            None,
        )
        .map_err(&err)?;
    let mine = cta.local_partition(thr, &sym("tid"), None).map_err(&err)?;
    let at = mine.at(&cute_layout::tup![s(0), s(0)]).map_err(&err)?;
    let Element::Coord(v) = at else {
        return Err(plan.error(
            "thread coordinates",
            "a coordinate tensor gives coordinates",
        ));
    };
    Ok((crate::cexpr::c(&v[0]), crate::cexpr::c(&v[1])))
}
