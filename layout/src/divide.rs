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
/// assert_eq!(
///     expr::eval_str("logical_divide((_4,_2,_3):(_2,_1,_8), _4:_2)").unwrap(),
///     "((_2,_2),(_2,_3)):((_4,_1),(_2,_8))"
/// );
/// assert_eq!(
///     expr::eval_str("logical_divide((4096,1024):(_1,4096), (_128,_32))").unwrap(),
///     "((_128,32),(_32,32)):((_1,_128),(4096,131072))"
/// );
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
/// assert_eq!(
///     expr::eval_str("zipped_divide((_128,_32):(_1,_128), (_32,_8))").unwrap(),
///     "((_32,_8),(_4,_4)):((_1,_128),(_32,_1024))"
/// );
/// ```
pub fn zipped_divide(l: &Layout, t: &Tiler) -> Result<Layout> {
    tile_unzip("zipped_divide", &logical_divide(l, t)?, t)
}

/// `tiled_divide(L, T)`: `((TileM,TileN,...),RestM,RestN,...)`.
///
/// ```
/// # use cute_layout::*;
/// assert_eq!(
///     expr::eval_str("tiled_divide((_9,(_4,_8)):(_59,(_13,_1)), make_tile(_3:_3, (_2,_4):(_1,_8)))").unwrap(),
///     "((_3,(_2,_4)),_3,(_2,_2)):((_177,(_13,_2)),_59,(_26,_1))"
/// );
/// ```
pub fn tiled_divide(l: &Layout, t: &Tiler) -> Result<Layout> {
    unpack(&zipped_divide(l, t)?, false)
}

/// `flat_divide(L, T)`: `(TileM,TileN,...,RestM,RestN,...)`.
///
/// ```
/// # use cute_layout::*;
/// assert_eq!(
///     expr::eval_str("flat_divide((_9,(_4,_8)):(_59,(_13,_1)), make_tile(_3:_3, (_2,_4):(_1,_8)))").unwrap(),
///     "(_3,(_2,_4),_3,(_2,_2)):(_177,(_13,_2),_59,(_26,_1))"
/// );
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
