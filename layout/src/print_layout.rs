//! `print_layout`: the ASCII table of a rank-2 layout, exactly as C++ CuTe prints it.

use std::fmt::Write;

use crate::composed::AnyLayout;
use crate::error::{algebra, Result};
use crate::int::d;
use crate::int_tuple::IntTuple;

/// The most cells a table may have (a larger one is a mistake, not a picture).
pub const MAX_CELLS: i64 = 1 << 16;

/// `print_layout(L)`: L printed, then the table of `L(m,n)` for a rank-2 layout, plain or composed.
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(tup![s(2), tup![s(2), s(2)]], tup![s(4), tup![s(2), s(1)]])?;
/// let table = print_layout(&l.into())?;
/// let lines: Vec<&str> = table.lines().collect();
/// assert_eq!(lines[0], "(_2,(_2,_2)):(_4,(_2,_1))");
/// assert_eq!(lines[1], "      0   1   2   3 "); // CuTe keeps the trailing space
/// assert_eq!(lines[2], "    +---+---+---+---+");
/// assert_eq!(lines[3], " 0  | 0 | 2 | 1 | 3 |");
/// assert_eq!(lines[5], " 1  | 4 | 6 | 5 | 7 |");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn print_layout(l: &AnyLayout) -> Result<String> {
    let (rows, cols) = grid_size("print_layout", l)?;
    let cosize = known("print_layout", l, l.shape_layout().cosize()?.value())?;
    let w = num_digits(cosize) + 2;
    let mut out = format!("{l}\n    ");
    for n in 0..cols {
        let _ = write!(out, "  {:>1$} ", n, w - 2);
    }
    out.push('\n');
    let border = format!(
        "    {}+\n",
        format!("+{}", "-".repeat(w)).repeat(cols as usize)
    );
    for m in 0..rows {
        out.push_str(&border);
        let _ = write!(out, "{m:>2}  ");
        for n in 0..cols {
            let _ = write!(out, "| {:>1$} ", cell(l, m, n)?, w - 2);
        }
        out.push_str("|\n");
    }
    out.push_str(&border);
    Ok(out)
}

/// `L(m,n)` with integer (dynamic) coordinates, as a number.
pub fn cell(l: &AnyLayout, m: i64, n: i64) -> Result<i64> {
    let c = IntTuple::Tuple(vec![IntTuple::Int(d(m)), IntTuple::Int(d(n))]);
    let v = l.crd2idx(&c)?;
    known("print_layout", l, v.value())
}

/// (size<0>, size<1>) of a rank-2 layout with known sizes and at most [`MAX_CELLS`] cells.
pub fn grid_size(op: &'static str, l: &AnyLayout) -> Result<(i64, i64)> {
    let b = l.shape_layout();
    if b.rank() != 2 {
        return Err(algebra(
            op,
            format!("{l} has rank {}, a table needs rank 2", b.rank()),
        ));
    }
    let rows = known(op, l, b.mode(0)?.size()?.value())?;
    let cols = known(op, l, b.mode(1)?.size()?.value())?;
    if rows <= 0 || cols <= 0 {
        return Err(algebra(
            op,
            format!("{l} is {rows}x{cols}: a table needs positive extents"),
        ));
    }
    if rows.saturating_mul(cols) > MAX_CELLS {
        return Err(algebra(
            op,
            format!("{l} has {rows}x{cols} cells, more than {MAX_CELLS}"),
        ));
    }
    Ok((rows, cols))
}

fn known(op: &'static str, l: &AnyLayout, v: Option<i64>) -> Result<i64> {
    v.ok_or_else(|| {
        crate::error::Error::Symbolic(format!("{op}: {l} has symbolic sizes or offsets"))
    })
}

/// CuTe's `num_digits`: decimal digits of x (1 for x < 10, at most 10).
fn num_digits(x: i64) -> usize {
    let mut n = 1;
    let mut t = 10i64;
    while x >= t && n < 10 {
        n += 1;
        t = t.saturating_mul(10);
    }
    n
}
