//! The k-block loop in trips: `n` of a k-tile's k blocks unrolled per trip of a rolled loop (a
//! shorter NVRTC compile than the whole k-tile), the fragments read by `ld.shared.v4` at immediate
//! offsets from one shared-window byte address per operand, stepped from trip to trip.

use super::{
    frag, issue_tile, next_stage, outer_product, stage_stride, value_offsets, vectorizable, Frag,
    Parts, Writer,
};
use crate::error::Result;

/// A k-block loop in trips of `n` k blocks whose fragment reads are `ld.shared` at immediate
/// offsets from one shared-window byte address per operand; the dynamic shared memory is
/// declared `align`-byte aligned (the XOR of a swizzled read must not reach the array's base).
#[derive(Clone, Copy)]
pub(super) struct Trips {
    pub(super) n: i64,
    pub(super) align: i64,
}

/// The trip form of a plan's k-block loop, when it has a partial unroll `n` and both fragments'
/// reads take it ([`trip_align`]); the shared memory is then aligned for both.
pub(super) fn trip_form(parts: &Parts) -> Option<Trips> {
    let p = parts.p;
    let (bk, n) = (p.cta.2, p.k_block_unroll?);
    if n >= bk {
        return None;
    }
    let a = trip_align(
        &parts.mma_a,
        parts.threads,
        n,
        bk,
        stage_stride(&p.smem_a),
        0,
    )?;
    let b = trip_align(
        &parts.mma_b,
        parts.threads,
        n,
        bk,
        stage_stride(&p.smem_b),
        parts.copy[1].smem_offset,
    )?;
    Some(Trips { n, align: a.max(b) })
}

/// Whether a fragment's reads in a trip of `n` k blocks can be `ld.shared.v4` at one byte
/// address per thread plus an immediate, and the shared-memory alignment that needs. The
/// address `X = 4 * (array + base + kb0 * ks + pipe * stage)` holds the trip (`kb0` a multiple of
/// `n`) and the stage; k block `kb0 + kn`'s vector at `o` is read at `(X ^ 4 * F(kn * ks)) + 4 *
/// (kn * ks + o)`, with `F(x) = Sw(x) ^ x` the bits the swizzle flips (none without one). That
/// equals the swizzled element `Sw(base + (kb0 + kn) * ks + o + pipe * stage)` when (checked
/// here for every thread, k block, vector and stage) `Sw(base + (kb0 + kn) * ks + o + pipe *
/// stage) == ((base + kb0 * ks + pipe * stage) ^ F(kn * ks)) + kn * ks + o`, and the XOR stays
/// below the array's byte offset `4 * array` and the shared-memory base: both multiples of the
/// returned power of two above every `4 * F`.
fn trip_align(f: &Frag, threads: i64, n: i64, bk: i64, stage: i64, array: i64) -> Option<i64> {
    let offs = value_offsets(f);
    if !vectorizable(f, &offs, threads, stage) {
        return None;
    }
    let Some(sw) = f.swizzle else { return Some(16) };
    let ks = f.mode_stride(2)?;
    let flip = |kn: i64| sw.apply(kn * ks).ok().map(|x| x ^ (kn * ks));
    let flips: Vec<i64> = (0..n).map(flip).collect::<Option<_>>()?;
    let top = flips.iter().map(|&x| 4 * x).max().unwrap_or(0);
    let align = i64::try_from(u64::try_from(top + 1).ok()?.checked_next_power_of_two()?)
        .ok()?
        .max(16);
    let firsts: Vec<i64> = offs.chunks(4).map(|g| g[0]).collect();
    let stages = f.mode_size(3).max(1);
    let holds = (0..threads).all(|tid| {
        let Some(base) = frag::base_at(&f.base, tid) else {
            return false;
        };
        (0..bk).all(|kb| {
            let (kb0, kn) = (kb - kb % n, kb % n);
            firsts.iter().all(|&o| {
                (0..stages).all(|p| {
                    let full = sw.apply(base + kb * ks + o + p * stage).ok();
                    let trip = ((base + kb0 * ks + p * stage) ^ flips[kn as usize]) + kn * ks + o;
                    full == Some(trip)
                })
            })
        })
    });
    (holds && (4 * array) % align == 0).then_some(align)
}

/// The k blocks of a k-tile in trips of `n`: the trip loop stays rolled (a shorter NVRTC
/// compile), a trip's `n` k blocks are unrolled and read at immediate offsets from the trip's
/// byte addresses `tA_t`/`tB_t` ([`trip_form`]). The last k block of a trip moves them on by a
/// uniform step: `n` k blocks, or after the k-tile's last trip back to k block 0 of the next
/// stage. `kb0` is a multiple of `n`, itself even (checked by verification), so the register
/// buffer `(kb1 + 1) & 1` is static.
pub(super) fn k_block_trips(
    w: &mut Writer,
    parts: &Parts,
    n: i64,
    stage_a: i64,
    stage_b: i64,
) -> Result<()> {
    let (bk, stages) = (parts.p.cta.2, parts.p.stages);
    w.comment(format!(
        "the {bk} k blocks in trips of {n}: a rolled trip loop, each trip's k blocks unrolled"
    ));
    w.line("#pragma unroll 1");
    w.open(format!("for (int kb0 = 0; kb0 < {bk}; kb0 += {n})"));
    w.line("#pragma unroll");
    w.open(format!("for (int kb1 = 0; kb1 < {n}; ++kb1)"));
    w.open(format!("if (kb1 == {})", n - 1));
    w.line("const int pipe_prev = pipe_read;");
    w.open(format!("if (kb0 == {})", bk - n));
    next_stage(w, stages);
    w.close("");
    w.comment(format!(
        "on to the next trip: {n} k blocks on, or k block 0 of the next stage"
    ));
    for (which, f, stage) in [("A", &parts.mma_a, stage_a), ("B", &parts.mma_b, stage_b)] {
        let ks = f.mode_stride(2).unwrap_or(0);
        w.line(format!(
            "t{which}_t += 4 * (kb0 == {} ? (pipe_read - pipe_prev) * {stage} - {} : {});",
            bk - n,
            (bk - n) * ks,
            n * ks
        ));
    }
    w.close("");
    w.line(format!(
        "const int kn = (kb1 + 1) % {n};  // the next k block, from tA_t/tB_t"
    ));
    load_frags_trip(w, parts, "(kb1 + 1) & 1");
    w.open("if (kb1 == 0 && kb0 == 0)");
    issue_tile(w, stages);
    w.close("");
    outer_product(w, parts, "kb1 & 1");
    w.close("");
    w.close("");
    Ok(())
}

/// Loads the register fragments of k block `kb0 + kn` of stage `pipe_read` into buffer `buf`, in
/// a trip of the k-block loop: one `ld.shared.v4` per vector at `t{A,B}_t` plus an immediate, a
/// swizzled operand's address first XORed with the bits its swizzle flips at k block `kn`
/// ([`trip_form`] proves both forms for every thread, k block, vector and stage).
pub(super) fn load_frags_trip(w: &mut Writer, parts: &Parts, buf: &str) {
    for (which, f) in [("A", &parts.mma_a), ("B", &parts.mma_b)] {
        let ks = f.mode_stride(2).unwrap_or(0);
        let t = match f.swizzle {
            Some(_) => format!("(t{which}_t ^ 4 * (swizzle_{which}(kn * {ks}) ^ (kn * {ks})))"),
            None => format!("t{which}_t"),
        };
        for (q, g) in value_offsets(f).chunks(4).enumerate() {
            w.line(format!(
                "{{ const float4 v = lds128({t} + 4 * (kn * {ks} + {})); r{which}[{buf}][{}] = v.x; r{which}[{buf}][{}] = v.y; r{which}[{buf}][{}] = v.z; r{which}[{buf}][{}] = v.w; }}",
                g[0],
                4 * q,
                4 * q + 1,
                4 * q + 2,
                4 * q + 3
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{partitions, Policy};
    use super::*;
    use crate::gemm::GemmLayout;

    /// The trip form as emitted, evaluated for every thread, k block, vector and stage of every
    /// named pipelined kernel (and its `--k-block-unroll 8` form) against the full swizzle, with
    /// the shared memory at several bases of the declared alignment: each read's byte address
    /// `(X ^ 4 * F(kn * ks)) + 4 * (kn * ks + o)`, and the trip address `X` itself as the kernel
    /// steps it (`n` k blocks on, or back to k block 0 of the next stage) over several k-tiles.
    #[test]
    fn trip_reads_equal_the_full_swizzle() {
        let mut checked = 0;
        for name in crate::named::NAMES {
            for layout in GemmLayout::all() {
                let Ok(plan) = crate::named::plan_unrolled(name, layout, Some(8)) else {
                    continue;
                };
                let Policy::Pipelined(p) = &plan.policy else {
                    continue;
                };
                let mut parts = partitions(&plan, p).unwrap();
                parts.trips = trip_form(&parts);
                let Some(t) = parts.trips else { continue };
                let (bk, n, stages) = (p.cta.2, t.n, p.stages);
                let ops = [
                    (&parts.mma_a, stage_stride(&p.smem_a), 0),
                    (
                        &parts.mma_b,
                        stage_stride(&p.smem_b),
                        parts.copy[1].smem_offset,
                    ),
                ];
                for (f, stage, array) in ops {
                    let ks = f.mode_stride(2).unwrap();
                    let sw = |x: i64| f.swizzle.map_or(x, |sw| sw.apply(x).unwrap());
                    let firsts: Vec<i64> = value_offsets(f).chunks(4).map(|g| g[0]).collect();
                    for smem in [0, t.align, 0x400, 7 * t.align] {
                        for tid in 0..parts.threads {
                            let base = frag::base_at(&f.base, tid).unwrap();
                            let byte = |e: i64| smem + 4 * (array + e);
                            // the kernel's trip address over 3 k-tiles, stepped as emitted
                            let (mut x, mut pipe) = (byte(base), 0);
                            for kt in 0..3 * stages {
                                for kb0 in (0..bk).step_by(n as usize) {
                                    assert_eq!(
                                        x,
                                        byte(base + kb0 * ks + pipe * stage),
                                        "{name} {layout} kt {kt}"
                                    );
                                    for kn in 0..n {
                                        let flip = sw(kn * ks) ^ (kn * ks);
                                        for &o in &firsts {
                                            let read = (x ^ (4 * flip)) + 4 * (kn * ks + o);
                                            let want =
                                                byte(sw(base + (kb0 + kn) * ks + o + pipe * stage));
                                            assert_eq!(
                                                read,
                                                want,
                                                "{name} {layout} tid {tid} kb {}",
                                                kb0 + kn
                                            );
                                            checked += 1;
                                        }
                                    }
                                    let prev = pipe;
                                    if kb0 == bk - n {
                                        pipe = (pipe + 1) % stages;
                                    }
                                    x += 4 * if kb0 == bk - n {
                                        (pipe - prev) * stage - (bk - n) * ks
                                    } else {
                                        n * ks
                                    };
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 1_000_000, "{checked}");
    }
}
