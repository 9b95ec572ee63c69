//! The k-block loop in trips: `n` of a k-tile's k blocks unrolled per trip of a rolled loop (a
//! shorter NVRTC compile than the whole k-tile), the fragments read by `ld.shared.v4` at immediate
//! offsets from one shared-window byte address per operand, stepped from trip to trip.

use super::{
    frag, issue_tile, next_stage, outer_product, value_offsets, vectorizable, Frag, Parts, Writer,
};

/// The largest shared-memory alignment the trip form relies on. `extern __shared__
/// __align__(N)` aligns the dynamic shared memory only within the CTA's shared window, which
/// starts after the 1 KiB the hardware reserves per CTA: measured on the H200, the window address
/// of a kernel without static shared memory is 0x400 for every N from 16 to 4096. A swizzle whose
/// flipped bits would need more is not emitted in the trip form.
const MAX_SMEM_ALIGN: i64 = 1024;

/// A k-block loop in trips of `n` k blocks whose fragment reads are `ld.shared` at immediate
/// offsets from one shared-window byte address per operand; the dynamic shared memory is
/// declared `align`-byte aligned (the XOR of a swizzled read must not reach the array's base).
/// `ks` is each operand's (A, B) k-block stride, as proved.
#[derive(Clone, Copy)]
pub(super) struct Trips {
    pub(super) n: i64,
    pub(super) align: i64,
    pub(super) ks: [i64; 2],
}

/// The trip form of a plan's k-block loop, when it has a partial unroll `n` and both fragments'
/// reads take it ([`trip_align`]); the shared memory is then aligned for both.
pub(super) fn trip_form(parts: &Parts) -> Option<Trips> {
    let p = parts.p;
    let (bk, n) = (p.cta.2, p.k_block_unroll?);
    if n >= bk {
        return None;
    }
    let trip = TripShape {
        threads: parts.threads,
        n,
        bk,
        stages: p.stages,
    };
    let (align_a, ks_a) = trip_align(&parts.mma_a, &trip, parts.stage[0], 0)?;
    let b_offset = parts.copy[1].smem_offset;
    let (align_b, ks_b) = trip_align(&parts.mma_b, &trip, parts.stage[1], b_offset)?;
    Some(Trips {
        n,
        align: align_a.max(align_b),
        ks: [ks_a, ks_b],
    })
}

/// The loop a fragment is read in: threads, k blocks per trip and per k-tile, stages.
struct TripShape {
    threads: i64,
    n: i64,
    bk: i64,
    stages: i64,
}

/// Whether a fragment's reads in a trip of `n` k blocks can be `ld.shared.v4` at one byte
/// address per thread plus an immediate, with the shared-memory alignment that needs and the
/// k-block stride `ks`. The address `X = 4 * (array + base + kb0 * ks + pipe * stage)` holds the
/// trip (`kb0` a multiple of `n`) and the stage; k block `kb0 + kn`'s vector at `o` is read at
/// `(X ^ 4 * F(kn * ks)) + 4 * (kn * ks + o)`, with `F(x) = Sw(x) ^ x` the bits the swizzle flips
/// (none without one). That equals the swizzled element `Sw(base + (kb0 + kn) * ks + o + pipe *
/// stage)` when (checked here for every thread, k block, vector and stage) `Sw(base + (kb0 + kn)
/// * ks + o + pipe * stage) == ((base + kb0 * ks + pipe * stage) ^ F(kn * ks)) + kn * ks + o`,
/// and the XOR stays below the array's byte offset `4 * array` and the shared-memory base: both
/// multiples of the returned power of two above every `4 * F`, at most [`MAX_SMEM_ALIGN`].
fn trip_align(f: &Frag, trip: &TripShape, stage: i64, array: i64) -> Option<(i64, i64)> {
    let ks = f.mode_stride(2)?;
    let offs = value_offsets(f);
    if !vectorizable(f, &offs, trip.threads, stage) {
        return None;
    }
    let Some(sw) = f.swizzle else {
        return Some((16, ks));
    };
    let flip = |kn: i64| sw.apply(kn * ks).ok().map(|x| x ^ (kn * ks));
    let flips: Vec<i64> = (0..trip.n).map(flip).collect::<Option<_>>()?;
    let top = flips.iter().map(|&x| 4 * x).max().unwrap_or(0);
    let align = i64::try_from(u64::try_from(top + 1).ok()?.checked_next_power_of_two()?)
        .ok()?
        .max(16);
    if align > MAX_SMEM_ALIGN || (4 * array) % align != 0 {
        return None;
    }
    let firsts: Vec<i64> = offs.chunks(4).map(|g| g[0]).collect();
    let holds = (0..trip.threads).all(|tid| {
        let Some(base) = frag::base_at(&f.base, tid) else {
            return false;
        };
        (0..trip.bk).all(|kb| {
            let (kb0, kn) = (kb - kb % trip.n, kb % trip.n);
            firsts.iter().all(|&o| {
                (0..trip.stages).all(|p| {
                    let full = sw.apply(base + kb * ks + o + p * stage).ok();
                    let trip = ((base + kb0 * ks + p * stage) ^ flips[kn as usize]) + kn * ks + o;
                    full == Some(trip)
                })
            })
        })
    });
    holds.then_some((align, ks))
}

/// The k blocks of a k-tile in trips of `n`: the trip loop stays rolled (a shorter NVRTC
/// compile), a trip's `n` k blocks are unrolled and read at immediate offsets from the trip's
/// byte addresses `tA_t`/`tB_t` ([`trip_form`]). The last k block of a trip moves them on by a
/// uniform step: `n` k blocks, or after the k-tile's last trip back to k block 0 of the next
/// stage. `kb0` is a multiple of `n`, itself even (checked by verification), so the register
/// buffer `(kb1 + 1) & 1` is static.
pub(super) fn k_block_trips(w: &mut Writer, parts: &Parts, t: &Trips) {
    let (bk, stages, n) = (parts.p.cta.2, parts.p.stages, t.n);
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
    for (q, which) in ["A", "B"].into_iter().enumerate() {
        let (ks, stage) = (t.ks[q], parts.stage[q]);
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
    load_frags_trip(w, parts, t, "(kb1 + 1) & 1");
    w.open("if (kb1 == 0 && kb0 == 0)");
    issue_tile(w, stages);
    w.close("");
    outer_product(w, parts, "kb1 & 1");
    w.close("");
    w.close("");
}

/// Loads the register fragments of k block `kb0 + kn` of stage `pipe_read` into buffer `buf`, in
/// a trip of the k-block loop: one `ld.shared.v4` per vector at `t{A,B}_t` plus an immediate, a
/// swizzled operand's address first XORed with the bits its swizzle flips at k block `kn`
/// ([`trip_form`] proves both forms for every thread, k block, vector and stage).
pub(super) fn load_frags_trip(w: &mut Writer, parts: &Parts, t: &Trips, buf: &str) {
    for (q, (which, f)) in [("A", &parts.mma_a), ("B", &parts.mma_b)]
        .into_iter()
        .enumerate()
    {
        let ks = t.ks[q];
        let addr = match f.swizzle {
            Some(_) => format!("(t{which}_t ^ 4 * (swizzle_{which}(kn * {ks}) ^ (kn * {ks})))"),
            None => format!("t{which}_t"),
        };
        for (v, g) in value_offsets(f).chunks(4).enumerate() {
            w.line(format!(
                "{{ const float4 v = lds128({addr} + 4 * (kn * {ks} + {})); r{which}[{buf}][{}] = v.x; r{which}[{buf}][{}] = v.y; r{which}[{buf}][{}] = v.z; r{which}[{buf}][{}] = v.w; }}",
                g[0],
                4 * v,
                4 * v + 1,
                4 * v + 2,
                4 * v + 3
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use cute_layout::{s, tup, AnyLayout, ComposedLayout, Element, IntTuple, Layout, Swizzle};

    use super::super::{check_copies, partitions, verify, Pipelined, Policy};
    use super::*;
    use crate::gemm::{GemmLayout, GemmPlan};

    /// The plans the trip-form test runs: the named `sgemm-sm80` in trips of 8 in every layout,
    /// and, in NN and TN, B swizzled by every `Sw<B,2,S>` with B in 1..=3 and S in 3..=6, each
    /// with 2, 3 and 4 stages, their tiles compact (k stride 128) or padded (132, the form of
    /// `KMajorTile::Padded`) (those the verifier refuses are left out).
    fn plans() -> Vec<GemmPlan> {
        let mut out = Vec::new();
        for layout in GemmLayout::all() {
            let named =
                crate::named::plan_unrolled("sgemm-sm80", layout, &Default::default(), Some(8))
                    .unwrap();
            let mut swizzles = vec![None];
            if layout.to_string().ends_with('N') {
                for (b, sh) in (1..=3).flat_map(|b| (3..=6).map(move |sh| (b, sh))) {
                    swizzles.push(Some(Swizzle::new(b, 2, sh).unwrap()));
                }
            }
            for stages in 2..=4 {
                for (sw, pad) in swizzles.iter().map(|&sw| (sw, 0)).chain([(None, 4)]) {
                    let mut plan = named.clone();
                    let Policy::Pipelined(p) = &mut plan.policy else {
                        unreachable!()
                    };
                    restage(p, stages, sw, pad);
                    out.push(plan);
                }
            }
        }
        out
    }

    /// `p` with `stages` shared stages (and B's swizzle replaced when `sw` is given).
    fn restage(p: &mut Pipelined, stages: i64, sw: Option<Swizzle>, pad: i64) {
        let tile = |l: &Layout| {
            let (m, k) = (l.shape().leaves()[0].clone(), l.shape().leaves()[1].clone());
            let ld = 128 + pad;
            let st = s(ld * k.as_static().unwrap());
            Layout::new(tup![m, k, s(stages)], tup![s(1), s(ld), st]).unwrap()
        };
        p.stages = stages;
        p.smem_a = p.smem_a.map(|l| Ok(tile(l))).unwrap();
        p.smem_b = match sw {
            Some(sw) => ComposedLayout::composition(sw, s(0), tile(p.smem_b.shape_layout())),
            None => p.smem_b.map(|l| Ok(tile(l))).unwrap(),
        };
    }

    /// The element offsets of a shared tile, `[stage][k][row]`: the oracle, from the tile's
    /// layout alone.
    fn oracle(l: &AnyLayout) -> Vec<Vec<Vec<i64>>> {
        let shape: Vec<i64> = l
            .shape_layout()
            .shape()
            .leaves()
            .iter()
            .map(|x| x.as_static().unwrap())
            .collect();
        let at = |row: i64, k: i64, p: i64| {
            let c = IntTuple::Tuple([row, k, p].map(|x| IntTuple::Int(s(x))).to_vec());
            l.crd2idx(&c).unwrap().as_static().unwrap()
        };
        (0..shape[2])
            .map(|p| {
                (0..shape[1])
                    .map(|k| (0..shape[0]).map(|row| at(row, k, p)).collect())
                    .collect()
            })
            .collect()
    }

    /// The rows of A (or columns of B) that thread `tid`'s fragment values hold, from the C
    /// coordinate tensor (not from the fragments under test).
    fn rows(parts: &Parts, which: usize, tid: i64, count: i64) -> Vec<i64> {
        (0..count)
            .map(|v| {
                let at = if which == 0 {
                    [s(0), s(v), s(0)]
                } else {
                    [s(0), s(0), s(v)]
                };
                let c = IntTuple::Tuple(at.into_iter().map(IntTuple::Int).collect());
                let Element::Coord(crd) = parts.c_coord.at(&c).unwrap() else {
                    panic!("not a coordinate tensor")
                };
                let env = |n: &str| match n {
                    "tid" => Some(tid),
                    _ => Some(0),
                };
                crd[which].evaluate(&env).unwrap()
            })
            .collect()
    }

    /// Runs the kernel's trip reads of one operand for every thread over `stages + 1` k-tiles,
    /// with the shared memory at window address `smem`: the byte address stepped as
    /// `k_block_trips` emits it, every read as `load_frags_trip` emits it, each of the vector's
    /// four elements compared with the oracle. Returns how many elements were compared, or the
    /// first mismatch.
    fn run_reads(parts: &Parts, t: &Trips, which: usize, smem: i64) -> Result<usize, String> {
        let p = parts.p;
        let (f, l, array) = if which == 0 {
            (&parts.mma_a, &p.smem_a, 0)
        } else {
            (&parts.mma_b, &p.smem_b, parts.copy[1].smem_offset)
        };
        let (bk, n, ks, stage) = (p.cta.2, t.n, t.ks[which], parts.stage[which]);
        let flip = |kn: i64| {
            f.swizzle
                .map_or(0, |sw| sw.apply(kn * ks).unwrap() ^ (kn * ks))
        };
        let offs = value_offsets(f);
        let table = oracle(l);
        let mut checked = 0;
        for tid in 0..parts.threads {
            let rows = rows(parts, which, tid, offs.len() as i64);
            let mut x = smem + 4 * (array + frag::base_at(&f.base, tid).unwrap());
            let mut pipe = 0;
            for _ in 0..=p.stages {
                for kb0 in (0..bk).step_by(n as usize) {
                    for kn in 0..n {
                        for (v, g) in offs.chunks(4).enumerate() {
                            let read = (x ^ (4 * flip(kn))) + 4 * (kn * ks + g[0]);
                            for e in 0..4 {
                                let (row, k) = (rows[4 * v + e] as usize, (kb0 + kn) as usize);
                                let want = smem + 4 * (array + table[pipe as usize][k][row]);
                                if read + 4 * e as i64 != want {
                                    return Err(format!(
                                        "tid {tid} k {} stage {pipe} value {}: {:#x} vs {want:#x}",
                                        kb0 + kn,
                                        4 * v + e,
                                        read + 4 * e as i64
                                    ));
                                }
                                checked += 1;
                            }
                        }
                    }
                    let prev = pipe;
                    if kb0 == bk - n {
                        pipe = (pipe + 1) % p.stages;
                    }
                    x += 4 * if kb0 == bk - n {
                        (pipe - prev) * stage - (bk - n) * ks
                    } else {
                        n * ks
                    };
                }
            }
        }
        Ok(checked)
    }

    /// The trip form as emitted, for every plan of [`plans`] the verifier accepts in that form:
    /// every thread's reads over several k-tiles, each element against the shared tile's own
    /// layout at the row the C coordinate tensor gives, with the shared memory at the H200's
    /// window address 0x400 and at other multiples of the largest alignment relied on. A
    /// misaligned base must fail for some swizzled plan (the negative control).
    #[test]
    fn trip_reads_equal_the_shared_tiles() {
        let (mut plans_checked, mut elements, mut control) = (0, 0, false);
        for plan in plans() {
            let Policy::Pipelined(p) = &plan.policy else {
                unreachable!()
            };
            if verify::pipelined(&plan, p).is_err() {
                continue;
            }
            let mut parts = partitions(&plan, p).unwrap();
            if check_copies(&plan, &parts).is_err() {
                continue;
            }
            let Some(t) = trip_form(&parts) else { continue };
            parts.trips = Some(t);
            for which in 0..2 {
                for smem in [0x400, 0, 3 * MAX_SMEM_ALIGN] {
                    match run_reads(&parts, &t, which, smem) {
                        Ok(n) => elements += n,
                        Err(e) => panic!("{} {}: {e}", plan.name, plan.layout),
                    }
                }
                control |= t.align > 16 && run_reads(&parts, &t, which, 0x400 + 16).is_err();
            }
            plans_checked += 1;
        }
        assert!(plans_checked >= 12, "{plans_checked} plans in trips");
        assert!(elements > 10_000_000, "{elements}");
        assert!(control, "no misaligned base was caught");
    }
}
