//! Copy operations: `Copy_Traits` (thread ID and source / destination / reference layouts, in
//! bits) and the instruction each one is.

use std::fmt;
use std::marker::PhantomData;

use super::lit;
use super::tma_copy::TmaOp;
use crate::layout::Layout;

/// A copy operation of the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CopyOp {
    /// `UniversalCopy<uintN_t>`: a plain (vector) load/store of `bits` bits.
    UniversalCopy { bits: u32 },
    /// `AutoVectorizingCopyWithAssumedAlignment<max_vec_bits>`: element-wise, vectorized as the
    /// layouts allow up to `max_vec_bits` (8, 16, 32, 64 or 128). CuTe's aliases:
    /// `AutoVectorizingCopy` assumes 128-bit alignment, `DefaultCopy` assumes none (8 bits).
    AutoVectorizingCopy { max_vec_bits: u32 },
    /// `SM80_CP_ASYNC_CACHEALWAYS<uintN_t>`: `cp.async.ca` of 4, 8 or 16 bytes.
    CpAsyncCacheAlways { bits: u32 },
    /// `SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>`: `cp.async.cg` of 16 bytes.
    CpAsyncCacheGlobal { bits: u32 },
    /// `SM75_U32x{1,2,4}_LDSM_N`: `ldmatrix` of 1, 2 or 4 8x8 b16 matrices.
    LdsmN { matrices: u32 },
    /// `SM75_U16x{2,4,8}_LDSM_T`: `ldmatrix.trans` of 1, 2 or 4 matrices.
    LdsmT { matrices: u32 },
    /// `SM90_U32x{1,2,4}_STSM_N`: `stmatrix` of 1, 2 or 4 8x8 b16 matrices (registers to
    /// shared memory: `ldmatrix`'s layouts, source and destination exchanged).
    StsmN { matrices: u32 },
    /// `SM90_U16x{2,4,8}_STSM_T`: `stmatrix.trans` of 1, 2 or 4 matrices.
    StsmT { matrices: u32 },
    /// An SM90 TMA operation moving one box of `bits` bits (`Copy_Traits<SM90_TMA_LOAD,
    /// C<bits>>`): what [`make_tma_copy`](super::make_tma_copy) builds an atom of.
    Tma { op: TmaOp, bits: u32 },
}

impl CopyOp {
    /// The operation CuTe spells `name`, with its template argument (`uint128_t`), if any.
    ///
    /// ```
    /// # use cute_layout::atom::CopyOp;
    /// let cg = CopyOp::from_name("SM80_CP_ASYNC_CACHEGLOBAL", Some("uint128_t")).unwrap();
    /// assert_eq!(cg.to_string(), "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>");
    /// // print(Copy_Traits<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>>::SrcLayout{})
    /// assert_eq!(cg.src_layout().to_string(), "(_1,_128):(_0,_1)");
    /// // cp.async.cg moves 16 bytes only
    /// assert!(CopyOp::from_name("SM80_CP_ASYNC_CACHEGLOBAL", Some("uint32_t")).is_none());
    /// // DefaultCopy = AutoVectorizingCopyWithAssumedAlignment<8> (include/cute/arch/copy.hpp)
    /// assert_eq!(
    ///     CopyOp::from_name("DefaultCopy", None),
    ///     CopyOp::from_name("AutoVectorizingCopyWithAssumedAlignment", Some("8"))
    /// );
    /// ```
    pub fn from_name(name: &str, arg: Option<&str>) -> Option<CopyOp> {
        let bits = || arg.and_then(uint_bits);
        Some(match (name, arg) {
            ("UniversalCopy", Some(_)) => CopyOp::UniversalCopy { bits: bits()? },
            ("AutoVectorizingCopy", None) => CopyOp::AutoVectorizingCopy { max_vec_bits: 128 },
            ("DefaultCopy", None) => CopyOp::AutoVectorizingCopy { max_vec_bits: 8 },
            ("AutoVectorizingCopyWithAssumedAlignment", arg) => {
                match arg.map_or(Some(128), |a| a.parse::<u32>().ok())? {
                    b @ (8 | 16 | 32 | 64 | 128) => CopyOp::AutoVectorizingCopy { max_vec_bits: b },
                    _ => return None,
                }
            }
            ("SM80_CP_ASYNC_CACHEALWAYS", Some(_)) => match bits()? {
                b @ (32 | 64 | 128) => CopyOp::CpAsyncCacheAlways { bits: b },
                _ => return None,
            },
            ("SM80_CP_ASYNC_CACHEGLOBAL", Some(_)) => match bits()? {
                128 => CopyOp::CpAsyncCacheGlobal { bits: 128 },
                _ => return None,
            },
            ("SM75_U32x1_LDSM_N", None) => CopyOp::LdsmN { matrices: 1 },
            ("SM75_U32x2_LDSM_N", None) => CopyOp::LdsmN { matrices: 2 },
            ("SM75_U32x4_LDSM_N", None) => CopyOp::LdsmN { matrices: 4 },
            ("SM75_U16x2_LDSM_T", None) => CopyOp::LdsmT { matrices: 1 },
            ("SM75_U16x4_LDSM_T", None) => CopyOp::LdsmT { matrices: 2 },
            ("SM75_U16x8_LDSM_T", None) => CopyOp::LdsmT { matrices: 4 },
            ("SM90_U32x1_STSM_N", None) => CopyOp::StsmN { matrices: 1 },
            ("SM90_U32x2_STSM_N", None) => CopyOp::StsmN { matrices: 2 },
            ("SM90_U32x4_STSM_N", None) => CopyOp::StsmN { matrices: 4 },
            ("SM90_U16x2_STSM_T", None) => CopyOp::StsmT { matrices: 1 },
            ("SM90_U16x4_STSM_T", None) => CopyOp::StsmT { matrices: 2 },
            ("SM90_U16x8_STSM_T", None) => CopyOp::StsmT { matrices: 4 },
            _ => return None,
        })
    }

    /// `Copy_Traits::ThrID`: logical thread id -> thread index.
    ///
    /// ```
    /// # use cute_layout::atom::CopyOp;
    /// // print(Copy_Traits<SM75_U32x4_LDSM_N>::ThrID{})
    /// assert_eq!(CopyOp::LdsmN { matrices: 4 }.thr_id().to_string(), "_32:_1");
    /// ```
    pub fn thr_id(&self) -> Layout {
        match self {
            CopyOp::LdsmN { .. }
            | CopyOp::LdsmT { .. }
            | CopyOp::StsmN { .. }
            | CopyOp::StsmT { .. } => lit("_32:_1"),
            _ => lit("_1:_0"),
        }
    }

    /// `Copy_Traits::SrcLayout`: (thread, value) -> bit.
    ///
    /// ```
    /// # use cute_layout::atom::CopyOp;
    /// // print(Copy_Traits<SM75_U32x4_LDSM_N>::SrcLayout{}): each thread's 128-bit row address
    /// assert_eq!(CopyOp::LdsmN { matrices: 4 }.src_layout().to_string(), "(_32,_128):(_128,_1)");
    /// ```
    pub fn src_layout(&self) -> Layout {
        match *self {
            CopyOp::UniversalCopy { bits }
            | CopyOp::CpAsyncCacheAlways { bits }
            | CopyOp::CpAsyncCacheGlobal { bits }
            | CopyOp::Tma { bits, .. } => lit(&format!("(_1,_{bits}):(_0,_1)")),
            CopyOp::AutoVectorizingCopy { .. } => lit("(_1,_1):(_0,_0)"),
            CopyOp::LdsmN { matrices } | CopyOp::LdsmT { matrices } => match matrices {
                1 => lit("((_8,_4),_128):((_128,_0),_1)"),
                2 => lit("((_16,_2),_128):((_128,_0),_1)"),
                _ => lit("(_32,_128):(_128,_1)"),
            },
            // copy_traits_sm90.hpp: an stmatrix's source is its ldmatrix's destination
            CopyOp::StsmN { matrices } => CopyOp::LdsmN { matrices }.dst_layout(),
            CopyOp::StsmT { matrices } => CopyOp::LdsmT { matrices }.dst_layout(),
        }
    }

    /// `Copy_Traits::DstLayout`: (thread, value) -> bit.
    ///
    /// ```
    /// # use cute_layout::atom::CopyOp;
    /// // print(Copy_Traits<SM75_U32x4_LDSM_N>::DstLayout{})
    /// assert_eq!(CopyOp::LdsmN { matrices: 4 }.dst_layout().to_string(), "(_32,(_32,_4)):(_32,(_1,_1024))");
    /// ```
    pub fn dst_layout(&self) -> Layout {
        match *self {
            CopyOp::LdsmN { matrices: 1 } => lit("(_32,_32):(_32,_1)"),
            CopyOp::LdsmN { matrices: 2 } => lit("(_32,(_32,_2)):(_32,(_1,_1024))"),
            CopyOp::LdsmN { .. } => lit("(_32,(_32,_4)):(_32,(_1,_1024))"),
            CopyOp::LdsmT { matrices: 1 } => lit("((_4,_8),(_16,_2)):((_256,_16),(_1,_128))"),
            CopyOp::LdsmT { matrices: 2 } => {
                lit("((_4,_8),(_16,_2,_2)):((_256,_16),(_1,_128,_1024))")
            }
            CopyOp::LdsmT { .. } => lit("((_4,_8),(_16,_2,_4)):((_256,_16),(_1,_128,_1024))"),
            CopyOp::StsmN { matrices } => CopyOp::LdsmN { matrices }.src_layout(),
            CopyOp::StsmT { matrices } => CopyOp::LdsmT { matrices }.src_layout(),
            _ => self.src_layout(),
        }
    }

    /// `Copy_Traits::RefLayout`: the layout a TiledCopy is written in (the destination for
    /// `ldmatrix`, the source otherwise).
    ///
    /// ```
    /// # use cute_layout::atom::CopyOp;
    /// // print(Copy_Traits<SM75_U32x4_LDSM_N>::RefLayout{})
    /// assert_eq!(CopyOp::LdsmN { matrices: 4 }.ref_layout().to_string(), "(_32,(_32,_4)):(_32,(_1,_1024))");
    /// ```
    pub fn ref_layout(&self) -> Layout {
        match self {
            CopyOp::LdsmN { .. } | CopyOp::LdsmT { .. } => self.dst_layout(),
            _ => self.src_layout(),
        }
    }

    /// Whether the copy is asynchronous (`cp.async`: completes at `cp.async.wait_group`).
    ///
    /// ```
    /// # use cute_layout::atom::CopyOp;
    /// assert!(CopyOp::CpAsyncCacheGlobal { bits: 128 }.is_async());
    /// assert!(!CopyOp::AutoVectorizingCopy { max_vec_bits: 8 }.is_async());
    /// ```
    pub fn is_async(&self) -> bool {
        matches!(
            self,
            CopyOp::CpAsyncCacheAlways { .. }
                | CopyOp::CpAsyncCacheGlobal { .. }
                | CopyOp::Tma { .. }
        )
    }

    /// The PTX the copy lowers to (`None` for plain loads and stores, which are C++ assignments of
    /// a `bits`-wide vector type).
    ///
    /// ```
    /// # use cute_layout::atom::CopyOp;
    /// // include/cute/arch/copy_sm80.hpp: "cp.async.cg.shared.global.L2::128B [%0], [%1], %2;" with %2 = 16
    /// assert_eq!(
    ///     CopyOp::CpAsyncCacheGlobal { bits: 128 }.ptx().unwrap(),
    ///     "cp.async.cg.shared.global.L2::128B [%0], [%1], 16;"
    /// );
    /// // copy_sm75.hpp: "ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];"
    /// assert_eq!(
    ///     CopyOp::LdsmN { matrices: 4 }.ptx().unwrap(),
    ///     "ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];"
    /// );
    /// assert_eq!(CopyOp::AutoVectorizingCopy { max_vec_bits: 8 }.ptx(), None);
    /// ```
    pub fn ptx(&self) -> Option<String> {
        match *self {
            CopyOp::CpAsyncCacheAlways { bits } => Some(format!(
                "cp.async.ca.shared.global.L2::128B [%0], [%1], {};",
                bits / 8
            )),
            CopyOp::CpAsyncCacheGlobal { bits } => Some(format!(
                "cp.async.cg.shared.global.L2::128B [%0], [%1], {};",
                bits / 8
            )),
            CopyOp::LdsmN { matrices } => Some(format!(
                "ldmatrix.sync.aligned.x{matrices}.m8n8.shared.b16 {{{}}}, [%{matrices}];",
                regs(matrices)
            )),
            CopyOp::LdsmT { matrices } => Some(format!(
                "ldmatrix.sync.aligned.x{matrices}.trans.m8n8.shared.b16 {{{}}}, [%{matrices}];",
                regs(matrices)
            )),
            // copy_sm90.hpp: "stmatrix.sync.aligned.x4.m8n8.shared.b16 [%0], {%1, %2, %3, %4};"
            CopyOp::StsmN { matrices } => Some(format!(
                "stmatrix.sync.aligned.x{matrices}.m8n8.shared.b16 [%0], {{{}}};",
                regs_from(1, matrices)
            )),
            CopyOp::StsmT { matrices } => Some(format!(
                "stmatrix.sync.aligned.x{matrices}.trans.m8n8.shared.b16 [%0], {{{}}};",
                regs_from(1, matrices)
            )),
            // a TMA is lowered with its tensor map and mbarrier (codegen's TMA module)
            CopyOp::UniversalCopy { .. }
            | CopyOp::AutoVectorizingCopy { .. }
            | CopyOp::Tma { .. } => None,
        }
    }
}

impl CopyOp {
    /// The zero-filling form of a `cp.async` (`None` for other copies): `%2` is how many of the
    /// bytes to read from global memory; the rest of the destination is written with zeros, so
    /// a predicate that fails passes 0 (CuTe's `SM80_CP_ASYNC_CACHE*_ZFILL`).
    ///
    /// ```
    /// # use cute_layout::atom::CopyOp;
    /// // include/cute/arch/copy_sm80.hpp, SM80_CP_ASYNC_CACHEGLOBAL_ZFILL:
    /// // "cp.async.cg.shared.global.L2::128B [%0], [%1], %2, %3;" with %2 = 16, %3 = src_size
    /// assert_eq!(
    ///     CopyOp::CpAsyncCacheGlobal { bits: 128 }.ptx_zfill().unwrap(),
    ///     "cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;"
    /// );
    /// assert_eq!(CopyOp::UniversalCopy { bits: 128 }.ptx_zfill(), None);
    /// ```
    pub fn ptx_zfill(&self) -> Option<String> {
        let (cache, bits) = match *self {
            CopyOp::CpAsyncCacheAlways { bits } => ("ca", bits),
            CopyOp::CpAsyncCacheGlobal { bits } => ("cg", bits),
            _ => return None,
        };
        Some(format!(
            "cp.async.{cache}.shared.global.L2::128B [%0], [%1], {}, %2;",
            bits / 8
        ))
    }
}

fn regs(n: u32) -> String {
    regs_from(0, n)
}

/// `%first, ..., %(first + n - 1)`.
fn regs_from(first: u32, n: u32) -> String {
    (first..first + n)
        .map(|i| format!("%{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The width of `uintN_t` (and `uint128_t`).
fn uint_bits(t: &str) -> Option<u32> {
    match t {
        "uint8_t" => Some(8),
        "uint16_t" => Some(16),
        "uint32_t" => Some(32),
        "uint64_t" => Some(64),
        "uint128_t" => Some(128),
        _ => None,
    }
}

impl fmt::Display for CopyOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let uint = |b: u32| format!("uint{b}_t");
        match *self {
            CopyOp::UniversalCopy { bits } => write!(f, "UniversalCopy<{}>", uint(bits)),
            CopyOp::AutoVectorizingCopy { max_vec_bits: 128 } => f.write_str("AutoVectorizingCopy"),
            CopyOp::AutoVectorizingCopy { max_vec_bits: 8 } => f.write_str("DefaultCopy"),
            CopyOp::AutoVectorizingCopy { max_vec_bits } => {
                write!(f, "AutoVectorizingCopyWithAssumedAlignment<{max_vec_bits}>")
            }
            CopyOp::CpAsyncCacheAlways { bits } => {
                write!(f, "SM80_CP_ASYNC_CACHEALWAYS<{}>", uint(bits))
            }
            CopyOp::CpAsyncCacheGlobal { bits } => {
                write!(f, "SM80_CP_ASYNC_CACHEGLOBAL<{}>", uint(bits))
            }
            CopyOp::LdsmN { matrices } => write!(f, "SM75_U32x{matrices}_LDSM_N"),
            CopyOp::LdsmT { matrices } => {
                write!(f, "SM75_U16x{}_LDSM_T", u64::from(matrices) * 2)
            }
            CopyOp::StsmN { matrices } => write!(f, "SM90_U32x{matrices}_STSM_N"),
            CopyOp::StsmT { matrices } => {
                write!(f, "SM90_U16x{}_STSM_T", u64::from(matrices) * 2)
            }
            CopyOp::Tma { op, bits } => write!(f, "Copy_Traits<{op}, C<{bits}>>"),
        }
    }
}

/// A copy operation as a type: `CopyAtom::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>`.
pub trait CopyOperation {
    /// The runtime description.
    const OP: CopyOp;
}

/// An unsigned integer type of a given width, as copy operations take it.
pub trait UintType {
    /// The width in bits.
    const BITS: u32;
}

macro_rules! uint_types {
    ($($t:ident = $b:expr),*) => {$(
        #[doc = concat!("`", stringify!($t), "`")]
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, Default)]
        pub struct $t;
        impl UintType for $t { const BITS: u32 = $b; }
    )*};
}
uint_types!(
    uint8_t = 8,
    uint16_t = 16,
    uint32_t = 32,
    uint64_t = 64,
    uint128_t = 128
);

macro_rules! sized_copy_ops {
    ($($(#[$m:meta])* $name:ident => $variant:ident;)*) => {$(
        $(#[$m])*
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, Default)]
        pub struct $name<T: UintType>(PhantomData<T>);
        impl<T: UintType> CopyOperation for $name<T> {
            const OP: CopyOp = CopyOp::$variant { bits: T::BITS };
        }
    )*};
}
sized_copy_ops! {
    /// `UniversalCopy<T>`.
    UniversalCopy => UniversalCopy;
    /// `SM80_CP_ASYNC_CACHEALWAYS<T>` (4, 8 or 16 bytes).
    SM80_CP_ASYNC_CACHEALWAYS => CpAsyncCacheAlways;
    /// `SM80_CP_ASYNC_CACHEGLOBAL<T>` (16 bytes).
    SM80_CP_ASYNC_CACHEGLOBAL => CpAsyncCacheGlobal;
}

macro_rules! fixed_copy_ops {
    ($($name:ident => $op:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`")]
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, Default)]
        pub struct $name;
        impl CopyOperation for $name { const OP: CopyOp = $op; }
    )*};
}
fixed_copy_ops! {
    AutoVectorizingCopy => CopyOp::AutoVectorizingCopy { max_vec_bits: 128 };
    DefaultCopy => CopyOp::AutoVectorizingCopy { max_vec_bits: 8 };
    SM75_U32x1_LDSM_N => CopyOp::LdsmN { matrices: 1 };
    SM75_U32x2_LDSM_N => CopyOp::LdsmN { matrices: 2 };
    SM75_U32x4_LDSM_N => CopyOp::LdsmN { matrices: 4 };
    SM75_U16x2_LDSM_T => CopyOp::LdsmT { matrices: 1 };
    SM75_U16x4_LDSM_T => CopyOp::LdsmT { matrices: 2 };
    SM75_U16x8_LDSM_T => CopyOp::LdsmT { matrices: 4 };
    SM90_U32x1_STSM_N => CopyOp::StsmN { matrices: 1 };
    SM90_U32x2_STSM_N => CopyOp::StsmN { matrices: 2 };
    SM90_U32x4_STSM_N => CopyOp::StsmN { matrices: 4 };
    SM90_U16x2_STSM_T => CopyOp::StsmT { matrices: 1 };
    SM90_U16x4_STSM_T => CopyOp::StsmT { matrices: 2 };
    SM90_U16x8_STSM_T => CopyOp::StsmT { matrices: 4 };
}

/// `AutoVectorizingCopyWithAssumedAlignment<MaxVecBits>` (8, 16, 32, 64 or 128; another width
/// is a compile error, as C++'s `static_assert`).
///
/// ```
/// # use cute_layout::atom::copy_op::{AutoVectorizingCopyWithAssumedAlignment, CopyOperation};
/// assert_eq!(
///     AutoVectorizingCopyWithAssumedAlignment::<64>::OP.to_string(),
///     "AutoVectorizingCopyWithAssumedAlignment<64>"
/// );
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct AutoVectorizingCopyWithAssumedAlignment<const MAX_VEC_BITS: u32>;

impl<const MAX_VEC_BITS: u32> CopyOperation
    for AutoVectorizingCopyWithAssumedAlignment<MAX_VEC_BITS>
{
    const OP: CopyOp = {
        assert!(
            matches!(MAX_VEC_BITS, 8 | 16 | 32 | 64 | 128),
            "Expected MaxVecBits to be 8 or 16 or 32 or 64 or 128"
        );
        CopyOp::AutoVectorizingCopy {
            max_vec_bits: MAX_VEC_BITS,
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// copy_sm90.hpp's stmatrix: the shared address first, then the registers; the traits are
    /// ldmatrix's with source and destination exchanged (copy_traits_sm90.hpp).
    #[test]
    fn stmatrix_is_ldmatrix_reversed() {
        let st = CopyOp::from_name("SM90_U32x4_STSM_N", None).unwrap();
        assert_eq!(
            st.ptx().unwrap(),
            "stmatrix.sync.aligned.x4.m8n8.shared.b16 [%0], {%1, %2, %3, %4};"
        );
        let ld = CopyOp::LdsmN { matrices: 4 };
        assert_eq!(st.src_layout(), ld.dst_layout());
        assert_eq!(st.dst_layout(), ld.src_layout());
        assert_eq!(st.ref_layout(), st.src_layout());
        let t = CopyOp::from_name("SM90_U16x8_STSM_T", None).unwrap();
        assert_eq!(t.to_string(), "SM90_U16x8_STSM_T");
        assert!(t
            .ptx()
            .unwrap()
            .starts_with("stmatrix.sync.aligned.x4.trans.m8n8"));
    }
}
