//! Warp 0's shared-memory bank conflicts of a fragment's accesses: the figures a plan's swizzle
//! is chosen by and its kernel's header reports.

use cute_layout::atom::{
    make_tiled_copy_A, make_tiled_copy_B, CopyOp, Operand, TiledCopy, TiledMma,
};
use cute_layout::{AnyLayout, Int, MemSpace};

use super::frag::{self, Frag};

/// `max_ways` of warp 0 issuing one `bits`-wide access per fragment coordinate `(v, a, b)` of a
/// fragment `(V, n1, n2, PIPE)` (stage 0), its offsets counting `elem_bits`-bit elements,
/// through the fragment's swizzle (an access is named by the `bits`-wide unit it starts in).
/// `None` when an offset is not static.
pub fn warp_max_ways(
    f: &Frag,
    coords: impl Iterator<Item = (i64, i64, i64)>,
    elem_bits: i64,
    bits: i64,
) -> Option<i64> {
    // the 32 threads' bases are the same for every coordinate
    let bases = (0..32)
        .map(|tid| frag::base_at(&f.base, tid))
        .collect::<Option<Vec<i64>>>()?;
    let mut rows = Vec::new();
    for (v, a, b) in coords {
        let at = [v, a, b, 0].map(cute_layout::s);
        let rel = f.rel(&at).ok()?.as_static()?;
        let row = bases
            .iter()
            .map(|&base| {
                let o = base + rel;
                let o = match f.swizzle {
                    Some(sw) => sw.apply(o).ok()?,
                    None => o,
                };
                Some(o.checked_mul(elem_bits)?.div_euclid(bits))
            })
            .collect::<Option<Vec<i64>>>()?;
        rows.push(row);
    }
    cute_layout::bank_conflicts_of(&rows, bits)
        .ok()
        .map(|r| r.max_ways())
}

/// `max_ways` of a fragment accessed one `bits`-wide instruction per `bits / elem_bits` values
/// of mode 0 and per coordinate of modes 1 and 2.
pub fn fragment_ways(f: &Frag, elem_bits: i64, bits: i64) -> Option<i64> {
    let per = (bits / elem_bits).max(1) as usize;
    let (n0, n1, n2) = (f.mode_size(0), f.mode_size(1), f.mode_size(2));
    let coords = (0..n2)
        .flat_map(move |b| (0..n1).flat_map(move |a| (0..n0).step_by(per).map(move |v| (v, a, b))));
    warp_max_ways(f, coords, elem_bits, bits)
}

/// The bank conflicts of one tensor-core operand's shared tile (warp 0, stage 0): the
/// global->shared copy's writes and the shared->register copy's reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperandBanks {
    /// `max_ways` of the writes (1: conflict-free), and the access width.
    pub writes: i64,
    pub write_bits: i64,
    /// `max_ways` of the reads, and the access width.
    pub reads: i64,
    pub read_bits: i64,
}

impl OperandBanks {
    /// The ways weighed as the swizzle search weighs them: every value is written once and
    /// read by each warp along the other mode, so reads count four times.
    pub fn cost(&self) -> i64 {
        self.reads.saturating_mul(4).saturating_add(self.writes)
    }
}

impl OperandBanks {
    /// `"writes max_ways=1 (128-bit)"`.
    pub fn write_fmt(&self) -> String {
        format!("writes max_ways={} ({}-bit)", self.writes, self.write_bits)
    }

    /// `"reads max_ways=1 (128-bit)"`.
    pub fn read_fmt(&self) -> String {
        format!("reads max_ways={} ({}-bit)", self.reads, self.read_bits)
    }
}

/// The per-thread bits of one access by `op` (its source layout's value mode).
fn access_bits(op: &CopyOp) -> i64 {
    op.src_layout()
        .mode(1)
        .ok()
        .and_then(|m| m.size().ok())
        .and_then(|s| s.as_static())
        .unwrap_or(0)
}

/// The bank conflicts of operand `which` of a tensor-core plan in the shared layout `smem`
/// `(rows, BLK_K, PIPE)` of `elem_bits`-bit values: written by `copy`'s `partition_D`, read by
/// `make_tiled_copy_A/B(s2r, mma)`'s `partition_S`, as the kernel accesses them. A figure that
/// cannot be computed (an offset not static for warp 0) is `i64::MAX`.
pub fn tensor_core_operand(
    mma: &TiledMma,
    which: Operand,
    copy: &TiledCopy,
    s2r: &cute_layout::atom::CopyAtom,
    smem: &AnyLayout,
    elem_bits: i64,
) -> cute_layout::Result<OperandBanks> {
    let tid = Int::index("tid");
    let (t, sw) = frag::tensor("s", MemSpace::Smem, smem);
    let (writes, write_bits) = copy_writes(copy, smem, elem_bits)?;
    let reader = match which {
        Operand::A => make_tiled_copy_A(s2r, mma)?,
        _ => make_tiled_copy_B(s2r, mma)?,
    };
    let read_bits = access_bits(&s2r.op());
    let r = frag::copy(&reader.get_slice(&tid)?, &t, sw, true)?;
    let ways = |f: &Frag, bits| fragment_ways(f, elem_bits, bits).unwrap_or(i64::MAX);
    Ok(OperandBanks {
        writes,
        write_bits,
        reads: ways(&r, read_bits),
        read_bits,
    })
}

/// `max_ways` of warp 0's writes of `copy`'s `partition_D` of the shared layout `smem` of
/// `elem_bits`-bit values, and the access width: the figure of an operand an MMA reads from
/// shared memory itself (a GMMA's, by descriptor).
pub fn copy_writes(
    copy: &TiledCopy,
    smem: &AnyLayout,
    elem_bits: i64,
) -> cute_layout::Result<(i64, i64)> {
    let tid = Int::index("tid");
    let (t, sw) = frag::tensor("s", MemSpace::Smem, smem);
    let bits = access_bits(&copy.atom().op());
    let w = frag::copy(&copy.get_slice(&tid)?, &t, sw, false)?;
    Ok((fragment_ways(&w, elem_bits, bits).unwrap_or(i64::MAX), bits))
}
