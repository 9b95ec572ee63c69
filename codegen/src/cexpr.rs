//! CuTe integers as C++ expressions: static values fold to literals, dynamic ones print as the
//! expressions of kernel parameters the algebra built (`(M+127)/128`, `ldA*8`).

use cute_layout::{Int, IntTuple};

/// The C++ text of an integer (`_8` -> `8`, `M*8` stays, a basis stride has no C++ form).
pub fn c(i: &Int) -> String {
    match i.as_static() {
        Some(v) => v.to_string(),
        None => match i.as_basis() {
            Some(_) => format!("/* basis {i} */0"),
            None => i.to_string(),
        },
    }
}

/// `(a) + (b)` simplified: zeros dropped.
pub fn add(a: &str, b: &str) -> String {
    match (a, b) {
        ("0", x) | (x, "0") => x.to_string(),
        _ => format!("{a} + {b}"),
    }
}

/// The flat leaves of a shape or stride as C++ expressions.
pub fn leaves(t: &IntTuple) -> Vec<String> {
    t.leaves().iter().map(c).collect()
}
