//! Access-pattern analysis: shared-memory bank conflicts and global-memory coalescing, computed
//! from the layout of an access before any kernel exists.
//!
//! An access pattern is a layout (plain or swizzled) whose mode 0 is the thread index and whose
//! other modes enumerate the access instructions; its offsets are in units of the access width
//! (32, 64 or 128 bits). Threads are grouped in warps of 32 (a partial last warp is allowed).
//!
//! Shared memory has 32 banks of 4 bytes. A 32-bit access is served a warp at a time; 64- and
//! 128-bit accesses are split into phases of 16 and 8 threads (half- and quarter-warps), each
//! phase moving at most 128 bytes. In a phase, threads reading the same 4-byte word share it
//! (broadcast); distinct words in one bank take one wavefront each. The conflict degree of a
//! phase is the most distinct words any bank holds; `max_ways == 1` means conflict-free.
//!
//! Global memory is read in 32-byte sectors: a warp request costs the distinct sectors its
//! threads touch, against the ideal of its distinct bytes packed into sectors.

use std::collections::{BTreeMap, BTreeSet};

use crate::composed::AnyLayout;
use crate::error::{algebra, Result};
use crate::int::d;
use crate::int_tuple::IntTuple;

/// The most (thread, instruction) pairs an analysis visits.
pub const MAX_ACCESSES: i64 = 1 << 22;

/// One warp executing one instruction, in shared memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarpBanks {
    /// The instruction index (colexicographic over modes 1..).
    pub instruction: i64,
    /// The warp index.
    pub warp: i64,
    /// Wavefronts needed.
    pub wavefronts: i64,
    /// Wavefronts without conflicts (one per phase with active threads).
    pub ideal: i64,
    /// The worst phase's most distinct words in one bank.
    pub ways: i64,
    /// For the worst bank: (bank, the threads that read distinct words there).
    pub worst: Option<(i64, Vec<i64>)>,
}

/// The shared-memory report of an access pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BankReport {
    /// The access width in bits.
    pub bits: i64,
    /// One entry per (instruction, warp).
    pub warps: Vec<WarpBanks>,
}

impl BankReport {
    /// The worst conflict degree over all instructions and warps (1: conflict-free).
    ///
    /// ```
    /// # use cute_layout::*;
    /// let stride2 = AnyLayout::from(Layout::new(s(32), s(2))?); // thread t reads word 2t
    /// assert_eq!(bank_conflicts(&stride2, 32)?.max_ways(), 2); // banks 0,2,..,30 twice each
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn max_ways(&self) -> i64 {
        self.warps.iter().map(|w| w.ways).max().unwrap_or(1)
    }

    /// Total wavefronts and total ideal wavefronts.
    ///
    /// ```
    /// # use cute_layout::*;
    /// // 4 instructions of a warp reading words 2t: 2 wavefronts each where 1 would do
    /// let stride2 = AnyLayout::from(Layout::new(tup![s(32), s(4)], tup![s(2), s(64)])?);
    /// assert_eq!(bank_conflicts(&stride2, 32)?.totals(), (8, 4));
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn totals(&self) -> (i64, i64) {
        self.warps
            .iter()
            .fold((0, 0), |(a, b), w| (a + w.wavefronts, b + w.ideal))
    }
}

/// One warp executing one instruction, in global memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarpSectors {
    /// The instruction index.
    pub instruction: i64,
    /// The warp index.
    pub warp: i64,
    /// Distinct 32-byte sectors touched.
    pub sectors: i64,
    /// The sectors the distinct bytes would need if contiguous.
    pub ideal: i64,
}

/// The global-memory report of an access pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoalescingReport {
    /// The access width in bits.
    pub bits: i64,
    /// One entry per (instruction, warp).
    pub warps: Vec<WarpSectors>,
}

impl CoalescingReport {
    /// The average sectors per warp request.
    ///
    /// ```
    /// # use cute_layout::*;
    /// // 32 floats 8 bytes apart span 256 bytes: 8 sectors
    /// let stride2 = AnyLayout::from(Layout::new(s(32), s(2))?);
    /// assert_eq!(coalescing(&stride2, 32)?.sectors_per_request(), 8.0);
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn sectors_per_request(&self) -> f64 {
        average(self.warps.iter().map(|w| w.sectors))
    }

    /// The average ideal sectors per warp request.
    ///
    /// ```
    /// # use cute_layout::*;
    /// // the same 128 bytes packed together would fill 4 sectors
    /// let stride2 = AnyLayout::from(Layout::new(s(32), s(2))?);
    /// assert_eq!(coalescing(&stride2, 32)?.ideal_per_request(), 4.0);
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn ideal_per_request(&self) -> f64 {
        average(self.warps.iter().map(|w| w.ideal))
    }
}

fn average(xs: impl Iterator<Item = i64>) -> f64 {
    let (sum, n) = xs.fold((0i64, 0i64), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        0.0
    } else {
        sum as f64 / n as f64
    }
}

/// The offsets (in access units) of each thread, for each instruction: `[instruction][thread]`.
fn offsets(pattern: &AnyLayout) -> Result<Vec<Vec<i64>>> {
    let l = pattern.shape_layout();
    let known = |x: Option<i64>| {
        x.ok_or_else(|| crate::error::Error::Symbolic(format!("{pattern} has symbolic sizes")))
    };
    let threads = known(l.mode(0)?.size()?.value())?;
    let total = known(l.size()?.value())?;
    if threads <= 0 || total <= 0 {
        return Err(algebra(
            "access pattern",
            format!("{pattern} has {threads} threads and {total} accesses: both must be positive"),
        ));
    }
    if total > MAX_ACCESSES {
        return Err(algebra(
            "access pattern",
            format!("{pattern} has {total} accesses, more than {MAX_ACCESSES}"),
        ));
    }
    let rest = IntTuple::Tuple(
        l.modes()
            .iter()
            .skip(1)
            .map(|m| m.shape().clone())
            .collect(),
    );
    let instructions = total / threads;
    let mut out = Vec::with_capacity(instructions as usize);
    for i in 0..instructions {
        let mut row = Vec::with_capacity(threads as usize);
        for t in 0..threads {
            let mut c = vec![IntTuple::Int(d(t))];
            if l.rank() > 1 {
                c.extend(crate::stride::idx2crd(&IntTuple::Int(d(i)), &rest)?.modes());
            }
            let c = if l.rank() > 1 {
                IntTuple::Tuple(c)
            } else {
                c.remove(0)
            };
            row.push(known(pattern.crd2idx(&c)?.value())?);
        }
        out.push(row);
    }
    Ok(out)
}

fn check_bits(op: &'static str, bits: i64) -> Result<()> {
    if !matches!(bits, 32 | 64 | 128) {
        return Err(algebra(
            op,
            format!("access width {bits} bits is not 32, 64 or 128"),
        ));
    }
    Ok(())
}

/// The shared-memory wavefronts and conflict degree of each warp and instruction.
///
/// ```
/// # use cute_layout::*;
/// // UniversalFMA 16x16 reading B from a row-major (128,32) tile: 2-way conflict; swizzled: none.
/// let tcsb = Layout::new(
///     tup![tup![s(16), s(16)], tup![s(8), s(32)]],
///     tup![tup![s(0), s(32)], tup![s(512), s(1)]],
/// )?; // (thr,instr) -> offset
/// assert_eq!(bank_conflicts(&tcsb.clone().into(), 32)?.max_ways(), 2);
/// let swizzled = compose_swizzle(Swizzle::new(1, 2, 3)?, &tcsb);
/// assert_eq!(bank_conflicts(&swizzled, 32)?.max_ways(), 1);
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn bank_conflicts(pattern: &AnyLayout, bits: i64) -> Result<BankReport> {
    bank_conflicts_of(&offsets(pattern)?, bits)
}

/// `bank_conflicts` of explicit offsets, `[instruction][thread]` in units of the access width.
///
/// ```
/// # use cute_layout::*;
/// // words 0, 32 and 64 share bank 0; word 1 is in bank 1
/// assert_eq!(bank_conflicts_of(&[vec![0, 32, 64, 1]], 32)?.max_ways(), 3);
/// // one word read by three threads is a broadcast
/// assert_eq!(bank_conflicts_of(&[vec![5, 5, 5]], 32)?.max_ways(), 1);
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn bank_conflicts_of(rows: &[Vec<i64>], bits: i64) -> Result<BankReport> {
    check_bits("bank_conflicts", bits)?;
    let words_per_access = bits / 32;
    let phase_len = 32 / words_per_access; // 32, 16 or 8 threads
    let mut warps = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        for (w, warp) in row.chunks(32).enumerate() {
            let (mut wavefronts, mut ideal, mut ways, mut worst) = (0, 0, 0, None);
            for (p, phase) in warp.chunks(phase_len as usize).enumerate() {
                // (bank, word, thread) of every word the phase touches, sorted: a bank's
                // distinct words, and each word's first thread, are runs
                let mut hits = Vec::with_capacity(phase.len() * words_per_access as usize);
                for (k, &off) in phase.iter().enumerate() {
                    let thread = (w * 32) as i64 + p as i64 * phase_len + k as i64;
                    for j in 0..words_per_access {
                        let word = word_of(off, words_per_access, j)?;
                        hits.push((word.rem_euclid(32), word, thread));
                    }
                }
                hits.sort_unstable();
                let (bank, words) = busiest_bank(&hits);
                let n = words.len() as i64;
                wavefronts += n;
                ideal += 1;
                if n > ways {
                    ways = n;
                    let mut threads: Vec<i64> = words.iter().map(|&(_, _, t)| t).collect();
                    threads.sort_unstable();
                    threads.dedup();
                    worst = (n > 1).then_some((bank, threads));
                }
            }
            warps.push(WarpBanks {
                instruction: i as i64,
                warp: w as i64,
                wavefronts,
                ideal,
                ways,
                worst,
            });
        }
    }
    Ok(BankReport { bits, warps })
}

/// The lowest bank with the most distinct words among sorted `(bank, word, thread)` hits, and
/// the first hit of each of its words (so each word's lowest thread); bank 0 and none for none.
fn busiest_bank(hits: &[(i64, i64, i64)]) -> (i64, Vec<(i64, i64, i64)>) {
    let mut best: (i64, Vec<(i64, i64, i64)>) = (0, Vec::new());
    for bank in hits.chunk_by(|a, b| a.0 == b.0) {
        let firsts: Vec<_> = bank
            .chunk_by(|a, b| a.1 == b.1)
            .map(|word| word[0])
            .collect();
        if firsts.len() > best.1.len() {
            best = (bank[0].0, firsts);
        }
    }
    best
}

/// The 32-byte sectors each warp request touches in global memory.
///
/// ```
/// # use cute_layout::*;
/// // a warp reads 32 consecutive floats
/// let row = Layout::new(tup![s(32), s(4)], tup![s(1), s(32)])?;
/// assert_eq!(coalescing(&row.into(), 32)?.sectors_per_request(), 4.0);
/// let col = Layout::new(tup![s(32), s(4)], tup![s(1024), s(1)])?; // 32 floats 4 KiB apart
/// assert_eq!(coalescing(&col.into(), 32)?.sectors_per_request(), 32.0);
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn coalescing(pattern: &AnyLayout, bits: i64) -> Result<CoalescingReport> {
    check_bits("coalescing", bits)?;
    let bytes = bits / 8;
    let mut warps = Vec::new();
    for (i, row) in offsets(pattern)?.iter().enumerate() {
        for (w, warp) in row.chunks(32).enumerate() {
            let mut sectors = BTreeSet::new();
            let mut touched = BTreeSet::new();
            for &off in warp {
                for b in 0..bytes {
                    let byte = word_of(off, bytes, b)?;
                    touched.insert(byte);
                    sectors.insert(byte.div_euclid(32));
                }
            }
            let ideal = (touched.len() as i64 + 31) / 32;
            warps.push(WarpSectors {
                instruction: i as i64,
                warp: w as i64,
                sectors: sectors.len() as i64,
                ideal,
            });
        }
    }
    Ok(CoalescingReport { bits, warps })
}

/// One thread's access in one instruction, for pictures: its offset, its first bank, and whether
/// another thread of its phase reads a different word of one of its banks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccessCell {
    /// The offset in access units.
    pub offset: i64,
    /// The bank of its first 32-bit word.
    pub bank: i64,
    /// Whether it conflicts in its phase.
    pub conflict: bool,
}

/// `[instruction][thread]` cells of warp `warp` for the first `max_instructions` instructions.
///
/// ```
/// # use cute_layout::*;
/// let stride2 = AnyLayout::from(Layout::new(s(32), s(2))?); // thread t reads word 2t
/// let cells = bank_cells(&stride2, 32, 0, 1)?;
/// assert_eq!((cells[0][17].offset, cells[0][17].bank), (34, 2));
/// assert!(cells[0][17].conflict); // word 2 of thread 1 is in bank 2 too
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn bank_cells(
    pattern: &AnyLayout,
    bits: i64,
    warp: usize,
    max_instructions: usize,
) -> Result<Vec<Vec<AccessCell>>> {
    check_bits("draw", bits)?;
    let words_per_access = bits / 32;
    let phase_len = (32 / words_per_access) as usize;
    let mut out = Vec::new();
    for row in offsets(pattern)?.iter().take(max_instructions) {
        let Some(threads) = row.chunks(32).nth(warp) else {
            break;
        };
        let mut cells = Vec::with_capacity(threads.len());
        for phase in threads.chunks(phase_len) {
            let mut banks: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
            for &off in phase {
                for j in 0..words_per_access {
                    let word = word_of(off, words_per_access, j)?;
                    banks.entry(word.rem_euclid(32)).or_default().insert(word);
                }
            }
            for &off in phase {
                let conflict = (0..words_per_access).any(|j| {
                    let word = off * words_per_access + j;
                    banks
                        .get(&word.rem_euclid(32))
                        .is_some_and(|ws| ws.len() > 1)
                });
                cells.push(AccessCell {
                    offset: off,
                    bank: (off * words_per_access).rem_euclid(32),
                    conflict,
                });
            }
        }
        out.push(cells);
    }
    Ok(out)
}

/// Unit `j` of the access at offset `off` in units of `per` (`off * per + j`), refused when it
/// leaves i64.
fn word_of(off: i64, per: i64, j: i64) -> Result<i64> {
    off.checked_mul(per)
        .and_then(|w| w.checked_add(j))
        .ok_or_else(|| {
            algebra(
                "access pattern",
                format!("offset {off} x {per} overflows 64 bits"),
            )
        })
}
