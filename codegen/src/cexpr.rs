//! CuTe integers as C++ expressions: static values fold to literals, dynamic ones print as the
//! expressions of kernel parameters the algebra built (`(M+127)/128`, `ldA*8`).

use cute_layout::{ComposedLayout, Int, IntTuple};

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

/// The device function that applies `Swizzle<B,M,S>` at run time, as C++ CuTe's functor does:
/// `o ^ ((o & YYY) >> S)` (a left shift for a negative S). [`swizzled_index`] calls it.
pub const SWIZZLE_FN: &str = "\
template <int B, int M, int S>
__device__ __forceinline__ int cute_swizzle(int o) {
  constexpr int yyy = ((1 << B) - 1) << (M + (S > 0 ? S : 0));
  return S >= 0 ? (o ^ ((o & yyy) >> S)) : (o ^ ((o & yyy) << -S));
}";

/// The C++ of `(Sw o O o B)(c)`: `cute_swizzle<B,M,S>(O + B(c))` (see [`SWIZZLE_FN`]). The offset
/// may be symbolic, as it is for a swizzled shared tile partitioned at the thread index `tid`.
///
/// ```
/// # use cute_codegen::cexpr::swizzled_index;
/// # use cute_layout::expr::{eval, Value};
/// # use cute_layout::{tup, s, AnyLayout};
/// let v = eval("(composition(Swizzle<3,2,3>, (_32,_32):(_32,_1)))(tid%32,_)").unwrap();
/// let Value::Layout(AnyLayout::Composed(row)) = v else { unreachable!() };
/// assert_eq!(row.to_string(), "Sw<3,2,3> o tid%32*32 o (_32):(_1)");
/// assert_eq!(swizzled_index(&row, &tup![s(5)]).unwrap(), "cute_swizzle<3,2,3>(tid%32*32 + 5)");
/// ```
pub fn swizzled_index(l: &ComposedLayout, coord: &IntTuple) -> Result<String, cute_layout::Error> {
    let (b, m, sh) = l.layout_a().params();
    let inner = l.layout_b().crd2idx(coord)?;
    Ok(format!(
        "cute_swizzle<{b},{m},{sh}>({})",
        add(&c(l.offset()), &c(&inner))
    ))
}
