//! `upcast<N>` and `downcast<N>`: re-express a layout for elements N times wider or narrower.

use crate::error::{algebra, Result};
use crate::int::{s, Int};
use crate::int_tuple::IntTuple;
use crate::layout::Layout;

/// `upcast<N>(L)`: the stride-1 mode shrinks by N, every other static stride is divided by N
/// (dynamic strides are assumed to be multiples of N).
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(tup![s(4), tup![s(2), s(8)]], tup![s(2), tup![s(1), s(8)]])?;
/// assert_eq!(upcast(&l, 2)?.to_string(), "(_4,(_1,_8)):(_1,(_1,_4))"); // upcast<2>(l)
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn upcast(l: &Layout, n: i64) -> Result<Layout> {
    check_factor("upcast", n)?;
    let (shape, stride) = leafwise(l, &mut |sh, d| upcast_leaf(l, sh, d, n))?;
    Layout::new(shape, stride)
}

fn upcast_leaf(l: &Layout, sh: &Int, d: &Int, n: i64) -> Result<(Int, Int)> {
    if d.is_constant(0) {
        return Ok((sh.clone(), d.clone()));
    }
    let Some(dv) = d.as_static() else {
        return Ok((sh.clone(), d.div(&s(n))?));
    };
    if dv % n != 0 && n % dv != 0 {
        return Err(algebra(
            "upcast",
            format!("stride {d} of {l} and {n} do not divide one another (divisibility condition)"),
        ));
    }
    let abs = d.abs()?;
    let shape = sh.ceil_div(&s(n).ceil_div(&abs)?)?;
    let stride = d.signum()?.mul(&abs.ceil_div(&s(n))?)?;
    Ok((shape, stride))
}

/// `downcast<N>(L)`: the stride-1 mode grows by N, every other stride is multiplied by N.
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(tup![s(4), s(2)], tup![s(1), s(8)])?; // (_4,_2):(_1,_8)
/// assert_eq!(downcast(&l, 4)?.to_string(), "(_16,_2):(_1,_32)"); // downcast<4>(l)
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn downcast(l: &Layout, n: i64) -> Result<Layout> {
    check_factor("downcast", n)?;
    if !l.stride().leaves().iter().any(|d| d.is_constant(1)) {
        return Err(algebra(
            "downcast",
            format!("{l} has no static stride-1 mode (downcast requires adjacent elements)"),
        ));
    }
    let (shape, stride) = leafwise(l, &mut |sh, d| {
        if d.is_constant(1) || d.is_constant(-1) {
            Ok((sh.mul(&s(n))?, d.clone()))
        } else {
            Ok((sh.clone(), d.mul(&s(n))?))
        }
    })?;
    Layout::new(shape, stride)
}

fn check_factor(op: &'static str, n: i64) -> Result<()> {
    if n <= 0 {
        return Err(algebra(op, format!("factor {n} must be positive")));
    }
    Ok(())
}

/// Applies `f` to each (shape, stride) leaf pair.
fn leafwise(
    l: &Layout,
    f: &mut impl FnMut(&Int, &Int) -> Result<(Int, Int)>,
) -> Result<(IntTuple, IntTuple)> {
    fn go(
        sh: &IntTuple,
        d: &IntTuple,
        f: &mut impl FnMut(&Int, &Int) -> Result<(Int, Int)>,
    ) -> Result<(IntTuple, IntTuple)> {
        match (sh, d) {
            (IntTuple::Int(a), IntTuple::Int(b)) => {
                let (x, y) = f(a, b)?;
                Ok((IntTuple::Int(x), IntTuple::Int(y)))
            }
            (IntTuple::Tuple(av), IntTuple::Tuple(bv)) => {
                let (xs, ys) = av
                    .iter()
                    .zip(bv)
                    .map(|(a, b)| go(a, b, f))
                    .collect::<Result<Vec<_>>>()?
                    .into_iter()
                    .unzip();
                Ok((IntTuple::Tuple(xs), IntTuple::Tuple(ys)))
            }
            _ => Err(algebra("cast", format!("{sh}:{d} is not congruent"))),
        }
    }
    go(l.shape(), l.stride(), f)
}
