//! `coalesce`, `filter_zeros` and `filter`: simplify a layout without changing its function.

use crate::by_mode::{transform_layout, Rest};
use crate::error::Result;
use crate::int::{s, Int};
use crate::int_tuple::{from_leaves, IntTuple};
use crate::layout::Layout;

/// `coalesce(L)`: flattens, drops static `_1` modes and merges adjacent modes `s0:d0, s1:s0*d0`
/// when that is statically provable; all-1 layouts become `_1:_0`.
///
/// @post `size(result) == size(L)`, `depth(result) <= 1`, `result(i) == L(i)` for `i < size(L)`.
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(tup![s(2), tup![s(1), s(6)]], tup![s(1), tup![s(6), s(2)]])?;
/// assert_eq!(coalesce(&l)?.to_string(), "_12:_1"); // (_2,(_1,_6)):(_1,(_6,_2))
/// // with the dynamic 2, the modes stay apart
/// let l = Layout::new(tup![s(4), d(2)], tup![s(1), s(4)])?;
/// assert_eq!(coalesce(&l)?.to_string(), "(_4,2):(_1,_4)");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn coalesce(l: &Layout) -> Result<Layout> {
    let (shapes, strides) = (l.shape().leaves(), l.stride().leaves());
    match (shapes.last(), strides.last()) {
        (Some(s0), Some(d0)) => bw_coalesce(&shapes, &strides, s0.clone(), d0.clone()),
        _ => Ok(l.clone()),
    }
}

/// `detail::coalesce_x`: like `coalesce`, but also keeps the function outside the domain (a trailing
/// `_1:d` mode becomes `_2:d`), as composition needs.
pub(crate) fn coalesce_x(l: &Layout) -> Result<Layout> {
    let (shapes, strides) = (l.shape().leaves(), l.stride().leaves());
    match (shapes.last(), strides.last()) {
        (Some(s0), Some(d0)) => {
            let s0 = if s0.is_constant(1) { s(2) } else { s0.clone() };
            bw_coalesce(&shapes, &strides, s0, d0.clone())
        }
        _ => Ok(l.clone()),
    }
}

/// `coalesce(L, profile)`: coalesces each mode of L under a leaf of `profile`.
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(tup![s(2), tup![s(2), s(3)]], tup![s(1), tup![s(2), s(4)]])?;
/// let by_mode = tup![s(1), s(1)]; // coalesce each of the two modes on its own
/// assert_eq!(coalesce_profile(&l, &by_mode)?.to_string(), "(_2,_6):(_1,_2)");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn coalesce_profile(l: &Layout, profile: &IntTuple) -> Result<Layout> {
    match profile {
        IntTuple::Int(_) => coalesce(l),
        IntTuple::Tuple(p) => transform_layout("coalesce", l, p, Rest::Keep, coalesce_profile),
    }
}

/// Processes the flat modes back to front, `new` holding the result modes front-last.
fn bw_coalesce(shapes: &[Int], strides: &[Int], s0: Int, d0: Int) -> Result<Layout> {
    let (mut ns, mut nd) = (vec![s0], vec![d0]);
    for (si, di) in shapes.iter().zip(strides).rev().skip(1) {
        let front = ns.len() - 1;
        if si.is_constant(1) {
            continue;
        }
        if ns.len() == 1 && ns[0].is_constant(1) {
            (ns[0], nd[0]) = (si.clone(), di.clone());
            continue;
        }
        let merged = si.mul(di)?;
        if ns[front].is_static() && merged.static_eq(&nd[front]) {
            ns[front] = si.mul(&ns[front])?;
            nd[front] = di.clone();
        } else {
            ns.push(si.clone());
            nd.push(di.clone());
        }
    }
    if ns.len() == 1 && ns[0].is_constant(1) {
        return Ok(Layout::trivial());
    }
    ns.reverse();
    nd.reverse();
    Ok(Layout::raw(from_leaves(ns), from_leaves(nd)))
}

/// `filter_zeros(L)`: modes with a static `_0` stride get size `_1`.
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(tup![s(4), s(2), s(3)], tup![s(0), s(1), s(2)])?; // (_4,_2,_3):(_0,_1,_2)
/// let z = filter_zeros(&l)?;
/// assert_eq!(z, Layout::new(tup![s(1), s(2), s(3)], tup![s(0), s(1), s(2)])?);
/// assert_eq!(coalesce(&z)?.to_string(), "_6:_1"); // filter(l)
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn filter_zeros(l: &Layout) -> Result<Layout> {
    Layout::new(
        crate::int_tuple::filter_zeros(l.stride(), l.shape())?,
        l.stride().clone(),
    )
}

/// `filter(L)`: removes stride-0 and size-1 modes (`coalesce(filter_zeros(L))`).
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(tup![s(4), s(1), tup![s(2), s(3)]], tup![s(1), s(7), tup![s(0), s(4)]])?;
/// assert_eq!(filter(&l)?.to_string(), "_12:_1"); // (_4,_1,(_2,_3)):(_1,_7,(_0,_4))
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn filter(l: &Layout) -> Result<Layout> {
    coalesce(&filter_zeros(l)?)
}

/// `filter(L, profile)`: filters each mode of L under a leaf of `profile`.
///
/// ```
/// # use cute_layout::*;
/// // ((_2,1),_4):((_1,_4),_0): the dynamic 1 stays, the stride-0 mode becomes _1:_0
/// let l = Layout::new(tup![tup![s(2), d(1)], s(4)], tup![tup![s(1), s(4)], s(0)])?;
/// let by_mode = tup![s(1), s(1)];
/// assert_eq!(filter_profile(&l, &by_mode)?.to_string(), "((_2,1),_1):((_1,_4),_0)");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn filter_profile(l: &Layout, profile: &IntTuple) -> Result<Layout> {
    match profile {
        IntTuple::Int(_) => filter(l),
        IntTuple::Tuple(p) => transform_layout("filter", l, p, Rest::Keep, filter_profile),
    }
}
