//! Compact strides (`LayoutLeft`, `LayoutRight`, ordered) and the coordinate maps `crd2idx` /
//! `idx2crd` (CuTe's `stride.hpp`).

use crate::error::{algebra, Result};
use crate::int::{s, Int};
use crate::int_tuple::IntTuple;

/// The generator of compact strides: `LayoutLeft` (column-major) or `LayoutRight` (row-major).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Major {
    /// Column-major: the leftmost mode has stride 1.
    Left,
    /// Row-major: the rightmost mode has stride 1.
    Right,
}

/// `compact_major<Major>(shape, current)`: the compact strides of `shape` starting at `current`.
/// Static `_1` modes get stride `_0`.
pub fn compact_major(major: Major, shape: &IntTuple, current: &Int) -> Result<IntTuple> {
    Ok(compact(major, shape, current)?.0)
}

/// Returns (strides, next current).
fn compact(major: Major, shape: &IntTuple, current: &Int) -> Result<(IntTuple, Int)> {
    match shape {
        IntTuple::Int(n) if n.is_constant(1) => Ok((IntTuple::st(0), current.clone())),
        IntTuple::Int(n) => Ok((IntTuple::Int(current.clone()), current.mul(n)?)),
        IntTuple::Tuple(modes) => {
            let mut out = vec![IntTuple::st(0); modes.len()];
            let mut cur = current.clone();
            let order: Vec<usize> = match major {
                Major::Left => (0..modes.len()).collect(),
                Major::Right => (0..modes.len()).rev().collect(),
            };
            for i in order {
                let (d, next) = compact(major, &modes[i], &cur)?;
                out[i] = d;
                cur = next;
            }
            Ok((IntTuple::Tuple(out), cur))
        }
    }
}

/// `compact_order(shape, order)`: compact strides where modes with a smaller order come first.
/// Dynamic entries of `order` count as larger than every static one, ordered left to right.
pub fn compact_order(shape: &IntTuple, order: &IntTuple) -> Result<IntTuple> {
    let ref_shape = product_like(shape, order)?;
    let flat_order = order.leaves();
    let max_order = flat_order
        .iter()
        .filter_map(Int::as_static)
        .fold(0, i64::max);
    let mut next = max_order;
    let ref_order: Vec<i64> = flat_order
        .iter()
        .map(|o| {
            o.as_static().unwrap_or_else(|| {
                next = next.saturating_add(1);
                next
            })
        })
        .collect();
    let mut k = 0;
    let new_order = order.map_leaves(&mut |_| {
        k += 1;
        Ok(s(ref_order[k - 1]))
    })?;
    compact_order_impl(shape, &new_order, &ref_shape, &ref_order)
}

fn compact_order_impl(
    shape: &IntTuple,
    order: &IntTuple,
    ref_shape: &[Int],
    ref_order: &[i64],
) -> Result<IntTuple> {
    match order {
        IntTuple::Tuple(ov) => {
            if shape.rank() != ov.len() {
                return Err(algebra(
                    "compact_order",
                    format!("shape {shape} and order {order} have different ranks"),
                ));
            }
            let modes = shape.modes();
            let v = modes
                .iter()
                .zip(ov)
                .map(|(sh, o)| compact_order_impl(sh, o, ref_shape, ref_order))
                .collect::<Result<_>>()?;
            Ok(IntTuple::Tuple(v))
        }
        IntTuple::Int(o) => {
            let o = o.as_static().unwrap_or(i64::MAX);
            let start = ref_shape
                .iter()
                .zip(ref_order)
                .filter(|(_, &ro)| ro < o)
                .try_fold(s(1), |acc, (sh, _)| acc.mul(sh))?;
            compact_major(Major::Left, shape, &start)
        }
    }
}

/// `flatten_to_tuple(product_like(shape, guide))`: the product of `shape` under each leaf of `guide`.
fn product_like(shape: &IntTuple, guide: &IntTuple) -> Result<Vec<Int>> {
    match guide {
        IntTuple::Int(_) => Ok(vec![shape.product()?]),
        IntTuple::Tuple(gv) => {
            if shape.rank() != gv.len() {
                return Err(algebra(
                    "compact_order",
                    format!("shape {shape} and order {guide} have different ranks"),
                ));
            }
            let mut out = Vec::new();
            for (sh, g) in shape.modes().iter().zip(gv) {
                out.extend(product_like(sh, g)?);
            }
            Ok(out)
        }
    }
}

/// `crd2idx(coord, shape, stride)`: the offset of a coordinate.
///
/// An integer coordinate into a tuple shape is split colexicographically, the last mode not
/// reduced modulo its size; a tuple coordinate is taken mode by mode.
pub fn crd2idx(coord: &IntTuple, shape: &IntTuple, stride: &IntTuple) -> Result<Int> {
    match (coord, shape, stride) {
        (IntTuple::Tuple(cv), IntTuple::Tuple(sv), IntTuple::Tuple(dv)) => {
            if cv.len() != sv.len() || sv.len() != dv.len() {
                return Err(rank_mismatch(coord, shape));
            }
            let mut acc: Option<Int> = None;
            for ((c, sh), d) in cv.iter().zip(sv).zip(dv) {
                let term = crd2idx(c, sh, d)?;
                acc = Some(match acc {
                    None => term,
                    Some(a) => a.add(&term)?,
                });
            }
            Ok(acc.unwrap_or(s(0)))
        }
        (IntTuple::Tuple(_), _, _) => Err(rank_mismatch(coord, shape)),
        (IntTuple::Int(c), IntTuple::Tuple(sv), IntTuple::Tuple(dv)) => {
            if sv.len() != dv.len() {
                return Err(rank_mismatch(shape, stride));
            }
            crd2idx_int(c, sv, dv)
        }
        (IntTuple::Int(c), IntTuple::Int(_), IntTuple::Int(d)) => c.mul(d),
        (IntTuple::Int(_), _, _) => Err(rank_mismatch(shape, stride)),
    }
}

/// An integer coordinate into tuple modes: divmod by each mode's size, the last one unreduced.
fn crd2idx_int(c: &Int, sv: &[IntTuple], dv: &[IntTuple]) -> Result<Int> {
    let Some(last) = sv.len().checked_sub(1) else {
        return Ok(s(0));
    };
    if c.is_constant(0) {
        let zero = IntTuple::st(0);
        let mut acc = crd2idx(&zero, &sv[0], &dv[0])?;
        for i in 1..sv.len() {
            acc = acc.add(&crd2idx(&zero, &sv[i], &dv[i])?)?;
        }
        return Ok(acc);
    }
    let mut rest = c.clone();
    let mut acc: Option<Int> = None;
    for i in 0..=last {
        let term = if i == last {
            crd2idx(&IntTuple::Int(rest.clone()), &sv[i], &dv[i])?
        } else {
            let size = sv[i].product()?;
            let (q, r) = (rest.div(&size)?, rest.rem(&size)?);
            rest = q;
            crd2idx(&IntTuple::Int(r), &sv[i], &dv[i])?
        };
        acc = Some(match acc {
            None => term,
            Some(a) => a.add(&term)?,
        });
    }
    Ok(acc.unwrap_or(s(0)))
}

/// `crd2idx(coord, shape)`: the colexicographic index `c0 + s0 * (c1 + s1 * (...))`; an integer
/// coordinate is already an index.
pub fn crd2idx_colex(coord: &IntTuple, shape: &IntTuple) -> Result<IntTuple> {
    let IntTuple::Tuple(cv) = coord else {
        return Ok(coord.clone());
    };
    if !shape.is_tuple() || cv.len() != shape.rank() {
        return Err(rank_mismatch(coord, shape));
    }
    let flat_c = coord.leaves();
    let flat_s: Vec<Int> = product_like(shape, coord)?;
    let Some(last) = flat_c.last() else {
        // an empty coordinate of an empty shape: index 0
        return Ok(IntTuple::Int(crate::s(0)));
    };
    let mut acc = last.clone();
    for k in (0..flat_c.len() - 1).rev() {
        acc = flat_c[k].add(&flat_s[k].mul(&acc)?)?;
    }
    Ok(IntTuple::Int(acc))
}

/// `idx2crd(idx, shape)`: the colexicographic coordinate of an index (the last mode not wrapped).
pub fn idx2crd(idx: &IntTuple, shape: &IntTuple) -> Result<IntTuple> {
    match (idx, shape) {
        (IntTuple::Tuple(iv), IntTuple::Tuple(sv)) if iv.len() == sv.len() => Ok(IntTuple::Tuple(
            iv.iter()
                .zip(sv)
                .map(|(i, sh)| idx2crd(i, sh))
                .collect::<Result<_>>()?,
        )),
        (IntTuple::Tuple(_), _) => Err(rank_mismatch(idx, shape)),
        (IntTuple::Int(_), IntTuple::Int(_)) => Ok(idx.clone()),
        (IntTuple::Int(i), IntTuple::Tuple(sv)) => idx2crd_int(i, sv),
    }
}

/// `idx2crd(idx, shape, stride)`: the coordinate of an index under a compact `shape:stride`, each
/// mode `(idx / d) % s` (a static `_1` mode gives `_0`).
pub fn idx2crd_strided(idx: &IntTuple, shape: &IntTuple, stride: &IntTuple) -> Result<IntTuple> {
    match (idx, shape, stride) {
        (IntTuple::Tuple(iv), IntTuple::Tuple(sv), IntTuple::Tuple(dv))
            if iv.len() == sv.len() && sv.len() == dv.len() =>
        {
            let v = (0..iv.len())
                .map(|k| idx2crd_strided(&iv[k], &sv[k], &dv[k]))
                .collect::<Result<_>>()?;
            Ok(IntTuple::Tuple(v))
        }
        (IntTuple::Tuple(_), _, _) => Err(rank_mismatch(idx, shape)),
        (IntTuple::Int(_), IntTuple::Tuple(sv), IntTuple::Tuple(dv)) if sv.len() == dv.len() => {
            let v = sv
                .iter()
                .zip(dv)
                .map(|(sh, d)| idx2crd_strided(idx, sh, d))
                .collect::<Result<_>>()?;
            Ok(IntTuple::Tuple(v))
        }
        (IntTuple::Int(_), IntTuple::Tuple(_), IntTuple::Int(d)) => {
            let compact = compact_major(Major::Left, shape, d)?;
            idx2crd_strided(idx, shape, &compact)
        }
        (IntTuple::Int(i), IntTuple::Int(sh), IntTuple::Int(d)) => {
            if sh.is_constant(1) {
                return Ok(IntTuple::st(0));
            }
            Ok(IntTuple::Int(i.div(d)?.rem(sh)?))
        }
        _ => Err(rank_mismatch(shape, stride)),
    }
}

fn idx2crd_int(i: &Int, sv: &[IntTuple]) -> Result<IntTuple> {
    let last = sv.len().saturating_sub(1);
    let mut rest = i.clone();
    let mut out = Vec::with_capacity(sv.len());
    for (k, sh) in sv.iter().enumerate() {
        if i.is_constant(0) {
            out.push(sh.map_leaves(&mut |_| Ok(s(0)))?);
        } else if k == last {
            out.push(idx2crd(&IntTuple::Int(rest.clone()), sh)?);
        } else {
            let size = sh.product()?;
            out.push(idx2crd(&IntTuple::Int(rest.rem(&size)?), sh)?);
            rest = rest.div(&size)?;
        }
    }
    Ok(IntTuple::Tuple(out))
}

fn rank_mismatch(a: &IntTuple, b: &IntTuple) -> crate::error::Error {
    algebra(
        "crd2idx",
        format!("coordinate {a} does not match shape {b} (mismatched ranks)"),
    )
}
