//! `Swizzle<B,M,S>`: the XOR functor shared-memory layouts use to spread rows over banks.
//!
//! `Swizzle<B,M,S>(o) = o ^ ((o & YYY) >> S)` with `YYY = ((1<<B)-1) << (M + max(0,S))`: the B bits
//! starting at bit `M + max(0,S)` are XORed onto the B bits starting at bit `M - min(0,S)`.

use std::fmt;

use crate::error::{algebra, Error, Result};
use crate::int::Int;

/// A swizzle functor as a runtime value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Swizzle {
    b: u32,
    m: u32,
    s: i32,
}

/// `Swizzle<B,M,S>` as a type, for code that knows its swizzle statically:
/// `Sw::<3, 4, 3>::VALUE` is the runtime value, and an invalid combination fails to compile.
///
/// ```
/// use cute_layout::{Sw, Swizzle};
/// const SW: Swizzle = Sw::<3, 4, 3>::VALUE;
/// assert_eq!(SW.to_string(), "Sw<3,4,3>");
/// ```
///
/// ```compile_fail
/// // |S| must be at least B
/// let _ = cute_layout::Sw::<3, 4, 2>::VALUE;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Sw<const B: u32, const M: u32, const S: i32>;

impl<const B: u32, const M: u32, const S: i32> Sw<B, M, S> {
    /// The runtime value (checked when the program compiles).
    pub const VALUE: Swizzle = {
        assert!(
            S.unsigned_abs() >= B,
            "Swizzle<B,M,S>: abs(S) must be at least B"
        );
        assert!(
            B + M + S.unsigned_abs() <= 62,
            "Swizzle<B,M,S>: bits beyond 64-bit offsets"
        );
        Swizzle { b: B, m: M, s: S }
    };
}

impl<const B: u32, const M: u32, const S: i32> From<Sw<B, M, S>> for Swizzle {
    fn from(_: Sw<B, M, S>) -> Swizzle {
        Sw::<B, M, S>::VALUE
    }
}

impl Swizzle {
    /// `Swizzle<B,M,S>{}`: fails unless `B >= 0`, `M >= 0`, `|S| >= B` (CuTe's static_asserts) and
    /// the masks fit in 64-bit offsets.
    ///
    /// ```
    /// # use cute_layout::Swizzle;
    /// let sw = Swizzle::new(3, 4, 3).unwrap();
    /// assert_eq!(sw.apply(144).unwrap(), 128);
    /// assert!(Swizzle::new(3, 4, 2).is_err());
    /// ```
    pub fn new(b: i64, m: i64, s: i64) -> Result<Swizzle> {
        let bad = |why: &str| algebra("Swizzle", format!("Swizzle<{b},{m},{s}>: {why}"));
        if b < 0 {
            return Err(bad("BBits must be non-negative"));
        }
        if m < 0 {
            return Err(bad("MBase must be non-negative"));
        }
        if s.unsigned_abs() < b.unsigned_abs() {
            return Err(bad("abs(SShift) must be at least BBits"));
        }
        if b.saturating_add(m).saturating_add(s.saturating_abs()) > 62 {
            return Err(bad("the swizzled bits do not fit in 64-bit offsets"));
        }
        Ok(Swizzle {
            b: b as u32,
            m: m as u32,
            s: s as i32,
        })
    }

    /// B, M, S.
    pub fn params(&self) -> (u32, u32, i32) {
        (self.b, self.m, self.s)
    }

    /// `Swizzle<0,...>` is the identity.
    pub fn is_identity(&self) -> bool {
        self.b == 0
    }

    /// The YYY mask (the bits that are read).
    pub fn yyy_mask(&self) -> i64 {
        ((1i64 << self.b) - 1) << (self.m as i64 + i64::from(self.s.max(0)))
    }

    /// The ZZZ mask (the bits that are flipped).
    pub fn zzz_mask(&self) -> i64 {
        ((1i64 << self.b) - 1) << (self.m as i64 - i64::from(self.s.min(0)))
    }

    /// Applies the swizzle to an offset known now.
    pub fn apply(&self, o: i64) -> Result<i64> {
        let y = o & self.yyy_mask();
        let moved = if self.s >= 0 {
            y >> self.s
        } else {
            y << -self.s
        };
        Ok(o ^ moved)
    }

    /// Applies the swizzle to a CuTe integer (static stays static).
    pub fn apply_int(&self, o: &Int) -> Result<Int> {
        match o {
            Int::Static(v) => Ok(Int::Static(self.apply(*v)?)),
            Int::Basis(..) => Err(Error::Eval(format!(
                "{self}: cannot swizzle the basis stride {o}"
            ))),
            Int::Dynamic(_) => match o.value() {
                Some(v) => Ok(crate::int::d(self.apply(v)?)),
                None => Err(Error::Symbolic(format!(
                    "{self}: cannot swizzle the symbolic offset {o} (swizzles need known offsets)"
                ))),
            },
        }
    }

    /// `upcast<N>(Swizzle)`: for elements N times wider, M shrinks by log2(N).
    pub fn upcast(&self, n: i64) -> Result<Swizzle> {
        let log2 = log2_exact("upcast", n)?;
        let new_m = self.m as i64 - log2;
        if new_m >= 0 {
            Swizzle::new(self.b.into(), new_m, self.s.into())
        } else {
            Swizzle::new((self.b as i64 + new_m).max(0), 0, self.s.into())
        }
    }

    /// `downcast<N>(Swizzle)`: for elements N times narrower, M grows by log2(N).
    pub fn downcast(&self, n: i64) -> Result<Swizzle> {
        let log2 = log2_exact("downcast", n)?;
        Swizzle::new(self.b.into(), self.m as i64 + log2, self.s.into())
    }
}

fn log2_exact(op: &'static str, n: i64) -> Result<i64> {
    if n <= 0 || n & (n - 1) != 0 {
        return Err(algebra(
            op,
            format!("{n} must be a power of two for a swizzle"),
        ));
    }
    Ok(i64::from(n.trailing_zeros()))
}

impl fmt::Display for Swizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{},{},{}>", self.b, self.m, self.s)
    }
}
