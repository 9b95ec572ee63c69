//! Tilers: what divides, products and by-mode composition take as their second argument.
//!
//! A tiler is a layout, an integer `n` (meaning `make_layout(n)`), the underscore `_` (leave the
//! mode alone) or a tuple of tilers applied mode by mode (`make_tile(_4:_2, _8)` or `(_128,_32)`).

use std::fmt;

use crate::error::Result;
use crate::int::Int;
use crate::int_tuple::IntTuple;
use crate::layout::Layout;

/// A CuTe tiler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tiler {
    /// A layout tiler.
    Layout(Layout),
    /// An integer `n`, i.e. `make_layout(n)`.
    Int(Int),
    /// `_`: the mode is left as it is.
    Under,
    /// A by-mode tiler (`make_tile(...)` or a tuple of integers).
    Tuple(Vec<Tiler>),
}

impl Tiler {
    /// A by-mode tiler of integers, as `(_128,_32)` is written.
    pub fn from_shape(shape: &IntTuple) -> Tiler {
        match shape {
            IntTuple::Int(i) => Tiler::Int(i.clone()),
            IntTuple::Tuple(v) => Tiler::Tuple(v.iter().map(Tiler::from_shape).collect()),
        }
    }

    /// The tiler as a layout, when it is one mode (`n` becomes `make_layout(n)`).
    pub fn as_layout(&self) -> Result<Option<Layout>> {
        match self {
            Tiler::Layout(l) => Ok(Some(l.clone())),
            Tiler::Int(i) => Layout::col_major(&IntTuple::Int(i.clone())).map(Some),
            _ => Ok(None),
        }
    }
}

impl From<Layout> for Tiler {
    fn from(l: Layout) -> Self {
        Tiler::Layout(l)
    }
}

impl fmt::Display for Tiler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tiler::Layout(l) => write!(f, "{l}"),
            Tiler::Int(i) => write!(f, "{i}"),
            Tiler::Under => f.write_str("_"),
            Tiler::Tuple(v) => crate::print::write_tuple(f, v),
        }
    }
}
