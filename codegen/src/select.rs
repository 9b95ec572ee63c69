//! The GEMM selectors (issue 17's heuristics): from a problem's shape, layout and target, which
//! kernel and how many slices of K (parallel split-K, `recipes::split_k_reduce`) — in
//! microseconds, with the reasons in words (`cute run sgemm --explain`). FP32 ([`sgemm`]) picks
//! a SIMT tile ([`crate::named::SimtTile`]); FP16 and BF16 ([`tensor_core`]) the SM90 GEMM,
//! unsplit or split, or the SM80 one split. A tuned plan of the tuning cache (`cute tune`) comes before them.
//!
//! The FP32 rules, fitted to `cute tune --suite` on an H100 and then an H200 (2026-12-06;
//! docs/performance.md): a few rows of C (M at most 16) take the 16x128 tile, whose CTAs do not
//! compute 128-row tiles for them; up to 64 rows take the 64x128 tile where K is long enough to
//! split it at least [`MID_TILE_MIN_SPLITS`] ways (else the 16x128 tile, when the 128x128 tile
//! cannot fill half the CTA slots even split); then K is split into as many slices as keep the
//! CTAs within one wave of the slots (`Target::sms` x the plan's CTAs per SM) — past a whole
//! wave, the SMs that take one CTA more set the time — each slice keeping at least 2 k-tiles.
//! The 16-bit rules are [`tensor_core`]'s.
//!
//! For the record, the first rules (fill the slots, rounding up; 4 k-tiles a slice) ran at 54 to
//! 93% of the best tuned plan on the suite's split shapes: 13 slices of a 32-tile problem make
//! 416 CTAs for 396 slots, a second wave of 20.

use crate::gemm::{GemmLayout, GemmPlan, SplitKMode};
use crate::named::{SimtTile, Sm90Tile, GEMV_ROWS};
use crate::target::{ceil_div, Target};
use cute_layout::ElemType;

/// The rows of C up to which the 16x128 tile is taken.
pub const WIDE_TILE_MAX_M: i64 = 16;

/// The rows of C up to which the 16x128 tile is taken when the 128x128 tile cannot fill half
/// its CTA slots.
pub const WIDE_TILE_FILL_MAX_M: i64 = 64;

/// The fewest slices of K the 64x128 tile is taken with for 17 to 64 rows of C: on the H200
/// (2026-12-06) it ran 1.6-1.7x the 16x128 tile's speed at 64 x 4096² (12 slices) and
/// 64 x 8192² (6), and 0.7x at 64 x 1000 x 127 (2).
pub const MID_TILE_MIN_SPLITS: i64 = 4;

/// The fewest k-tiles a slice of K keeps.
pub const MIN_K_TILES_PER_SLICE: i64 = 2;

/// What the selector picked and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The named kernel (`named::plan_for` builds it for a layout).
    pub name: &'static str,
    /// Slices of K (1: no split).
    pub splits: i64,
    /// How the slices run: one kernel, parallel or serial split-K, or stream-K.
    pub mode: SplitKMode,
    /// One line per decision.
    pub reasons: Vec<String>,
}

/// The problem shapes of `cute bench --suite` and `cute tune --suite` (M x N x K): squares
/// 256 to 8192; M = 1, 8, 16, 64, 128 against N = K = 4096 and 8192; a short K, two ragged
/// shapes, a long K.
pub const SUITE: &[(i64, i64, i64)] = &[
    (256, 256, 256),
    (512, 512, 512),
    (1024, 1024, 1024),
    (2048, 2048, 2048),
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (1, 4096, 4096),
    (8, 4096, 4096),
    (16, 4096, 4096),
    (64, 4096, 4096),
    (128, 4096, 4096),
    (1, 8192, 8192),
    (8, 8192, 8192),
    (16, 8192, 8192),
    (64, 8192, 8192),
    (128, 8192, 8192),
    (8192, 8192, 128),
    (1000, 17, 300),
    (64, 1000, 127),
    (4096, 4096, 16384),
];

/// The named kernels the FP32 selector takes (the heuristic the first two; `cute tune` times
/// all), and their tiles: the square tile first.
pub const FAMILY: [(&str, SimtTile); 7] = crate::named::SIMT_TILES;

/// The selectors by name (`cute run NAME`, `cute tune NAME`) and the dtype each picks for.
pub const SELECTORS: [(&str, &str); 3] = [("sgemm", "f32"), ("hgemm", "f16"), ("bgemm", "bf16")];

/// The dtype the selector `name` picks for.
pub fn selector_dtype(name: &str) -> Option<&'static str> {
    SELECTORS.iter().find(|(n, _)| *n == name).map(|&(_, d)| d)
}

/// A 16-bit tensor-core family of the selector: the SM90 GEMM (wgmma over TMA, 128x256 tiles,
/// a persistent CTA an SM; split K in parallel, a CTA a tile and slice) and the SM80 one
/// (mma.sync over `cp.async`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TensorCoreFamily {
    pub dtype: &'static str,
    pub sm90: &'static str,
    /// The SM90 GEMM's 128x128 tile (twice the tiles of the 128x256 one): a `cute tune`
    /// candidate.
    pub sm90_square: &'static str,
    pub sm80: &'static str,
    /// The SM80 GEMM's 128x128 tile (two CTAs an SM): a `cute tune` candidate.
    pub sm80_small: &'static str,
    /// The SM80 GEMM's few-row tiles, 16x128 and 64x128, and its few-column one, 128x32 (4
    /// stages, as many CTAs an SM as fit): `cute tune` candidates up to
    /// [`SMALL_TILES_TUNED_MAX_M`] rows (columns).
    pub sm80_narrow: [&'static str; 3],
}

/// The 16-bit families.
pub const TENSOR_CORE_FAMILIES: [TensorCoreFamily; 2] = [
    TensorCoreFamily {
        dtype: "f16",
        sm90: "hgemm-sm90",
        sm90_square: "hgemm-sm90-128x128",
        sm80: "hgemm-sm80",
        sm80_small: "hgemm-sm80-128x128",
        sm80_narrow: [
            "hgemm-sm80-16x128",
            "hgemm-sm80-64x128",
            "hgemm-sm80-128x32",
        ],
    },
    TensorCoreFamily {
        dtype: "bf16",
        sm90: "bgemm-sm90",
        sm90_square: "bgemm-sm90-128x128",
        sm80: "bgemm-sm80",
        sm80_small: "bgemm-sm80-128x128",
        sm80_narrow: [
            "bgemm-sm80-16x128",
            "bgemm-sm80-64x128",
            "bgemm-sm80-128x32",
        ],
    },
];

/// The columns of C up to which the selectors take the few-column tiles (128x32) for more
/// rows than the few-row tiles serve. On an H100 (2026-12-07, `reports/2026-12-07-h100-issue17-run4.txt`)
/// at 1000x17x300 the 128x32 tile ran 1.19x (FP32, in 4 slices) and 1.70x (BF16, unsplit)
/// the 128-column picks before it.
pub const FEW_COLUMNS_MAX_N: i64 = 32;

/// The largest B (N x K elements) for which the FP32 selector takes the GEMV for a few rows
/// (but in TT, [`GEMV_MAX_B_TT`]): there its one launch beats the 16x128 tile's split and
/// reduction. On an H100 (2026-12-08, `reports/2026-12-08-h100-gemv-staged.txt`; NN with A
/// staged once a CTA) at 8192² the GEMV ran 1.43x and 1.38-1.43x the split 16x128 tile's
/// speed at 1 and 4 rows in NN, 1.38x and 1.12x in TN, 1.12x and 1.09x in NT (by median
/// times; before A was staged, NN's GEMV ran 0.86x there, and this cap was 2^24).
pub const GEMV_MAX_B: i64 = 1 << 26;

/// [`GEMV_MAX_B`] in TT (A K-major, B N-major), where the GEMV ran 0.90x and 0.79x the split
/// 16x128 tile's speed at 1 and 4 rows against 8192² (same run).
pub const GEMV_MAX_B_TT: i64 = 1 << 24;

/// The GEMV's cap on B in `layout` ([`GEMV_MAX_B`], [`GEMV_MAX_B_TT`]).
pub fn gemv_max_b(layout: GemmLayout) -> i64 {
    use crate::gemm::Major;
    match (layout.a, layout.b) {
        (Major::K, Major::MN) => GEMV_MAX_B_TT,
        _ => GEMV_MAX_B,
    }
}

/// The SM90 16-bit GEMM is taken when its tiles number at least 1/this of the SMs.
pub const SM90_MIN_SM_FRACTION: i64 = 2;

/// The SM90 GEMM's 128x128 tile is taken, where the 128x256 tiles leave SMs idle, when its
/// own tiles number at least `(numerator, denominator)` of the SMs and C has more rows than
/// the SM80 64x128 tile's: on an H200 (2026-12-07, `tools/gpu/sm90_square.sh`) with 64 tiles
/// (1024³, 128 x 8192²) it was the fastest plan timed, with 32 or fewer (128 x 4096², 512³) the
/// SM80 kernel split K ways (since the SM90 split: that tile in 2 slices at 128 x 4096²,
/// [`SM90_SPLITS`]).
pub const SM90_SQUARE_MIN_SM_FILL: (i64, i64) = (3, 8);

/// The fewest k-tiles a slice of the SM90 GEMM's split keeps: below, the SM80 kernel splits
/// (on an H100, 2026-12-07, at 512³ — 8 k-tiles — the SM80 128x128 tile ran 15-17 µs, the SM90
/// one split 2 ways 17.7).
pub const SM90_SPLIT_MIN_K_TILES: i64 = 16;

/// The slices the 16-bit selector splits the SM90 GEMM's 128x128 tile into, at most: on an H100
/// (2026-12-07 15:33 and 15:37 UTC, `reports/2026-12-07-h100-issue17-warm-up.txt`) at 128 x
/// 4096² it ran 28.2 µs in 2 slices, 29.2-29.5 in 3, 29.9-31.2 in 4, 30.0-30.8 unsplit, the
/// SM80 pick before it (128x128 in 4) 31.4-32.0 and its 64x128 tile in 4 29.2.
pub const SM90_SPLITS: i64 = 2;

/// The fewest k-tiles a slice keeps when the 16-bit selector splits the SM80 GEMM's 128x128
/// or 128x32 tile. At 512³ (8 k-tiles) the 128x128 tile ran 15.5 µs in 2 slices and 17.1 in 4
/// (H100, 2026-12-07 15:33 UTC, warmed up), 15.2 in 3 and 17.3 in 4 (H200, 13:27 UTC); at 256³
/// (4 k-tiles) the SM90 128x128 tile unsplit, which the selector takes where this one would not
/// split, ran 13.6 µs, the 2 slices 13.8.
pub const SM80_LONG_SLICE_K_TILES: i64 = 4;

/// The rows of C up to which the 16-bit selector splits the SM80 GEMM's 64x128 tile (its
/// 16x128 one up to [`SM80_FEW_ROWS_MAX_M`]); more rows take its 128x128 tile. On an H100
/// (2026-12-07, `reports/2026-12-07-h100-issue17-run4.txt`) against 4096², TN, the 16x128
/// tile in 4 slices ran 1.4x (1 row) and 1.95x (16 rows) the 128x256 one in 8 slices, the
/// 64x128 tile in 4 slices 1.84x (64 rows).
pub const SM80_WIDE_TILE_MAX_M: i64 = 64;

/// The rows of C up to which the 16-bit selector splits the SM80 GEMM's 16x128 tile.
pub const SM80_FEW_ROWS_MAX_M: i64 = 16;

/// The CTA tile of the SM80 GEMM `name` on `target` (`named::sm80_cta`: the 128x256 tile is
/// 128x128 where its stages do not fit a CTA). Every family's SM80 name is in that table (a
/// test checks); the 128x128 tile stands in for one that is not.
fn sm80_cta(name: &str, target: &Target) -> (i64, i64, i64) {
    crate::named::sm80_cta(name, target).unwrap_or((128, 128, 64))
}

impl TensorCoreFamily {
    /// The SM80 kernels: the 128x256 tile, the 128x128 one, the few-row and few-column ones.
    fn sm80_names(self) -> impl Iterator<Item = &'static str> {
        [self.sm80, self.sm80_small]
            .into_iter()
            .chain(self.sm80_narrow)
    }

    /// Whether `name` is one of the SM90 kernels (on a target with wgmma; unsplit or parallel
    /// split-K).
    fn is_sm90(self, name: &str) -> bool {
        name == self.sm90 || name == self.sm90_square
    }
}

fn family(dtype: &str) -> Option<TensorCoreFamily> {
    TENSOR_CORE_FAMILIES.into_iter().find(|f| f.dtype == dtype)
}

/// Whether the selector of `dtype` takes the named kernel `name` (a tuning-cache entry naming
/// another is not trusted).
pub fn takes(dtype: &str, name: &str) -> bool {
    if gemv_of(dtype) == Some(name) {
        return true;
    }
    match dtype {
        "f32" => FAMILY.iter().any(|(n, _)| *n == name),
        d => family(d).is_some_and(|f| f.sm80_names().any(|n| n == name) || f.is_sm90(name)),
    }
}

/// [`takes_plan`] for a problem of `(m, n, k)` in `layout` (what a tuning-cache entry of the
/// problem's class is checked by before it is used): a split only where the problem needs no
/// 64-bit indices ([`needs_wide_indices`]), a GEMV only where it fits ([`gemv_fits`]).
pub fn takes_plan_at(
    dtype: &str,
    (name, splits, mode): (&str, i64, SplitKMode),
    layout: GemmLayout,
    mnk: (i64, i64, i64),
    target: &Target,
) -> bool {
    takes_plan(dtype, name, splits, mode, target)
        && (mode == SplitKMode::None || !needs_wide_indices(mnk))
        && (gemv_of(dtype) != Some(name) || gemv_fits(layout, mnk))
}

/// Whether the selector of `dtype` takes `name` in `splits` slices of K run as `mode` on
/// `target`: a kernel it takes ([`takes`]); serial split-K in 2 to [`SERIAL_MAX_SPLITS`] slices
/// of a `cp.async` pipeline (an SM90 kernel splits in parallel only); stream-K for the FP32
/// (SIMT) kernels alone; an SM90 kernel only on a target with wgmma; a GEMV unsplit. A
/// tuning-cache entry that fails this is not used.
pub fn takes_plan(dtype: &str, name: &str, splits: i64, mode: SplitKMode, target: &Target) -> bool {
    // the SM90 GEMMs split in parallel alone, the GEMVs not at all
    let sm90 = family(dtype).is_some_and(|f| f.is_sm90(name));
    let gemv = gemv_of(dtype) == Some(name);
    let mode_fits = match mode {
        SplitKMode::None => splits == 1,
        SplitKMode::Parallel => splits >= 2,
        SplitKMode::Serial => (2..=SERIAL_MAX_SPLITS).contains(&splits),
        SplitKMode::Stream => splits == 1 && dtype == "f32",
    };
    takes(dtype, name)
        && splits >= 1
        && mode_fits
        && !(sm90
            && (!matches!(mode, SplitKMode::None | SplitKMode::Parallel)
                || !target.has(crate::target::Feature::Wgmma)))
        && !(gemv && mode != SplitKMode::None)
}

/// The heuristic's pick for `dtype` at `(m, n, k)`, `None` for a dtype without a selector.
pub fn pick(dtype: &str, (m, n, k): (i64, i64, i64), target: &Target) -> Option<Choice> {
    match dtype {
        "f32" => Some(sgemm(m, n, k, target)),
        d => family(d).map(|f| tensor_core(f, (m, n, k), target)),
    }
}

/// The heuristic's pick for `dtype` at `(m, n, k)` in `layout`: [`pick`], but for FP32 the
/// GEMV where it fits the shape and layout ([`gemv_fits`]) and B is at most [`gemv_max_b`]
/// elements, and a large tile where the square one would run unsplit (`large_tile`). The
/// 16-bit GEMVs are `cute tune` candidates only (on an H100, 2026-12-07, the BF16 ones ran
/// 0.78x and 0.74x the split 16x128 tensor-core tile at 1 x 4096², TN and TT).
pub fn pick_in(
    dtype: &str,
    layout: GemmLayout,
    mnk: (i64, i64, i64),
    target: &Target,
) -> Option<Choice> {
    let (m, n, k) = mnk;
    let cap = gemv_max_b(layout);
    if dtype == "f32" && gemv_fits(layout, mnk) && n.saturating_mul(k) <= cap {
        let form = match layout.b {
            crate::gemm::Major::K => "B K-major: a warp a column of C",
            crate::gemm::Major::MN => "B N-major: 32 columns of C a CTA",
        };
        return Some(Choice {
            name: "sgemm-gemv",
            splits: 1,
            mode: SplitKMode::None,
            reasons: vec![format!(
                "M = {m} <= {GEMV_ROWS}, B ({layout}) of {n} x {k} <= 2^{} values, its contiguous dimension % 8 == 0: the GEMV ({form}, one launch)",
                cap.trailing_zeros()
            )],
        });
    }
    let p = pick(dtype, mnk, target)?;
    if dtype != "f32" || p.name != FAMILY[0].0 || p.splits != 1 {
        return Some(p);
    }
    Some(large_tile(layout, mnk, target).unwrap_or(p))
}

/// The FP32 GEMM's large tile for `layout` at `(m, n, k)`, where its CTAs fill at least
/// [`LARGE_TILE_MIN_SM_FILL`] of the SMs: 256x128 for an M-major A (NN, NT), 128x256 for a
/// K-major A and an N-major B (TT); none for TN, where both operands' K-major copies move 32
/// bits a `cp.async` and the square tile ran fastest. On an H100 (2026-12-07) they ran 1.5 to
/// 5.6 points of cuBLAS above the square tile from 2048³ to 8192³ and at 8192 x 8192 x 128,
/// and a third of its speed at 1024³ (32 CTAs for 132 SMs).
fn large_tile(layout: GemmLayout, mnk: (i64, i64, i64), target: &Target) -> Option<Choice> {
    use crate::gemm::Major;
    let (name, tile) = match (layout.a, layout.b) {
        (Major::MN, _) => FAMILY[5],
        (Major::K, Major::MN) => FAMILY[6],
        (Major::K, Major::K) => return None,
    };
    let (bm, bn, _) = tile.cta;
    let ctas = ceil_div(mnk.0, bm).saturating_mul(ceil_div(mnk.1, bn));
    let sms = target.sms.max(1);
    if ctas.saturating_mul(LARGE_TILE_MIN_SM_FILL.1) < sms.saturating_mul(LARGE_TILE_MIN_SM_FILL.0)
    {
        return None;
    }
    Some(Choice {
        name,
        splits: 1,
        mode: SplitKMode::None,
        reasons: vec![format!(
            "{ctas} CTAs of {bm}x{bn} for {sms} SMs ({layout}: the longer side along the M-/N-major operand): the {bm}x{bn} tile, one CTA an SM, unsplit"
        )],
    })
}

/// The share of the SMs (numerator, denominator) a large FP32 tile's CTAs must fill for
/// [`pick_in`] to take it: at 2048³ the 256x128 tile's 128 CTAs (0.97 of 132 SMs) ran 5.4
/// points of cuBLAS above the square tile.
pub const LARGE_TILE_MIN_SM_FILL: (i64, i64) = (3, 4);

/// The few-row GEMM of `dtype` (`sgemm-gemv`, `hgemm-gemv`, `bgemm-gemv`).
pub fn gemv_of(dtype: &str) -> Option<&'static str> {
    match dtype {
        "f32" => Some("sgemm-gemv"),
        "f16" => Some("hgemm-gemv"),
        "bf16" => Some("bgemm-gemv"),
        _ => None,
    }
}

/// Whether the few-row GEMM suits `(m, n, k)` in `layout`: at most [`GEMV_ROWS`] rows of C
/// (one block of a warp's rows) and B's contiguous dimension — K for a K-major B (a warp
/// streams a column of B along K), N for an N-major one (a lane reads a vector of a row of B)
/// — a multiple of 8 (every dtype's 128-bit vectors; tight leading dimensions then are too).
pub fn gemv_fits(layout: GemmLayout, (m, n, k): (i64, i64, i64)) -> bool {
    let along = match layout.b {
        crate::gemm::Major::K => k,
        crate::gemm::Major::MN => n,
    };
    (1..=GEMV_ROWS).contains(&m) && along % 8 == 0
}

/// [`candidates`] in `layout`: the few-row GEMM too where it suits the shape ([`gemv_fits`]).
pub fn candidates_in(
    dtype: &str,
    layout: GemmLayout,
    mnk: (i64, i64, i64),
    target: &Target,
) -> Vec<Candidate> {
    let mut out = candidates(dtype, mnk, target);
    if let Some(name) = gemv_of(dtype).filter(|_| gemv_fits(layout, mnk)) {
        out.push(Candidate {
            name,
            splits: 1,
            mode: SplitKMode::None,
        });
    }
    // the heuristic's pick in this layout first
    if let Some(c) = pick_in(dtype, layout, mnk, target) {
        let first = Candidate::of(&c);
        out.retain(|x| *x != first);
        out.insert(0, first);
    }
    out
}

/// The plans `cute tune` times for `dtype` at `(m, n, k)`, the heuristic's pick first.
pub fn candidates(dtype: &str, (m, n, k): (i64, i64, i64), target: &Target) -> Vec<Candidate> {
    match dtype {
        "f32" => sgemm_candidates(m, n, k, target),
        d => family(d).map_or_else(Vec::new, |f| tensor_core_candidates(f, (m, n, k), target)),
    }
}

/// A 16-bit GEMM at `(m, n, k)`: the SM90 kernel when its 128x256 tiles number at least half
/// the SMs ([`SM90_MIN_SM_FRACTION`]); its 128x128 tile where those fill
/// [`SM90_SQUARE_MIN_SM_FILL`] of them and M > [`SM80_WIDE_TILE_MAX_M`]; for such M and more
/// than [`FEW_COLUMNS_MAX_N`] columns, that tile split K ways in parallel (at most
/// [`SM90_SPLITS`], [`SM90_SPLIT_MIN_K_TILES`] k-tiles a slice) where K is that long; else the SM80 kernel
/// split K ways as [`splits`] says for one CTA an SM — its 16x128 tile up to
/// [`SM80_FEW_ROWS_MAX_M`] rows, its 64x128 tile up to [`SM80_WIDE_TILE_MAX_M`], its 128x32 tile
/// above for at most [`FEW_COLUMNS_MAX_N`] columns (a slice keeping 4 k-tiles, unsplit where K
/// is short), its 128x128 tile otherwise (also 4 k-tiles a slice, [`SM80_LONG_SLICE_K_TILES`])
/// — unless K is too short to split (one slice), where the
/// SM90 kernel's 128x128 tile starts sooner. On a target without wgmma, the SM80 kernel's
/// 128x256 tile. Fitted to `cute tune bgemm` on an H200 (2026-12-06, 2026-12-07) and the
/// few-row and few-column tiles on an H100 (2026-12-07).
pub fn tensor_core(f: TensorCoreFamily, mnk: (i64, i64, i64), target: &Target) -> Choice {
    let (m, n, _) = mnk;
    let (tiles, square) = (Sm90Tile::WIDE.tiles(m, n), Sm90Tile::SQUARE.tiles(m, n));
    let sms = target.sms.max(1);
    if !target.has(crate::target::Feature::Wgmma) {
        let first = format!("{target} has no wgmma: the SM80 kernel");
        let (s, why) = splits(sm80_cta(f.sm80, target), 1, sms, mnk);
        return Choice {
            name: f.sm80,
            splits: s,
            mode: SplitKMode::split(s, false),
            reasons: vec![first, why],
        };
    }
    // measured on an H200 (2026-12-06): with 32 tiles (1 to 128 x 8192 x 8192, 1024^3) the SM80
    // kernel split 2-4 ways ran 1.1-1.5x faster than the SM90 one; with 128 (2048^3) the SM90 one
    let unsplit = |name: &'static str, why: String| Choice {
        name,
        splits: 1,
        mode: SplitKMode::None,
        reasons: vec![why],
    };
    if tiles.saturating_mul(SM90_MIN_SM_FRACTION) >= sms {
        return unsplit(f.sm90, format!(
            "{tiles} output tiles of 128x256, at least 1/{SM90_MIN_SM_FRACTION} of the {sms} SMs: the SM90 kernel"
        ));
    }
    let (num, den) = SM90_SQUARE_MIN_SM_FILL;
    if m > SM80_WIDE_TILE_MAX_M && square.saturating_mul(den) >= sms.saturating_mul(num) {
        return unsplit(f.sm90_square, format!(
            "{tiles} output tiles of 128x256, under 1/{SM90_MIN_SM_FRACTION} of the {sms} SMs; {square} of 128x128, at least {num}/{den} of them: the SM90 kernel's 128x128 tile"
        ));
    }
    let few_columns = m > SM80_WIDE_TILE_MAX_M && n <= FEW_COLUMNS_MAX_N;
    if m > SM80_WIDE_TILE_MAX_M && !few_columns {
        let cta = Sm90Tile::SQUARE.cta(ElemType::F16);
        let (s, why) = splits_with(cta, 1, sms, mnk, SM90_SPLIT_MIN_K_TILES);
        if s > 1 {
            let s = s.min(SM90_SPLITS);
            return Choice {
                name: f.sm90_square,
                splits: s,
                mode: SplitKMode::Parallel,
                reasons: vec![
                    format!("{square} output tiles of 128x128, under {num}/{den} of the {sms} SMs, M = {m} > {SM80_WIDE_TILE_MAX_M}: the SM90 kernel's 128x128 tile split K ways"),
                    format!("{why}; at most {SM90_SPLITS} slices: {s}, {} CTAs", square.saturating_mul(s)),
                ],
            };
        }
    }
    let name = match m {
        _ if m <= SM80_FEW_ROWS_MAX_M => f.sm80_narrow[0],
        _ if m <= SM80_WIDE_TILE_MAX_M => f.sm80_narrow[1],
        _ if few_columns => f.sm80_narrow[2],
        _ => f.sm80_small,
    };
    let tile = sm80_cta(name, target);
    // the few-column tile's CTAs are short, and the 128x128 tile's slices of 2 k-tiles do not
    // pay for their reduction: those keep more k-tiles a slice
    let min_k_tiles = match few_columns || name == f.sm80_small {
        true => SM80_LONG_SLICE_K_TILES,
        false => MIN_K_TILES_PER_SLICE,
    };
    let (s, why) = splits_with(tile, 1, sms, mnk, min_k_tiles);
    if s == 1 && !few_columns {
        // its 128x128 tile: twice the CTAs (64x1000x127 on an H200: 125.9% of cuBLAS against
        // the 128x256 tile's 102.8%)
        return unsplit(f.sm90_square, format!(
            "{tiles} output tiles of 128x256, under 1/{SM90_MIN_SM_FRACTION} of the {sms} SMs, but the SM80 kernel would not split ({why}): the SM90 kernel's 128x128 tile"
        ));
    }
    let first = format!(
        "{tiles} output tiles of 128x256, under 1/{SM90_MIN_SM_FRACTION} of the {sms} SMs: the SM80 kernel, its {}x{} tile (M = {m})",
        tile.0, tile.1
    );
    Choice {
        name,
        splits: s,
        mode: SplitKMode::split(s, false),
        reasons: vec![first, why],
    }
}

/// The 16-bit plans `cute tune` times: the heuristic's pick, the SM90 kernel's tiles unsplit and
/// in parallel split-K in 2 to [`SM90_TUNED_MAX_SPLITS`] slices that keep two k-tiles a slice in
/// at most two waves (C above 16 rows), and the SM80 one unsplit and at the slices that keep two k-tiles a slice and
/// at most four CTAs an SM.
pub fn tensor_core_candidates(
    f: TensorCoreFamily,
    mnk: (i64, i64, i64),
    target: &Target,
) -> Vec<Candidate> {
    let p = tensor_core(f, mnk, target);
    let mut out = vec![Candidate::of(&p)];
    let mut add = |c: Candidate| {
        if !out.contains(&c) {
            out.push(c);
        }
    };
    let wide = needs_wide_indices(mnk);
    if target.has(crate::target::Feature::Wgmma) {
        for (name, tile) in [(f.sm90, Sm90Tile::WIDE), (f.sm90_square, Sm90Tile::SQUARE)] {
            add(Candidate {
                name,
                splits: 1,
                mode: SplitKMode::None,
            });
            // split in parallel: a CTA a tile and slice, at most two waves, where C has more
            // rows than the SM80 16x128 tile's (a 128-row tile of a few rows wastes its MMAs)
            let sm90_bk = tile.cta(ElemType::F16).2;
            let ctas = tile.tiles(mnk.0, mnk.1);
            let split = !wide && mnk.0 > SM80_FEW_ROWS_MAX_M;
            for s in (2..=SM90_TUNED_MAX_SPLITS).filter(|_| split) {
                if ceil_div(mnk.2, sm90_bk) / s >= 2 && ctas.saturating_mul(s) <= 2 * target.sms {
                    add(Candidate {
                        name,
                        splits: s,
                        mode: SplitKMode::Parallel,
                    });
                }
            }
        }
    }
    // each tile as its plan is built: its CTA tile and the CTAs an SM it asks for
    let tn = GemmLayout::all()[2];
    let built = f.sm80_names().filter_map(|name| {
        let plan = crate::named::plan_for(name, tn, target).ok()?;
        Some((name, plan.cp_async_pipeline()?))
    });
    for (name, ((bm, bn, bk), per_sm)) in built {
        if (bm < 128 && mnk.0 > SMALL_TILES_TUNED_MAX_M)
            || (bn < 128 && mnk.1 > SMALL_TILES_TUNED_MAX_M)
        {
            continue;
        }
        let ctas = ceil_div(mnk.0, bm).saturating_mul(ceil_div(mnk.1, bn));
        for &s in TUNED_SPLITS {
            let fits =
                ceil_div(mnk.2, bk) / s >= 2 && ctas.saturating_mul(s) <= 4 * target.sms * per_sm;
            if s == 1 || (!wide && fits) {
                Candidate::both(name, s).for_each(&mut add);
            }
        }
    }
    out
}

/// The most slices `cute tune` splits the SM90 GEMMs into: on an H100 (2026-12-07,
/// `reports/2026-12-07-h100-issue17-sm90-split.txt`, `-warm-up.txt`) their splits ran fastest
/// in 2 to 4 slices (at 64 and 128 x 4096², 512³, 1024³), 6 to 16 slower at every shape.
pub const SM90_TUNED_MAX_SPLITS: i64 = 4;

/// The rows of C up to which `cute tune` also times the 16x128 and 64x128 tiles.
pub const SMALL_TILES_TUNED_MAX_M: i64 = 128;

/// The slices of K `cute tune` tries (besides the heuristic's own).
const TUNED_SPLITS: &[i64] = &[1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64];

/// The most slices `cute tune` tries serial split-K with: its slices' epilogues run one
/// after another, so many slices make a long tail (on an H100, 2026-12-06/07: about 2 µs a
/// hand-off for the 16x128 SIMT tile, 12 for the 128x256 tensor-core one; parallel split-K was
/// faster at every shape timed, so only the shortest chains stay candidates).
pub const SERIAL_MAX_SPLITS: i64 = 4;

/// A plan `cute tune` times: a named kernel, its slices of K and how they run (one kernel,
/// parallel or serial split-K, stream-K).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    pub name: &'static str,
    pub splits: i64,
    pub mode: SplitKMode,
}

impl Candidate {
    /// The heuristic's pick as a candidate.
    fn of(c: &Choice) -> Candidate {
        Candidate {
            name: c.name,
            splits: c.splits,
            mode: c.mode,
        }
    }

    /// `name` in `s` slices: parallel, and serial too when `s` is 2 to [`SERIAL_MAX_SPLITS`].
    fn both(name: &'static str, s: i64) -> impl Iterator<Item = Candidate> {
        let serial = (2..=SERIAL_MAX_SPLITS).contains(&s);
        [false, true]
            .into_iter()
            .filter(move |&x| !x || serial)
            .map(move |x| Candidate {
                name,
                splits: s,
                mode: SplitKMode::split(s, x),
            })
    }

    /// `name` as stream-K (its CTAs are the GPU's slots: no slices to choose).
    fn stream(name: &'static str) -> Candidate {
        Candidate {
            name,
            splits: 1,
            mode: SplitKMode::Stream,
        }
    }
}

/// The FP32 plans `cute tune` times at `(m, n, k)`: the 128x128 tile (and the 16x128 and 64x128
/// tiles up to [`SMALL_TILES_TUNED_MAX_M`] rows), each unsplit and at the slices of `TUNED_SPLITS` that keep
/// two k-tiles a slice and give at most four CTAs a slot; the heuristic's pick always among
/// them, first.
pub fn sgemm_candidates(m: i64, n: i64, k: i64, target: &Target) -> Vec<Candidate> {
    let pick = sgemm(m, n, k, target);
    let mut out = vec![Candidate::of(&pick)];
    // the few-row tiles up to SMALL_TILES_TUNED_MAX_M rows, the few-column one up to as many
    // columns, the large ones above as many rows and columns
    let large = m > SMALL_TILES_TUNED_MAX_M && n > SMALL_TILES_TUNED_MAX_M;
    let tiles = FAMILY.iter().filter(|(_, t)| {
        let (bm, bn, _) = t.cta;
        (bm == 128 && bn == 128)
            || (bm.max(bn) > 128 && bm.min(bn) >= 128 && large)
            || (bm < 128 && m <= SMALL_TILES_TUNED_MAX_M)
            || (bn < 128 && n <= SMALL_TILES_TUNED_MAX_M)
    });
    let wide = needs_wide_indices((m, n, k));
    for &(name, tile) in tiles {
        let (bm, bn, bk) = tile.cta;
        // the 8-row tile for a few rows alone
        if bm < WIDE_TILE_MAX_M && m > WIDE_TILE_MAX_M {
            continue;
        }
        let ctas = ceil_div(m, bm).saturating_mul(ceil_div(n, bn));
        let slots = target.sms.max(1) * per_sm(tile, target);
        for &s in TUNED_SPLITS {
            let fits = s == 1
                || (!wide && ceil_div(k, bk) / s >= 2 && ctas.saturating_mul(s) <= 4 * slots);
            for c in Candidate::both(name, s).filter(|_| fits) {
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        }
        // stream-K (32-bit kernels): every CTA the same share of k-tiles, whatever the tiles
        if !wide {
            out.push(Candidate::stream(name));
        }
    }
    out
}

/// The CTAs of `tile` that fit an SM of `target` (at least 1).
fn per_sm(tile: SimtTile, target: &Target) -> i64 {
    let threads = tile.threads.0 * tile.threads.1;
    let smem = tile.smem_bytes(tile.stages_on(target));
    tile.ctas_per_sm
        .min(target.ctas_per_sm(threads, 128, smem))
        .max(1)
}

/// The FP32 GEMM for `(m, n, k)` on `target` (any layout): arithmetic on the tiles' constants,
/// no plan built.
pub fn sgemm(m: i64, n: i64, k: i64, target: &Target) -> Choice {
    let mut reasons = Vec::new();
    let mid_splits = splits(
        FAMILY[2].1.cta,
        per_sm(FAMILY[2].1, target),
        target.sms,
        (m, n, k),
    )
    .0;
    let (name, tile): (&'static str, SimtTile) = if m <= WIDE_TILE_MAX_M {
        reasons.push(format!(
            "M = {m} <= {WIDE_TILE_MAX_M}: the 16x128 tile (a 128-row tile would compute {}x the rows)",
            128 / m.clamp(1, 128)
        ));
        FAMILY[1]
    } else if m <= WIDE_TILE_FILL_MAX_M && mid_splits >= MID_TILE_MIN_SPLITS {
        reasons.push(format!(
            "M = {m} <= {WIDE_TILE_FILL_MAX_M} and K splits the 64x128 tile {mid_splits} ways (>= {MID_TILE_MIN_SPLITS}): the 64x128 tile"
        ));
        FAMILY[2]
    } else if n <= FEW_COLUMNS_MAX_N {
        reasons.push(format!(
            "N = {n} <= {FEW_COLUMNS_MAX_N}: the 128x32 tile (a 128-column tile would compute {}x the columns)",
            128 / n.clamp(1, 128)
        ));
        FAMILY[4]
    } else if m <= WIDE_TILE_FILL_MAX_M && !fills_half(FAMILY[0].1, target, (m, n, k)) {
        reasons.push(format!(
            "M = {m} <= {WIDE_TILE_FILL_MAX_M} and the 128x128 tile fills under half its CTA slots even split: the 16x128 tile"
        ));
        FAMILY[1]
    } else {
        reasons.push(format!("M = {m}: the 128x128 tile"));
        FAMILY[0]
    };
    let (splits, why) = splits(tile.cta, per_sm(tile, target), target.sms, (m, n, k));
    reasons.push(why);
    Choice {
        name,
        splits,
        mode: SplitKMode::split(splits, false),
        reasons,
    }
}

/// Whether `tile`, split as [`splits`] says, gives at least half as many CTAs as its slots.
fn fills_half(tile: SimtTile, target: &Target, mnk: (i64, i64, i64)) -> bool {
    let per_sm = per_sm(tile, target);
    let (s, _) = splits(tile.cta, per_sm, target.sms, mnk);
    let (bm, bn, _) = tile.cta;
    let ctas = ceil_div(mnk.0, bm)
        .saturating_mul(ceil_div(mnk.1, bn))
        .saturating_mul(s);
    ctas.saturating_mul(2) >= target.sms.max(1) * per_sm
}

/// Whether a matrix of `(m, n, k)` (A `m x k`, B `k x n`, C `m x n`, leading dimensions
/// padded to 4) holds more than 2^31 - 1 elements: split-K's kernels take 32-bit indices, so such
/// a problem is not split (its one kernel is built with 64-bit indices).
pub fn needs_wide_indices((m, n, k): (i64, i64, i64)) -> bool {
    let pad = |x: i64| x.max(1).saturating_add(3) / 4 * 4;
    [
        (pad(m), k),
        (pad(k), n),
        (pad(n), k),
        (pad(k), m),
        (pad(m), n),
    ]
    .iter()
    .any(|&(ld, cols)| ld.saturating_mul(cols.max(1)) > i64::from(i32::MAX))
}

/// The slices of K for `(m, n, k)` under a CTA tile `cta` of which `per_sm` CTAs fit an SM of
/// `sms`, and the reason.
pub fn splits(cta: (i64, i64, i64), per_sm: i64, sms: i64, mnk: (i64, i64, i64)) -> (i64, String) {
    splits_with(cta, per_sm, sms, mnk, MIN_K_TILES_PER_SLICE)
}

/// [`splits`] keeping at least `min_k_tiles` k-tiles a slice.
fn splits_with(
    (bm, bn, bk): (i64, i64, i64),
    per_sm: i64,
    sms: i64,
    (m, n, k): (i64, i64, i64),
    min_k_tiles: i64,
) -> (i64, String) {
    let ceil = |a: i64, b: i64| a.max(0).saturating_add(b.max(1) - 1) / b.max(1);
    let tiles = ceil(m, bm).saturating_mul(ceil(n, bn)).max(1);
    let slots = sms.max(1) * per_sm.max(1);
    let k_tiles = ceil(k, bk);
    if needs_wide_indices((m, n, k)) {
        return (
            1,
            "a matrix beyond 2^31 - 1 elements: no split (split-K's kernels take 32-bit indices; the one kernel takes 64)".to_string(),
        );
    }
    if tiles >= slots {
        return (
            1,
            format!(
                "{tiles} output tiles fill the {slots} CTA slots ({sms} SMs x {per_sm}): no split"
            ),
        );
    }
    let want = slots / tiles;
    let most = (k_tiles / min_k_tiles.max(1)).max(1);
    let s = want.min(most);
    let why = if s == want {
        format!(
            "{tiles} output tiles for {slots} CTA slots ({sms} SMs x {per_sm}): K split {s} ways, {} CTAs in one wave",
            tiles * s
        )
    } else {
        format!("{tiles} output tiles for {slots} CTA slots ({sms} SMs x {per_sm}), {k_tiles} k-tiles of {bk}: K split {s} ways (at least {min_k_tiles} k-tiles a slice)")
    };
    (s, why)
}

/// [`splits`] for a plan (its tile and CTAs per SM; 1 for a plan without a k-tile pipeline).
pub fn plan_splits(plan: &GemmPlan, mnk: (i64, i64, i64)) -> (i64, String) {
    match plan.split_k_pipeline() {
        Some((cta, per_sm)) => splits(cta, per_sm, plan.target.sms, mnk),
        None => (1, format!("{}: no split-K (no k-tile pipeline)", plan.name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(m: i64, n: i64, k: i64) -> Choice {
        sgemm(m, n, k, &Target::default())
    }

    #[test]
    fn a_few_rows_take_the_wide_tile_and_split_k() {
        let c = pick(1, 4096, 4096);
        assert_eq!(c.name, "sgemm-sm80-16x128");
        // 32 tiles for 132 x 3 slots: 12 slices, 384 CTAs (13 would start a second wave)
        assert_eq!(c.splits, 12, "{:?}", c.reasons);
        assert!(
            c.reasons[1].contains("32 output tiles for 396 CTA slots"),
            "{:?}",
            c.reasons
        );
    }

    #[test]
    fn large_squares_are_not_split_and_short_k_is_split_little() {
        let c = pick(4096, 4096, 4096);
        assert_eq!((c.name, c.splits), ("sgemm-sm80", 1));
        // 4 tiles, but 4 k-tiles of 32 in K = 128: 2 slices of 2 k-tiles
        assert_eq!(pick(256, 256, 128).splits, 2);
        assert_eq!(pick(128, 4096, 4096).splits, 8);
    }

    /// The heuristic's pick on each suite shape, and what `cute tune --suite` timed on an H100
    /// (NN, 2026-12-06, reports/2026-12-06-h100-issue17-tune.txt): each pick ran within 5% of the
    /// fastest plan tuned (1000x17x300's 5 slices were not among the plans timed). In NN, the
    /// layout of the suite, one row against 4096² and 8192² takes the GEMV ([`pick_in`]; on an
    /// H100, 2026-12-07: 1.13x the 16x128 tile in 12 slices at 4096²; 2026-12-08, with A
    /// staged once a CTA: 1.43x the split 16x128 tile's speed at 8192², [`GEMV_MAX_B`]); TT
    /// keeps the split tile against 8192² ([`GEMV_MAX_B_TT`]).
    #[test]
    fn the_suite_picks_what_tuning_found_fast() {
        // H100 tune, then the 64x128 tile from the H200's (2026-12-06)
        let (sq, wide, mid) = ("sgemm-sm80", "sgemm-sm80-16x128", "sgemm-sm80-64x128");
        for (mnk, name, splits) in [
            ((256, 256, 256), sq, 4),     // the fastest
            ((512, 512, 512), sq, 8),     // the fastest
            ((1024, 1024, 1024), sq, 4),  // 99% of 2 slices
            ((2048, 2048, 2048), sq, 1),  // the fastest
            ((1, 4096, 4096), wide, 12),  // 97% of 4 slices (in NN: the GEMV, below)
            ((16, 4096, 4096), wide, 12), // the fastest
            ((64, 4096, 4096), mid, 12),  // the fastest (H200)
            ((128, 4096, 4096), sq, 8),   // the fastest
            ((1, 8192, 8192), wide, 6),   // the fastest
            ((64, 8192, 8192), mid, 6),   // the fastest (H200)
            ((8192, 8192, 128), sq, 1),   // the only plan
            // H100, 2026-12-07 (run4): 5 not timed, 4 the fastest, 3 at 84% of it
            ((1000, 17, 300), "sgemm-sm80-128x32", 5),
            ((64, 1000, 127), wide, 2), // the fastest (the 128x128 tile: 68%)
        ] {
            let c = pick(mnk.0, mnk.1, mnk.2);
            assert_eq!(
                (c.name, c.splits),
                (name, splits),
                "{mnk:?}: {:?}",
                c.reasons
            );
        }
        let t = Target::default();
        let (nn, nt) = (
            GemmLayout::parse("NN").unwrap(),
            GemmLayout::parse("NT").unwrap(),
        );
        let name = |l, mnk| pick_in("f32", l, mnk, &t).unwrap().name;
        assert_eq!(name(nn, (1, 4096, 4096)), "sgemm-gemv");
        assert_eq!(name(nn, (1, 8192, 8192)), "sgemm-gemv");
        assert_eq!(name(nn, (4, 8192, 8192)), "sgemm-gemv");
        assert_eq!(name(nn, (1, 8192, 16384)), wide);
        let [tn, tt] = ["TN", "TT"].map(|l| GemmLayout::parse(l).unwrap());
        assert_eq!(name(tn, (4, 8192, 8192)), "sgemm-gemv");
        assert_eq!(name(nt, (1, 8192, 8192)), "sgemm-gemv");
        assert_eq!(name(tt, (1, 4096, 4096)), "sgemm-gemv");
        assert_eq!(name(tt, (1, 8192, 8192)), wide);
        // the N-major GEMV: 0.0327 ms against the 16x128 tile's 0.0432 (H100, 2026-12-07)
        assert_eq!(name(nt, (1, 4096, 4096)), "sgemm-gemv");
        // the large tiles where the square one runs unsplit, by layout (H100, 2026-12-07):
        // 256x128 for an M-major A, 128x256 for TT, the square tile for TN and at 1024^3
        for s in [2048, 4096, 8192] {
            assert_eq!(name(nn, (s, s, s)), "sgemm-sm80-256x128");
            assert_eq!(name(nt, (s, s, s)), "sgemm-sm80-256x128");
            assert_eq!(name(tt, (s, s, s)), "sgemm-sm80-128x256");
            assert_eq!(name(tn, (s, s, s)), sq);
        }
        assert_eq!(name(nn, (8192, 8192, 128)), "sgemm-sm80-256x128");
        assert_eq!(name(nn, (1024, 1024, 1024)), sq);
        assert_eq!(
            pick_in("bf16", nn, (1, 4096, 4096), &t).map(|c| c.name),
            super::pick("bf16", (1, 4096, 4096), &t).map(|c| c.name)
        );
    }

    /// `cute tune bgemm --suite` on an H200 (2026-12-06, TN): each pick against the fastest;
    /// the few-row and few-column tiles' shapes from the H100 tune of 2026-12-07 (run4); the
    /// SM90 128x128 tile's from `tools/gpu/sm90_square.sh` on an H200 (2026-12-07).
    #[test]
    fn the_bf16_suite_picks_what_tuning_found_fast() {
        let t = Target::default();
        let (sm90, small) = ("bgemm-sm90", "bgemm-sm80-128x128");
        let square = "bgemm-sm90-128x128";
        let (rows16, rows64) = ("bgemm-sm80-16x128", "bgemm-sm80-64x128");
        for (mnk, name, splits) in [
            ((256, 256, 256), square, 1),    // the fastest (H100, 2026-12-07 15:33)
            ((512, 512, 512), small, 2),     // 95% of 1 slice; 4 slices 86% (H100, 15:33)
            ((1024, 1024, 1024), square, 1), // the fastest (2026-12-07)
            ((2048, 2048, 2048), sm90, 1),   // the fastest
            ((1, 4096, 4096), rows16, 4),    // the fastest (H100)
            ((16, 4096, 4096), rows16, 4),   // the fastest (H100)
            ((64, 4096, 4096), rows64, 4),   // the fastest (H100)
            ((128, 4096, 4096), square, 2),  // the fastest (H100, 2026-12-07 15:33)
            // not timed: the 128x256 tile in 4 slices was the fastest before these tiles
            ((1, 8192, 8192), rows16, 2),
            ((64, 8192, 8192), rows64, 2),
            ((128, 8192, 8192), square, 1), // the fastest (2026-12-07)
            ((8192, 8192, 128), sm90, 1),   // the fastest
            ((1000, 17, 300), "bgemm-sm80-128x32", 1), // the fastest (H100)
            ((64, 1000, 127), square, 1),   // 1.2x the 128x256 tile (2026-12-07)
            ((4096, 4096, 16384), sm90, 1), // the fastest
        ] {
            let c = super::pick("bf16", mnk, &t).unwrap();
            assert_eq!(
                (c.name, c.splits),
                (name, splits),
                "{mnk:?}: {:?}",
                c.reasons
            );
        }
    }

    #[test]
    fn sixteen_bit_gemms_split_on_sm80_where_sm90_tiles_leave_sms_idle() {
        let t = Target::default();
        let bf16 = |m, n, k| super::pick("bf16", (m, n, k), &t).unwrap();
        let c = bf16(4096, 4096, 4096);
        assert_eq!((c.name, c.splits), ("bgemm-sm90", 1), "{:?}", c.reasons);
        // 16 tiles of 128x256 for 132 SMs: the SM80 kernel's 16x128 tile in 4 slices (128 CTAs)
        let c = bf16(1, 4096, 4096);
        assert_eq!(
            (c.name, c.splits),
            ("bgemm-sm80-16x128", 4),
            "{:?}",
            c.reasons
        );
        // 300 of K is 5 k-tiles of 64: the few-column tile keeps 4 a slice, so one
        for (dtype, mnk, want) in [
            ("f16", (16, 8192, 8192), ("hgemm-sm80-16x128", 2)),
            ("bf16", (1000, 17, 300), ("bgemm-sm80-128x32", 1)),
            ("bf16", (1000, 17, 4096), ("bgemm-sm80-128x32", 16)),
        ] {
            let c = super::pick(dtype, mnk, &t).unwrap();
            assert_eq!((c.name, c.splits), want, "{:?}", c.reasons);
        }
        assert!(super::pick("tf32", (1, 1, 1), &t).is_none());
        assert!(takes("bf16", "bgemm-sm80") && takes("f32", "sgemm-sm80-64x128"));
        assert!(!takes("bf16", "hgemm-sm80") && !takes("f32", "bgemm-sm80"));
        // sm_80 has no wgmma
        let a100 = Target::sm80();
        assert_eq!(
            super::pick("bf16", (4096, 4096, 4096), &a100).unwrap().name,
            "bgemm-sm80"
        );
        assert!(takes_plan(
            "bf16",
            "bgemm-sm80",
            8,
            SplitKMode::Parallel,
            &t
        ));
        assert!(takes_plan(
            "bf16",
            "bgemm-sm80-128x128",
            8,
            SplitKMode::Parallel,
            &t
        ));
        let small = candidates("bf16", (1, 4096, 4096), &t);
        let sixteen = Candidate {
            name: "bgemm-sm80-128x128",
            splits: 16,
            mode: SplitKMode::Parallel,
        };
        assert!(small.contains(&sixteen), "{small:?}");
        // the few-row tiles are timed up to 128 rows, split as their CTAs an SM allow
        for name in ["bgemm-sm80-16x128", "bgemm-sm80-64x128"] {
            assert!(takes("bf16", name) && !takes("f16", name));
            assert!(small.iter().any(|c| c.name == name && c.splits == 1));
            assert!(!candidates("bf16", (256, 4096, 4096), &t)
                .iter()
                .any(|c| c.name == name));
        }
        assert!(small.len() <= 64, "{}", small.len());
        // the SM90 GEMMs split in parallel (a CTA a tile and slice), never serially
        assert!(takes_plan(
            "bf16",
            "bgemm-sm90",
            8,
            SplitKMode::Parallel,
            &t
        ));
        assert!(!takes_plan(
            "bf16",
            "bgemm-sm90-128x128",
            2,
            SplitKMode::Serial,
            &t
        ));
        let sm90_split = Candidate {
            name: "bgemm-sm90-128x128",
            splits: 4,
            mode: SplitKMode::Parallel,
        };
        assert!(!small.contains(&sm90_split), "{small:?}");
        let rows64 = candidates("bf16", (64, 4096, 4096), &t);
        assert!(rows64.contains(&sm90_split), "{rows64:?}");
        // a tuned SM90 split is used where the problem takes 32-bit indices, not past them
        let tn = GemmLayout::all()[2];
        let split = ("bgemm-sm90-128x128", 2, SplitKMode::Parallel);
        assert!(takes_plan_at("bf16", split, tn, (128, 4096, 4096), &t));
        assert!(!takes_plan_at("bf16", split, tn, (128, 1 << 25, 4096), &t));
        // `--split-k auto` of an SM90 plan: its tile, one CTA an SM
        let plan = crate::named::plan("bgemm-sm90-128x128", tn).unwrap();
        assert_eq!(plan_splits(&plan, (128, 4096, 4096)).0, 4);
        let plan = crate::named::plan("tiled-16", tn).unwrap();
        assert_eq!(plan_splits(&plan, (128, 4096, 4096)).0, 1);
        assert!(!takes_plan(
            "bf16",
            "bgemm-sm90",
            1,
            SplitKMode::None,
            &a100
        ));
        assert!(takes_plan("bf16", "bgemm-sm90", 1, SplitKMode::None, &t));
        let c = candidates("bf16", (1, 4096, 4096), &t);
        assert_eq!(
            c[0],
            Candidate {
                name: "bgemm-sm80-16x128",
                splits: 4,
                mode: SplitKMode::Parallel,
            }
        );
        assert!(c.contains(&Candidate {
            name: "bgemm-sm90",
            splits: 1,
            mode: SplitKMode::None,
        }));
        assert!(c.contains(&Candidate {
            name: "bgemm-sm90-128x128",
            splits: 1,
            mode: SplitKMode::None,
        }));
        assert!(!takes_plan(
            "bf16",
            "bgemm-sm90-128x128",
            2,
            SplitKMode::Stream,
            &t
        ));
        assert!(candidates("bf16", (8192, 8192, 8192), &t).len() <= 4);
        for (name, dtype) in SELECTORS {
            assert_eq!(selector_dtype(name), Some(dtype));
        }
        // integer arithmetic and a few strings: microseconds even in a debug build
        let start = std::time::Instant::now();
        for i in 0..1000 {
            std::hint::black_box(super::pick("bf16", (1 + i, 4096, 4096), &t));
        }
        assert!(start.elapsed().as_secs_f64() / 1000.0 < 50e-6);
    }

    /// Every 16-bit family's SM80 kernel has its CTA tile in the named table.
    #[test]
    fn every_sm80_name_has_its_tile() {
        for f in TENSOR_CORE_FAMILIES {
            for name in f.sm80_names() {
                assert!(
                    crate::named::sm80_cta(name, &Target::default()).is_some(),
                    "{name}"
                );
            }
        }
    }

    /// The GEMV is a candidate where it suits the shape and layout, one kernel only.
    #[test]
    fn the_gemv_is_timed_where_it_fits() {
        let t = Target::default();
        let (nn, nt) = (
            GemmLayout::parse("NN").unwrap(),
            GemmLayout::parse("NT").unwrap(),
        );
        let has = |dtype, l, mnk| {
            candidates_in(dtype, l, mnk, &t)
                .iter()
                .any(|c| Some(c.name) == gemv_of(dtype))
        };
        for dtype in ["f32", "f16", "bf16"] {
            assert!(has(dtype, nn, (1, 4096, 4096)));
            assert!(has(dtype, nn, (GEMV_ROWS, 100, 8)));
            // an N-major B: the vectors run along N
            assert!(has(dtype, nt, (1, 4096, 4096)));
            assert!(has(dtype, nt, (2, 4096, 4100)));
            // too many rows, a K (K-major B) or N (N-major B) the vectors do not divide
            assert!(!has(dtype, nn, (GEMV_ROWS + 1, 4096, 4096)));
            assert!(!has(dtype, nn, (1, 4096, 4100)));
            assert!(!has(dtype, nt, (1, 4100, 4096)));
            let name = gemv_of(dtype).unwrap();
            assert!(takes(dtype, name));
            assert!(takes_plan(dtype, name, 1, SplitKMode::None, &t));
            assert!(!takes_plan(dtype, name, 2, SplitKMode::Parallel, &t));
        }
        assert!(!takes("f32", "bgemm-gemv") && gemv_of("tf32").is_none());
    }

    #[test]
    fn huge_sizes_do_not_overflow_and_are_not_split() {
        let c = pick(i64::MAX, i64::MAX, i64::MAX);
        assert_eq!((c.name, c.splits), ("sgemm-sm80", 1));
        // 2^31 elements of B: the 64-bit one-kernel plan, said so
        let c = pick(1, 4096, 1 << 19);
        assert_eq!(c.splits, 1, "{:?}", c.reasons);
        assert!(
            c.reasons[1].contains("beyond 2^31 - 1 elements"),
            "{:?}",
            c.reasons
        );
        assert!(!needs_wide_indices((1, 4096, (1 << 19) - 8)));
        assert_eq!(pick(1, 4096, (1 << 19) - 8).splits, 12);
        assert_eq!(pick(1, 1, i64::MAX).splits, 1);
        let bf16 = super::pick("bf16", (1, 4096, 1 << 19), &Target::default()).unwrap();
        assert_eq!(bf16.splits, 1, "{:?}", bf16.reasons);
    }

    #[test]
    fn candidates_start_with_the_pick_and_stay_few() {
        for &(m, n, k) in SUITE {
            let c = sgemm_candidates(m, n, k, &Target::default());
            let p = pick(m, n, k);
            assert_eq!((c[0].name, c[0].splits), (p.name, p.splits));
            assert!(
                c.len() <= FAMILY.len() * (2 * TUNED_SPLITS.len() + 1) + 1,
                "{c:?}"
            );
            for (i, x) in c.iter().enumerate() {
                assert!(!c[i + 1..].contains(x), "{x:?} twice");
                assert!(x.splits >= 1);
            }
        }
        // a large square is timed as it is and as stream-K; a decode shape over both tiles and
        // many splits
        let square = sgemm_candidates(8192, 8192, 8192, &Target::default());
        assert_eq!(
            square,
            [
                Candidate {
                    name: "sgemm-sm80",
                    splits: 1,
                    mode: SplitKMode::None,
                },
                Candidate::stream("sgemm-sm80"),
                Candidate {
                    name: "sgemm-sm80-256x128",
                    splits: 1,
                    mode: SplitKMode::None,
                },
                Candidate::stream("sgemm-sm80-256x128"),
                Candidate {
                    name: "sgemm-sm80-128x256",
                    splits: 1,
                    mode: SplitKMode::None,
                },
                Candidate::stream("sgemm-sm80-128x256"),
            ]
        );
        let decode = sgemm_candidates(1, 4096, 4096, &Target::default());
        assert!(decode.contains(&Candidate {
            name: "sgemm-sm80",
            splits: 8,
            mode: SplitKMode::Parallel,
        }));
        assert!(decode.contains(&Candidate {
            name: "sgemm-sm80-16x128",
            splits: 1,
            mode: SplitKMode::None,
        }));
        // serial split-K beside parallel, up to SERIAL_MAX_SPLITS slices
        assert!(decode.contains(&Candidate {
            name: "sgemm-sm80-16x128",
            splits: 4,
            mode: SplitKMode::Serial,
        }));
        assert!(decode
            .iter()
            .all(|c| c.mode != SplitKMode::Serial || (2..=SERIAL_MAX_SPLITS).contains(&c.splits)));
        // two k-tiles a slice: K = 127 is 4 k-tiles, split at most 2 ways
        let ragged = sgemm_candidates(64, 1000, 127, &Target::default());
        assert!(ragged.iter().all(|c| c.splits <= 2), "{ragged:?}");
    }

    #[test]
    fn the_pick_agrees_with_its_plan_and_takes_microseconds() {
        for (m, n, k) in [
            (1, 4096, 4096),
            (16, 8192, 8192),
            (128, 4096, 4096),
            (1000, 17, 300),
        ] {
            let c = pick(m, n, k);
            for l in GemmLayout::all() {
                let plan = crate::named::plan(c.name, l).unwrap();
                assert_eq!(plan_splits(&plan, (m, n, k)).0, c.splits, "{} {l}", c.name);
            }
        }
        let t = std::time::Instant::now();
        for i in 0..1000 {
            std::hint::black_box(pick(1 + i, 4096, 4096));
        }
        // strings and integer arithmetic: microseconds even in a debug build
        assert!(t.elapsed().as_secs_f64() / 1000.0 < 50e-6);
    }
}
