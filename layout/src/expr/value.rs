//! Values of the expression language and their conversions to the algebra's types.

use std::fmt;

use crate::atom::{CopyAtom, MmaAtom, ThrCopy, ThrMma, TiledCopy, TiledMma};
use crate::composed::AnyLayout;
use crate::coord::Coord;
use crate::error::{Error, Result};
use crate::int::Int;
use crate::int_tuple::IntTuple;
use crate::layout::Layout;
use crate::stride::Major;
use crate::swizzle::Swizzle;
use crate::tensor::{Element, Ptr, Tensor};
use crate::tiler::Tiler;

/// A value: what an expression evaluates to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// An integer.
    Int(Int),
    /// A tuple (of integers: a shape, stride or coordinate; of layouts: a tile).
    Tuple(Vec<Value>),
    /// A layout, plain or composed (`Sw<3,4,3> o _0 o (_8,_64):(_64,_1)`).
    Layout(AnyLayout),
    /// A swizzle functor.
    Swizzle(Swizzle),
    /// `make_layout(shape, stride)` of a shape and a stride that are not congruent: C++ CuTe
    /// builds and prints it (`(_6,_4):(_1,_6,_24)`); the algebra refuses it.
    Incongruent(IntTuple, IntTuple),
    /// A composition of functions that is not a swizzled layout (`L o _-4 o Sw<1,2,3>`).
    Composition(Box<crate::composed_fn::FnComposed>),
    /// A typed pointer (`gmem_ptr[32b](A)`).
    Ptr(Ptr),
    /// A tensor (`gmem_ptr[32b](A) o (M,K):(_1,M)`).
    Tensor(Tensor),
    /// `Copy_Atom<Op, T>`.
    CopyAtom(CopyAtom),
    /// A TiledCopy.
    TiledCopy(Box<TiledCopy>),
    /// One thread's slice of a TiledCopy.
    ThrCopy(Box<ThrCopy>),
    /// `MMA_Atom<Op>`.
    MmaAtom(MmaAtom),
    /// A TiledMMA.
    TiledMma(Box<TiledMma>),
    /// One thread's slice of a TiledMMA.
    ThrMma(Box<ThrMma>),
    /// A `wgmma` shared-memory matrix descriptor (`make_gmma_desc<Major>(tensor)`).
    GmmaDesc(crate::atom::GmmaDescriptor),
    /// `_`.
    Under,
    /// `LayoutLeft` / `LayoutRight`.
    Major(Major),
}

impl From<IntTuple> for Value {
    fn from(t: IntTuple) -> Self {
        match t {
            IntTuple::Int(i) => Value::Int(i),
            IntTuple::Tuple(v) => Value::Tuple(v.into_iter().map(Value::from).collect()),
        }
    }
}

impl From<Layout> for Value {
    fn from(l: Layout) -> Self {
        Value::Layout(AnyLayout::Plain(l))
    }
}

impl From<AnyLayout> for Value {
    fn from(l: AnyLayout) -> Self {
        Value::Layout(l)
    }
}

impl From<crate::composed_fn::Part> for Value {
    fn from(p: crate::composed_fn::Part) -> Self {
        match p {
            crate::composed_fn::Part::Swizzle(sw) => Value::Swizzle(sw),
            crate::composed_fn::Part::Layout(l) => Value::Layout(l),
            crate::composed_fn::Part::Fn(f) => Value::Composition(f),
        }
    }
}

impl Value {
    /// As one side of a composition of functions (a swizzle, a layout or a composition).
    pub fn to_part(&self, ctx: &str) -> Result<crate::composed_fn::Part> {
        use crate::composed_fn::Part;
        match self {
            Value::Swizzle(sw) => Ok(Part::Swizzle(*sw)),
            Value::Composition(f) => Ok(Part::Fn(f.clone())),
            other => Ok(Part::Layout(other.to_any_layout(ctx)?)),
        }
    }
}

impl From<Tensor> for Value {
    fn from(t: Tensor) -> Self {
        Value::Tensor(t)
    }
}

impl From<Element> for Value {
    fn from(e: Element) -> Self {
        match e {
            Element::Offset(p) => Value::Ptr(p),
            Element::Coord(v) => Value::Tuple(v.into_iter().map(Value::Int).collect()),
        }
    }
}

impl From<Int> for Value {
    fn from(i: Int) -> Self {
        Value::Int(i)
    }
}

impl Value {
    /// What kind of value this is, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Int(_) => "an integer",
            Value::Tuple(_) => "a tuple",
            Value::Layout(AnyLayout::Plain(_)) => "a layout",
            Value::Layout(AnyLayout::Composed(_)) => "a composed layout",
            Value::Swizzle(_) => "a swizzle",
            Value::Composition(_) => "a composition of functions",
            Value::Incongruent(..) => "a layout whose shape and stride are not congruent",
            Value::Ptr(_) => "a pointer",
            Value::Tensor(_) => "a tensor",
            Value::CopyAtom(_) => "a copy atom",
            Value::TiledCopy(_) => "a TiledCopy",
            Value::ThrCopy(_) => "a ThrCopy",
            Value::MmaAtom(_) => "an MMA atom",
            Value::TiledMma(_) => "a TiledMMA",
            Value::ThrMma(_) => "a ThrMMA",
            Value::GmmaDesc(_) => "a GMMA descriptor",
            Value::Under => "'_'",
            Value::Major(_) => "a layout major",
        }
    }

    /// As an IntTuple (an integer or a tuple of integers).
    pub fn to_int_tuple(&self, ctx: &str) -> Result<IntTuple> {
        match self {
            Value::Int(i) => Ok(IntTuple::Int(i.clone())),
            Value::Tuple(v) => Ok(IntTuple::Tuple(
                v.iter()
                    .map(|x| x.to_int_tuple(ctx))
                    .collect::<Result<_>>()?,
            )),
            other => Err(expected(ctx, "an integer or a tuple of integers", other)),
        }
    }

    /// As a plain layout.
    pub fn to_layout(&self, ctx: &str) -> Result<Layout> {
        match self {
            Value::Layout(AnyLayout::Plain(l)) => Ok(l.clone()),
            other => Err(expected(ctx, "a plain layout", other)),
        }
    }

    /// As a plain or composed layout.
    pub fn to_any_layout(&self, ctx: &str) -> Result<AnyLayout> {
        match self {
            Value::Layout(l) => Ok(l.clone()),
            other => Err(expected(ctx, "a layout", other)),
        }
    }

    /// As a coordinate (integers and `_`).
    pub fn to_coord(&self, ctx: &str) -> Result<Coord> {
        match self {
            Value::Int(i) => Ok(Coord::Int(i.clone())),
            Value::Under => Ok(Coord::Under),
            Value::Tuple(v) => Ok(Coord::Tuple(
                v.iter().map(|x| x.to_coord(ctx)).collect::<Result<_>>()?,
            )),
            other => Err(expected(ctx, "a coordinate", other)),
        }
    }

    /// As a tiler (layouts, integers, `_`, or tuples of them).
    pub fn to_tiler(&self, ctx: &str) -> Result<Tiler> {
        match self {
            Value::Layout(AnyLayout::Plain(l)) => Ok(Tiler::Layout(l.clone())),
            Value::Int(i) => Ok(Tiler::Int(i.clone())),
            Value::Under => Ok(Tiler::Under),
            Value::Tuple(v) => Ok(Tiler::Tuple(
                v.iter().map(|x| x.to_tiler(ctx)).collect::<Result<_>>()?,
            )),
            other => Err(expected(ctx, "a tiler", other)),
        }
    }
}

impl Value {
    /// C++ CuTe's `print(x)`: multi-line for atoms and tilings (`TiledCopy\n  Tiler_MN: ...`),
    /// the one-line form otherwise (which is what `cute eval` prints for every value).
    pub fn print(&self) -> Result<String> {
        Ok(match self {
            Value::CopyAtom(a) => a.print()?,
            Value::TiledCopy(t) => t.print()?,
            Value::ThrCopy(t) => {
                format!("ThrCopy\n  ThrIdx: {}\n{}", t.thr_idx(), t.tiled().print()?)
            }
            Value::MmaAtom(a) => a.print(),
            Value::GmmaDesc(d) => d.print(),
            Value::TiledMma(t) => t.print(),
            Value::ThrMma(t) => {
                let mut v = String::new();
                let _ = crate::print::write_tuple_into(&mut v, t.thr_vmnk());
                format!("ThrMMA\n  Thr VMNK: {v}\n{}", t.tiled().print())
            }
            other => format!("{other}\n"),
        })
    }
}

/// `ctx: expected X, got Y`.
pub fn expected(ctx: &str, what: &str, got: &Value) -> Error {
    Error::Eval(format!("{ctx}: expected {what}, got {} {got}", got.kind()))
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Layout(l) => write!(f, "{l}"),
            Value::Swizzle(sw) => write!(f, "{sw}"),
            Value::Composition(c) => write!(f, "{c}"),
            Value::Incongruent(sh, st) => write!(f, "{sh}:{st}"),
            Value::Ptr(p) => write!(f, "{p}"),
            Value::Tensor(t) => write!(f, "{t}"),
            Value::CopyAtom(a) => write!(f, "{a}"),
            Value::TiledCopy(t) => write!(f, "{t}"),
            Value::ThrCopy(t) => write!(f, "{t}"),
            Value::MmaAtom(a) => write!(f, "{a}"),
            Value::TiledMma(t) => write!(f, "{t}"),
            Value::ThrMma(t) => write!(f, "{t}"),
            Value::GmmaDesc(d) => write!(f, "{d}"),
            Value::Under => f.write_str("_"),
            Value::Major(Major::Left) => f.write_str("LayoutLeft"),
            Value::Major(Major::Right) => f.write_str("LayoutRight"),
            Value::Tuple(v) => crate::print::write_tuple(f, v),
        }
    }
}

/// A Rust type an expression's value converts to.
pub trait FromValue: Sized {
    /// The conversion; fails with the kind of value found.
    fn from_value(v: Value) -> Result<Self>;
}

impl FromValue for Value {
    fn from_value(v: Value) -> Result<Self> {
        Ok(v)
    }
}

impl FromValue for IntTuple {
    fn from_value(v: Value) -> Result<Self> {
        v.to_int_tuple("value")
    }
}

impl FromValue for Int {
    fn from_value(v: Value) -> Result<Self> {
        match v {
            Value::Int(i) => Ok(i),
            other => Err(expected("value", "an integer", &other)),
        }
    }
}

impl FromValue for Layout {
    fn from_value(v: Value) -> Result<Self> {
        v.to_layout("value")
    }
}

impl FromValue for AnyLayout {
    fn from_value(v: Value) -> Result<Self> {
        v.to_any_layout("value")
    }
}

impl FromValue for Tiler {
    fn from_value(v: Value) -> Result<Self> {
        v.to_tiler("value")
    }
}

macro_rules! from_value_variant {
    ($($t:ty => $variant:ident, $what:expr;)*) => {$(
        impl FromValue for $t {
            fn from_value(v: Value) -> Result<Self> {
                match v {
                    Value::$variant(x) => Ok(x.into()),
                    other => Err(expected("value", $what, &other)),
                }
            }
        }
    )*};
}
from_value_variant! {
    Swizzle => Swizzle, "a swizzle";
    Tensor => Tensor, "a tensor";
    CopyAtom => CopyAtom, "a copy atom";
    MmaAtom => MmaAtom, "an MMA atom";
}

macro_rules! from_value_boxed {
    ($($t:ty => $variant:ident, $what:expr;)*) => {$(
        impl FromValue for $t {
            fn from_value(v: Value) -> Result<Self> {
                match v {
                    Value::$variant(x) => Ok(*x),
                    other => Err(expected("value", $what, &other)),
                }
            }
        }
    )*};
}
from_value_boxed! {
    TiledCopy => TiledCopy, "a TiledCopy";
    TiledMma => TiledMma, "a TiledMMA";
    ThrCopy => ThrCopy, "a ThrCopy";
    ThrMma => ThrMma, "a ThrMMA";
}
