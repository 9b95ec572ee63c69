//! Coordinates with the slicing underscore `_`, and `slice` / `dice` (CuTe's `underscore.hpp`).

use std::fmt;

use crate::error::{algebra, Result};
use crate::int::Int;
use crate::int_tuple::IntTuple;

/// A coordinate: integers, `_`, or tuples of coordinates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Coord {
    /// An integer coordinate.
    Int(Int),
    /// The slicing underscore `_`: keep this mode.
    Under,
    /// A tuple of coordinates.
    Tuple(Vec<Coord>),
}

impl Coord {
    /// Whether any leaf is `_`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// // has_underscore<decltype(make_coord(_, 2))>::value
    /// assert!(Coord::Tuple(vec![X, d(2).into()]).has_underscore());
    /// assert!(!Coord::from(&tup![d(1), d(2)]).has_underscore());
    /// ```
    pub fn has_underscore(&self) -> bool {
        match self {
            Coord::Int(_) => false,
            Coord::Under => true,
            Coord::Tuple(v) => v.iter().any(Coord::has_underscore),
        }
    }

    /// The coordinate as an IntTuple (`_` leaves become `_0`, as CuTe's offset of a slice).
    ///
    /// ```
    /// # use cute_layout::*;
    /// let c = Coord::Tuple(vec![X, d(2).into()]);
    /// assert_eq!(c.zeroed().to_string(), "(_0,2)");
    /// // the offset of the slice t(_,2) of make_tensor(p, make_layout(make_shape(_4{},_8{}))): 8
    /// let l = Layout::col_major(&tup![s(4), s(8)]).unwrap();
    /// assert_eq!(l.crd2idx(&c.zeroed()).unwrap().value(), Some(8));
    /// ```
    pub fn zeroed(&self) -> IntTuple {
        match self {
            Coord::Int(i) => IntTuple::Int(i.clone()),
            Coord::Under => IntTuple::st(0),
            Coord::Tuple(v) => IntTuple::Tuple(v.iter().map(Coord::zeroed).collect()),
        }
    }

    /// `repeat<n>(_)`: `_` for `n == 1`, else a tuple of `n` underscores.
    ///
    /// ```
    /// # use cute_layout::*;
    /// // print(repeat<3>(_))
    /// assert_eq!(Coord::repeat_under(3).to_string(), "(_,_,_)");
    /// assert_eq!(Coord::repeat_under(1), Coord::Under);
    /// ```
    pub fn repeat_under(n: usize) -> Coord {
        if n == 1 {
            Coord::Under
        } else {
            Coord::Tuple(vec![Coord::Under; n])
        }
    }
}

/// CuTe's `X` (C++: `using X = Underscore;`): in a [`Step`], marks a mode that
/// [`local_tile`](crate::local_tile) and [`local_partition`](crate::local_partition) drop from
/// the tiler and the coordinate. It is the slicing underscore `_`, and prints as `_`.
///
/// ```
/// # use cute_layout::*;
/// // print(Step<_1,X,_1>{})
/// assert_eq!(make_step([s(1).into(), X, s(1).into()]).to_string(), "(_1,_,_1)");
/// ```
pub const X: Coord = Coord::Under;

/// CuTe's `Step<...>`: a tuple of `_1` (keep the mode) and [`X`] (drop it), the projection
/// `local_tile(gA, cta_tiler, cta_coord, Step<_1,X,_1>{})` takes to tile A by the `(M,K)` modes
/// of an `(M,N,K)` tiler. Build one with [`make_step`].
pub type Step = Coord;

/// `make_step(m0, m1, ...)`: a [`Step`] of the given modes (C++ `Step<_1,X,_1>{}`).
///
/// ```
/// # use cute_layout::*;
/// let proj = make_step([s(1).into(), X, s(1).into()]);
/// // print(Step<_1,X,_1>{})
/// assert_eq!(proj.to_string(), "(_1,_,_1)");
/// ```
pub fn make_step(modes: impl IntoIterator<Item = Coord>) -> Step {
    Coord::Tuple(modes.into_iter().collect())
}

impl From<Int> for Coord {
    fn from(i: Int) -> Self {
        Coord::Int(i)
    }
}

impl From<&IntTuple> for Coord {
    fn from(t: &IntTuple) -> Self {
        match t {
            IntTuple::Int(i) => Coord::Int(i.clone()),
            IntTuple::Tuple(v) => Coord::Tuple(v.iter().map(Coord::from).collect()),
        }
    }
}

/// `slice(c, t)`: keeps the modes of `t` under a `_` of `c` (tuple_cat semantics: `slice((_,2),(a,b))`
/// is the rank-1 tuple `(a)`).
///
/// ```
/// # use cute_layout::*;
/// // print(slice(make_coord(_, 2), make_shape(4, 8)))
/// assert_eq!(slice(&Coord::Tuple(vec![X, d(2).into()]), &tup![d(4), d(8)]).unwrap().to_string(), "(4)");
/// ```
pub fn slice(c: &Coord, t: &IntTuple) -> Result<IntTuple> {
    match c {
        Coord::Under => Ok(t.clone()),
        Coord::Int(_) => Ok(IntTuple::Tuple(vec![])),
        Coord::Tuple(_) => {
            let mut out = Vec::new();
            lift(c, t, true, &mut out)?;
            Ok(IntTuple::Tuple(out))
        }
    }
}

/// `dice(c, t)`: keeps the modes of `t` under an integer of `c` (the complement of `slice`).
///
/// ```
/// # use cute_layout::*;
/// // print(dice(make_coord(_, 2), make_shape(4, 8)))
/// assert_eq!(dice(&Coord::Tuple(vec![X, d(2).into()]), &tup![d(4), d(8)]).unwrap().to_string(), "(8)");
/// ```
pub fn dice(c: &Coord, t: &IntTuple) -> Result<IntTuple> {
    match c {
        Coord::Under => Ok(IntTuple::Tuple(vec![])),
        Coord::Int(_) => Ok(t.clone()),
        Coord::Tuple(_) => {
            let mut out = Vec::new();
            lift(c, t, false, &mut out)?;
            Ok(IntTuple::Tuple(out))
        }
    }
}

/// `lift_slice` (keep_under) / `lift_dice` (!keep_under), appending the kept modes to `out`.
fn lift(c: &Coord, t: &IntTuple, keep_under: bool, out: &mut Vec<IntTuple>) -> Result<()> {
    match c {
        Coord::Tuple(cv) => {
            let IntTuple::Tuple(tv) = t else {
                return Err(mismatch(c, t));
            };
            if cv.len() != tv.len() {
                return Err(mismatch(c, t));
            }
            cv.iter()
                .zip(tv)
                .try_for_each(|(x, y)| lift(x, y, keep_under, out))
        }
        Coord::Under if keep_under => {
            out.push(t.clone());
            Ok(())
        }
        Coord::Int(_) if !keep_under => {
            out.push(t.clone());
            Ok(())
        }
        _ => Ok(()),
    }
}

fn mismatch(c: &Coord, t: &IntTuple) -> crate::error::Error {
    algebra(
        "slice",
        format!("coordinate {c} does not match {t} (mismatched ranks)"),
    )
}

impl fmt::Display for Coord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Coord::Int(i) => write!(f, "{i}"),
            Coord::Under => f.write_str("_"),
            Coord::Tuple(v) => crate::print::write_tuple(f, v),
        }
    }
}

impl crate::Layout {
    /// `slice(c, L)`: the sub-layout of the modes under `_` (`((_4,_8):(_1,_4))(_,2)` is `(_4):(_1)`).
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::col_major(&tup![s(4), s(8)]).unwrap(); // (_4,_8):(_1,_4)
    /// // print(slice(make_coord(_, 2), make_layout(make_shape(_4{},_8{}))))
    /// assert_eq!(l.slice(&Coord::Tuple(vec![X, d(2).into()])).unwrap().to_string(), "(_4):(_1)");
    /// ```
    pub fn slice(&self, c: &Coord) -> Result<crate::Layout> {
        crate::Layout::new(slice(c, self.shape())?, slice(c, self.stride())?)
    }

    /// `dice(c, L)`: the sub-layout of the modes under integers of `c`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::col_major(&tup![s(4), s(8)]).unwrap(); // (_4,_8):(_1,_4)
    /// // print(dice(make_coord(_, 2), make_layout(make_shape(_4{},_8{}))))
    /// assert_eq!(l.dice(&Coord::Tuple(vec![X, d(2).into()])).unwrap().to_string(), "(_8):(_4)");
    /// ```
    pub fn dice(&self, c: &Coord) -> Result<crate::Layout> {
        crate::Layout::new(dice(c, self.shape())?, dice(c, self.stride())?)
    }

    /// `crd2idx(c, L)` / `L(c)` for a coordinate without `_`: the offset.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::col_major(&tup![s(4), s(8)]).unwrap(); // (_4,_8):(_1,_4)
    /// // print(crd2idx(make_coord(2, 3), l)), print(crd2idx(make_coord(_2{}, _3{}), l))
    /// assert_eq!(l.crd2idx(&tup![d(2), d(3)]).unwrap().to_string(), "14");
    /// assert_eq!(l.crd2idx(&tup![s(2), s(3)]).unwrap().to_string(), "_14");
    /// ```
    pub fn crd2idx(&self, c: &IntTuple) -> Result<Int> {
        crate::stride::crd2idx(c, self.shape(), self.stride())
    }

    /// `L(i)` for an integer index known now: the offset, as a plain number.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let r = Layout::compact(&tup![s(4), s(8)], Major::Right).unwrap(); // (_4,_8):(_8,_1)
    /// // print(make_layout(make_shape(_4{},_8{}), LayoutRight{})(13))
    /// assert_eq!(r.eval(13).unwrap(), 11);
    /// ```
    pub fn eval(&self, i: i64) -> Result<i64> {
        let off = self.crd2idx(&IntTuple::Int(crate::int::d(i)))?;
        off.value().ok_or_else(|| {
            crate::error::Error::Symbolic(format!(
                "evaluate: {self} has symbolic modes; its offsets are not numbers"
            ))
        })
    }
}

impl crate::Layout {
    /// `get_hier_coord(idx)`: the coordinate of an index under a compact layout
    /// (`idx2crd(idx, shape, stride)`).
    ///
    /// ```
    /// # use cute_layout::*;
    /// let h = Layout::new(tup![tup![s(2), s(2)], s(8)], tup![tup![s(1), s(2)], s(4)]).unwrap();
    /// // print(Layout<Shape<Shape<_2,_2>,_8>, Stride<Stride<_1,_2>,_4>>{}.get_hier_coord(13))
    /// assert_eq!(h.get_hier_coord(&d(13)).unwrap().to_string(), "((1,0),3)");
    /// ```
    pub fn get_hier_coord(&self, idx: &Int) -> Result<IntTuple> {
        crate::stride::idx2crd_strided(&IntTuple::Int(idx.clone()), self.shape(), self.stride())
    }

    /// `get_flat_coord(idx)`: the hierarchical coordinate with each top-level mode flattened to
    /// its colexicographic index, as `local_partition` and `TiledMMA::get_slice` use it.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let h = Layout::new(tup![tup![s(2), s(2)], s(8)], tup![tup![s(1), s(2)], s(4)]).unwrap();
    /// // print(Layout<Shape<Shape<_2,_2>,_8>, Stride<Stride<_1,_2>,_4>>{}.get_flat_coord(13))
    /// assert_eq!(h.get_flat_coord(&d(13)).unwrap().to_string(), "(1,3)");
    /// ```
    pub fn get_flat_coord(&self, idx: &Int) -> Result<IntTuple> {
        let hier = self.get_hier_coord(idx)?;
        let flat = hier
            .modes()
            .into_iter()
            .zip(self.shape().modes())
            .map(|(c, sh)| crate::stride::crd2idx_colex(&c, &sh))
            .collect::<Result<Vec<_>>>()?;
        Ok(if self.shape().is_tuple() {
            IntTuple::Tuple(flat)
        } else {
            flat.into_iter().next().unwrap_or(IntTuple::st(0))
        })
    }
}
