//! SM90 TMA loads (`SM90_TMA_LOAD`): the box one `cp.async.bulk.tensor` moves from a global
//! tensor into a shared tile, derived from the tile's layout as CuTe's `make_tma_copy` derives
//! it — the shared tile's offsets, walked in order, name the global coordinates they hold; the
//! longest prefix that walks each global mode once from its start is the box, the rest are the
//! box's repeats (one TMA issue each).
//!
//! A box writes its elements densely in shared memory, dimension 0 fastest, and swizzles the
//! byte address as `Sw<B,4,3>` (16-byte chunks XORed within `2^(B+7)`-byte blocks: B = 1, 2, 3
//! are CUDA's 32-, 64- and 128-byte swizzles). So the shared tile must be compact, its swizzle
//! one of those (on bytes) with rows exactly as wide as the box's inner dimension, and every
//! issue must start on the swizzle's period. The global tensor's innermost box dimension must
//! be contiguous and its other strides multiples of 16 bytes (`CUtensorMap`'s rules, which the
//! driver's `cuTensorMapEncodeTiled` checks again).

use std::fmt;

use crate::error::{algebra, Result};
use crate::numeric::ElemType;
use crate::{AnyLayout, Int, Layout, Swizzle};

const OP: &str = "make_tma_copy";

/// The most elements a box holds along a dimension (`boxDim[i] <= 256`).
pub const TMA_BOX_MAX: i64 = 256;

/// The most dimensions a tensor map has.
pub const TMA_RANK_MAX: usize = 5;

/// The most boxes one shared tile is split into.
const MAX_ISSUES: usize = 64;

/// A tensor map's shared-memory swizzle (`CU_TENSOR_MAP_SWIZZLE_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TmaSwizzle {
    None,
    B32,
    B64,
    B128,
}

impl TmaSwizzle {
    /// The bytes of one swizzled row (0: none).
    pub fn bytes(self) -> i64 {
        match self {
            TmaSwizzle::None => 0,
            TmaSwizzle::B32 => 32,
            TmaSwizzle::B64 => 64,
            TmaSwizzle::B128 => 128,
        }
    }

    /// The bytes after which the pattern repeats (8 rows).
    pub fn period(self) -> i64 {
        (self.bytes() * 8).max(16)
    }

    /// The mode of a swizzle on byte addresses (`Sw<3,4,3>`: 128 bytes).
    pub fn of_bytes(sw: Swizzle) -> Option<TmaSwizzle> {
        Some(match sw.params() {
            (0, _, _) => TmaSwizzle::None,
            (1, 4, 3) => TmaSwizzle::B32,
            (2, 4, 3) => TmaSwizzle::B64,
            (3, 4, 3) => TmaSwizzle::B128,
            _ => return None,
        })
    }

    /// CUDA's name (`CU_TENSOR_MAP_SWIZZLE_128B`).
    pub fn cuda_name(self) -> &'static str {
        match self {
            TmaSwizzle::None => "CU_TENSOR_MAP_SWIZZLE_NONE",
            TmaSwizzle::B32 => "CU_TENSOR_MAP_SWIZZLE_32B",
            TmaSwizzle::B64 => "CU_TENSOR_MAP_SWIZZLE_64B",
            TmaSwizzle::B128 => "CU_TENSOR_MAP_SWIZZLE_128B",
        }
    }
}

/// One dimension of a tensor map and its box: a mode of the global tensor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TmaDim {
    /// The global tensor's mode it walks.
    pub mode: usize,
    /// The box's extent along it.
    pub box_extent: i64,
    /// The global extent (elements past it read as zeros).
    pub extent: Int,
    /// The global stride, in elements (1 for dimension 0).
    pub stride: Int,
}

/// One box of a shared tile: where it starts in the tile (elements, before the swizzle) and
/// its offset along each global mode from the tile's origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TmaIssue {
    pub smem_offset: i64,
    pub coord: Vec<i64>,
}

/// A shared tile as TMA boxes: the tensor map's dimensions (innermost first), its swizzle,
/// and the boxes that fill the tile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TmaBox {
    pub elem: ElemType,
    pub dims: Vec<TmaDim>,
    pub swizzle: TmaSwizzle,
    pub issues: Vec<TmaIssue>,
}

impl TmaBox {
    /// The bytes one box moves (what its mbarrier's transaction count expects).
    pub fn box_bytes(&self) -> i64 {
        self.dims.iter().map(|d| d.box_extent).product::<i64>() * i64::from(self.elem.bits()) / 8
    }

    /// The bytes of the whole tile (every issue).
    pub fn tile_bytes(&self) -> i64 {
        self.box_bytes() * self.issues.len() as i64
    }

    /// The global strides that must be multiples of 16 bytes, as `(stride, elements)`: the
    /// stride in elements and the multiple of elements that is 16 bytes.
    pub fn stride_multiples(&self) -> Vec<(Int, i64)> {
        let per16 = (128 / i64::from(self.elem.bits().max(1))).max(1);
        self.dims
            .iter()
            .skip(1)
            .filter(|d| d.stride.as_static().is_none())
            .map(|d| (d.stride.clone(), per16))
            .collect()
    }
}

impl fmt::Display for TmaBox {
    /// `box {64,128} of half_t over modes (1,0), strides (_1,ldA), CU_TENSOR_MAP_SWIZZLE_128B, 1 issue`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |v: Vec<String>| v.join(",");
        write!(
            f,
            "box {{{}}} of {} over modes ({}), strides ({}), {}, {} issue{}",
            list(self.dims.iter().map(|d| d.box_extent.to_string()).collect()),
            self.elem,
            list(self.dims.iter().map(|d| d.mode.to_string()).collect()),
            list(self.dims.iter().map(|d| d.stride.to_string()).collect()),
            self.swizzle.cuda_name(),
            self.issues.len(),
            if self.issues.len() == 1 { "" } else { "s" }
        )
    }
}

/// A run of the shared tile's offsets along one global mode: `extent` elements, `weight` apart
/// in the mode's coordinate, `stride` apart in shared memory.
#[derive(Debug, Clone, Copy)]
struct Run {
    mode: usize,
    weight: i64,
    extent: i64,
    stride: i64,
}

/// The TMA boxes that fill the shared tile `smem` (rank r, mode i a part of the global
/// tensor's mode i) from the global tensor `gmem` (rank r, each mode one extent and stride, in
/// elements of `elem`).
///
/// ```
/// use cute_layout::atom::tma::{make_tma_box, TmaSwizzle};
/// use cute_layout::{expr, AnyLayout, ElemType};
/// let l = |s: &str| match expr::eval(s).unwrap() { expr::Value::Layout(l) => l, _ => unreachable!() };
/// // a K-major 128x64 half_t tile of 128-byte swizzled rows, from A (M,K):(ldA,1)
/// let AnyLayout::Plain(gmem) = l("(M,K):(ldA,_1)") else { unreachable!() };
/// let tile = l("Sw<3,3,3> o _0 o ((_8,_16),(_64,_1)):((_64,_512),(_1,_0))");
/// let b = make_tma_box(&gmem, &tile, ElemType::F16)?;
/// assert_eq!(b.to_string(), "box {64,128} of half_t over modes (1,0), strides (_1,ldA), CU_TENSOR_MAP_SWIZZLE_128B, 1 issue");
/// assert_eq!((b.swizzle, b.box_bytes()), (TmaSwizzle::B128, 16384));
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn make_tma_box(gmem: &Layout, smem: &AnyLayout, elem: ElemType) -> Result<TmaBox> {
    let bytes = i64::from(elem.bits()) / 8;
    if !elem.bits().is_multiple_of(8) || bytes == 0 {
        return Err(algebra(OP, format!("{elem}: TMA moves whole bytes")));
    }
    let (sw, tile) = unswizzled(smem, bytes)?;
    let swizzle = TmaSwizzle::of_bytes(sw).ok_or_else(|| {
        algebra(
            OP,
            format!("{smem}: its swizzle is {sw} on bytes; TMA swizzles 32, 64 or 128-byte rows (Sw<1..3,4,3> on bytes)"),
        )
    })?;
    let rank = gmem.rank();
    if rank == 0 || rank > TMA_RANK_MAX || tile.rank() != rank {
        return Err(algebra(
            OP,
            format!("the global tensor {gmem} and the tile {tile}: both of one rank, 1 to {TMA_RANK_MAX}"),
        ));
    }
    let runs = runs(&tile)?;
    let (box_runs, outer) = split_box(&runs, rank);
    let mut dims = Vec::with_capacity(rank);
    for r in &box_runs {
        let g = gmem.mode(r.mode)?;
        let (extent, stride) = match (g.shape().as_int(), g.stride().as_int()) {
            (Some(e), Some(s)) => (e.clone(), s.clone()),
            _ => {
                return Err(algebra(
                    OP,
                    format!("{gmem}: mode {} is not one extent and one stride", r.mode),
                ))
            }
        };
        dims.push(TmaDim {
            mode: r.mode,
            box_extent: r.extent,
            extent,
            stride,
        });
    }
    check_dims(&dims, gmem, bytes, swizzle)?;
    let issues = issues(&outer, rank)?;
    for i in &issues {
        if (i.smem_offset * bytes) % swizzle.period().max(128) != 0 {
            return Err(algebra(
                OP,
                format!("a box at element {} of the tile: each box starts on {} bytes (the swizzle's period, TMA's 128-byte alignment)", i.smem_offset, swizzle.period().max(128)),
            ));
        }
    }
    Ok(TmaBox {
        elem,
        dims,
        swizzle,
        issues,
    })
}

/// The tile's swizzle on byte addresses and its layout in elements (static offset 0); a
/// composition whose swizzle is the identity (`Sw<0,4,3>`, the INTER atoms) is unswizzled.
pub(crate) fn unswizzled(smem: &AnyLayout, bytes: i64) -> Result<(Swizzle, Layout)> {
    let plain = |l: &Layout| Ok((Swizzle::new(0, 0, 0)?, l.clone()));
    match smem {
        AnyLayout::Plain(l) => plain(l),
        AnyLayout::Composed(c) => match c.in_element_units()? {
            AnyLayout::Plain(l) => plain(&l),
            AnyLayout::Composed(e) => {
                if e.offset().as_static() != Some(0) {
                    return Err(algebra(
                        OP,
                        format!("{smem}: a TMA tile starts at its swizzle's origin (offset 0)"),
                    ));
                }
                Ok((e.layout_a().downcast(bytes)?, e.layout_b().clone()))
            }
        },
    }
}

/// The tile's offsets in order as runs along the global modes (each run the longest that is
/// contiguous both in shared memory and in its mode's coordinate); the tile must be compact.
fn runs(tile: &Layout) -> Result<Vec<Run>> {
    let mut leaves = Vec::new();
    for mode in 0..tile.rank() {
        let m = tile.mode(mode)?;
        let mut weight = 1i64;
        for (n, d) in m.shape().leaves().iter().zip(m.stride().leaves()) {
            let (Some(n), Some(d)) = (n.as_static(), d.as_static()) else {
                return Err(algebra(OP, format!("{tile}: a TMA tile is static")));
            };
            if n > 1 {
                leaves.push(Run {
                    mode,
                    weight,
                    extent: n,
                    stride: d,
                });
            }
            weight = weight.saturating_mul(n);
        }
    }
    leaves.sort_by_key(|r| r.stride);
    let mut out: Vec<Run> = Vec::new();
    let mut next = 1i64;
    for r in leaves {
        if r.stride != next {
            return Err(algebra(
                OP,
                format!("{tile}: not compact (an element at offset {next} is missing or written twice); TMA writes a dense box"),
            ));
        }
        next = r.stride.saturating_mul(r.extent);
        match out.last_mut() {
            Some(p) if p.mode == r.mode && p.weight.saturating_mul(p.extent) == r.weight => {
                p.extent = p.extent.saturating_mul(r.extent);
            }
            _ => out.push(r),
        }
    }
    Ok(out)
}

/// The box (the longest prefix of runs each starting a mode not seen yet; modes the tile
/// does not span get extent 1) and the runs that repeat it.
fn split_box(runs: &[Run], rank: usize) -> (Vec<Run>, Vec<Run>) {
    let mut seen = vec![false; rank];
    let mut n = 0;
    for r in runs {
        if seen[r.mode] || r.weight != 1 {
            break;
        }
        seen[r.mode] = true;
        n += 1;
    }
    let mut box_runs = runs[..n].to_vec();
    let next = runs.get(n).map_or(1, |r| r.stride);
    for (mode, _) in seen.iter().enumerate().filter(|(_, s)| !**s) {
        box_runs.push(Run {
            mode,
            weight: 1,
            extent: 1,
            stride: next,
        });
    }
    (box_runs, runs[n..].to_vec())
}

/// The box's limits: each extent at most 256, dimension 0 contiguous in global memory and its
/// rows as wide as the swizzle, the static strides multiples of 16 bytes.
fn check_dims(dims: &[TmaDim], gmem: &Layout, bytes: i64, sw: TmaSwizzle) -> Result<()> {
    for d in dims {
        if d.box_extent > TMA_BOX_MAX {
            return Err(algebra(
                OP,
                format!(
                    "a box of {} elements along mode {}: at most {TMA_BOX_MAX}",
                    d.box_extent, d.mode
                ),
            ));
        }
    }
    let inner = &dims[0];
    if inner.stride.as_static() != Some(1) {
        return Err(algebra(
            OP,
            format!("{gmem}: the box's innermost dimension (mode {}) has global stride {}; TMA's is contiguous", inner.mode, inner.stride),
        ));
    }
    let row = inner.box_extent * bytes;
    if row % 16 != 0 {
        return Err(algebra(
            OP,
            format!("the box's rows are {row} bytes: TMA moves multiples of 16 bytes"),
        ));
    }
    if sw != TmaSwizzle::None && row != sw.bytes() {
        let rel = if row < sw.bytes() {
            "wider than"
        } else {
            "narrower than"
        };
        return Err(algebra(
            OP,
            format!("{}: the swizzle is {rel} the box's {row}-byte rows (the rows must be the swizzle's {} bytes)", sw.cuda_name(), sw.bytes()),
        ));
    }
    for d in &dims[1..] {
        if let Some(s) = d.stride.as_static() {
            if (s * bytes) % 16 != 0 || s <= 0 {
                return Err(algebra(
                    OP,
                    format!("{gmem}: mode {}'s global stride {s} is {} bytes, not a positive multiple of 16", d.mode, s * bytes),
                ));
            }
        }
    }
    Ok(())
}

/// Every repeat of the box: the repeat runs' coordinates, first fastest.
fn issues(outer: &[Run], rank: usize) -> Result<Vec<TmaIssue>> {
    let count = outer
        .iter()
        .try_fold(1usize, |n, r| {
            n.checked_mul(usize::try_from(r.extent).ok()?)
        })
        .filter(|&n| n <= MAX_ISSUES)
        .ok_or_else(|| algebra(OP, format!("the tile needs more than {MAX_ISSUES} boxes")))?;
    let mut out = Vec::with_capacity(count);
    for i in 0..count as i64 {
        let (mut rest, mut smem, mut coord) = (i, 0i64, vec![0i64; rank]);
        for r in outer {
            let j = rest % r.extent;
            rest /= r.extent;
            smem += j * r.stride;
            coord[r.mode] += j * r.weight;
        }
        out.push(TmaIssue {
            smem_offset: smem,
            coord,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{eval, Value};

    fn l(s: &str) -> AnyLayout {
        match eval(s).unwrap() {
            Value::Layout(l) => l,
            v => panic!("{v:?}"),
        }
    }

    fn plain(s: &str) -> Layout {
        match l(s) {
            AnyLayout::Plain(p) => p,
            c => panic!("{c}"),
        }
    }

    #[test]
    fn mn_major_tile_is_two_boxes() {
        // A M-major (M,K):(1,ldA); a 128x64 tile of two 64-element SW128 columns
        let tile = l("Sw<3,3,3> o _0 o ((_64,_2),(_8,_8)):((_1,_4096),(_64,_512))");
        let b = make_tma_box(&plain("(M,K):(_1,ldA)"), &tile, ElemType::F16).unwrap();
        assert_eq!(
            b.to_string(),
            "box {64,64} of half_t over modes (0,1), strides (_1,ldA), CU_TENSOR_MAP_SWIZZLE_128B, 2 issues"
        );
        assert_eq!(
            b.issues[1],
            TmaIssue {
                smem_offset: 4096,
                coord: vec![64, 0]
            }
        );
        assert_eq!(b.stride_multiples(), vec![(b.dims[1].stride.clone(), 8)]);
    }

    #[test]
    fn refusals_name_the_condition() {
        let g = plain("(M,K):(ldA,_1)");
        let err = |t: &str, g: &Layout| {
            make_tma_box(g, &l(t), ElemType::F16)
                .unwrap_err()
                .to_string()
        };
        // rows of 64 bytes under the 128-byte swizzle
        assert!(err("Sw<3,3,3> o _0 o (_128,_32):(_32,_1)", &g)
            .contains("wider than the box's 64-byte rows"));
        // a box of 512 elements
        assert!(err("(_512,_8):(_8,_1)", &g).contains("at most 256"));
        // not compact
        assert!(err("(_128,_64):(_128,_1)", &g).contains("not compact"));
        // the inner dimension strided in global memory
        assert!(err("(_64,_64):(_1,_64)", &g).contains("TMA's is contiguous"));
        // a swizzle TMA has no mode for
        assert!(err("Sw<3,2,3> o _0 o (_128,_64):(_64,_1)", &g).contains("TMA swizzles"));
        // a global stride of 10 bytes
        assert!(err("(_16,_64):(_64,_1)", &plain("(_16,K):(_5,_1)"))
            .contains("not a positive multiple of 16"));
    }
}
