//! Verification of a pipelined plan before emission: the pieces fit (threads, tiles, vector
//! widths, shared memory), and the shared-memory bank-conflict figures of its accesses.

use std::collections::BTreeSet;

use cute_layout::atom::MmaOp;
use cute_layout::{AnyLayout, ElemType, Int};

use super::frag::Frag;
use super::plan::{GemmPlan, Pipelined};
use crate::error::Result;

/// What verification found: the shared memory the kernel needs and notes for its header.
pub struct Report {
    /// Dynamic shared memory in bytes.
    pub smem_bytes: i64,
    /// Lines for the kernel's header comment.
    pub notes: Vec<String>,
}

/// The most shared memory a block may have on SM80/SM90 (227 KiB).
pub const MAX_SMEM: i64 = 227 * 1024;
/// Shared memory of one SM on the H100/H200 (sm_90), for CTAs sharing it.
const SM_SMEM: i64 = 228 * 1024;

/// What the emitter lowers: a `UniversalFMA` (a per-thread FMA outer product) over FP32, copied
/// as FP32. A tensor-core atom would need the `mma.sync` lowering and other types their own
/// loads and epilogue; both are refused rather than emitted as FP32 FMA code.
fn element_types(plan: &GemmPlan, p: &Pipelined) -> Result<()> {
    let op = p.mma.atom().op();
    if !matches!(op, MmaOp::UniversalFma { .. }) {
        return Err(plan.error(
            "TiledMMA",
            format!("{op} is a tensor-core atom; the emitter lowers UniversalFMA only"),
        ));
    }
    if op.types().iter().any(|&t| t != ElemType::F32) {
        return Err(plan.error(
            "TiledMMA",
            format!("{op}: only FP32 GEMM is emitted so far (D, A, B and C all float)"),
        ));
    }
    for (part, tc) in [("TiledCopy A", &p.copy_a), ("TiledCopy B", &p.copy_b)] {
        let t = tc.atom().val_type();
        if t != ElemType::F32 {
            return Err(plan.error(
                part,
                format!("copies {t} values; only FP32 GEMM is emitted so far"),
            ));
        }
    }
    Ok(())
}

fn static_of(x: cute_layout::Result<Int>) -> Option<i64> {
    x.ok().and_then(|v| v.as_static())
}

/// Checks a pipelined plan.
pub fn pipelined(plan: &GemmPlan, p: &Pipelined) -> Result<Report> {
    element_types(plan, p)?;
    let mut notes = Vec::new();
    let threads = static_of(p.mma.num_threads())
        .ok_or_else(|| plan.error("TiledMMA", "thread count must be static"))?;
    for (part, tc) in [("TiledCopy A", &p.copy_a), ("TiledCopy B", &p.copy_b)] {
        let t = static_of(tc.num_threads()).unwrap_or(0);
        if t != threads {
            return Err(plan.error(
                part,
                format!("uses {t} threads but the TiledMMA uses {threads}"),
            ));
        }
        covers_once(plan, part, tc)?;
    }
    let (bm, bn, bk) = p.cta;
    for (i, (name, size)) in [("M", bm), ("N", bn), ("K", bk)].into_iter().enumerate() {
        let t = static_of(p.mma.tile_size(i)).unwrap_or(0);
        if t <= 0 || size % t != 0 {
            return Err(plan.error(
                "TiledMMA",
                format!("its {name} tile {t} does not divide the CTA tile's {size}"),
            ));
        }
    }
    for (part, tc, rows) in [
        ("TiledCopy A", &p.copy_a, bm),
        ("TiledCopy B", &p.copy_b, bn),
    ] {
        let tiler = tc.tiler().leaves();
        let (tr, tk) = (
            tiler.first().and_then(Int::as_static).unwrap_or(0),
            tiler.get(1).and_then(Int::as_static).unwrap_or(0),
        );
        if tr <= 0 || tk <= 0 || rows % tr != 0 || bk % tk != 0 {
            return Err(plan.error(
                part,
                format!("its tile ({tr},{tk}) does not divide the CTA's ({rows},{bk})"),
            ));
        }
    }
    for (part, l, rows) in [("shared A", &p.smem_a, bm), ("shared B", &p.smem_b, bn)] {
        let sh = l
            .shape_layout()
            .shape()
            .product_each()
            .map_err(plan.layout_error(part))?
            .leaves();
        let want = [rows, bk, p.stages];
        if sh.len() != 3 || sh.iter().zip(want).any(|(a, b)| a.as_static() != Some(b)) {
            return Err(plan.error(
                part,
                format!("{l} must have shape ({rows},{bk},{})", p.stages),
            ));
        }
        if let AnyLayout::Composed(c) = l {
            let (_, m, _) = c.layout_a().params();
            if m < 2 {
                return Err(plan.error(part, format!("{} moves elements within 16-byte vectors (its M must be at least 2 for 128-bit copies)", c.layout_a())));
            }
        }
    }
    let elems: i64 = [&p.smem_a, &p.smem_b]
        .iter()
        .map(|l| static_of(l.shape_layout().cosize()).unwrap_or(0))
        .sum();
    let smem_bytes = 4 * elems;
    if smem_bytes > MAX_SMEM {
        return Err(plan.error(
            "shared memory",
            format!("{smem_bytes} bytes exceed the {MAX_SMEM} a block can have"),
        ));
    }
    notes.push(format!(
        "shared memory: {smem_bytes} bytes in {} stages{}",
        p.stages,
        if smem_bytes > 48 * 1024 {
            " (above 48 KiB: the launch opts in)"
        } else {
            ""
        }
    ));
    if let Some(n) = p.k_block_unroll {
        if n < 2 || n % 2 != 0 || bk % n != 0 {
            return Err(plan.error(
                "k-block unroll",
                format!("{n} must be even and divide BK = {bk} (the register buffers alternate)"),
            ));
        }
        for (part, l) in [("shared A", &p.smem_a), ("shared B", &p.smem_b)] {
            if let AnyLayout::Composed(c) = l {
                let (b, m, s) = c.layout_a().params();
                let period = 1i64 << (i64::from(b) + i64::from(m) + i64::from(s.max(0)));
                let k_stride = c
                    .layout_b()
                    .mode(1)
                    .ok()
                    .and_then(|m| m.stride().as_int().and_then(Int::as_static))
                    .unwrap_or(0);
                let phases = if k_stride > 0 && period % k_stride == 0 {
                    (period / k_stride).min(bk)
                } else {
                    1
                };
                if n % phases != 0 {
                    return Err(plan.error(
                        "k-block unroll",
                        format!("{n} is not a multiple of the {phases} swizzle phases of {part}"),
                    ));
                }
            }
        }
    }
    if p.min_blocks_per_sm < 1 {
        return Err(plan.error("launch bounds", "at least one CTA per SM"));
    }
    if p.min_blocks_per_sm > 1 {
        let per_sm = smem_bytes * p.min_blocks_per_sm;
        if per_sm > SM_SMEM {
            return Err(plan.error(
                "launch bounds",
                format!(
                    "{} CTAs of {smem_bytes} bytes of shared memory exceed an SM's {SM_SMEM}",
                    p.min_blocks_per_sm
                ),
            ));
        }
        notes.push(format!(
            "occupancy: built for {} CTAs per SM ({} registers per thread at most; {per_sm} bytes of shared memory per SM, within the H100/H200's {SM_SMEM})",
            p.min_blocks_per_sm,
            65536 / (threads * p.min_blocks_per_sm)
        ));
    }
    notes.push(
        "barriers: a stage is overwritten only after the __syncthreads that follows its last read"
            .into(),
    );
    Ok(Report { smem_bytes, notes })
}

/// A TiledCopy's TV layout maps its threads and values onto its tile exactly once.
fn covers_once(
    plan: &GemmPlan,
    part: &'static str,
    tc: &cute_layout::atom::TiledCopy,
) -> Result<()> {
    let tv = tc.get_layout_s_tv().map_err(plan.layout_error(part))?;
    let n = static_of(tv.size()).unwrap_or(0);
    let tile: i64 = tc
        .tiler()
        .leaves()
        .iter()
        .filter_map(Int::as_static)
        .product();
    let image: BTreeSet<i64> = (0..n).filter_map(|i| tv.eval(i).ok()).collect();
    if n != tile || image.len() as i64 != tile || image.iter().any(|&x| x < 0 || x >= tile) {
        return Err(plan.error(
            part,
            format!("its TV layout {tv} does not cover its {tile}-element tile exactly once"),
        ));
    }
    Ok(())
}

/// `max_ways` of warp 0's shared-memory accesses of a fragment: one instruction per value (or per
/// 4-value vector) and k block.
pub fn bank_ways(f: &Frag, values: i64, k_blocks: i64, bits: i64) -> Option<i64> {
    let per = (bits / 32) as usize;
    let coords = (0..k_blocks).flat_map(|kb| (0..values).step_by(per).map(move |v| (v, kb)));
    warp_max_ways(f, coords, bits)
}

/// `max_ways` of warp 0's shared-memory writes of a copy fragment `(V, n1, n2, pipe)`: one
/// instruction per vector.
pub fn copy_bank_ways(f: &Frag, bits: i64) -> Option<i64> {
    let n2 = f.mode_size(2);
    let coords = (0..f.mode_size(1)).flat_map(|i| (0..n2).map(move |j| (i, j)));
    warp_max_ways(f, coords, bits)
}

/// `max_ways` of warp 0 issuing one `bits`-wide access per fragment coordinate `(mode 1, mode 2)`
/// (stage 0), through the fragment's swizzle.
fn warp_max_ways(f: &Frag, coords: impl Iterator<Item = (i64, i64)>, bits: i64) -> Option<i64> {
    let per = bits / 32;
    let mut rows = Vec::new();
    for (a, b) in coords {
        let at = [
            cute_layout::s(0),
            cute_layout::s(a),
            cute_layout::s(b),
            cute_layout::s(0),
        ];
        let rel = f.rel(&at).ok()?.as_static()?;
        let row = (0..32)
            .map(|tid| {
                let o = super::frag::base_at(&f.base, tid)? + rel;
                let o = match f.swizzle {
                    Some(sw) => sw.apply(o).ok()?,
                    None => o,
                };
                Some(o / per)
            })
            .collect::<Option<Vec<i64>>>()?;
        rows.push(row);
    }
    cute_layout::bank_conflicts_of(&rows, bits)
        .ok()
        .map(|r| r.max_ways())
}
