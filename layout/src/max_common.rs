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
/// let col = Layout::new(tup![s(4), s(8)], tup![s(1), s(4)])?; // (_4,_8):(_1,_4)
/// let row = Layout::new(tup![s(4), s(8)], tup![s(8), s(1)])?; // (_4,_8):(_8,_1)
/// assert_eq!(max_common_vector(&col, &col)?.to_string(), "_32");
/// assert_eq!(max_common_vector(&col, &row)?.to_string(), "_1");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn max_common_vector(a: &Layout, b: &Layout) -> Result<Int> {
    Ok(match common_prefix(a, b)? {
        Some((_, m0)) => m0.size()?,
        None => s(1),
    })
}

/// `max_common_layout(a, b)`: the layout of those common contiguous elements in b's domain.
///
/// ```
/// # use cute_layout::*;
/// let a = Layout::new(tup![s(8), s(4)], tup![s(1), s(8)])?; // (_8,_4):(_1,_8)
/// let b = Layout::new(tup![s(8), s(4)], tup![s(1), s(16)])?; // (_8,_4):(_1,_16)
/// assert_eq!(max_common_layout(&a, &b)?.to_string(), "_8:_1");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn max_common_layout(a: &Layout, b: &Layout) -> Result<Layout> {
    match common_prefix(a, b)? {
        Some((inv_b, m0)) => composition(&inv_b, &m0),
        None => Ok(Layout::trivial()),
    }
}
