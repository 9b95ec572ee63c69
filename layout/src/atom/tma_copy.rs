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
use super::tma::{make_tma_box, unswizzled};
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
}
