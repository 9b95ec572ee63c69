//! `max_common_vector` and `max_common_layout`: how many elements two layouts keep contiguous
//! together (the vector width a copy between them can use).

use crate::coalesce::coalesce;
use crate::composition::composition;
use crate::error::Result;
use crate::int::{s, Int};
use crate::inverse::right_inverse;
use crate::layout::Layout;

/// The static stride-1 leading mode of `coalesce(a o right_inverse(b))`, if any.
fn common_prefix(a: &Layout, b: &Layout) -> Result<Option<(Layout, Layout)>> {
    let inv_b = right_inverse(b)?;
    let common = coalesce(&composition(a, &inv_b)?)?;
    let m0 = common.mode(0)?;
    let contiguous = m0.shape().as_int().is_some_and(Int::is_static)
        && m0.stride().as_int().is_some_and(|d| d.is_constant(1));
    Ok(contiguous.then_some((inv_b, m0)))
}

/// `max_common_vector(a, b)`: the number N of contiguous elements such that `a(b⁻¹(n)) == n`
/// for `n < N` (static; `_1` when nothing is provably shared).
///
/// ```
/// # use cute_layout::*;
/// assert_eq!(expr::eval_str("max_common_vector((_4,_8):(_1,_4), (_4,_8):(_1,_4))").unwrap(), "_32");
/// assert_eq!(expr::eval_str("max_common_vector((_4,_8):(_1,_4), (_4,_8):(_8,_1))").unwrap(), "_1");
/// ```
pub fn max_common_vector(a: &Layout, b: &Layout) -> Result<Int> {
    Ok(match common_prefix(a, b)? {
        Some((_, m0)) => m0.size()?,
        None => s(1),
    })
}

/// `max_common_layout(a, b)`: the layout of those common contiguous elements in b's domain.
pub fn max_common_layout(a: &Layout, b: &Layout) -> Result<Layout> {
    match common_prefix(a, b)? {
        Some((inv_b, m0)) => composition(&inv_b, &m0),
        None => Ok(Layout::trivial()),
    }
}
