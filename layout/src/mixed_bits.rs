//! CuTe's `MixedBits`: an integer whose bits are each static or dynamic, so that slicing a
//! swizzled layout can tell statically which swizzle bits a coordinate sets.
//!
//! The value is `S | (d & F)`: the bits in the mask F are dynamic, the others static. Bitwise
//! operations follow CuTe's truth tables: a static 0 wins an AND, a static 1 wins an OR, XOR is
//! dynamic wherever either side is.

use crate::error::{Error, Result};
use crate::int::{d, s, Int};

/// A partially static integer. `value` is `None` when the dynamic bits are symbolic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bits {
    value: Option<i64>,
    dynamic: i64,
}

impl Bits {
    /// All bits static.
    pub fn fixed(v: i64) -> Bits {
        Bits {
            value: Some(v),
            dynamic: 0,
        }
    }

    /// A CuTe integer: static bits for a static value, all bits dynamic for a dynamic one.
    pub fn of(i: &Int) -> Bits {
        match i.as_static() {
            Some(v) => Bits::fixed(v),
            None => Bits {
                value: i.value(),
                dynamic: -1,
            },
        }
    }

    /// `make_mixed_bits(_0, v, F)`: the bits of `v` under the static mask `mask` are dynamic
    /// unless `v` itself is static.
    pub fn mixed(v: &Int, mask: i64) -> Bits {
        match v.as_static() {
            Some(x) => Bits::fixed(x & mask),
            None => Bits {
                value: v.value().map(|x| x & mask),
                dynamic: mask,
            },
        }
    }

    /// The known value and the dynamic mask.
    pub fn parts(&self) -> (Option<i64>, i64) {
        (self.value, self.dynamic)
    }

    /// Whether every bit is static.
    pub fn is_static(&self) -> bool {
        self.dynamic == 0
    }

    /// `self & c` for a static c.
    pub fn and_static(&self, c: i64) -> Bits {
        Bits {
            value: self.value.map(|v| v & c),
            dynamic: self.dynamic & c,
        }
    }

    /// `self ^ other`.
    pub fn xor(&self, other: &Bits) -> Bits {
        let value = self.value.zip(other.value).map(|(a, b)| a ^ b);
        Bits {
            value,
            dynamic: self.dynamic | other.dynamic,
        }
    }

    /// `self >> k` (or `<<` for negative k), the dynamic mask shifted alike.
    pub fn shiftr(&self, k: i32) -> Bits {
        let sh = |x: i64| if k >= 0 { x >> k } else { x << -k };
        Bits {
            value: self.value.map(sh),
            dynamic: sh(self.dynamic),
        }
    }

    /// Back to a CuTe integer: static when every bit is.
    pub fn to_int(self) -> Result<Int> {
        match (self.value, self.is_static()) {
            (Some(v), true) => Ok(s(v)),
            (Some(v), false) => Ok(d(v)),
            (None, _) => Err(symbolic()),
        }
    }

    /// `conditional_return(self == _0, a, b)`: static choice when the test is static, otherwise
    /// a dynamic value chosen by the known value.
    pub fn choose_if_zero(&self, a: &Int, b: &Int) -> Result<Int> {
        let pick = |zero: bool| if zero { a.clone() } else { b.clone() };
        if self.is_static() {
            return Ok(pick(self.value == Some(0)));
        }
        let v = self.value.ok_or_else(symbolic)?;
        let chosen = pick(v == 0);
        Ok(d(chosen.value().ok_or_else(symbolic)?))
    }
}

fn symbolic() -> Error {
    Error::Symbolic("slicing a swizzled layout at a symbolic coordinate is not supported".into())
}
