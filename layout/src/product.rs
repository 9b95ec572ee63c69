//! `logical_product` and its regroupings, and the rank-sensitive `blocked_product` /
//! `raked_product`.

use crate::by_mode::{transform_layout, Rest};
use crate::complement::complement;
use crate::composition::composition;
use crate::divide::{tile_unzip, unpack};
use crate::error::{algebra, Result};
use crate::int_tuple::{zip, IntTuple};
use crate::layout::Layout;
use crate::tiler::Tiler;

/// `logical_product(A, B)`: `(A, complement(A, size(A)*cosize(B)) o B)`, B repeated over A's
/// complement. A by-mode tiler multiplies mode by mode.
///
/// ```
/// # use cute_layout::*;
/// let a = Layout::new(tup![s(2), s(2)], tup![s(4), s(1)])?; // (_2,_2):(_4,_1)
/// let b = Layout::new(s(6), s(1))?; // _6:_1
/// assert_eq!(
///     logical_product(&a, &Tiler::Layout(b))?.to_string(),
///     "((_2,_2),(_2,_3)):((_4,_1),(_2,_8))"
/// );
/// // complement(_4:_2, _12) is (_2,_2):(_1,_8): _3:_1 does not divide into it
/// let (a, b) = (Layout::new(s(4), s(2))?, Layout::new(s(3), s(1))?);
/// assert!(logical_product(&a, &Tiler::Layout(b)).is_err());
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn logical_product(a: &Layout, t: &Tiler) -> Result<Layout> {
    match t {
        Tiler::Tuple(ts) => transform_layout("logical_product", a, ts, Rest::Keep, logical_product),
        Tiler::Under => Ok(a.clone()),
        _ => {
            let b = t
                .as_layout()?
                .ok_or_else(|| algebra("logical_product", "bad tiler"))?;
            let cotarget = a.size()?.mul(&b.cosize()?)?;
            let rest = complement(a, &IntTuple::Int(cotarget))
                .and_then(|c| composition(&c, &b))
                .map_err(|e| {
                    algebra(
                        "logical_product",
                        format!("{b} cannot be repeated over the complement of {a}: {e}"),
                    )
                })?;
            Ok(Layout::from_modes(vec![a.clone(), rest]))
        }
    }
}

/// `zipped_product(A, B)`: `((BlockM,BlockN,...),(RepM,RepN,...))`.
///
/// ```
/// # use cute_layout::*;
/// let a = Layout::new(tup![s(2), s(5)], tup![s(5), s(1)])?; // (BLK_M,BLK_N)
/// let b = Layout::new(tup![s(3), s(4)], tup![s(1), s(3)])?; // (REP_M,REP_N)
/// assert_eq!(
///     zipped_product(&a, &Tiler::Layout(b))?.to_string(),
///     "((_2,_5),(_3,_4)):((_5,_1),(_10,_30))"
/// );
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn zipped_product(a: &Layout, t: &Tiler) -> Result<Layout> {
    tile_unzip("zipped_product", &logical_product(a, t)?, t)
}

/// `tiled_product(A, B)`: `((BlockM,BlockN,...),RepM,RepN,...)`.
///
/// ```
/// # use cute_layout::*;
/// let a = Layout::new(tup![s(2), s(5)], tup![s(5), s(1)])?; // (BLK_M,BLK_N)
/// let b = Layout::new(tup![s(3), s(4)], tup![s(1), s(3)])?; // (REP_M,REP_N)
/// assert_eq!(
///     tiled_product(&a, &Tiler::Layout(b))?.to_string(),
///     "((_2,_5),_3,_4):((_5,_1),_10,_30)"
/// );
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn tiled_product(a: &Layout, t: &Tiler) -> Result<Layout> {
    unpack(&zipped_product(a, t)?, false)
}

/// `flat_product(A, B)`: `(BlockM,BlockN,...,RepM,RepN,...)`.
///
/// ```
/// # use cute_layout::*;
/// let a = Layout::new(tup![s(2), s(5)], tup![s(5), s(1)])?; // (BLK_M,BLK_N)
/// let b = Layout::new(tup![s(3), s(4)], tup![s(1), s(3)])?; // (REP_M,REP_N)
/// assert_eq!(
///     flat_product(&a, &Tiler::Layout(b))?.to_string(),
///     "(_2,_5,_3,_4):(_5,_1,_10,_30)"
/// );
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn flat_product(a: &Layout, t: &Tiler) -> Result<Layout> {
    unpack(&zipped_product(a, t)?, true)
}

/// `blocked_product(A, B)`: each element of B is a copy of the block A; rank `max(rank A, rank B)`.
///
/// ```
/// # use cute_layout::*;
/// let a = Layout::new(tup![s(2), s(5)], tup![s(5), s(1)])?; // (BLK_M,BLK_N)
/// let b = Layout::new(tup![s(3), s(4)], tup![s(1), s(3)])?; // (REP_M,REP_N)
/// assert_eq!(
///     blocked_product(&a, &b)?.to_string(),
///     "((_2,_3),(_5,_4)):((_5,_10),(_1,_30))"
/// );
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn blocked_product(a: &Layout, b: &Layout) -> Result<Layout> {
    rank_sensitive_product(a, b, false)
}

/// `raked_product(A, B)`: like `blocked_product`, with the copies of A interleaved.
///
/// ```
/// # use cute_layout::*;
/// let a = Layout::new(tup![s(2), s(5)], tup![s(5), s(1)])?; // (BLK_M,BLK_N)
/// let b = Layout::new(tup![s(3), s(4)], tup![s(1), s(3)])?; // (REP_M,REP_N)
/// assert_eq!(
///     raked_product(&a, &b)?.to_string(),
///     "((_3,_2),(_4,_5)):((_10,_5),(_30,_1))"
/// );
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn raked_product(a: &Layout, b: &Layout) -> Result<Layout> {
    rank_sensitive_product(a, b, true)
}

fn rank_sensitive_product(a: &Layout, b: &Layout, raked: bool) -> Result<Layout> {
    let r = a.rank().max(b.rank());
    let one = Layout::trivial();
    let (a, b) = (a.append_to(r, &one), b.append_to(r, &one));
    let p = logical_product(&a, &Tiler::Layout(b))?;
    let (x, y) = (p.mode(0)?, p.mode(1)?);
    let (first, second) = if raked { (y, x) } else { (x, y) };
    let pair = |f: &Layout, s: &Layout, pick: fn(&Layout) -> &IntTuple| {
        zip(&IntTuple::Tuple(vec![pick(f).clone(), pick(s).clone()]))
    };
    Layout::new(
        pair(&first, &second, Layout::shape)?,
        pair(&first, &second, Layout::stride)?,
    )
}
