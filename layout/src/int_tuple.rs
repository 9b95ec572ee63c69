//! IntTuple: an integer or a (nested) tuple of IntTuples, with CuTe's tuple algorithms.
//!
//! Shapes, strides and coordinates are all IntTuples. Printing follows C++ CuTe: `(a,b,...)`
//! without spaces, a rank-1 tuple as `(_4)`, an integer bare.

use std::fmt;

use crate::error::{algebra, Result};
use crate::int::{s, Int};

/// An integer or a tuple of IntTuples.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum IntTuple {
    /// A leaf.
    Int(Int),
    /// A tuple (possibly empty, possibly rank 1).
    Tuple(Vec<IntTuple>),
}

impl From<Int> for IntTuple {
    fn from(i: Int) -> Self {
        IntTuple::Int(i)
    }
}

impl From<Vec<IntTuple>> for IntTuple {
    fn from(v: Vec<IntTuple>) -> Self {
        IntTuple::Tuple(v)
    }
}

impl IntTuple {
    /// The static integer `_v`.
    pub fn st(v: i64) -> IntTuple {
        IntTuple::Int(s(v))
    }

    /// A flat tuple of integers (always a tuple, even of rank 1).
    pub fn from_ints(v: Vec<Int>) -> IntTuple {
        IntTuple::Tuple(v.into_iter().map(IntTuple::Int).collect())
    }

    /// `is_tuple`.
    pub fn is_tuple(&self) -> bool {
        matches!(self, IntTuple::Tuple(_))
    }

    /// The leaf, when this is an integer.
    pub fn as_int(&self) -> Option<&Int> {
        match self {
            IntTuple::Int(i) => Some(i),
            IntTuple::Tuple(_) => None,
        }
    }

    /// `rank`: 1 for an integer, the number of modes for a tuple.
    pub fn rank(&self) -> usize {
        match self {
            IntTuple::Int(_) => 1,
            IntTuple::Tuple(v) => v.len(),
        }
    }

    /// `depth`: 0 for an integer, 1 + the deepest mode for a tuple.
    pub fn depth(&self) -> usize {
        match self {
            IntTuple::Int(_) => 0,
            IntTuple::Tuple(v) => 1 + v.iter().map(IntTuple::depth).max().unwrap_or(0),
        }
    }

    /// `get<i>`: the i-th mode; `get<0>` of an integer is the integer itself.
    pub fn get(&self, i: usize) -> Option<&IntTuple> {
        match self {
            IntTuple::Int(_) if i == 0 => Some(self),
            IntTuple::Int(_) => None,
            IntTuple::Tuple(v) => v.get(i),
        }
    }

    /// The modes: a tuple's elements, or the integer itself as the one mode.
    pub fn modes(&self) -> Vec<IntTuple> {
        match self {
            IntTuple::Int(_) => vec![self.clone()],
            IntTuple::Tuple(v) => v.clone(),
        }
    }

    /// `wrap`: a tuple stays, an integer becomes a rank-1 tuple.
    pub fn wrap(&self) -> Vec<IntTuple> {
        self.modes()
    }

    /// `unwrap`: strips rank-1 tuples.
    pub fn unwrap(self) -> IntTuple {
        match self {
            IntTuple::Tuple(mut v) if v.len() == 1 => v.remove(0).unwrap(),
            other => other,
        }
    }

    /// The leaves in order (`flatten_to_tuple`).
    pub fn leaves(&self) -> Vec<Int> {
        let mut out = Vec::new();
        self.collect_leaves(&mut out);
        out
    }

    fn collect_leaves(&self, out: &mut Vec<Int>) {
        match self {
            IntTuple::Int(i) => out.push(i.clone()),
            IntTuple::Tuple(v) => v.iter().for_each(|t| t.collect_leaves(out)),
        }
    }

    /// `flatten`: an integer stays, a tuple becomes the flat tuple of its leaves.
    pub fn flatten(&self) -> IntTuple {
        match self {
            IntTuple::Int(_) => self.clone(),
            IntTuple::Tuple(_) => from_leaves(self.leaves()),
        }
    }

    /// `product` (= `size` of a shape): the product of the leaves; `_1` for an empty tuple.
    pub fn product(&self) -> Result<Int> {
        match self {
            IntTuple::Int(i) => Ok(i.clone()),
            IntTuple::Tuple(v) => v.iter().try_fold(s(1), |acc, t| acc.mul(&t.product()?)),
        }
    }

    /// `product_each`: the product of each mode.
    pub fn product_each(&self) -> Result<IntTuple> {
        let v = self
            .wrap()
            .iter()
            .map(|m| m.product().map(IntTuple::Int))
            .collect::<Result<_>>()?;
        Ok(IntTuple::Tuple(v))
    }

    /// Whether every leaf is static.
    pub fn is_static(&self) -> bool {
        self.leaves().iter().all(Int::is_static)
    }

    /// Applies `f` to every leaf, keeping the profile.
    pub fn map_leaves(&self, f: &mut impl FnMut(&Int) -> Result<Int>) -> Result<IntTuple> {
        match self {
            IntTuple::Int(i) => Ok(IntTuple::Int(f(i)?)),
            IntTuple::Tuple(v) => Ok(IntTuple::Tuple(
                v.iter().map(|t| t.map_leaves(f)).collect::<Result<_>>()?,
            )),
        }
    }

    /// Applies `f` to every leaf of `self` and the corresponding leaf of a congruent `other`.
    pub fn zip_leaves(
        &self,
        other: &IntTuple,
        f: &mut impl FnMut(&Int, &Int) -> Result<Int>,
    ) -> Result<IntTuple> {
        match (self, other) {
            (IntTuple::Int(a), IntTuple::Int(b)) => Ok(IntTuple::Int(f(a, b)?)),
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) if a.len() == b.len() => Ok(IntTuple::Tuple(
                a.iter()
                    .zip(b)
                    .map(|(x, y)| x.zip_leaves(y, f))
                    .collect::<Result<_>>()?,
            )),
            _ => Err(algebra(
                "congruence",
                format!("{self} and {other} do not have the same profile"),
            )),
        }
    }

    /// Whether `self` and `other` have the same profile.
    pub fn congruent(&self, other: &IntTuple) -> bool {
        match (self, other) {
            (IntTuple::Int(_), IntTuple::Int(_)) => true,
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.congruent(y))
            }
            _ => false,
        }
    }
}

/// A flat IntTuple from leaves: one leaf stays an integer, otherwise a tuple.
pub fn from_leaves(mut leaves: Vec<Int>) -> IntTuple {
    if leaves.len() == 1 {
        IntTuple::Int(leaves.remove(0))
    } else {
        IntTuple::Tuple(leaves.into_iter().map(IntTuple::Int).collect())
    }
}

/// `append(a, x)`: a tuple gains a mode; an integer becomes `(a, x)`.
pub fn append(a: &IntTuple, x: IntTuple) -> IntTuple {
    let mut v = a.wrap();
    v.push(x);
    IntTuple::Tuple(v)
}

/// `append<n>(a, x)`: pads `a` with `x` up to rank `n` (an integer stays when `n == 1`).
pub fn append_to(a: &IntTuple, n: usize, x: &IntTuple) -> IntTuple {
    if !a.is_tuple() && n == 1 {
        return a.clone();
    }
    let mut v = a.wrap();
    while v.len() < n {
        v.push(x.clone());
    }
    IntTuple::Tuple(v)
}

/// CuTe's `ceil_div` on IntTuples.
///
/// tuple/tuple: by mode (missing modes of `b` are `_1`); tuple/int: folds left, the divisor shrinking
/// by each mode (`ceil_div((4,5,6), 40) = (1,1,3)`); int/tuple: by the product of `b`.
pub fn ceil_div(a: &IntTuple, b: &IntTuple) -> Result<IntTuple> {
    match (a, b) {
        (IntTuple::Tuple(av), IntTuple::Tuple(bv)) => {
            if bv.len() > av.len() {
                return Err(algebra(
                    "ceil_div",
                    format!("rank of {b} exceeds rank of {a}"),
                ));
            }
            let one = IntTuple::st(1);
            let v = av
                .iter()
                .enumerate()
                .map(|(i, x)| ceil_div(x, bv.get(i).unwrap_or(&one)))
                .collect::<Result<_>>()?;
            Ok(IntTuple::Tuple(v))
        }
        (IntTuple::Tuple(av), IntTuple::Int(bi)) => {
            let mut rest = bi.clone();
            let mut out = Vec::with_capacity(av.len());
            for x in av {
                out.push(ceil_div(x, &IntTuple::Int(rest.clone()))?);
                rest = rest.ceil_div(&x.product()?)?;
            }
            Ok(IntTuple::Tuple(out))
        }
        (IntTuple::Int(ai), _) => Ok(IntTuple::Int(ai.ceil_div(&b.product()?)?)),
    }
}

/// CuTe's `coalesce(Shape)`: flattens and merges neighbouring modes that are both static or both
/// dynamic (used for the rest mode of `complement`).
pub fn coalesce_shape(shape: &IntTuple) -> Result<IntTuple> {
    let leaves = shape.leaves();
    let mut out: Vec<Int> = Vec::with_capacity(leaves.len());
    for a in leaves {
        match out.last_mut() {
            Some(back) if back.is_static() == a.is_static() => *back = back.mul(&a)?,
            _ => out.push(a),
        }
    }
    Ok(from_leaves(out))
}

/// `filter_zeros(b, a)`: the leaves of `a` paired with a static `_0` in `b` become `_1`.
pub fn filter_zeros(b: &IntTuple, a: &IntTuple) -> Result<IntTuple> {
    b.zip_leaves(a, &mut |bi, ai| {
        Ok(if bi.is_constant(0) { s(1) } else { ai.clone() })
    })
}

/// `inner_product(a, b)`: the sum of the products of corresponding leaves.
pub fn inner_product(a: &IntTuple, b: &IntTuple) -> Result<Int> {
    match (a, b) {
        (IntTuple::Int(x), IntTuple::Int(y)) => x.mul(y),
        (IntTuple::Tuple(av), IntTuple::Tuple(bv)) if av.len() == bv.len() => av
            .iter()
            .zip(bv)
            .try_fold(s(0), |acc, (x, y)| acc.add(&inner_product(x, y)?)),
        _ => Err(algebra(
            "inner_product",
            format!("{a} and {b} do not have the same profile"),
        )),
    }
}

/// `zip` of a tuple of tuples: `((a0,a1),(b0,b1))` -> `((a0,b0),(a1,b1))`; a tuple whose first
/// element is an integer becomes a rank-1 tuple of itself.
pub fn zip(t: &IntTuple) -> Result<IntTuple> {
    let IntTuple::Tuple(rows) = t else {
        return Ok(t.clone());
    };
    match rows.first() {
        Some(IntTuple::Tuple(first)) => {
            let cols = (0..first.len())
                .map(|j| {
                    let col = rows
                        .iter()
                        .map(|r| {
                            r.get(j).cloned().ok_or_else(|| {
                                algebra("zip", format!("modes of {t} have different ranks"))
                            })
                        })
                        .collect::<Result<_>>()?;
                    Ok(IntTuple::Tuple(col))
                })
                .collect::<Result<_>>()?;
            Ok(IntTuple::Tuple(cols))
        }
        _ => Ok(IntTuple::Tuple(vec![t.clone()])),
    }
}

impl fmt::Display for IntTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntTuple::Int(i) => write!(f, "{i}"),
            IntTuple::Tuple(v) => crate::print::write_tuple(f, v),
        }
    }
}

/// Builds an IntTuple in tests: `tup![s(2), tup![s(3), d(4)]]`.
#[macro_export]
macro_rules! tup {
    ($($x:expr),* $(,)?) => {
        $crate::IntTuple::Tuple(vec![$($crate::IntTuple::from($x)),*])
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::int::d;

    #[test]
    fn prints_like_cute() {
        let t = tup![s(2), tup![s(3), d(4)]];
        assert_eq!(t.to_string(), "(_2,(_3,4))");
        assert_eq!(tup![s(4)].to_string(), "(_4)");
        assert_eq!(IntTuple::Tuple(vec![]).to_string(), "()");
    }

    #[test]
    fn ceil_div_folds_a_tuple_by_an_int() {
        let a = tup![d(4), d(5), d(6)];
        assert_eq!(
            ceil_div(&a, &IntTuple::Int(d(40))).unwrap().to_string(),
            "(1,1,3)"
        );
    }

    #[test]
    fn coalesce_shape_merges_by_staticness() {
        let a = tup![s(2), s(3), d(4), d(5), s(6)];
        assert_eq!(coalesce_shape(&a).unwrap().to_string(), "(_6,20,_6)");
    }
}
