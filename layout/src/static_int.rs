//! Typed static integers (`C<128>`, aliased `_128`) and the conversion of Rust values into CuTe
//! integers, as the macros use it.
//!
//! A static integer as a type lets generic Rust code carry CuTe's `Int<N>`: `_128::INT` is the
//! static `_128`, and `C<N>` converts into [`Int::Static`]. (Const generics give this on stable Rust
//! with readable errors; arithmetic on such types is done on the values.)

use crate::int::{d, s, Int};

/// CuTe's `Int<N>` as a type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct C<const N: i64>;

impl<const N: i64> C<N> {
    /// The value.
    pub const VALUE: i64 = N;
    /// The static CuTe integer `_N`.
    pub const INT: Int = s(N);
}

impl<const N: i64> From<C<N>> for Int {
    fn from(_: C<N>) -> Int {
        s(N)
    }
}

macro_rules! aliases {
    ($($name:ident = $n:expr),*) => {$(
        #[doc = concat!("`Int<", stringify!($n), ">`")]
        pub type $name = C<$n>;
    )*};
}
aliases!(
    _0 = 0,
    _1 = 1,
    _2 = 2,
    _3 = 3,
    _4 = 4,
    _8 = 8,
    _16 = 16,
    _32 = 32,
    _64 = 64,
    _128 = 128,
    _256 = 256,
    _512 = 512,
    _1024 = 1024
);

/// A Rust value usable where CuTe takes an integer: a Rust integer is a dynamic value, a `C<N>` is
/// static, and an [`Int`] (for instance a kernel-parameter symbol, `Int::symbol("M")`) is itself.
/// The macros convert each Rust variable and each expression in braces with it, borrowed.
#[diagnostic::on_unimplemented(
    message = "a CuTe operand must be a Rust integer or a `cute::layout::Int`, not `{Self}`",
    label = "not an integer operand",
    note = "the CuTe macros borrow each Rust variable and each expression in braces, hence the `&`"
)]
pub trait IntoInt {
    /// The CuTe integer.
    fn into_int(self) -> Int;
}

impl IntoInt for Int {
    fn into_int(self) -> Int {
        self
    }
}

impl IntoInt for &Int {
    fn into_int(self) -> Int {
        self.clone()
    }
}

impl<const N: i64> IntoInt for C<N> {
    fn into_int(self) -> Int {
        s(N)
    }
}

impl<const N: i64> IntoInt for &C<N> {
    fn into_int(self) -> Int {
        s(N)
    }
}

macro_rules! rust_ints {
    ($($t:ty),*) => {$(
        impl IntoInt for $t {
            fn into_int(self) -> Int {
                d(self as i64)
            }
        }
        impl IntoInt for &$t {
            fn into_int(self) -> Int {
                d(*self as i64)
            }
        }
    )*};
}
rust_ints!(i64, i32, i16, i8, u32, u16, u8);

macro_rules! wide_ints {
    ($($t:ty),*) => {$(
        impl IntoInt for $t {
            fn into_int(self) -> Int {
                d(i64::try_from(self).unwrap_or(i64::MAX))
            }
        }
        impl IntoInt for &$t {
            fn into_int(self) -> Int {
                d(i64::try_from(*self).unwrap_or(i64::MAX))
            }
        }
    )*};
}
wide_ints!(usize, u64);
