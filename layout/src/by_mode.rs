//! The one place where an operation is applied mode by mode (C++ `transform_layout`).

use crate::error::{algebra, Result};
use crate::layout::Layout;

/// What happens to the modes of the layout beyond the tiler's rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rest {
    /// Kept as they are (divides, products, coalesce by profile).
    Keep,
    /// Dropped (composition with a by-mode tiler).
    Drop,
}

/// `make_layout(f(layout<0>(L), t0), f(layout<1>(L), t1), ..., [rest of L])`.
///
/// @pre `items.len() <= rank(L)`, else an error naming `op`.
pub(crate) fn transform_layout<T>(
    op: &'static str,
    l: &Layout,
    items: &[T],
    rest: Rest,
    mut f: impl FnMut(&Layout, &T) -> Result<Layout>,
) -> Result<Layout> {
    if items.len() > l.rank() {
        return Err(algebra(
            op,
            format!(
                "too many modes in tiler: {} modes for rank-{} layout {l}",
                items.len(),
                l.rank()
            ),
        ));
    }
    let modes = l.modes();
    let mut out = Vec::with_capacity(modes.len());
    for (m, t) in modes.iter().zip(items) {
        out.push(f(m, t)?);
    }
    if rest == Rest::Keep {
        out.extend(modes.into_iter().skip(items.len()));
    }
    Ok(Layout::from_modes(out))
}
