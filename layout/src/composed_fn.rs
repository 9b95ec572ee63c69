//! Compositions of functions that are not a swizzled layout: `L o O o Sw` (the inverse of a
//! swizzled layout with an offset), `Sw o O o (Sw' o O' o L)` (a swizzled layout composed with a
//! swizzle), `L o O o L'`. C++ CuTe's `ComposedLayout<A,O,B>` takes any functions as A and B; the
//! algebra here acts on the swizzled layouts ([`ComposedLayout`]) and keeps these as values that
//! print, read back and invert as C++ CuTe's do.

use std::fmt;

use crate::composed::{AnyLayout, ComposedLayout};
use crate::error::Result;
use crate::int::{s, Int};
use crate::inverse::Inverse;
use crate::swizzle::Swizzle;

/// One side of a composition: a swizzle, a layout (plain or swizzled) or another composition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Swizzle(Swizzle),
    Layout(AnyLayout),
    Fn(Box<FnComposed>),
}

/// `A o O o B`: the function `c -> A(O + B(c))`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FnComposed {
    a: Part,
    offset: Int,
    b: Part,
}

/// `composition(A, O, B)`: a swizzled layout when A is a swizzle and B a plain layout (a
/// `Swizzle<0,...>` with offset `_0` is B itself), otherwise the composition as it stands.
///
/// ```
/// # use cute_layout::*;
/// let sw = Swizzle::new(1, 2, 3).unwrap();
/// let l = Layout::new(tup![s(8), s(16)], tup![s(16), s(1)]).unwrap();
/// let c = compose3(Part::Swizzle(sw), s(4), Part::Layout(l.clone().into()));
/// assert_eq!(c.to_string(), "Sw<1,2,3> o _4 o (_8,_16):(_16,_1)");
/// let inv = compose3(Part::Layout(l.into()), s(-4), Part::Swizzle(sw));
/// assert_eq!(inv.to_string(), "(_8,_16):(_16,_1) o _-4 o Sw<1,2,3>");
/// ```
pub fn compose3(a: Part, offset: Int, b: Part) -> Part {
    match (a, b) {
        (Part::Swizzle(sw), Part::Layout(AnyLayout::Plain(l))) => {
            Part::Layout(ComposedLayout::composition(sw, offset, l))
        }
        (a, b) => Part::Fn(Box::new(FnComposed { a, offset, b })),
    }
}

impl FnComposed {
    /// A.
    pub fn layout_a(&self) -> &Part {
        &self.a
    }

    /// O.
    pub fn offset(&self) -> &Int {
        &self.offset
    }

    /// B.
    pub fn layout_b(&self) -> &Part {
        &self.b
    }
}

impl Inverse for Part {
    type Output = Part;

    fn right_inverse_of(&self) -> Result<Part> {
        match self {
            Part::Swizzle(sw) => Ok(Part::Swizzle(*sw)),
            Part::Layout(l) => l.right_inverse_of(),
            Part::Fn(f) => f.right_inverse_of(),
        }
    }

    fn left_inverse_of(&self) -> Result<Part> {
        match self {
            Part::Swizzle(sw) => Ok(Part::Swizzle(*sw)),
            Part::Layout(l) => l.left_inverse_of(),
            Part::Fn(f) => f.left_inverse_of(),
        }
    }
}

impl Inverse for FnComposed {
    type Output = Part;

    /// `right_inverse(A o O o B) = right_inverse(B) o -O o right_inverse(A)`.
    fn right_inverse_of(&self) -> Result<Part> {
        Ok(compose3(
            self.b.right_inverse_of()?,
            s(0).sub(&self.offset)?,
            self.a.right_inverse_of()?,
        ))
    }

    fn left_inverse_of(&self) -> Result<Part> {
        Ok(compose3(
            self.b.left_inverse_of()?,
            s(0).sub(&self.offset)?,
            self.a.left_inverse_of()?,
        ))
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Part::Swizzle(sw) => write!(f, "{sw}"),
            Part::Layout(l) => write!(f, "{l}"),
            Part::Fn(c) => write!(f, "{c}"),
        }
    }
}

impl fmt::Display for FnComposed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} o {} o {}", self.a, self.offset, self.b)
    }
}
