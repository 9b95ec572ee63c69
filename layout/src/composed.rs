//! `ComposedLayout`: `A o O o B`, the function `c -> A(O + B(c))`, with a swizzle as A.
//!
//! As in CuTe, shape, size, rank and depth come from the inner layout B, and the algebra (divides,
//! products, `tile_to_shape`, `coalesce`, by-mode `get`, slicing) acts on B while A and O stay.
//! Slicing adds the offset of the sliced-away coordinates into O.

use std::fmt;

use crate::coord::Coord;
use crate::error::Result;
use crate::int::{s, Int};
use crate::layout::Layout;
use crate::swizzle::Swizzle;

/// `A o O o B` with a swizzle A, an offset O and a layout B.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComposedLayout {
    outer: Swizzle,
    offset: Int,
    /// The dynamic bits of O when it is a CuTe `MixedBits` (0 for a plain integer offset).
    mixed: i64,
    inner: Layout,
}

/// `composition(Swizzle, Layout)`: `Sw o _0 o L`; a `Swizzle<0,...>` is the identity and gives L.
///
/// ```
/// # use cute_layout::*;
/// assert_eq!(
///     expr::eval_str("composition(Swizzle<3,4,3>, (_8,_64):(_64,_1))").unwrap(),
///     "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)"
/// );
/// assert_eq!(expr::eval_str("composition(Swizzle<0,4,3>, _8:_1)").unwrap(), "_8:_1");
/// ```
pub fn compose_swizzle(sw: Swizzle, l: &Layout) -> AnyLayout {
    ComposedLayout::composition(sw, s(0), l.clone())
}

/// A plain layout or a composed one: what the algebra returns for either input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnyLayout {
    /// A plain layout.
    Plain(Layout),
    /// A composed layout.
    Composed(ComposedLayout),
}

impl ComposedLayout {
    /// `composition(A, O, B)`; `Swizzle<0,...>` with a static `_0` offset collapses to B.
    pub fn composition(outer: Swizzle, offset: Int, inner: Layout) -> AnyLayout {
        if outer.is_identity() && offset.is_constant(0) {
            return AnyLayout::Plain(inner);
        }
        AnyLayout::Composed(ComposedLayout {
            outer,
            offset,
            mixed: 0,
            inner,
        })
    }

    /// `composition(A, O, B)` where O is a CuTe `MixedBits`: a known value whose bits under
    /// `mask` are dynamic (prints `M_S|(d&F)=v`).
    pub(crate) fn with_mixed_offset(
        outer: Swizzle,
        value: i64,
        mask: i64,
        inner: Layout,
    ) -> AnyLayout {
        AnyLayout::Composed(ComposedLayout {
            outer,
            offset: crate::int::d(value),
            mixed: mask,
            inner,
        })
    }

    /// The dynamic-bit mask of a `MixedBits` offset (0 when O is a plain integer).
    pub(crate) fn mixed_mask(&self) -> i64 {
        self.mixed
    }

    /// A (the swizzle).
    pub fn layout_a(&self) -> Swizzle {
        self.outer
    }

    /// O.
    pub fn offset(&self) -> &Int {
        &self.offset
    }

    /// B (the inner layout).
    pub fn layout_b(&self) -> &Layout {
        &self.inner
    }

    /// The same A and O over a new inner layout: how CuTe forwards the algebra to B.
    pub fn with_inner(&self, inner: Layout) -> AnyLayout {
        ComposedLayout::composition(self.outer, self.offset.clone(), inner)
    }

    /// `(A o O o B)(c) = A(O + B(c))` for a coordinate without `_`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// assert_eq!(expr::eval_str("(composition(Swizzle<2,0,3>, (_8,_8):(_8,_1)))(_3,_1)").unwrap(), "_26");
    /// ```
    pub fn crd2idx(&self, c: &crate::IntTuple) -> Result<Int> {
        let inner = self.inner.crd2idx(c)?;
        self.outer.apply_int(&self.offset.add(&inner)?)
    }

    /// `slice(c, Sw o O o B)`: the sliced layout, which decays to a plain layout when the
    /// remaining modes touch only one side of the swizzle (as C++ CuTe). The offset of the
    /// sliced-away coordinates is dropped here, as `L(c)` drops it; see [`Self::slice_and_offset`].
    ///
    /// ```
    /// # use cute_layout::*;
    /// let sw = "composition(Swizzle<2,0,3>, (_8,_8):(_8,_1))";
    /// assert_eq!(expr::eval_str(&format!("({sw})(_,_1)")).unwrap(), "((_2,_2,_2)):((_7,_18,_32))");
    /// assert_eq!(expr::eval_str(&format!("({sw})(_1,_)")).unwrap(), "((_2,_4)):((_-1,_2))");
    /// ```
    pub fn slice(&self, c: &Coord) -> Result<AnyLayout> {
        Ok(self.slice_and_offset(c)?.0)
    }

    /// `slice_and_offset(c, Sw o O o B)`: the sliced layout and the offset a tensor adds to its
    /// pointer.
    ///
    /// Where C++ keeps a `MixedBits` offset (a non-reducible slice at a dynamic coordinate) this
    /// keeps a dynamic integer with the same value.
    pub fn slice_and_offset(&self, c: &Coord) -> Result<(AnyLayout, Int)> {
        crate::swizzle_slice::slice_and_offset(self, c)
    }

    /// `upcast<N>`: the swizzle, the offset and the inner layout all re-expressed for N-wide
    /// elements. A swizzle that shrinks to no bits stays (`Sw<0,0,3> o _0 o ...`), as in C++ CuTe.
    pub fn upcast(&self, n: i64) -> Result<AnyLayout> {
        Ok(AnyLayout::Composed(ComposedLayout {
            outer: self.outer.upcast(n)?,
            offset: safe_div(&self.offset, n)?,
            mixed: 0,
            inner: crate::upcast(&self.inner, n)?,
        }))
    }

    /// `downcast<N>`.
    pub fn downcast(&self, n: i64) -> Result<AnyLayout> {
        Ok(AnyLayout::Composed(ComposedLayout {
            outer: self.outer.downcast(n)?,
            offset: self.offset.mul(&s(n))?,
            mixed: 0,
            inner: crate::downcast(&self.inner, n)?,
        }))
    }
}

/// CuTe's `safe_div` of an offset by a static N (exact division required when static).
fn safe_div(o: &Int, n: i64) -> Result<Int> {
    if let Some(v) = o.as_static() {
        if n <= 0 || v.checked_rem(n) != Some(0) {
            return Err(crate::error::algebra(
                "upcast",
                format!("offset {o} is not divisible by {n}"),
            ));
        }
    }
    o.div(&s(n))
}

impl AnyLayout {
    /// The layout whose shape this has (B for a composed layout).
    pub fn shape_layout(&self) -> &Layout {
        match self {
            AnyLayout::Plain(l) => l,
            AnyLayout::Composed(c) => &c.inner,
        }
    }

    /// Applies a layout operation to the plain layout, or to B keeping A and O.
    pub fn map(&self, f: impl FnOnce(&Layout) -> Result<Layout>) -> Result<AnyLayout> {
        match self {
            AnyLayout::Plain(l) => Ok(AnyLayout::Plain(f(l)?)),
            AnyLayout::Composed(c) => Ok(c.with_inner(f(&c.inner)?)),
        }
    }

    /// The offset at a coordinate without `_`.
    pub fn crd2idx(&self, c: &crate::IntTuple) -> Result<Int> {
        match self {
            AnyLayout::Plain(l) => l.crd2idx(c),
            AnyLayout::Composed(cl) => cl.crd2idx(c),
        }
    }

    /// `L(i)` for an index known now.
    pub fn eval(&self, i: i64) -> Result<i64> {
        let off = self.crd2idx(&crate::IntTuple::Int(crate::int::d(i)))?;
        off.value().ok_or_else(|| {
            crate::error::Error::Symbolic(format!(
                "evaluate: {self} has symbolic modes; its offsets are not numbers"
            ))
        })
    }

    /// `slice_and_offset(c, L)`: the sub-layout under the `_` of `c`, and the offset of the
    /// integer coordinates (which a tensor adds to its pointer).
    pub fn slice_and_offset(&self, c: &Coord) -> Result<(AnyLayout, Int)> {
        match self {
            AnyLayout::Plain(l) => Ok((AnyLayout::Plain(l.slice(c)?), l.crd2idx(&c.zeroed())?)),
            AnyLayout::Composed(cl) => cl.slice_and_offset(c),
        }
    }

    /// Slicing with `_`.
    pub fn slice(&self, c: &Coord) -> Result<AnyLayout> {
        match self {
            AnyLayout::Plain(l) => Ok(AnyLayout::Plain(l.slice(c)?)),
            AnyLayout::Composed(cl) => cl.slice(c),
        }
    }
}

impl From<Layout> for AnyLayout {
    fn from(l: Layout) -> Self {
        AnyLayout::Plain(l)
    }
}

impl fmt::Display for ComposedLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} o ", self.outer)?;
        match self.offset.value() {
            Some(v) if self.mixed != 0 => {
                let m = self.mixed;
                write!(f, "M_{}|({}&{m})={v}", v & !m, v & m)?;
            }
            _ => write!(f, "{}", self.offset)?,
        }
        write!(f, " o {}", self.inner)
    }
}

impl fmt::Display for AnyLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyLayout::Plain(l) => write!(f, "{l}"),
            AnyLayout::Composed(c) => write!(f, "{c}"),
        }
    }
}
