//! `composition(A, B)` = `A o B`: the layout `c -> A(B(c))`.

use crate::by_mode::{transform_layout, Rest};
use crate::coalesce::coalesce_x;
use crate::error::{algebra, Result};
use crate::int::Int;
use crate::int_tuple::{from_leaves, IntTuple};
use crate::layout::Layout;
use crate::tiler::Tiler;

/// `composition(A, B)` for a layout B.
///
/// @post `compatible(B, result)` and `result(c) == A(B(c))` for every `c` in B's domain.
///
/// Divisibility is checked only where both values are static (CuTe's weak divisibility), so
/// `composition((_8,_8):(_8,_1), _3:_3)` is `_3:_24` while a static shape that splits a mode of A
/// unevenly is an error.
///
/// ```
/// # use cute_layout::*;
/// let a = Layout::new(tup![s(6), s(2)], tup![s(8), s(2)])?; // (_6,_2):(_8,_2)
/// let b = Layout::new(tup![s(4), s(3)], tup![s(3), s(1)])?; // (_4,_3):(_3,_1)
/// assert_eq!(composition(&a, &b)?.to_string(), "((_2,_2),_3):((_24,_2),_8)");
/// let a = Layout::new(tup![d(4), d(2)], tup![d(1), d(4)])?; // (4,2):(1,4)
/// let b = Layout::new(tup![s(2), s(4)], tup![s(4), s(1)])?; // (_2,_4):(_4,_1)
/// assert_eq!(composition(&a, &b)?.to_string(), "((1,2),(4,1)):((4,4),(1,4))");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn composition(a: &Layout, b: &Layout) -> Result<Layout> {
    let flat = coalesce_x(a)?;
    let (ls, ld) = (flat.shape().leaves(), flat.stride().leaves());
    // Each mode of B may split across every mode of A: bound the result before building it.
    let bound = ls.len().saturating_mul(b.shape().leaves().len());
    if bound > crate::layout::MAX_MODES {
        return Err(algebra(
            "composition",
            format!(
                "{} modes of A by {} of B could make more than {} modes (a bound on the work of one expression)",
                ls.len(),
                b.shape().leaves().len(),
                crate::layout::MAX_MODES
            ),
        ));
    }
    compose_impl(a, &ls, &ld, b.shape(), b.stride())
}

/// `composition(A, T)` for any tiler: by mode for a tuple (modes of A beyond the tiler are dropped),
/// A itself for `_`, `A o n:_1` for an integer `n`.
///
/// ```
/// # use cute_layout::*;
/// let a = Layout::new(tup![s(8), s(8)], tup![s(8), s(1)])?; // (_8,_8):(_8,_1)
/// let every_other = Layout::new(s(4), s(2))?; // _4:_2
/// let tiler = Tiler::Tuple(vec![every_other.clone().into(), every_other.into()]);
/// assert_eq!(composition_tiler(&a, &tiler)?.to_string(), "(_4,_4):(_16,_2)");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn composition_tiler(a: &Layout, t: &Tiler) -> Result<Layout> {
    match t {
        Tiler::Layout(b) => composition(a, b),
        Tiler::Under => Ok(a.clone()),
        Tiler::Int(n) => {
            let b = Layout::raw(IntTuple::Int(n.clone()), IntTuple::st(1));
            composition(a, &b)
        }
        Tiler::Tuple(ts) => transform_layout("composition", a, ts, Rest::Drop, composition_tiler),
    }
}

/// `detail::composition_impl` over the flat, coalesced modes of A.
fn compose_impl(
    a: &Layout,
    ls: &[Int],
    ld: &[Int],
    rs: &IntTuple,
    rd: &IntTuple,
) -> Result<Layout> {
    match (rs, rd) {
        (IntTuple::Tuple(sv), IntTuple::Tuple(dv)) => {
            let modes = sv
                .iter()
                .zip(dv)
                .map(|(x, y)| compose_impl(a, ls, ld, x, y))
                .collect::<Result<_>>()?;
            Ok(Layout::from_modes(modes))
        }
        (IntTuple::Int(n), IntTuple::Int(d)) => compose_mode(a, ls, ld, n, d),
        _ => Err(algebra(
            "composition",
            format!("{rs}:{rd} is not congruent"),
        )),
    }
}

/// A o (n:d) for one integral mode of B.
fn compose_mode(a: &Layout, ls: &[Int], ld: &[Int], n: &Int, d: &Int) -> Result<Layout> {
    if d.is_constant(0) {
        return Ok(leaf_layout(n.clone(), d.clone()));
    }
    if ls.is_empty() {
        return Err(algebra("composition", format!("{a} has no modes")));
    }
    if ls.len() == 1 {
        return Ok(leaf_layout(n.clone(), d.mul(&ld[0])?));
    }
    let (mut out_s, mut out_d) = (Vec::new(), Vec::new());
    if !d.is_static() && d.value() == Some(0) {
        return Err(algebra(
            "composition",
            format!(
                "{n}:{d} has a dynamic stride 0, which C++ CuTe divides by at run time; \
                 write the static _0 instead"
            ),
        ));
    }
    let (mut rest_s, mut rest_d) = (n.clone(), d.clone());
    for (cs, cd) in ls.iter().zip(ld).take(ls.len() - 1) {
        check_stride_divisibility(a, n, d, cs, &rest_d)?;
        let abs_d = rest_d.abs()?;
        let next_s = cs.ceil_div(&abs_d)?;
        let next_d = abs_d.ceil_div(cs)?.mul(&rest_d.signum()?)?;
        if next_s.is_constant(1) || rest_s.is_constant(1) {
            rest_d = next_d;
            continue;
        }
        let new_s = next_s.min(&rest_s)?;
        if let (Some(ns), Some(rs)) = (new_s.as_static(), rest_s.as_static()) {
            if ns == 0 || rs % ns != 0 {
                return Err(algebra(
                    "composition",
                    format!(
                        "shape {rest_s} of {n}:{d} is not divisible by {new_s}, the part that \
                         fits in mode {cs}:{cd} of {a} (Shape Divisibility Condition)"
                    ),
                ));
            }
        }
        out_s.push(new_s.clone());
        out_d.push(rest_d.mul(cd)?);
        rest_s = rest_s.div(&new_s)?;
        rest_d = next_d;
    }
    let last_d = &ld[ld.len() - 1];
    if out_s.is_empty() {
        return Ok(leaf_layout(rest_s, rest_d.mul(last_d)?));
    }
    if !rest_s.is_constant(1) {
        out_s.push(rest_s);
        out_d.push(rest_d.mul(last_d)?);
    }
    Ok(Layout::raw(from_leaves(out_s), from_leaves(out_d)))
}

/// CuTe's weak stride divisibility: when both are static, `rest_d % cs == 0 || rest_d < cs`.
fn check_stride_divisibility(a: &Layout, n: &Int, d: &Int, cs: &Int, rest_d: &Int) -> Result<()> {
    if let (Some(c), Some(r)) = (cs.as_static(), rest_d.as_static()) {
        if c == 0 || (r.checked_rem(c) != Some(0) && r >= c) {
            return Err(algebra(
                "composition",
                format!(
                    "stride {rest_d} of {n}:{d} does not divide into mode shape {cs} of {a}, \
                     nor is it smaller (Stride Divisibility Condition)"
                ),
            ));
        }
    }
    Ok(())
}

fn leaf_layout(n: Int, d: Int) -> Layout {
    Layout::raw(IntTuple::Int(n), IntTuple::Int(d))
}
