//! `make_tma_copy`: the TiledCopy of an SM90 TMA operation (`SM90_TMA_LOAD`,
//! `SM90_TMA_LOAD_MULTICAST`, `SM90_TMA_STORE`) over a shared tile, as C++ CuTe builds it in
//! `copy_traits_sm90_tma.hpp`.
//!
//! One TMA moves a box ([`make_tma_box`]): its atom is `Copy_Traits<Op, NumBitsPerTMA>` with
//! one thread (`ThrID = _1:_0`) and the box's bits as its one value mode. The TiledCopy's
//! values walk the shared tile in the order its offsets run (`right_inverse` of the
//! unswizzled tile), a box at a time, and cover the whole tile (`tile_to_shape` of one box's
//! walk); its "threads" are the CTAs of a multicast, each issuing its share of every box.

use std::fmt;

use super::tiled_copy::{CopyAtom, TiledCopy};
use super::tma::{make_tma_box, unswizzled, TmaBox};
use super::CopyOp;
use crate::error::{algebra, Result};
use crate::int::s;
use crate::numeric::ElemType;
use crate::tile_to_shape::{tile_to_shape, ModeOrder};
use crate::{composition, right_inverse, AnyLayout, IntTuple, Layout, Major};

const OP: &str = "make_tma_copy";

/// The largest multicast (CTAs of a cluster that share one box).
pub const TMA_MULTICAST_MAX: i64 = 16;

/// The SM90 TMA copy operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TmaOp {
    /// `SM90_TMA_LOAD`: global to shared memory, completing on an mbarrier.
    Load,
    /// `SM90_TMA_LOAD_MULTICAST`: one box to the same offset of several CTAs of a cluster.
    LoadMulticast,
    /// `SM90_TMA_STORE`: shared to global memory, completing in a bulk group.
    Store,
}

impl TmaOp {
    /// The operation C++ spells `name`.
    ///
    /// ```
    /// # use cute_layout::atom::TmaOp;
    /// assert_eq!(TmaOp::from_name("SM90_TMA_LOAD_MULTICAST"), Some(TmaOp::LoadMulticast));
    /// assert_eq!(TmaOp::from_name("SM90_TMA_LOAD_IM2COL"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<TmaOp> {
        Some(match name {
            "SM90_TMA_LOAD" => TmaOp::Load,
            "SM90_TMA_LOAD_MULTICAST" => TmaOp::LoadMulticast,
            "SM90_TMA_STORE" => TmaOp::Store,
            _ => return None,
        })
    }
}

impl fmt::Display for TmaOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TmaOp::Load => "SM90_TMA_LOAD",
            TmaOp::LoadMulticast => "SM90_TMA_LOAD_MULTICAST",
            TmaOp::Store => "SM90_TMA_STORE",
        })
    }
}

/// `make_tma_copy(op, gtensor, slayout[, cluster_size])`: the TiledCopy that moves the shared
/// tile `smem` (mode i a tile of the global tensor's mode i; swizzled or not) from or to the
/// global tensor `gmem` of `elem`s, `cluster_size` CTAs sharing each box (1 unless `op` is
/// `SM90_TMA_LOAD_MULTICAST`). Its tiler is the tile's shape (`product_each(shape(slayout))`).
///
/// ```
/// # use cute_layout::*;
/// # use cute_layout::atom::{make_tma_copy, TmaOp};
/// let l = |s: &str| match expr::eval(s).unwrap() { expr::Value::Layout(l) => l, _ => unreachable!() };
/// let AnyLayout::Plain(g) = l("(M,K):(K,_1)") else { unreachable!() };
/// // 128x128 K-major half_t: two 64-column boxes of 128-byte swizzled rows
/// let s_a = l("tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_128,_128))");
/// let tma = make_tma_copy(TmaOp::Load, &g, ElemType::F16, &s_a, 1)?;
/// // print(make_tma_copy(SM90_TMA_LOAD{}, gA, sA))
/// assert_eq!(tma.layout_tv().to_string(), "(_1,(((_64,_128),_2))):(_0,(((_128,_1),_8192)))");
/// assert_eq!(tma.atom().val_layout_src()?.to_string(), "(_1,_8192):(_0,_1)");
/// // a multicast over 2 CTAs: each issues half of every box
/// let mc = make_tma_copy(TmaOp::LoadMulticast, &g, ElemType::F16, &s_a, 2)?;
/// assert_eq!(mc.layout_tv().to_string(), "(_2,(((_64,_128),_2))):(_64,(((_128,_1),_8192)))");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn make_tma_copy(
    op: TmaOp,
    gmem: &Layout,
    elem: ElemType,
    smem: &AnyLayout,
    cluster_size: i64,
) -> Result<TiledCopy> {
    let boxes = make_tma_box(gmem, smem, elem)?;
    let per_tma: i64 = boxes.dims.iter().map(|d| d.box_extent).product();
    check_cluster(op, cluster_size, per_tma)?;
    let bits = u32::try_from(per_tma.saturating_mul(i64::from(elem.bits())))
        .map_err(|_| algebra(OP, format!("a box of {per_tma} elements of {elem}")))?;
    let atom = CopyAtom::new(CopyOp::Tma { op, bits }, elem)?;
    let (_, tile) = unswizzled(smem, i64::from(elem.bits() / 8))?;
    let inv = right_inverse(&tile)?; // smem offset -> tile coordinate
    let one_box = composition(&inv, &Layout::new(s(per_tma), s(1))?)?;
    let layout_v = tile_to_shape(
        &Layout::from_modes(vec![one_box]),
        &IntTuple::Int(tile.size()?),
        &ModeOrder::Major(Major::Left),
    )?;
    let cta_t = Layout::col_major(&IntTuple::Int(s(cluster_size)))?;
    let share = Layout::new(s(cluster_size), s(per_tma / cluster_size))?;
    let layout_t = composition(&inv, &composition(&share, &cta_t)?)?;
    let tiler = tile.shape().product_each()?;
    TiledCopy::new(atom, Layout::from_modes(vec![layout_t, layout_v]), tiler)
}

/// One CTA's share of a tile multicast to `cluster` CTAs (`SM90_TMA_LOAD_MULTICAST` in a
/// kernel): the boxes the CTA of rank 0 issues, each landing in every CTA of the multicast,
/// and how a rank's boxes move — `rank * smem_step` elements further into the tile and
/// `rank * coord_step[mode]` along each global mode. The ranks' shares are disjoint and
/// together the whole tile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TmaShare {
    pub boxes: TmaBox,
    pub smem_step: i64,
    pub coord_step: Vec<i64>,
}

impl TmaBox {
    /// The share of each of `cluster` CTAs: whole boxes when the tile's boxes divide among
    /// them evenly spaced, else every box cut along its outermost dimension (the box's
    /// elements are dense in shared memory, dimension 0 fastest, so the cut is contiguous).
    /// Each share starts on the swizzle's period, as every box must.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::make_tma_box;
    /// let l = |s: &str| match expr::eval(s).unwrap() { expr::Value::Layout(l) => l, _ => unreachable!() };
    /// let AnyLayout::Plain(g) = l("(N,K):(ldB,_1)") else { unreachable!() };
    /// // B's 256x64 K-major stage: one box of 256 rows, shared by 2 CTAs as 128 rows each
    /// let s_b = l("tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_256,_64))");
    /// let share = make_tma_box(&g, &s_b, ElemType::F16)?.multicast(2)?;
    /// assert_eq!(share.boxes.to_string(), "box {64,128} of half_t over modes (1,0), strides (_1,ldB), CU_TENSOR_MAP_SWIZZLE_128B, 1 issue");
    /// assert_eq!((share.smem_step, share.coord_step), (8192, vec![128, 0]));
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn multicast(&self, cluster: i64) -> Result<TmaShare> {
        let per_tma: i64 = self.dims.iter().map(|d| d.box_extent).product();
        check_cluster(TmaOp::LoadMulticast, cluster, per_tma)?;
        let rank = self.issues.first().map_or(0, |i| i.coord.len());
        if cluster == 1 {
            return Ok(TmaShare {
                boxes: self.clone(),
                smem_step: 0,
                coord_step: vec![0; rank],
            });
        }
        let share = self
            .whole_boxes(cluster, rank)
            .or_else(|| self.cut_boxes(cluster, rank))
            .ok_or_else(|| {
                algebra(
                    OP,
                    format!("{self}: neither its boxes nor their outermost dimension divide among {cluster} CTAs"),
                )
            })?;
        let bytes = i64::from(self.elem.bits() / 8);
        let align = self.swizzle.period().max(128);
        if (share.smem_step * bytes) % align != 0 {
            return Err(algebra(
                OP,
                format!("{self} over {cluster} CTAs: a share of {} bytes; each starts on {align} bytes (the swizzle's period, TMA's 128-byte alignment)", share.smem_step * bytes),
            ));
        }
        Ok(share)
    }

    /// Each CTA issues `n / cluster` consecutive boxes, when rank r's are rank 0's moved
    /// r times one step.
    fn whole_boxes(&self, cluster: i64, rank: usize) -> Option<TmaShare> {
        let n = self.issues.len();
        let per = n / usize::try_from(cluster)
            .ok()
            .filter(|&c| c > 0 && n.is_multiple_of(c))?;
        let (first, next) = (&self.issues[0], self.issues.get(per)?);
        let smem_step = next.smem_offset - first.smem_offset;
        let coord_step: Vec<i64> = (0..rank).map(|m| next.coord[m] - first.coord[m]).collect();
        let moved = self.issues.iter().enumerate().all(|(i, is)| {
            let (r, base) = ((i / per) as i64, &self.issues[i % per]);
            is.smem_offset == base.smem_offset + r * smem_step
                && (0..rank).all(|m| is.coord[m] == base.coord[m] + r * coord_step[m])
        });
        moved.then(|| TmaShare {
            boxes: TmaBox {
                issues: self.issues[..per].to_vec(),
                ..self.clone()
            },
            smem_step,
            coord_step,
        })
    }

    /// Every box cut in `cluster` along its outermost dimension.
    fn cut_boxes(&self, cluster: i64, rank: usize) -> Option<TmaShare> {
        let outer = self.dims.last()?;
        if outer.box_extent % cluster != 0 {
            return None;
        }
        let part = outer.box_extent / cluster;
        let mut boxes = self.clone();
        boxes.dims.last_mut()?.box_extent = part;
        let mut coord_step = vec![0; rank];
        *coord_step.get_mut(outer.mode)? = part;
        Some(TmaShare {
            smem_step: self.box_bytes() / i64::from(self.elem.bits() / 8) / cluster,
            boxes,
            coord_step,
        })
    }
}

/// A multicast splits each box among 2 to 16 CTAs; the other operations have one.
fn check_cluster(op: TmaOp, cluster: i64, per_tma: i64) -> Result<()> {
    let ok = match op {
        TmaOp::LoadMulticast => {
            (1..=TMA_MULTICAST_MAX).contains(&cluster) && per_tma % cluster == 0
        }
        TmaOp::Load | TmaOp::Store => cluster == 1,
    };
    if ok {
        return Ok(());
    }
    Err(algebra(
        OP,
        match op {
            TmaOp::LoadMulticast => format!(
                "{op} over {cluster} CTAs of a box of {per_tma} elements: 1 to {TMA_MULTICAST_MAX} CTAs, dividing the box"
            ),
            _ => format!(
                "{op} over {cluster} CTAs: one CTA issues it (SM90_TMA_LOAD_MULTICAST shares a box)"
            ),
        },
    ))
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

    #[test]
    fn refusals_name_the_condition() {
        let AnyLayout::Plain(g) = l("(M,K):(K,_1)") else {
            panic!()
        };
        let s_a = l("tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_128,_64))");
        let err = |op, c| {
            make_tma_copy(op, &g, ElemType::F16, &s_a, c)
                .unwrap_err()
                .to_string()
        };
        assert!(err(TmaOp::Load, 2).contains("one CTA issues it"));
        assert!(err(TmaOp::Store, 0).contains("one CTA issues it"));
        assert!(err(TmaOp::LoadMulticast, 32).contains("1 to 16 CTAs"));
        assert!(err(TmaOp::LoadMulticast, 3).contains("dividing the box"));
        // the tile's majorness differs from the global tensor's (C++ asserts at run time)
        let m_major = l("(_64,_32):(_1,_64)");
        let e = make_tma_copy(TmaOp::Load, &g, ElemType::F32, &m_major, 1).unwrap_err();
        assert!(e.to_string().contains("TMA's is contiguous"), "{e}");
    }

    fn share(g: &str, tile: &str, c: i64) -> Result<TmaShare> {
        let AnyLayout::Plain(g) = l(g) else { panic!() };
        make_tma_box(&g, &l(tile), ElemType::F16)?.multicast(c)
    }

    #[test]
    fn a_multicast_share_covers_the_tile_once() {
        // MN-major B (N contiguous): four 64-column boxes, two whole boxes a CTA
        let g = "(N,K):(_1,ldB)";
        let t = "tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>, (_256,_64), Step<_2,_1>)";
        let whole = make_tma_box(
            &match l(g) {
                AnyLayout::Plain(p) => p,
                _ => panic!(),
            },
            &l(t),
            ElemType::F16,
        )
        .unwrap();
        for c in [1, 2, 4] {
            let sh = share(g, t, c).unwrap();
            let mut seen = std::collections::BTreeSet::new();
            for r in 0..c {
                for i in &sh.boxes.issues {
                    let at = i.smem_offset + r * sh.smem_step;
                    let per = sh.boxes.box_bytes() / 2;
                    assert!(seen.insert(at), "rank {r} box at {at} twice");
                    assert!(at + per <= whole.tile_bytes() / 2);
                }
            }
            assert_eq!(sh.boxes.tile_bytes() * c, whole.tile_bytes(), "{c}");
        }
        // K-major B: one box cut in rows
        let k = share(
            "(N,K):(ldB,_1)",
            "tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_256,_64))",
            4,
        )
        .unwrap();
        assert_eq!(
            (
                k.boxes.dims[1].box_extent,
                k.smem_step,
                k.coord_step.clone()
            ),
            (64, 4096, vec![64, 0])
        );
    }

    #[test]
    fn a_share_off_the_swizzle_period_is_refused() {
        // 16 rows of 128 bytes cut in 4: 512-byte shares do not start on the 1024-byte period
        let e = share(
            "(N,K):(ldB,_1)",
            "tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_16,_64))",
            4,
        )
        .unwrap_err();
        assert!(e.to_string().contains("starts on 1024 bytes"), "{e}");
        let e = share(
            "(N,K):(ldB,_1)",
            "tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_8,_64))",
            16,
        )
        .unwrap_err();
        assert!(e.to_string().contains("divide among 16 CTAs"), "{e}");
    }
}
