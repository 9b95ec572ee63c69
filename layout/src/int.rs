//! CuTe's integers: static (`_8`, known when the plan is built) or dynamic (`8`, `M`).
//!
//! Static-ness is semantic in CuTe: it decides what `coalesce` merges, which divisibility checks
//! run and what prints with a leading `_`. The arithmetic here follows C++ CuTe's mixed rules
//! (`numeric/integral_constant.hpp`): static op static is static; any dynamic operand makes the
//! result dynamic, except `_0 * x`, `x * _0`, `_0 / x`, `_0 % x`, `x % _1` and `x % _-1`, which are
//! the static `_0`.

use std::fmt;

use crate::error::{Error, Result, ARITHMETIC};
use crate::symbolic::{eval_bin, BinOp, Dyn, SymError, SymExpr};

/// A CuTe integer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Int {
    /// `Int<N>{}`: prints `_N`.
    Static(i64),
    /// A runtime integer: prints its value (`8`) or its expression (`M`).
    Dynamic(Dyn),
    /// CuTe's `ScaledBasis`: `value@mode`, the stride of a coordinate (identity) layout, which
    /// maps into mode `mode` of a coordinate (`_1@0`, `_128@1`). Only scaling by integers and
    /// comparison are defined on it; offsets through basis strides are coordinates
    /// (see `Tensor`).
    Basis(Box<Int>, usize),
}

/// Shorthand for a static integer.
pub const fn s(v: i64) -> Int {
    Int::Static(v)
}

/// Shorthand for a dynamic integer with a known value.
pub const fn d(v: i64) -> Int {
    Int::Dynamic(Dyn::Lit(v))
}

impl Int {
    /// A dynamic integer named by a kernel parameter that is a size or leading dimension (`M`,
    /// `ldA`): at least 1.
    pub fn symbol(name: &str) -> Int {
        Int::Dynamic(Dyn::symbol(name))
    }

    /// A dynamic integer named by a thread, block or loop index (`tid`, `bx`): at least 0.
    pub fn index(name: &str) -> Int {
        Int::Dynamic(Dyn::index(name))
    }

    /// The same value with its size symbols read as indices (a symbol given as a coordinate or a
    /// thread index, such as `tid` in `get_slice(tid)`, may be 0).
    pub fn as_index(&self) -> Result<Int> {
        match self {
            Int::Dynamic(d) => d
                .as_index()
                .map(Int::Dynamic)
                .map_err(|e| Error::Arithmetic {
                    op: ARITHMETIC.to_string(),
                    what: e.what(),
                    expr: self.to_string(),
                }),
            _ => Ok(self.clone()),
        }
    }

    /// The one door to static values: `Some(v)` for `_v`, `None` for any dynamic value.
    pub fn as_static(&self) -> Option<i64> {
        match self {
            Int::Static(v) => Some(*v),
            Int::Dynamic(_) | Int::Basis(..) => None,
        }
    }

    /// The unit basis element `_1@mode`.
    pub fn basis(mode: usize) -> Int {
        Int::Basis(Box::new(s(1)), mode)
    }

    /// `(value, mode)` of a basis element.
    pub fn as_basis(&self) -> Option<(&Int, usize)> {
        match self {
            Int::Basis(v, m) => Some((v, *m)),
            _ => None,
        }
    }

    /// The value when known now (static, or dynamic with a literal value).
    pub fn value(&self) -> Option<i64> {
        match self {
            Int::Static(v) => Some(*v),
            Int::Dynamic(d) => d.value(),
            Int::Basis(..) => None,
        }
    }

    /// The value with kernel-parameter symbols bound by `env` (as a launch evaluates grid sizes).
    pub fn evaluate(&self, env: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
        match self {
            Int::Static(v) => Some(*v),
            Int::Dynamic(d) => d.evaluate(env),
            Int::Basis(..) => None,
        }
    }

    /// Whether the value lives in the type (C++ `is_static`).
    pub fn is_static(&self) -> bool {
        match self {
            Int::Static(_) => true,
            Int::Dynamic(_) => false,
            Int::Basis(v, _) => v.is_static(),
        }
    }

    /// C++ `is_constant<N, T>`: static and equal to `n`.
    pub fn is_constant(&self, n: i64) -> bool {
        self.as_static() == Some(n)
    }

    fn dyn_of(&self) -> Dyn {
        match self {
            Int::Static(v) => Dyn::Lit(*v),
            Int::Dynamic(d) => d.clone(),
            Int::Basis(..) => Dyn::Lit(0),
        }
    }

    fn binary(&self, op: BinOp, rhs: &Int) -> Result<Int> {
        if self.as_basis().is_some() || rhs.as_basis().is_some() {
            return self.basis_binary(op, rhs);
        }
        let failed = |e: SymError| Error::Arithmetic {
            op: ARITHMETIC.to_string(),
            what: e.what(),
            expr: op.apply_text(&self.to_string(), &rhs.to_string()),
        };
        match (self, rhs) {
            (Int::Static(a), Int::Static(b)) => match eval_bin(op, *a, *b) {
                Some(v) => Ok(Int::Static(v)),
                None if matches!(op, BinOp::Div | BinOp::Mod) && *b == 0 => {
                    Err(failed(SymError::DivisionByZero))
                }
                None => Err(failed(SymError::Overflow)),
            },
            _ => Dyn::bin(op, &self.dyn_of(), &rhs.dyn_of())
                .map(Int::Dynamic)
                .map_err(failed),
        }
    }

    /// Arithmetic with a basis element: scaling by an integer, and the sum of two elements of
    /// the same mode; anything else is not an integer operation.
    fn basis_binary(&self, op: BinOp, rhs: &Int) -> Result<Int> {
        match (op, self, rhs) {
            (BinOp::Mul, Int::Basis(v, m), k) if k.as_basis().is_none() => {
                Ok(Int::Basis(Box::new(v.mul(k)?), *m))
            }
            (BinOp::Mul, k, Int::Basis(v, m)) if k.as_basis().is_none() => {
                Ok(Int::Basis(Box::new(k.mul(v)?), *m))
            }
            (BinOp::Add, Int::Basis(a, m), Int::Basis(b, n)) if m == n => {
                Ok(Int::Basis(Box::new(a.add(b)?), *m))
            }
            (BinOp::Add, Int::Basis(..), z) if z.is_constant(0) => Ok(self.clone()),
            (BinOp::Add, z, Int::Basis(..)) if z.is_constant(0) => Ok(rhs.clone()),
            _ => Err(crate::error::algebra(
                "basis arithmetic",
                format!(
                    "{} is not defined on the basis stride(s) of a coordinate layout",
                    op.apply_text(&self.to_string(), &rhs.to_string())
                ),
            )),
        }
    }

    /// `self + rhs`.
    pub fn add(&self, rhs: &Int) -> Result<Int> {
        self.binary(BinOp::Add, rhs)
    }

    /// `self - rhs`.
    pub fn sub(&self, rhs: &Int) -> Result<Int> {
        self.binary(BinOp::Sub, rhs)
    }

    /// `self * rhs`; `_0` if either side is the static `_0`.
    pub fn mul(&self, rhs: &Int) -> Result<Int> {
        if self.is_constant(0) || rhs.is_constant(0) {
            return Ok(s(0));
        }
        self.binary(BinOp::Mul, rhs)
    }

    /// `self / rhs` (truncating, as C++); `_0` when `self` is the static `_0`.
    pub fn div(&self, rhs: &Int) -> Result<Int> {
        if self.is_constant(0) {
            return Ok(s(0));
        }
        self.binary(BinOp::Div, rhs)
    }

    /// `self % rhs`; `_0` when `self` is `_0` or `rhs` is `_1` / `_-1`.
    pub fn rem(&self, rhs: &Int) -> Result<Int> {
        if self.is_constant(0) || rhs.is_constant(1) || rhs.is_constant(-1) {
            return Ok(s(0));
        }
        self.binary(BinOp::Mod, rhs)
    }

    /// `min(self, rhs)`.
    pub fn min(&self, rhs: &Int) -> Result<Int> {
        self.binary(BinOp::Min, rhs)
    }

    /// `max(self, rhs)`.
    pub fn max(&self, rhs: &Int) -> Result<Int> {
        self.binary(BinOp::Max, rhs)
    }

    /// `lcm(self, rhs)`.
    pub fn lcm(&self, rhs: &Int) -> Result<Int> {
        self.binary(BinOp::Lcm, rhs)
    }

    /// `gcd(self, rhs)`.
    pub fn gcd(&self, rhs: &Int) -> Result<Int> {
        self.binary(BinOp::Gcd, rhs)
    }

    /// `abs(self)`.
    pub fn abs(&self) -> Result<Int> {
        self.unary("abs", Dyn::abs, i64::checked_abs)
    }

    /// `signum(self)`.
    pub fn signum(&self) -> Result<Int> {
        if self.as_basis().is_some() {
            return Ok(s(1));
        }
        self.unary("signum", Dyn::signum, |v| Some(v.signum()))
    }

    fn unary(
        &self,
        name: &str,
        dynamic: fn(&Dyn) -> std::result::Result<Dyn, SymError>,
        fixed: fn(i64) -> Option<i64>,
    ) -> Result<Int> {
        let failed = |e: SymError| Error::Arithmetic {
            op: ARITHMETIC.to_string(),
            what: e.what(),
            expr: format!("{name}({self})"),
        };
        match self {
            Int::Static(v) => fixed(*v)
                .map(Int::Static)
                .ok_or_else(|| failed(SymError::Overflow)),
            Int::Dynamic(d) => dynamic(d).map(Int::Dynamic).map_err(failed),
            Int::Basis(..) => Err(crate::error::algebra(
                "basis arithmetic",
                format!("{name}({self}) is not defined on a basis stride"),
            )),
        }
    }

    /// CuTe's `ceil_div(a, b)` on integers: `(a + b - _1) / b`.
    pub fn ceil_div(&self, rhs: &Int) -> Result<Int> {
        self.add(rhs)?.sub(&s(1))?.div(rhs)
    }

    /// Whether the printed form needs no parentheses as an operand (`_8`, `8`, `M`, `min(M,2)`;
    /// not `-3` or `M+1`).
    pub fn is_atomic(&self) -> bool {
        match self {
            Int::Static(_) => true,
            Int::Dynamic(d) => match d.expr() {
                None => d.value().is_some_and(|v| v >= 0),
                Some(e) => !matches!(
                    e,
                    SymExpr::Sum(..) | SymExpr::Prod(_) | SymExpr::Bin(BinOp::Div | BinOp::Mod, ..)
                ),
            },
            Int::Basis(..) => false,
        }
    }

    /// C++ `is_constant<true, decltype(a == b)>`: both static and equal.
    pub fn static_eq(&self, rhs: &Int) -> bool {
        match (self, rhs) {
            (Int::Static(a), Int::Static(b)) => a == b,
            (Int::Basis(a, m), Int::Basis(b, n)) => m == n && a.static_eq(b),
            _ => false,
        }
    }
}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Int::Static(v) => write!(f, "_{v}"),
            Int::Dynamic(d) => write!(f, "{d}"),
            Int::Basis(v, m) if v.is_atomic() => write!(f, "{v}@{m}"),
            Int::Basis(v, m) => write!(f, "({v})@{m}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_arithmetic_follows_cute() {
        let m = Int::symbol("M");
        assert_eq!(s(0).mul(&m).unwrap(), s(0));
        assert_eq!(m.mul(&s(0)).unwrap(), s(0));
        assert_eq!(m.rem(&s(1)).unwrap(), s(0));
        assert_eq!(s(0).div(&m).unwrap(), s(0));
        assert_eq!(s(3).mul(&s(4)).unwrap(), s(12));
        assert_eq!(s(1).mul(&d(4)).unwrap(), d(4));
        assert_eq!(d(4).to_string(), "4");
        assert_eq!(s(-1).to_string(), "_-1");
        assert_eq!(s(7).ceil_div(&s(2)).unwrap(), s(4));
        assert!(s(i64::MAX).add(&s(1)).is_err());
        assert!(s(1).div(&s(0)).is_err());
    }
}
