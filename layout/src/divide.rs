//! `logical_divide` and its regroupings `zipped_divide`, `tiled_divide`, `flat_divide`.

use crate::by_mode::{transform_layout, Rest};
use crate::coalesce::coalesce;
use crate::complement::complement;
use crate::composition::composition;
use crate::coord::Coord;
use crate::error::{algebra, Result};
use crate::int_tuple::IntTuple;
use crate::layout::Layout;
use crate::tiler::Tiler;

/// `logical_divide(L, T)`: `L o (T, complement(T, shape(coalesce(L))))`, i.e. `(Tile, Rest)`.
/// A by-mode tiler divides mode by mode and keeps the modes it does not name.
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(tup![s(4), s(2), s(3)], tup![s(2), s(1), s(8)])?;
/// let tile = Layout::new(s(4), s(2))?; // _4:_2
/// assert_eq!(
///     logical_divide(&l, &Tiler::Layout(tile))?.to_string(),
///     "((_2,_2),(_2,_3)):((_4,_1),(_2,_8))"
/// );
/// let ga = Layout::new(tup![d(4096), d(1024)], tup![s(1), d(4096)])?; // (M,K)
/// let cta_tiler = Tiler::from_shape(&tup![s(128), s(32)]); // (BLK_M,BLK_K)
/// assert_eq!(
///     logical_divide(&ga, &cta_tiler)?.to_string(), // ((BLK_M,M/BLK_M),(BLK_K,K/BLK_K))
///     "((_128,32),(_32,32)):((_1,_128),(4096,131072))"
/// );
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn logical_divide(l: &Layout, t: &Tiler) -> Result<Layout> {
    match t {
        Tiler::Tuple(ts) => transform_layout("logical_divide", l, ts, Rest::Keep, logical_divide),
        Tiler::Under => Ok(l.clone()),
        _ => {
            let tile = t
                .as_layout()?
                .ok_or_else(|| algebra("logical_divide", "bad tiler"))?;
            let target = coalesce(l)?.shape().clone();
            let rest = complement(&tile, &target)?;
            composition(l, &Layout::from_modes(vec![tile, rest]))
        }
    }
}

/// `zipped_divide(L, T)`: `((TileM,TileN,...),(RestM,RestN,...,L...))`.
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(tup![s(128), s(32)], tup![s(1), s(128)])?; // (M,N)
/// let tiler = Tiler::from_shape(&tup![s(32), s(8)]); // (TILE_M,TILE_N)
/// assert_eq!(
///     zipped_divide(&l, &tiler)?.to_string(), // ((TILE_M,TILE_N),(REST_M,REST_N))
///     "((_32,_8),(_4,_4)):((_1,_128),(_32,_1024))"
/// );
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn zipped_divide(l: &Layout, t: &Tiler) -> Result<Layout> {
    tile_unzip("zipped_divide", &logical_divide(l, t)?, t)
}

/// `tiled_divide(L, T)`: `((TileM,TileN,...),RestM,RestN,...)`.
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(tup![s(9), tup![s(4), s(8)]], tup![s(59), tup![s(13), s(1)]])?;
/// let tiler = Tiler::Tuple(vec![
///     Layout::new(s(3), s(3))?.into(),                                  // _3:_3
///     Layout::new(tup![s(2), s(4)], tup![s(1), s(8)])?.into(), // (_2,_4):(_1,_8)
/// ]);
/// assert_eq!(
///     tiled_divide(&l, &tiler)?.to_string(),
///     "((_3,(_2,_4)),_3,(_2,_2)):((_177,(_13,_2)),_59,(_26,_1))"
/// );
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn tiled_divide(l: &Layout, t: &Tiler) -> Result<Layout> {
    unpack(&zipped_divide(l, t)?, false)
}

/// `flat_divide(L, T)`: `(TileM,TileN,...,RestM,RestN,...)`.
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(tup![s(9), tup![s(4), s(8)]], tup![s(59), tup![s(13), s(1)]])?;
/// let tiler = Tiler::Tuple(vec![
///     Layout::new(s(3), s(3))?.into(),                                  // _3:_3
///     Layout::new(tup![s(2), s(4)], tup![s(1), s(8)])?.into(), // (_2,_4):(_1,_8)
/// ]);
/// assert_eq!(
///     flat_divide(&l, &tiler)?.to_string(),
///     "(_3,(_2,_4),_3,(_2,_2)):(_177,(_13,_2),_59,(_26,_1))"
/// );
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn flat_divide(l: &Layout, t: &Tiler) -> Result<Layout> {
    unpack(&zipped_divide(l, t)?, true)
}

/// `result(_, repeat<R1>(_))` (or `result(repeat<R0>(_), repeat<R1>(_))` when `both`): unpacks
/// the modes of a rank-2 zipped result one level.
pub(crate) fn unpack(zipped: &Layout, both: bool) -> Result<Layout> {
    let r0 = zipped.mode(0)?.rank();
    let r1 = zipped.mode(1)?.rank();
    let c0 = if both {
        Coord::repeat_under(r0)
    } else {
        Coord::Under
    };
    zipped.slice(&Coord::Tuple(vec![c0, Coord::repeat_under(r1)]))
}

/// `tile_unzip(L, T)`: zips the rank-2 modes at the terminals of T into `((tiles),(rests))`.
pub(crate) fn tile_unzip(op: &'static str, l: &Layout, t: &Tiler) -> Result<Layout> {
    Layout::new(zip2_by(op, l.shape(), t)?, zip2_by(op, l.stride(), t)?)
}

/// `zip2_by(t, guide)`: `((A,a),(B,b),x)` by guide `(_,_)` becomes `((A,B),(a,b,x))`.
fn zip2_by(op: &'static str, t: &IntTuple, guide: &Tiler) -> Result<IntTuple> {
    let Tiler::Tuple(g) = guide else {
        if t.rank() != 2 || !t.is_tuple() {
            return Err(algebra(
                op,
                format!("{t} is not a rank-2 (tile, rest) pair"),
            ));
        }
        return Ok(t.clone());
    };
    let modes = t.modes();
    if g.len() > modes.len() || !t.is_tuple() {
        return Err(algebra(
            op,
            format!("tiler {guide} has more modes than {t}"),
        ));
    }
    let (mut first, mut second) = (Vec::new(), Vec::new());
    for (m, gi) in modes.iter().zip(g) {
        let split = zip2_by(op, m, gi)?;
        first.push(split.get(0).cloned().unwrap_or(IntTuple::Tuple(vec![])));
        second.push(split.get(1).cloned().unwrap_or(IntTuple::Tuple(vec![])));
    }
    second.extend(modes.into_iter().skip(g.len()));
    Ok(IntTuple::Tuple(vec![
        IntTuple::Tuple(first),
        IntTuple::Tuple(second),
    ]))
}
