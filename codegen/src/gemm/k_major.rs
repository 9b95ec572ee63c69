//! The shared tile of a K-major operand of the SIMT GEMMs: the copy transposes it into an
//! M-/N-major `(rows, BK, stages)` tile (so the MMA reads 128-bit vectors of rows), padded or
//! swizzled against bank conflicts.

use cute_layout::atom::{Operand, TiledCopy, TiledMma};
use cute_layout::{compose_swizzle, s, tup, AnyLayout, Int, Layout, MemSpace, Swizzle};

/// The values a padded K-major shared column adds to its rows ([`KMajorTile::Padded`]): one
/// 16-byte vector, so each column starts 16-byte aligned and consecutive k's of a row fall 4
/// banks apart.
pub const K_MAJOR_PAD: i64 = 4;

/// The forms of a K-major operand's shared tile `(rows, BK, stages)` (`cute ... --k-major-tile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KMajorTile {
    /// Columns of `rows + K_MAJOR_PAD` values, `(rows,BK,stages):(1,rows+4,(rows+4) BK)`, as
    /// CuTe's SIMT `sgemm_sm80` pads its transposed tiles: the transposing copy's warp (4 rows
    /// by 8 k's) writes 32 distinct banks (`4 k + row`), the MMA's 128-bit reads stay aligned,
    /// and each read's address is the thread's base plus a constant. 16 bytes a k row more
    /// shared memory.
    Padded,
    /// No swizzle or a `Swizzle<B,2,S>` XORing K bits into the 16-byte groups of a column,
    /// whichever conflicts least: no extra shared memory, but each fragment read XORs a
    /// k-dependent value into its address.
    Swizzled,
}

/// The M-/N-major shared tile `(rows,BK,stages):(1,ld,ld BK)` of columns `ld` values apart.
fn tile(rows: i64, bk: i64, stages: i64, ld: i64) -> cute_layout::Result<Layout> {
    Layout::new(
        tup![s(rows), s(bk), s(stages)],
        tup![s(1), s(ld), s(ld * bk)],
    )
}

/// The compact tile `(rows,BK,stages):(1,rows,rows BK)` (an M-/N-major operand's, and the one
/// a K-major operand's swizzles compose with).
pub(crate) fn compact_tile(rows: i64, bk: i64, stages: i64) -> cute_layout::Result<Layout> {
    tile(rows, bk, stages, rows)
}

/// The padded tile `(rows,BK,stages):(1,rows+K_MAJOR_PAD,(rows+K_MAJOR_PAD) BK)`.
fn padded_tile(rows: i64, bk: i64, stages: i64) -> cute_layout::Result<Layout> {
    tile(rows, bk, stages, rows + K_MAJOR_PAD)
}

/// The shared tile among `forms` (in order of preference) with the fewest bank conflicts for
/// the transposing `copy`'s writes plus the `mma`'s 128-bit reads of operand `which`; the
/// earliest on ties. `(rows, bk, stages)` is the tile's shape.
pub(crate) fn best_tile(
    mma: &TiledMma,
    which: Operand,
    copy: &TiledCopy,
    (rows, bk, stages): (i64, i64, i64),
    forms: &[KMajorTile],
) -> cute_layout::Result<AnyLayout> {
    let plain = compact_tile(rows, bk, stages)?;
    let candidates = candidates(&plain, (rows, bk, stages), forms)?;
    let tid = Int::index("tid");
    let (mma_thr, copy_thr) = (mma.get_slice(&tid)?, copy.get_slice(&tid)?);
    // 1-way reads (4 phases of 128-bit) and writes: no candidate does better
    const LOWER_BOUND: i64 = 4 + 1;
    let mut best: Option<(i64, AnyLayout)> = None;
    for l in candidates {
        let (t, swz) = super::frag_tensor(&format!("s{which}"), MemSpace::Smem, &l);
        let f = super::frag_mma(&mma_thr, which, &t, swz)?;
        let reads = super::bank_ways(&f, f.mode_size(1), bk, 128).unwrap_or(i64::MAX);
        let w = super::frag_copy(&copy_thr, &t, swz, false)?;
        let writes = super::copy_bank_ways(&w, 32).unwrap_or(i64::MAX);
        let cost = reads.saturating_mul(4).saturating_add(writes);
        if best.as_ref().is_none_or(|(c, _)| cost < *c) {
            best = Some((cost, l));
        }
        if best.as_ref().is_some_and(|(c, _)| *c <= LOWER_BOUND) {
            break;
        }
    }
    Ok(best.map_or(AnyLayout::Plain(plain), |(_, l)| l))
}

/// The tiles of `forms`, in order: the padded one; no swizzle, then the widest swizzle first
/// (XOR targets at word bits [2, 2+B), and bits from 5 up do not change the bank, so B <= 3).
fn candidates(
    plain: &Layout,
    (rows, bk, stages): (i64, i64, i64),
    forms: &[KMajorTile],
) -> cute_layout::Result<Vec<AnyLayout>> {
    let row_bits = rows.trailing_zeros() as i64; // log2 of the column length in elements
    let mut out = Vec::new();
    for form in forms {
        match form {
            KMajorTile::Padded => out.push(AnyLayout::Plain(padded_tile(rows, bk, stages)?)),
            KMajorTile::Swizzled => {
                out.push(AnyLayout::Plain(plain.clone()));
                out.extend(
                    (1..=3)
                        .rev()
                        .filter_map(|b| Swizzle::new(b, 2, row_bits - 2).ok())
                        .map(|sw| compose_swizzle(sw, plain)),
                );
            }
        }
    }
    Ok(out)
}
