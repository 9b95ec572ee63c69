//! `right_inverse` and `left_inverse`.

use crate::coalesce::coalesce;
use crate::error::{algebra, Result};
use crate::int::{s, Int};
use crate::int_tuple::IntTuple;
use crate::layout::Layout;

/// The coalesced modes of L with the exclusive prefix products of their shapes.
struct Prepared {
    shape: Vec<Int>,
    stride: Vec<Int>,
    preprod: Vec<Int>,
}

fn prepare(l: &Layout) -> Result<Prepared> {
    let c = coalesce(l)?;
    let (shape, stride) = (c.shape().leaves(), c.stride().leaves());
    let mut preprod = vec![s(1)];
    for x in &shape {
        let next = x.mul(&preprod[preprod.len() - 1])?;
        preprod.push(next);
    }
    Ok(Prepared {
        shape,
        stride,
        preprod,
    })
}

/// The indices of `idx` sorted by their (static) stride, in the order C++ CuTe's
/// `detail::SortByKey` gives: an exchange sort, which does not keep the order of equal strides
/// (`(_2,1,_2):(_2,_2,_1)` visits its modes as 2, 1, 0).
fn sorted_by_stride(p: &Prepared, mut idx: Vec<usize>) -> Vec<usize> {
    let key = |i: usize| p.stride[i].as_static().unwrap_or(i64::MAX);
    for i in 0..idx.len() {
        for j in i + 1..idx.len() {
            if key(idx[j]) < key(idx[i]) {
                idx.swap(i, j);
            }
        }
    }
    idx
}

/// `right_inverse(L)`: a layout R with `L(R(i)) == i` for every `i < size(R)`.
///
/// Modes are taken in stride order while each stride equals the running product; others are
/// skipped, and dynamic strides are ignored.
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(tup![s(4), s(8)], tup![s(8), s(1)])?; // (_4,_8):(_8,_1)
/// assert_eq!(right_inverse(&l)?.to_string(), "(_8,_4):(_4,_1)");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn right_inverse<L: Inverse + ?Sized>(l: &L) -> Result<L::Output> {
    l.right_inverse_of()
}

/// The inverses of a layout, a swizzle or a swizzled layout (C++ CuTe's overloads of
/// `right_inverse` and `left_inverse`).
///
/// ```
/// # use cute_layout::*;
/// let sw = Swizzle::new(1, 2, 3)?;
/// assert_eq!(right_inverse(&sw)?.to_string(), "Sw<1,2,3>"); // a swizzle is its own inverse
/// assert_eq!(left_inverse(&sw)?.to_string(), "Sw<1,2,3>");
/// let b = Layout::new(tup![s(8), s(8)], tup![s(1), s(8)])?; // (_8,_8):(_1,_8)
/// let sw = Swizzle::new(3, 3, 3)?;
/// let AnyLayout::Composed(c) = compose_swizzle(sw, &b) else { unreachable!() };
/// assert_eq!(right_inverse(&c)?.to_string(), "Sw<3,3,3> o _0 o _64:_1");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub trait Inverse {
    /// What the inverse is: a layout's is a layout, a swizzle's a swizzle, a swizzled layout's a
    /// swizzled layout.
    type Output;
    /// `right_inverse(self)`.
    fn right_inverse_of(&self) -> Result<Self::Output>;
    /// `left_inverse(self)`.
    fn left_inverse_of(&self) -> Result<Self::Output>;
}

impl Inverse for Layout {
    type Output = Layout;

    fn right_inverse_of(&self) -> Result<Layout> {
        right_inverse_layout(self)
    }

    fn left_inverse_of(&self) -> Result<Layout> {
        left_inverse_layout(self)
    }
}

fn right_inverse_layout(l: &Layout) -> Result<Layout> {
    let p = prepare(l)?;
    let statics = (0..p.stride.len())
        .filter(|&i| p.stride[i].is_static())
        .collect();
    let (mut rs, mut rd, mut curr) = (vec![s(1)], vec![s(0)], s(1));
    for i in sorted_by_stride(&p, statics) {
        if p.stride[i].static_eq(&curr) {
            rs.push(p.shape[i].clone());
            rd.push(p.preprod[i].clone());
            curr = p.shape[i].mul(&p.stride[i])?;
        }
    }
    coalesce(&Layout::raw(
        IntTuple::from_ints(rs),
        IntTuple::from_ints(rd),
    ))
}

/// `left_inverse(L)`: a layout R with `R(L(i)) == i` on L's image (requires static strides).
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(tup![s(8), s(4)], tup![s(1), s(16)])?; // (_8,_4):(_1,_16)
/// assert_eq!(left_inverse(&l)?.to_string(), "(_16,_4):(_1,_8)");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn left_inverse<L: Inverse + ?Sized>(l: &L) -> Result<L::Output> {
    l.left_inverse_of()
}

fn left_inverse_layout(l: &Layout) -> Result<Layout> {
    let p = prepare(l)?;
    if !p.stride.iter().all(Int::is_static) {
        return Err(algebra(
            "left_inverse",
            format!("{l} has dynamic strides; left inverse requires static strides"),
        ));
    }
    let order = sorted_by_stride(&p, (0..p.stride.len()).collect());
    let (mut rs, mut rd) = (Vec::<Int>::new(), vec![s(0)]);
    for &i in &order {
        let d = &p.stride[i];
        if d.is_constant(0) {
            continue;
        }
        let size = rs.iter().try_fold(s(1), |acc, x| acc.mul(x))?;
        if !d.rem(&size)?.is_constant(0) {
            return Err(algebra(
                "left_inverse",
                format!("stride {d} of {l} is not a multiple of {size} (left inverse divisibility condition)"),
            ));
        }
        rs.push(d.div(&size)?);
        rd.push(p.preprod[i].clone());
    }
    let last = order.last().map_or(s(1), |&i| p.shape[i].clone());
    rs.push(last);
    coalesce(&Layout::raw(
        IntTuple::from_ints(rs),
        IntTuple::from_ints(rd),
    ))
}
