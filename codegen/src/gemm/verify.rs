//! Verification of a pipelined plan before emission: the pieces fit (threads, tiles, vector
//! widths, shared memory), and the shared-memory bank-conflict figures of its accesses.

use std::collections::BTreeSet;

use cute_layout::atom::{CopyOp, MmaOp, Operand};
use cute_layout::{s, AnyLayout, ElemType, Element, Int, IntTuple, Swizzle, Tensor};

use super::frag::Frag;
use super::plan::{GemmPlan, Pipelined};
use crate::error::Result;
use crate::target::Feature;

/// What verification found: the shared memory the kernel needs and notes for its header.
pub struct Report {
    /// Dynamic shared memory in bytes.
    pub smem_bytes: i64,
    /// Lines for the kernel's header comment.
    pub notes: Vec<String>,
}

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

/// The copies are `cp.async` (CACHEALWAYS or CACHEGLOBAL), and two copies of one width use one
/// cache policy (the kernel defines one `cp_async_<bytes>` helper per width).
fn copy_ops(plan: &GemmPlan, p: &Pipelined) -> Result<()> {
    let mut widths: Vec<(u32, &str)> = Vec::new();
    for (part, tc) in [("TiledCopy A", &p.copy_a), ("TiledCopy B", &p.copy_b)] {
        let (bits, cache) = match tc.atom().op() {
            CopyOp::CpAsyncCacheGlobal { bits } => (bits, "cg"),
            CopyOp::CpAsyncCacheAlways { bits } => (bits, "ca"),
            other => {
                return Err(plan.error(
                    part,
                    format!("{other}: the pipelined kernel copies with cp.async (CACHEALWAYS or CACHEGLOBAL) only"),
                ))
            }
        };
        if let Some((_, c)) = widths.iter().find(|(b, c)| *b == bits && *c != cache) {
            return Err(plan.error(
                part,
                format!("cp.async.{cache} of {bits} bits beside the other copy's cp.async.{c} of the same width: one cache policy per width"),
            ));
        }
        widths.push((bits, cache));
    }
    Ok(())
}

/// The instructions the atoms lower to exist on the plan's target.
fn features(plan: &GemmPlan, p: &Pipelined) -> Result<()> {
    let copy = |part, tc: &cute_layout::atom::TiledCopy| {
        let op = tc.atom().op();
        (part, op.to_string(), Feature::of_copy(&op))
    };
    let mma = p.mma.atom().op();
    for (part, op, need) in [
        copy("TiledCopy A", &p.copy_a),
        copy("TiledCopy B", &p.copy_b),
        ("TiledMMA", mma.to_string(), Feature::of_mma(&mma)),
    ] {
        if let Some(f) = need.filter(|&f| !plan.target.has(f)) {
            return Err(plan.error(
                part,
                format!(
                    "{op} lowers to {f}, which {} ({}) does not have",
                    plan.target, plan.target.devices
                ),
            ));
        }
    }
    Ok(())
}

/// The CTA tile is positive, BK even (the two register buffers alternate k block by k block and
/// the k-tile loop restarts them), and there are at least two stages (one being read while the
/// next is copied).
fn pipeline_shape(plan: &GemmPlan, p: &Pipelined) -> Result<()> {
    let (bm, bn, bk) = p.cta;
    if bm <= 0 || bn <= 0 || bk <= 0 {
        return Err(plan.error("CTA tile", format!("({bm},{bn},{bk}) must be positive")));
    }
    if bk % 2 != 0 {
        return Err(plan.error(
            "CTA tile",
            format!("BK = {bk} must be even: the two register buffers alternate across k-tiles"),
        ));
    }
    if p.stages < 2 {
        return Err(plan.error(
            "stages",
            format!(
                "{} stages: at least 2 (one read while the next is copied)",
                p.stages
            ),
        ));
    }
    Ok(())
}

/// The TiledMMA is what the emitter writes: each thread owns `fm` rows of A and `fn` columns of B
/// for every k block of the tile, and C value `(i, j)` is row `i` of its A fragment times column
/// `j` of its B fragment (`acc[i + fm*j] += rA[i] * rB[j]`); the C fragments of all threads
/// cover the CTA tile exactly once (no thread layout along K, no permutation leaving the tile).
fn outer_product(plan: &GemmPlan, p: &Pipelined, threads: i64) -> Result<()> {
    let (bm, bn, bk) = p.cta;
    let max_registers = plan.target.max_registers_per_thread;
    if bm.saturating_mul(bn) > max_registers.saturating_mul(threads) {
        return Err(plan.error(
            "TiledMMA",
            format!("a ({bm},{bn}) C tile over {threads} threads is more accumulators than a thread's {max_registers} registers on {}", plan.target),
        ));
    }
    let [a, b, c] = fragments(plan, p)?;
    let fail = || {
        plan.error("TiledMMA", "its A, B and C fragments are not one outer product per thread covering the CTA tile once")
    };
    let (fm, fn_) = (a.values, b.values);
    let mut covered = vec![false; (bm * bn) as usize];
    for tid in 0..threads {
        let (oa, ob, oc) = (
            a.origin(tid).ok_or_else(fail)?,
            b.origin(tid).ok_or_else(fail)?,
            c.origin(tid).ok_or_else(fail)?,
        );
        for (f, o, which) in [(&a, oa, "A"), (&b, ob, "B")] {
            if !f.walks_k(o, bk) {
                return Err(plan.error(
                    "TiledMMA",
                    format!("thread {tid}'s {which} fragment does not walk k blocks 0..{bk} in order, one row (column) per value"),
                ));
            }
        }
        let row = |i: i64| oa.0 + a.table[(i * bk) as usize].0;
        let col = |j: i64| ob.0 + b.table[(j * bk) as usize].0;
        for i in 0..fm {
            for j in 0..fn_ {
                let (dm, dn) = c.table[(i * fn_ + j) as usize];
                let (m, n) = (oc.0 + dm, oc.1 + dn);
                if (m, n) != (row(i), col(j)) || !(0..bm).contains(&m) || !(0..bn).contains(&n) {
                    return Err(plan.error(
                        "TiledMMA",
                        format!("thread {tid}'s C value ({i},{j}) is ({m},{n}), not its A row {} times its B column {} inside the ({bm},{bn}) tile", row(i), col(j)),
                    ));
                }
                if std::mem::replace(&mut covered[(m + bm * n) as usize], true) {
                    return Err(plan.error(
                        "TiledMMA",
                        format!("C element ({m},{n}) of the tile is computed twice"),
                    ));
                }
            }
        }
    }
    let done = covered.iter().filter(|&&c| c).count() as i64;
    if done != bm * bn {
        return Err(plan.error(
            "TiledMMA",
            format!(
                "its threads compute {done} of the {} elements of the C tile",
                bm * bn
            ),
        ));
    }
    Ok(())
}

/// One MMA operand's fragment over an identity tile: each thread's origin (an expression of
/// `tid`) and the static coordinate offset of every `(value, k block or column)` pair.
struct FragCoords {
    origin: Vec<Int>,
    /// `(value, j)` -> coordinate offset, row-major over `cols`.
    table: Vec<(i64, i64)>,
    values: i64,
    cols: i64,
}

impl FragCoords {
    /// A layout is a sum over its modes: offset(i, j) = offset(i, 0) + offset(0, j).
    fn of(t: &Tensor, values: i64, cols: i64) -> Option<FragCoords> {
        let zero = IntTuple::Tuple(vec![IntTuple::Int(s(0)); 3]);
        let origin = match t.at(&zero) {
            Ok(Element::Coord(v)) if v.len() == 2 => v,
            _ => return None,
        };
        let delta = |i: i64, j: i64| -> Option<(i64, i64)> {
            let c = IntTuple::Tuple(vec![
                IntTuple::Int(s(0)),
                IntTuple::Int(s(i)),
                IntTuple::Int(s(j)),
            ]);
            let d = t.coord_delta(&c).ok()?;
            Some((d.first()?.as_static()?, d.get(1)?.as_static()?))
        };
        let rows: Vec<(i64, i64)> = (0..values).map(|i| delta(i, 0)).collect::<Option<_>>()?;
        let tail: Vec<(i64, i64)> = (0..cols).map(|j| delta(0, j)).collect::<Option<_>>()?;
        let table = rows
            .iter()
            .flat_map(|r| tail.iter().map(move |c| (r.0 + c.0, r.1 + c.1)))
            .collect();
        Some(FragCoords {
            origin,
            table,
            values,
            cols,
        })
    }

    /// Thread `tid`'s origin.
    fn origin(&self, tid: i64) -> Option<(i64, i64)> {
        let env = |n: &str| (n == "tid").then_some(tid);
        Some((
            self.origin[0].evaluate(&env)?,
            self.origin[1].evaluate(&env)?,
        ))
    }

    /// Whether every value keeps one row (or column) and walks k blocks `0..bk` in order.
    fn walks_k(&self, origin: (i64, i64), bk: i64) -> bool {
        (0..self.values).all(|i| {
            let first = self.table[(i * self.cols) as usize].0;
            (0..bk).all(|kb| {
                let (r, k) = self.table[(i * self.cols + kb) as usize];
                r == first && origin.1 + k == kb
            })
        })
    }
}

/// The A `(fm, BK)`, B `(fn, BK)` and C `(fm, fn)` fragments of a thread over identity tiles,
/// refused unless each thread owns whole rows of A and columns of B over all k blocks and their
/// outer product in C.
fn fragments(plan: &GemmPlan, p: &Pipelined) -> Result<[FragCoords; 3]> {
    let err = plan.layout_error("TiledMMA");
    let (bm, bn, bk) = p.cta;
    let thr = p.mma.get_slice(&Int::index("tid")).map_err(&err)?;
    let part = |which: Operand, rows: i64, cols: i64| -> Result<Tensor> {
        let id = Tensor::identity(&IntTuple::Tuple(vec![
            IntTuple::Int(s(rows)),
            IntTuple::Int(s(cols)),
        ]))
        .map_err(&err)?;
        thr.partition(which, &id).map_err(&err)
    };
    let (ta, tb, tc) = (
        part(Operand::A, bm, bk)?,
        part(Operand::B, bn, bk)?,
        part(Operand::C, bm, bn)?,
    );
    let size = |t: &Tensor, i: usize| {
        t.layout()
            .shape_layout()
            .mode(i)
            .ok()
            .and_then(|m| static_of(m.size()))
            .unwrap_or(-1)
    };
    let (fm, fn_) = (size(&ta, 1), size(&tb, 1));
    let shapes = [
        size(&ta, 0),
        size(&tb, 0),
        size(&tc, 0),
        size(&ta, 2),
        size(&tb, 2),
    ];
    if shapes != [1, 1, 1, bk, bk] || size(&tc, 1) != fm || size(&tc, 2) != fn_ {
        return Err(plan.error(
            "TiledMMA",
            format!("each thread must own whole rows of A and columns of B over all {bk} k blocks and their outer product in C; its fragments are A {}, B {}, C {}", ta.layout(), tb.layout(), tc.layout()),
        ));
    }
    let coords = |t: &Tensor, n: i64, m: i64| {
        FragCoords::of(t, n, m).ok_or_else(|| {
            plan.error(
                "TiledMMA",
                format!("its fragment {} has symbolic coordinates", t.layout()),
            )
        })
    };
    Ok([
        coords(&ta, fm, bk)?,
        coords(&tb, fn_, bk)?,
        coords(&tc, fm, fn_)?,
    ])
}

/// The offsets after which a swizzle repeats: `2^(B + M + max(S, 0))`.
pub fn swizzle_period(sw: Swizzle) -> i64 {
    let (b, m, s) = sw.params();
    1i64 << (i64::from(b) + i64::from(m) + i64::from(s.max(0)))
}

/// How many k blocks of stride `ks` a swizzle takes to repeat (at most BK), when `ks` divides
/// its period.
pub fn swizzle_phases(sw: Swizzle, ks: i64, bk: i64) -> Option<i64> {
    let period = swizzle_period(sw);
    (ks > 0 && period % ks == 0).then(|| (period / ks).min(bk))
}

/// Where sB starts and how many elements the two shared tiles take: sB is placed after sA,
/// rounded up to 128 bytes (the alignment of 128-bit accesses and of every swizzle the
/// bank analysis picks).
pub fn smem_offsets(p: &Pipelined) -> (i64, i64) {
    let cosize = |l: &AnyLayout| static_of(l.shape_layout().cosize()).unwrap_or(0);
    let b_offset = (cosize(&p.smem_a) + 31) / 32 * 32;
    (b_offset, b_offset + cosize(&p.smem_b))
}

/// A shared tile `(rows, BK, stages)` is stored without overlap: its stage mode is one static
/// stride (the kernel addresses stage `pipe` as `pipe * stride`), and every element of every
/// stage, through the swizzle, has its own offset inside the allocation (the inner layout's
/// cosize).
fn storage(plan: &GemmPlan, part: &'static str, l: &AnyLayout) -> Result<()> {
    let inner = l.shape_layout();
    let stage = inner
        .mode(2)
        .ok()
        .and_then(|m| m.stride().as_int().and_then(Int::as_static));
    if stage.is_none_or(|s| s <= 0) {
        return Err(plan.error(
            part,
            format!("{l}: its stage mode must be one static positive stride"),
        ));
    }
    let alloc = static_of(inner.cosize()).unwrap_or(0);
    let max = plan.target.smem_per_block;
    if alloc.saturating_mul(4) > max {
        return Err(plan.error(
            "shared memory",
            format!(
                "{part}, {l}, takes {} bytes; a block on {} has at most {max}",
                alloc.saturating_mul(4),
                plan.target
            ),
        ));
    }
    if static_of(inner.size()).is_none_or(|n| n > alloc) {
        return Err(plan.error(
            part,
            format!("{l} has more elements than offsets: stages and k blocks must not overlap"),
        ));
    }
    let sw = match l {
        AnyLayout::Composed(c) => Some(c.layout_a()),
        AnyLayout::Plain(_) => None,
    };
    let Some(offsets) = static_offsets(inner) else {
        return Err(plan.error(part, format!("{l} must be static")));
    };
    let mut seen = vec![false; alloc.max(0) as usize];
    for o in offsets {
        let o = match sw {
            Some(sw) => sw.apply(o).map_err(plan.layout_error(part))?,
            None => o,
        };
        let Some(slot) = usize::try_from(o).ok().and_then(|i| seen.get_mut(i)) else {
            return Err(plan.error(
                part,
                format!("{l} puts an element at {o}, outside its {alloc}-element allocation"),
            ));
        };
        if std::mem::replace(slot, true) {
            return Err(plan.error(
                part,
                format!("{l} puts two elements at {o}: stages and k blocks must not overlap"),
            ));
        }
    }
    Ok(())
}

/// Every offset of a static layout (in no particular order), from its flattened shape and
/// stride: one addition per element.
fn static_offsets(l: &cute_layout::Layout) -> Option<Vec<i64>> {
    let shape = l.shape().leaves();
    let stride = l.stride().leaves();
    let mut offsets = vec![0i64];
    for (n, d) in shape.iter().zip(&stride) {
        let (n, d) = (n.as_static()?, d.as_static()?);
        offsets = offsets
            .iter()
            .flat_map(|&o| (0..n).map(move |c| o + c * d))
            .collect();
    }
    Some(offsets)
}

fn static_of(x: cute_layout::Result<Int>) -> Option<i64> {
    x.ok().and_then(|v| v.as_static())
}

/// Checks a pipelined plan.
pub fn pipelined(plan: &GemmPlan, p: &Pipelined) -> Result<Report> {
    element_types(plan, p)?;
    copy_ops(plan, p)?;
    features(plan, p)?;
    pipeline_shape(plan, p)?;
    let threads = threads_and_tiles(plan, p)?;
    outer_product(plan, p, threads)?;
    shared_tiles(plan, p)?;
    let mut notes = Vec::new();
    let smem_bytes = smem_budget(plan, p, &mut notes)?;
    k_block_unroll(plan, p)?;
    launch_bounds(plan, p, threads, smem_bytes, &mut notes)?;
    notes.push(
        "barriers: a stage is overwritten only after the __syncthreads that follows its last read"
            .into(),
    );
    Ok(Report { smem_bytes, notes })
}

/// The thread count (static, 1..1024, the same for the copies and the MMA), each copy covering
/// its tile once, and the MMA's and the copies' tiles dividing the CTA tile.
fn threads_and_tiles(plan: &GemmPlan, p: &Pipelined) -> Result<i64> {
    let threads = static_of(p.mma.num_threads())
        .ok_or_else(|| plan.error("TiledMMA", "thread count must be static"))?;
    let max_threads = plan.target.max_threads_per_block;
    if !(1..=max_threads).contains(&threads) {
        return Err(plan.error(
            "TiledMMA",
            format!("{threads} threads: a CTA has 1 to {max_threads}"),
        ));
    }
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
    Ok(threads)
}

/// Each shared tile is `(rows, BK, stages)`, its swizzle keeps 16-byte vectors whole, and it is
/// stored without overlap (`storage`).
fn shared_tiles(plan: &GemmPlan, p: &Pipelined) -> Result<()> {
    let (bm, bn, bk) = p.cta;
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
        storage(plan, part, l)?;
    }
    Ok(())
}

/// The shared memory of both tiles (bytes), within a block's limit; notes the opt-in.
fn smem_budget(plan: &GemmPlan, p: &Pipelined, notes: &mut Vec<String>) -> Result<i64> {
    let (_, elems) = smem_offsets(p);
    let smem_bytes = elems.saturating_mul(4);
    let max = plan.target.smem_per_block;
    if smem_bytes > max {
        return Err(plan.error(
            "shared memory",
            format!(
                "{smem_bytes} bytes exceed the {max} a block can have on {}",
                plan.target
            ),
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
    Ok(smem_bytes)
}

/// A partial k-block unroll keeps the register-buffer and swizzle-phase indices static.
fn k_block_unroll(plan: &GemmPlan, p: &Pipelined) -> Result<()> {
    let bk = p.cta.2;
    if let Some(n) = p.k_block_unroll {
        if n < 2 || n % 2 != 0 || bk % n != 0 {
            return Err(plan.error(
                "k-block unroll",
                format!("{n} must be even and divide BK = {bk} (the register buffers alternate)"),
            ));
        }
        for (part, l) in [("shared A", &p.smem_a), ("shared B", &p.smem_b)] {
            if let AnyLayout::Composed(c) = l {
                let k_stride = c
                    .layout_b()
                    .mode(1)
                    .ok()
                    .and_then(|m| m.stride().as_int().and_then(Int::as_static))
                    .unwrap_or(0);
                let phases = swizzle_phases(c.layout_a(), k_stride, bk).unwrap_or(1);
                if n % phases != 0 {
                    return Err(plan.error(
                        "k-block unroll",
                        format!("{n} is not a multiple of the {phases} swizzle phases of {part}"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The CTAs per SM of `__launch_bounds__` fit an SM of the target: its shared memory (with
/// what the hardware reserves per CTA), threads and CTA limit, and the registers each thread
/// is left at that occupancy hold its accumulators; notes the register cap when the kernel is
/// built for more than one CTA per SM.
fn launch_bounds(
    plan: &GemmPlan,
    p: &Pipelined,
    threads: i64,
    smem_bytes: i64,
    notes: &mut Vec<String>,
) -> Result<()> {
    let (t, want) = (&plan.target, p.min_blocks_per_sm);
    let refuse = |msg: String| Err(plan.error("launch bounds", msg));
    if want < 1 {
        return refuse("at least one CTA per SM".into());
    }
    let occ = t.occupancy(threads, 1, smem_bytes);
    if occ.by_shared_memory < want {
        return refuse(format!(
            "{want} CTAs of {smem_bytes} bytes of shared memory (and the {} the hardware reserves for each) exceed the {} bytes of an SM on {t} ({}): {} fit",
            t.smem_reserved_per_block, t.smem_per_sm, t.devices, occ.by_shared_memory
        ));
    }
    if occ.by_threads < want {
        return refuse(format!(
            "{want} CTAs of {threads} threads exceed the {} resident threads of an SM on {t} ({})",
            t.max_threads_per_sm, t.devices
        ));
    }
    if occ.by_blocks < want {
        return refuse(format!(
            "{want} CTAs exceed the {} resident CTAs of an SM on {t} ({})",
            t.max_blocks_per_sm, t.devices
        ));
    }
    let registers = t.registers_per_thread_at(threads, want);
    let accumulators = p.cta.0 * p.cta.1 / threads;
    if registers < accumulators {
        return refuse(format!(
            "{want} CTAs of {threads} threads leave a thread {registers} registers on {t} ({} per SM, allocated per warp in units of 256), fewer than its {accumulators} accumulators",
            t.registers_per_sm
        ));
    }
    // the kernel's own shared memory; the check above added the reservation
    notes.extend(t.occupancy_note(threads, want, smem_bytes));
    Ok(())
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
    let coords = (0..k_blocks).flat_map(|kb| (0..values).step_by(per).map(move |v| (0, v, kb)));
    super::banks::warp_max_ways(f, coords, 32, bits)
}

/// `max_ways` of warp 0's shared-memory writes of a copy fragment `(V, n1, n2, pipe)`: one
/// instruction per vector.
pub fn copy_bank_ways(f: &Frag, bits: i64) -> Option<i64> {
    let n2 = f.mode_size(2);
    let coords = (0..f.mode_size(1)).flat_map(|i| (0..n2).map(move |j| (0, i, j)));
    super::banks::warp_max_ways(f, coords, 32, bits)
}
