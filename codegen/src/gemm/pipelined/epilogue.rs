//! The epilogue of a pipelined kernel: `C = alpha * acc + beta * C` (+ bias, ReLU, functors),
//! one branch per CTA between a tile wholly inside C and an edge tile.

use cute_layout::{s, Int};

use super::super::common::{store_element, transform};
use super::{frag, frag_count, verify, GemmPlan, Parts, Writer};
use crate::cexpr::c;
use crate::error::Result;
use crate::gemm::frag::aligned_for_all_threads;

/// `C = alpha * acc + beta * C` (+ functors). A predicated plan branches once per CTA: a tile
/// wholly inside C stores without predicates (128-bit when four rows are contiguous), an edge
/// tile stores element by element. When the fragments of all threads fit in the (then idle)
/// shared stages, they are staged there first and both paths are rolled loops: `acc` stays
/// indexed by constants (registers), and NVRTC compiles two short loops instead of `fm * fn`
/// stores (20 to 35 ms less for `sgemm-sm80` on the development VM; staging in a local array
/// instead cost the unrolled mainloop 5% on the H200). Otherwise both paths are unrolled.
pub(super) fn epilogue(w: &mut Writer, plan: &GemmPlan, parts: &Parts) -> Result<()> {
    let (bm, bn, _) = parts.p.cta;
    let f = &parts.mma_c;
    w.comment(format!("tCgC: {}", f.layout));
    w.line(format!("const int tCgC = {};", c(&f.base)));
    let (fm, fn_) = (frag_count(&parts.mma_a), frag_count(&parts.mma_b));
    let (_, smem_total) = verify::smem_offsets(parts.p);
    let staged = parts.threads * fm * fn_ <= smem_total;
    if staged {
        stage_fragment(w, parts);
    }
    if !parts.p.predicated {
        return interior_stores(w, plan, parts, staged);
    }
    w.open(format!(
        "if (bm * {bm} + {bm} <= M && bn * {bn} + {bn} <= N)"
    ));
    w.comment("the CTA's tile lies inside C: no predicates");
    interior_stores(w, plan, parts, staged)?;
    w.reopen("else");
    edge_stores(w, plan, parts, staged)?;
    w.close("");
    Ok(())
}

/// Every thread's fragment into the idle shared stages, value `v` at `v * threads + tid`.
fn stage_fragment(w: &mut Writer, parts: &Parts) {
    let total = frag_count(&parts.mma_a) * frag_count(&parts.mma_b);
    let threads = parts.threads;
    w.comment("the fragment, staged in the idle shared stages for the rolled store loops");
    w.line("cp_async_wait<0>();");
    w.line("__syncthreads();  // every warp is done reading the stages");
    w.line(format!(
        "float* tCsC = smem + tid;  // _{total}:_{threads} from the thread's slot: no bank conflicts"
    ));
    w.line("#pragma unroll");
    w.line(format!(
        "for (int v = 0; v < {total}; ++v) tCsC[v * {threads}] = acc[v];"
    ));
}

/// The unpredicated stores of the whole fragment: float4 when each group of four values is four
/// contiguous, aligned rows of a column-major C, else one element at a time; a rolled loop over
/// the staged values when `staged`, else unrolled over `acc`.
fn interior_stores(w: &mut Writer, plan: &GemmPlan, parts: &Parts, staged: bool) -> Result<()> {
    let err = plan.layout_error("epilogue");
    let f = &parts.mma_c;
    let (fm, fn_) = (frag_count(&parts.mma_a), frag_count(&parts.mma_b));
    let m_offs: Vec<Int> = (0..fm)
        .map(|i| f.rel(&[s(0), s(i), s(0)]))
        .collect::<cute_layout::Result<_>>()
        .map_err(&err)?;
    let contiguous = m_offs.chunks(4).all(|g| {
        g.len() == 4
            && g.iter().enumerate().all(|(k, o)| {
                o.as_static()
                    .is_some_and(|v| v == g[0].as_static().unwrap_or(-9) + k as i64)
            })
    });
    let vec4 = contiguous
        && aligned_for_all_threads(&f.base, 4, parts.threads)
        && plan.layout.c_layout().stride().leaves()[0].is_constant(1);
    let width = if vec4 { 4 } else { 1 };
    if staged {
        w.line("#pragma unroll 1");
        w.open(format!("for (int v = 0; v < {}; v += {width})", fm * fn_));
        w.line(format!("const int i = v % {fm}, j = v / {fm};"));
        let at = [s(0), Int::index("i"), Int::index("j")];
        let value = |k: i64| format!("tCsC[(v + {k}) * {}]", parts.threads);
        let off = format!("tCgC + {}", c(&f.rel(&at).map_err(&err)?));
        store_group(w, plan, parts, &at, vec4, &value, &off)?;
        w.close("");
        return Ok(());
    }
    for j in 0..fn_ {
        let n_off = c(&f.rel(&[s(0), s(0), s(j)]).map_err(&err)?);
        for q in 0..fm / width {
            let i0 = q * width;
            let at = [s(0), s(i0), s(j)];
            let value = |k: i64| format!("acc[{}]", i0 + k + fm * j);
            let off = format!("tCgC + {} + {n_off}", c(&m_offs[i0 as usize]));
            w.open("");
            store_group(w, plan, parts, &at, vec4, &value, &off)?;
            w.close("");
        }
    }
    Ok(())
}

/// Stores the values at fragment coordinate `at` without a predicate: one element, or (`vec4`)
/// four contiguous rows as a float4.
fn store_group(
    w: &mut Writer,
    plan: &GemmPlan,
    parts: &Parts,
    at: &[Int],
    vec4: bool,
    value: &dyn Fn(i64) -> String,
    off: &str,
) -> Result<()> {
    let transforms = plan.epilogue.has_transform();
    if transforms {
        let crd = frag::coord_at(&parts.c_coord, at).map_err(plan.layout_error("epilogue"))?;
        w.line(format!("const int m = {}, n = {};", crd[0], crd[1]));
    }
    if !vec4 {
        store_element(w, &plan.epilogue, "", "m", "n", &value(0), off);
        return Ok(());
    }
    w.line(format!(
        "float4 x4 = make_float4(alpha * {}, alpha * {}, alpha * {}, alpha * {});",
        value(0),
        value(1),
        value(2),
        value(3)
    ));
    w.open("if (beta != 0.0f)");
    w.line(format!(
        "const float4 c4 = *reinterpret_cast<const float4*>(&C[{off}]);"
    ));
    w.line("x4.x = fmaf(beta, c4.x, x4.x); x4.y = fmaf(beta, c4.y, x4.y); x4.z = fmaf(beta, c4.z, x4.z); x4.w = fmaf(beta, c4.w, x4.w);");
    w.close("");
    if transforms {
        for (k, comp) in ["x", "y", "z", "w"].iter().enumerate() {
            w.open("");
            w.line(format!("float x = x4.{comp};"));
            transform(w, &plan.epilogue, &format!("(m + {k})"), "n");
            w.line(format!("x4.{comp} = x;"));
            w.close("");
        }
    }
    w.line(format!("*reinterpret_cast<float4*>(&C[{off}]) = x4;"));
    Ok(())
}

/// The stores of an edge tile, each element predicated on its coordinate: a rolled loop over the
/// staged values when `staged`, else one predicated store per element of `acc`.
fn edge_stores(w: &mut Writer, plan: &GemmPlan, parts: &Parts, staged: bool) -> Result<()> {
    let err = plan.layout_error("epilogue");
    let (fm, fn_) = (frag_count(&parts.mma_a), frag_count(&parts.mma_b));
    let threads = parts.threads;
    let store = |w: &mut Writer, at: &[Int], value: &str| -> Result<()> {
        let crd = frag::coord_at(&parts.c_coord, at).map_err(&err)?;
        let off = c(&parts.mma_c.rel(at).map_err(&err)?);
        w.line(format!("const int m = {}, n = {};", crd[0], crd[1]));
        store_element(
            w,
            &plan.epilogue,
            "m < M && n < N",
            "m",
            "n",
            value,
            &format!("tCgC + {off}"),
        );
        Ok(())
    };
    if !staged {
        w.comment("an edge tile: each element predicated on its coordinate");
        for j in 0..fn_ {
            for i in 0..fm {
                w.open("");
                store(w, &[s(0), s(i), s(j)], &format!("acc[{}]", i + fm * j))?;
                w.close("");
            }
        }
        return Ok(());
    }
    w.comment("an edge tile: element by element in a rolled loop");
    w.line("#pragma unroll 1");
    w.open(format!("for (int v = 0; v < {}; ++v)", fm * fn_));
    w.line(format!("const int i = v % {fm}, j = v / {fm};"));
    store(
        w,
        &[s(0), Int::index("i"), Int::index("j")],
        &format!("tCsC[v * {threads}]"),
    )?;
    w.close("");
    Ok(())
}
