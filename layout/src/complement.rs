//! `complement(L, cotarget)`: the layout of the offsets L does not reach, up to the cotarget.

use crate::coalesce::{coalesce, filter};
use crate::error::{algebra, Result};
use crate::int::{s, Int};
use crate::int_tuple::{ceil_div, coalesce_shape, IntTuple};
use crate::layout::Layout;
use crate::stride::{compact_major, Major};

/// `complement(L, cotarget)`.
///
/// @post the result is ordered, disjoint from the image of L (except 0), and L together with it
/// covers at least `cotarget`.
///
/// Strides must be static when `filter(L)` has more than one mode, and L must be injective.
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(tup![s(2), s(2)], tup![s(1), s(6)])?; // (_2,_2):(_1,_6)
/// assert_eq!(complement(&l, &s(24).into())?.to_string(), "(_3,_2):(_2,_12)");
/// let l = Layout::new(d(4), d(1))?; // 4:1
/// assert_eq!(complement(&l, &d(24).into())?.to_string(), "(1,6):(_1,4)");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn complement(l: &Layout, cotarget: &IntTuple) -> Result<Layout> {
    let f = filter(l)?;
    complement_filtered(l, &f.shape().leaves(), &f.stride().leaves(), cotarget)
}

/// `complement(L)`: the cotarget is `cosize(filter(L))`.
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(s(4), s(2))?; // _4:_2
/// assert_eq!(complement_default(&l)?.to_string(), "_2:_1");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn complement_default(l: &Layout) -> Result<Layout> {
    let f = filter(l)?;
    let cotarget = IntTuple::Int(f.cosize()?);
    complement_filtered(l, &f.shape().leaves(), &f.stride().leaves(), &cotarget)
}

/// `detail::complement` on the flat modes of the filtered layout.
fn complement_filtered(
    l: &Layout,
    shape: &[Int],
    stride: &[Int],
    cotarget: &IntTuple,
) -> Result<Layout> {
    if stride.len() == 1 && stride[0].is_constant(0) {
        return Layout::col_major(&coalesce_shape(cotarget)?);
    }
    if stride.len() > 1 && !stride.iter().all(Int::is_static) {
        return Err(algebra(
            "complement",
            format!("{l} has dynamic strides; dynamic-stride complement only for rank-1 layouts"),
        ));
    }
    if shape.is_empty() || shape.len() != stride.len() {
        return Err(algebra("complement", format!("{l} has no modes")));
    }
    let (mut shape, mut stride) = (shape.to_vec(), stride.to_vec());
    let (mut res_s, mut res_d) = (Vec::new(), vec![s(1)]);
    for i in 0..shape.len() - 1 {
        let min_idx = argmin_static(&stride);
        let min_d = stride.remove(min_idx);
        let min_s = shape.remove(min_idx);
        res_s.push(non_injective_check(l, min_d.div(&res_d[i])?)?);
        res_d.push(min_d.mul(&min_s)?);
    }
    res_s.push(non_injective_check(
        l,
        stride[0].div(&res_d[res_d.len() - 1])?,
    )?);
    let new_d = stride[0].mul(&shape[0])?;
    let rest_s = coalesce_shape(&ceil_div(cotarget, &IntTuple::Int(new_d.clone()))?)?;
    let rest_d = compact_major(Major::Left, &rest_s, &new_d)?;
    let shape = IntTuple::Tuple(vec![IntTuple::from_ints(res_s), rest_s]);
    let stride = IntTuple::Tuple(vec![IntTuple::from_ints(res_d), rest_d]);
    coalesce(&Layout::raw(shape, stride))
}

/// The index of the smallest (static) stride, the first one on ties.
fn argmin_static(stride: &[Int]) -> usize {
    let key = |d: &Int| d.as_static().unwrap_or(i64::MAX);
    (0..stride.len()).fold(0, |m, i| {
        if key(&stride[i]) < key(&stride[m]) {
            i
        } else {
            m
        }
    })
}

fn non_injective_check(l: &Layout, new_s: Int) -> Result<Int> {
    if new_s.is_constant(0) {
        return Err(algebra(
            "complement",
            format!("{l} is not injective (two modes overlap), so it has no complement"),
        ));
    }
    Ok(new_s)
}
