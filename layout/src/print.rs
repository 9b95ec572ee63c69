//! CuTe's print format for tuples: `(a,b,...)`, no spaces; a rank-1 tuple prints `(a)`.

use std::fmt;

/// Writes `(a,b,...)`.
pub(crate) fn write_tuple<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    f.write_str("(")?;
    for (k, x) in items.iter().enumerate() {
        if k > 0 {
            f.write_str(",")?;
        }
        write!(f, "{x}")?;
    }
    f.write_str(")")
}

/// `(a,b,...)` into a String.
pub(crate) fn write_tuple_into<T: fmt::Display>(out: &mut String, items: &[T]) -> fmt::Result {
    use std::fmt::Write;
    out.push('(');
    for (k, x) in items.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        write!(out, "{x}")?;
    }
    out.push(')');
    Ok(())
}
