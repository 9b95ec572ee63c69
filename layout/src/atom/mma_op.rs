//! MMA operations: `MMA_Traits` (shape MNK, thread ID and the A/B/C thread-value layouts) and the
//! instruction each one is.

use std::fmt;
use std::marker::PhantomData;

use super::gmma::Gmma;
use super::lit;
use crate::error::Result;
use crate::int_tuple::IntTuple;
use crate::layout::Layout;
use crate::numeric::{ElemType, Numeric};

/// An MMA operation of the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MmaOp {
    /// `UniversalFMA<D,A,B,C>`: one thread, one scalar `d = a * b + c`.
    UniversalFma {
        d: ElemType,
        a: ElemType,
        b: ElemType,
        c: ElemType,
    },
    /// An SM75 warp-level `mma.sync` (`SM75_16x8x8_F32F16F16F32_TN`, ...).
    Sm75(Sm75Mma),
    /// An SM80 warp-level `mma.sync` (`SM80_16x8x8_F32TF32TF32F32_TN`, ...).
    Sm80(Sm80Mma),
    /// An SM90 warpgroup-level `wgmma.mma_async`
    /// (`SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K,GMMA::Major::K>`, ...).
    Sm90(Gmma),
}

/// The SM75 `mma.sync` shapes and types of the catalog (`include/cute/arch/mma_sm75.hpp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(non_camel_case_types)]
pub enum Sm75Mma {
    /// `SM75_16x8x8_F32F16F16F32_TN`
    M16N8K8_F32F16,
    /// `SM75_16x8x8_F16F16F16F16_TN`
    M16N8K8_F16F16,
    /// `SM75_8x8x16_S32S8S8S32_TN`
    M8N8K16_S8S8,
}

/// The SM80 `mma.sync` shapes and types of the catalog (`include/cute/arch/mma_sm80.hpp`).
///
/// The 8-bit integer MMAs accumulate in `int32_t`; the `_SATURATE` forms clamp the result
/// (`.satfinite`) and have the same layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(non_camel_case_types)]
pub enum Sm80Mma {
    /// `SM80_16x8x4_F32TF32TF32F32_TN`
    M16N8K4_F32TF32,
    /// `SM80_16x8x8_F32TF32TF32F32_TN`
    M16N8K8_F32TF32,
    /// `SM80_16x8x8_F16F16F16F16_TN`
    M16N8K8_F16F16,
    /// `SM80_16x8x8_F32F16F16F32_TN`
    M16N8K8_F32F16,
    /// `SM80_16x8x8_F32BF16BF16F32_TN`
    M16N8K8_F32BF16,
    /// `SM80_16x8x16_F16F16F16F16_TN`
    M16N8K16_F16F16,
    /// `SM80_16x8x16_F32F16F16F32_TN`
    M16N8K16_F32F16,
    /// `SM80_16x8x16_F32BF16BF16F32_TN`
    M16N8K16_F32BF16,
    /// `SM80_8x8x4_F64F64F64F64_TN`
    M8N8K4_F64,
    /// `SM80_8x8x16_S32S8S8S32_TN`
    M8N8K16_S8S8,
    /// `SM80_8x8x16_S32S8S8S32_TN_SATURATE`
    M8N8K16_S8S8_SATURATE,
    /// `SM80_16x8x16_S32S8S8S32_TN`
    M16N8K16_S8S8,
    /// `SM80_16x8x16_S32S8S8S32_TN_SATURATE`
    M16N8K16_S8S8_SATURATE,
    /// `SM80_16x8x32_S32S8S8S32_TN`
    M16N8K32_S8S8,
    /// `SM80_16x8x32_S32S8S8S32_TN_SATURATE`
    M16N8K32_S8S8_SATURATE,
    /// `SM80_8x8x16_S32S8U8S32_TN`
    M8N8K16_S8U8,
    /// `SM80_8x8x16_S32S8U8S32_TN_SATURATE`
    M8N8K16_S8U8_SATURATE,
    /// `SM80_16x8x16_S32S8U8S32_TN`
    M16N8K16_S8U8,
    /// `SM80_16x8x16_S32S8U8S32_TN_SATURATE`
    M16N8K16_S8U8_SATURATE,
    /// `SM80_16x8x32_S32S8U8S32_TN`
    M16N8K32_S8U8,
    /// `SM80_16x8x32_S32S8U8S32_TN_SATURATE`
    M16N8K32_S8U8_SATURATE,
    /// `SM80_8x8x16_S32U8S8S32_TN`
    M8N8K16_U8S8,
    /// `SM80_8x8x16_S32U8S8S32_TN_SATURATE`
    M8N8K16_U8S8_SATURATE,
    /// `SM80_16x8x16_S32U8S8S32_TN`
    M16N8K16_U8S8,
    /// `SM80_16x8x16_S32U8S8S32_TN_SATURATE`
    M16N8K16_U8S8_SATURATE,
    /// `SM80_16x8x32_S32U8S8S32_TN`
    M16N8K32_U8S8,
    /// `SM80_16x8x32_S32U8S8S32_TN_SATURATE`
    M16N8K32_U8S8_SATURATE,
    /// `SM80_8x8x16_S32U8U8S32_TN`
    M8N8K16_U8U8,
    /// `SM80_8x8x16_S32U8U8S32_TN_SATURATE`
    M8N8K16_U8U8_SATURATE,
    /// `SM80_16x8x16_S32U8U8S32_TN`
    M16N8K16_U8U8,
    /// `SM80_16x8x16_S32U8U8S32_TN_SATURATE`
    M16N8K16_U8U8_SATURATE,
    /// `SM80_16x8x32_S32U8U8S32_TN`
    M16N8K32_U8U8,
    /// `SM80_16x8x32_S32U8U8S32_TN_SATURATE`
    M16N8K32_U8U8_SATURATE,
    /// The 4-bit integer MMAs, `SM80_{8x8x32,16x8x32,16x8x64}_S32{S4,U4}{S4,U4}S32_TN[_SATURATE]`.
    Int4 {
        mnk: (i64, i64, i64),
        a: ElemType,
        b: ElemType,
        saturate: bool,
    },
    /// The 1-bit MMAs, `SM80_{8x8x128,16x8x256}_S32U1U1S32_TN_{XORPOPC,ANDPOPC}`.
    Bits { mnk: (i64, i64, i64), and: bool },
}

use ElemType::{Bf16, Tf32, F16, F32, F64, I32, I4, I8, U1, U4, U8};

/// One warp MMA of the catalog: its CuTe name and its `MMA_Traits` (`mma_traits_sm75.hpp`,
/// `mma_traits_sm80.hpp`).
struct WarpEntry {
    name: &'static str,
    op: MmaOp,
    /// `Shape_MNK`.
    mnk: (i64, i64, i64),
    /// `ValTypeD/A/B/C`.
    types: [ElemType; 4],
    /// `ALayout`, `BLayout`, `CLayout`.
    layouts: [&'static str; 3],
    /// `.satfinite` (the `_SATURATE` forms).
    saturate: bool,
}

// The layouts CuTe names in mma_traits_sm80.hpp, (thread, value) -> column-major coordinate.
/// `SM80_8x4`: (T32,V1) -> (M8,N8).
const SM80_8X4: &str = "((_4,_8),_1):((_8,_1),_0)";
/// `SM80_8x8_Row`: (T32,V2) -> (M8,N8).
const SM80_8X8_ROW: &str = "((_4,_8),_2):((_16,_1),_8)";
/// `SM80_8x16_Row`: (T32,V4) -> (M8,N16).
const SM80_8X16_ROW: &str = "((_4,_8),_4):((_32,_1),_8)";
/// `SM80_16x8_Row`: (T32,V4) -> (M16,N8).
const SM80_16X8_ROW: &str = "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))";
const A_16X8X16_B16: &str = "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))";
const B_16X8X16_B16: &str = "((_4,_8),(_2,_2)):((_16,_1),(_8,_64))";
const A_16X8X16_I8: &str = "((_4,_8),(_4,_2)):((_64,_1),(_16,_8))";
const A_16X8X32_I8: &str = "((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256))";
const B_16X8X32_I8: &str = "((_4,_8),(_4,_2)):((_32,_1),(_8,_128))";

const fn warp(
    name: &'static str,
    op: MmaOp,
    mnk: (i64, i64, i64),
    types: [ElemType; 4],
    layouts: [&'static str; 3],
) -> WarpEntry {
    WarpEntry {
        name,
        op,
        mnk,
        types,
        layouts,
        saturate: false,
    }
}

/// An SM80 8-bit integer MMA: `int32_t = A * B + int32_t`, saturating or not.
const fn int8(
    name: &'static str,
    op: Sm80Mma,
    a: ElemType,
    b: ElemType,
    mnk: (i64, i64, i64),
    saturate: bool,
) -> WarpEntry {
    let layouts = match mnk {
        (8, _, _) => [SM80_8X16_ROW, SM80_8X16_ROW, SM80_8X8_ROW],
        (_, _, 16) => [A_16X8X16_I8, SM80_8X16_ROW, SM80_16X8_ROW],
        _ => [A_16X8X32_I8, B_16X8X32_I8, SM80_16X8_ROW],
    };
    WarpEntry {
        name,
        op: MmaOp::Sm80(op),
        mnk,
        types: [I32, a, b, I32],
        layouts,
        saturate,
    }
}

/// The 8-bit integer MMAs of one (A, B) type pair: 8x8x16, 16x8x16, 16x8x32, each with its
/// `_SATURATE` form.
macro_rules! int8_mmas {
    ($a:ident, $b:ident, $ab:literal, [$v8:ident, $v8s:ident, $v16:ident, $v16s:ident, $v32:ident, $v32s:ident]) => {
        [
            int8(
                concat!("SM80_8x8x16_S32", $ab, "S32_TN"),
                $v8,
                $a,
                $b,
                (8, 8, 16),
                false,
            ),
            int8(
                concat!("SM80_8x8x16_S32", $ab, "S32_TN_SATURATE"),
                $v8s,
                $a,
                $b,
                (8, 8, 16),
                true,
            ),
            int8(
                concat!("SM80_16x8x16_S32", $ab, "S32_TN"),
                $v16,
                $a,
                $b,
                (16, 8, 16),
                false,
            ),
            int8(
                concat!("SM80_16x8x16_S32", $ab, "S32_TN_SATURATE"),
                $v16s,
                $a,
                $b,
                (16, 8, 16),
                true,
            ),
            int8(
                concat!("SM80_16x8x32_S32", $ab, "S32_TN"),
                $v32,
                $a,
                $b,
                (16, 8, 32),
                false,
            ),
            int8(
                concat!("SM80_16x8x32_S32", $ab, "S32_TN_SATURATE"),
                $v32s,
                $a,
                $b,
                (16, 8, 32),
                true,
            ),
        ]
    };
}

use Sm80Mma::*;

#[rustfmt::skip]
const FLOAT_MMAS: [WarpEntry; 12] = [
    warp("SM75_16x8x8_F32F16F16F32_TN", MmaOp::Sm75(Sm75Mma::M16N8K8_F32F16), (16, 8, 8), [F32, F16, F16, F32], [SM80_16X8_ROW, SM80_8X8_ROW, SM80_16X8_ROW]),
    warp("SM75_16x8x8_F16F16F16F16_TN", MmaOp::Sm75(Sm75Mma::M16N8K8_F16F16), (16, 8, 8), [F16, F16, F16, F16], [SM80_16X8_ROW, SM80_8X8_ROW, SM80_16X8_ROW]),
    warp("SM75_8x8x16_S32S8S8S32_TN", MmaOp::Sm75(Sm75Mma::M8N8K16_S8S8), (8, 8, 16), [I32, I8, I8, I32], [SM80_8X16_ROW, SM80_8X16_ROW, SM80_8X8_ROW]),
    warp("SM80_16x8x4_F32TF32TF32F32_TN", MmaOp::Sm80(M16N8K4_F32TF32), (16, 8, 4), [F32, Tf32, Tf32, F32], ["((_4,_8),_2):((_16,_1),_8)", SM80_8X4, SM80_16X8_ROW]),
    warp("SM80_16x8x8_F32TF32TF32F32_TN", MmaOp::Sm80(M16N8K8_F32TF32), (16, 8, 8), [F32, Tf32, Tf32, F32], ["((_4,_8),(_2,_2)):((_16,_1),(_8,_64))", "((_4,_8),_2):((_8,_1),_32)", SM80_16X8_ROW]),
    warp("SM80_16x8x8_F16F16F16F16_TN", MmaOp::Sm80(M16N8K8_F16F16), (16, 8, 8), [F16, F16, F16, F16], [SM80_16X8_ROW, SM80_8X8_ROW, SM80_16X8_ROW]),
    warp("SM80_16x8x8_F32F16F16F32_TN", MmaOp::Sm80(M16N8K8_F32F16), (16, 8, 8), [F32, F16, F16, F32], [SM80_16X8_ROW, SM80_8X8_ROW, SM80_16X8_ROW]),
    warp("SM80_16x8x8_F32BF16BF16F32_TN", MmaOp::Sm80(M16N8K8_F32BF16), (16, 8, 8), [F32, Bf16, Bf16, F32], [SM80_16X8_ROW, SM80_8X8_ROW, SM80_16X8_ROW]),
    warp("SM80_16x8x16_F16F16F16F16_TN", MmaOp::Sm80(M16N8K16_F16F16), (16, 8, 16), [F16, F16, F16, F16], [A_16X8X16_B16, B_16X8X16_B16, SM80_16X8_ROW]),
    warp("SM80_16x8x16_F32F16F16F32_TN", MmaOp::Sm80(M16N8K16_F32F16), (16, 8, 16), [F32, F16, F16, F32], [A_16X8X16_B16, B_16X8X16_B16, SM80_16X8_ROW]),
    warp("SM80_16x8x16_F32BF16BF16F32_TN", MmaOp::Sm80(M16N8K16_F32BF16), (16, 8, 16), [F32, Bf16, Bf16, F32], [A_16X8X16_B16, B_16X8X16_B16, SM80_16X8_ROW]),
    warp("SM80_8x8x4_F64F64F64F64_TN", MmaOp::Sm80(M8N8K4_F64), (8, 8, 4), [F64, F64, F64, F64], [SM80_8X4, SM80_8X4, SM80_8X8_ROW]),
];

#[rustfmt::skip]
const INT8_MMAS: [[WarpEntry; 6]; 4] = [
    int8_mmas!(I8, I8, "S8S8", [M8N8K16_S8S8, M8N8K16_S8S8_SATURATE, M16N8K16_S8S8, M16N8K16_S8S8_SATURATE, M16N8K32_S8S8, M16N8K32_S8S8_SATURATE]),
    int8_mmas!(I8, U8, "S8U8", [M8N8K16_S8U8, M8N8K16_S8U8_SATURATE, M16N8K16_S8U8, M16N8K16_S8U8_SATURATE, M16N8K32_S8U8, M16N8K32_S8U8_SATURATE]),
    int8_mmas!(U8, I8, "U8S8", [M8N8K16_U8S8, M8N8K16_U8S8_SATURATE, M16N8K16_U8S8, M16N8K16_U8S8_SATURATE, M16N8K32_U8S8, M16N8K32_U8S8_SATURATE]),
    int8_mmas!(U8, U8, "U8U8", [M8N8K16_U8U8, M8N8K16_U8U8_SATURATE, M16N8K16_U8U8, M16N8K16_U8U8_SATURATE, M16N8K32_U8U8, M16N8K32_U8U8_SATURATE]),
];

/// A 4-bit integer MMA (`mma_traits_sm80.hpp`: every (A, B) pair shares the S4S4 layouts).
const fn int4(
    name: &'static str,
    a: ElemType,
    b: ElemType,
    mnk: (i64, i64, i64),
    saturate: bool,
) -> WarpEntry {
    let layouts = match mnk {
        (8, _, _) => [
            "((_4,_8),(_8)):((_64,_1),(_8))",
            "((_4,_8),(_8)):((_64,_1),(_8))",
            SM80_8X8_ROW,
        ],
        (_, _, 32) => [
            "((_4,_8),(_8,_2)):((_128,_1),(_16,_8))",
            "((_4,_8),(_8)):((_64,_1),(_8))",
            SM80_16X8_ROW,
        ],
        _ => [
            "((_4,_8),(_8,_2,_2)):((_128,_1),(_16,_8,_512))",
            "((_4,_8),(_8,_2)):((_64,_1),(_8,_256))",
            SM80_16X8_ROW,
        ],
    };
    WarpEntry {
        name,
        op: MmaOp::Sm80(Sm80Mma::Int4 {
            mnk,
            a,
            b,
            saturate,
        }),
        mnk,
        types: [I32, a, b, I32],
        layouts,
        saturate,
    }
}

/// The 4-bit MMAs of one (A, B) pair: 8x8x32, 16x8x32, 16x8x64, each with its `_SATURATE` form.
macro_rules! int4_mmas {
    ($a:ident, $b:ident, $ab:literal) => {
        [
            int4(
                concat!("SM80_8x8x32_S32", $ab, "S32_TN"),
                $a,
                $b,
                (8, 8, 32),
                false,
            ),
            int4(
                concat!("SM80_8x8x32_S32", $ab, "S32_TN_SATURATE"),
                $a,
                $b,
                (8, 8, 32),
                true,
            ),
            int4(
                concat!("SM80_16x8x32_S32", $ab, "S32_TN"),
                $a,
                $b,
                (16, 8, 32),
                false,
            ),
            int4(
                concat!("SM80_16x8x32_S32", $ab, "S32_TN_SATURATE"),
                $a,
                $b,
                (16, 8, 32),
                true,
            ),
            int4(
                concat!("SM80_16x8x64_S32", $ab, "S32_TN"),
                $a,
                $b,
                (16, 8, 64),
                false,
            ),
            int4(
                concat!("SM80_16x8x64_S32", $ab, "S32_TN_SATURATE"),
                $a,
                $b,
                (16, 8, 64),
                true,
            ),
        ]
    };
}

#[rustfmt::skip]
const INT4_MMAS: [[WarpEntry; 6]; 4] = [
    int4_mmas!(I4, I4, "S4S4"),
    int4_mmas!(I4, U4, "S4U4"),
    int4_mmas!(U4, I4, "U4S4"),
    int4_mmas!(U4, U4, "U4U4"),
];

/// A 1-bit MMA (`int32_t = popc(A xor/and B) + int32_t`). The 16x8x128 form is left out: its
/// traits' A layout is not congruent (shape `(_32,_2)`, stride `((_16,_8))`).
const fn bits(name: &'static str, mnk: (i64, i64, i64), and: bool) -> WarpEntry {
    let layouts = match mnk {
        (8, _, _) => [
            "((_4,_8),_32):((_256,_1),_8)",
            "((_4,_8),_32):((_256,_1),_8)",
            SM80_8X8_ROW,
        ],
        _ => [
            "((_4,_8),(_32,_2,_2)):((_512,_1),(_16,_8,_2048))",
            "((_4,_8),(_32,_2)):((_256,_1),(_8,_1024))",
            SM80_16X8_ROW,
        ],
    };
    WarpEntry {
        name,
        op: MmaOp::Sm80(Sm80Mma::Bits { mnk, and }),
        mnk,
        types: [I32, U1, U1, I32],
        layouts,
        saturate: false,
    }
}

#[rustfmt::skip]
const BIT_MMAS: [WarpEntry; 4] = [
    bits("SM80_8x8x128_S32U1U1S32_TN_XORPOPC", (8, 8, 128), false),
    bits("SM80_8x8x128_S32U1U1S32_TN_ANDPOPC", (8, 8, 128), true),
    bits("SM80_16x8x256_S32U1U1S32_TN_XORPOPC", (16, 8, 256), false),
    bits("SM80_16x8x256_S32U1U1S32_TN_ANDPOPC", (16, 8, 256), true),
];

/// Every warp MMA of the catalog.
fn warp_mmas() -> impl Iterator<Item = &'static WarpEntry> {
    FLOAT_MMAS
        .iter()
        .chain(INT8_MMAS.iter().flatten())
        .chain(INT4_MMAS.iter().flatten())
        .chain(BIT_MMAS.iter())
}

/// The catalog entry of a warp MMA (`None` for `UniversalFMA`).
fn warp_entry(op: &MmaOp) -> Option<&'static WarpEntry> {
    warp_mmas().find(|e| e.op == *op)
}

impl MmaOp {
    /// The operation CuTe spells `name` (`UniversalFMA` takes its types separately).
    ///
    /// ```
    /// # use cute_layout::atom::MmaOp;
    /// let op = MmaOp::from_name("SM80_16x8x32_S32S8S8S32_TN").unwrap();
    /// assert_eq!(op.to_string(), "SM80_16x8x32_S32S8S8S32_TN");
    /// assert_eq!(op.shape_mnk().to_string(), "(_16,_8,_32)");
    /// assert!(MmaOp::from_name("SM80_16x8x32_S32S8S8S32").is_none());
    /// ```
    pub fn from_name(name: &str) -> Option<MmaOp> {
        match MmaOp::from_name_args(name, &[]) {
            Some(Ok(op)) => Some(op),
            _ => None,
        }
    }

    /// The operation CuTe spells `name<args...>` (an SM90 GMMA's template arguments, C++
    /// spellings: `GMMA::Major::K`, `GMMA::ScaleIn::Neg`); `None` for an unknown name, an error
    /// naming the condition for an SM90 name the catalog does not have (`N = 36`, an MN-major
    /// register A, missing majors).
    ///
    /// ```
    /// # use cute_layout::atom::MmaOp;
    /// let op = MmaOp::from_name_args("SM90_64x128x16_F32BF16BF16_SS", &["GMMA::Major::K", "GMMA::Major::MN"]);
    /// let op = op.unwrap()?;
    /// assert_eq!(op.to_string(), "SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K,GMMA::Major::MN>");
    /// // print(MMA_Atom<SM90_64x128x16_F32BF16BF16_SS<GMMA::Major::K,GMMA::Major::MN>>{})
    /// assert_eq!(op.shape_mnk().to_string(), "(_64,_128,_16)");
    /// assert_eq!(op.b_layout().to_string(), "(_128,(_128,_16)):(_0,(_1,_128))");
    /// assert!(MmaOp::from_name_args("SM90_64x36x16_F32F16F16_SS", &["GMMA::Major::K", "GMMA::Major::K"]).unwrap().is_err());
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn from_name_args(name: &str, args: &[&str]) -> Option<Result<MmaOp>> {
        if let Some(g) = Gmma::from_name(name, args) {
            return Some(g.map(MmaOp::Sm90));
        }
        let e = warp_mmas().find(|e| e.name == name)?;
        Some(if args.is_empty() {
            Ok(e.op)
        } else {
            Err(crate::error::Error::Eval(format!(
                "{name} takes no template arguments"
            )))
        })
    }

    /// The CuTe names of the warp MMAs of the catalog (`UniversalFMA<D,A,B,C>` aside).
    ///
    /// ```
    /// # use cute_layout::atom::MmaOp;
    /// assert!(MmaOp::names().any(|n| n == "SM75_16x8x8_F32F16F16F32_TN"));
    /// assert_eq!(MmaOp::names().filter(|n| n.ends_with("_SATURATE")).count(), 24);
    /// ```
    pub fn names() -> impl Iterator<Item = &'static str> {
        warp_mmas().map(|e| e.name)
    }

    /// `UniversalFMA<D,A,B,C>`.
    ///
    /// ```
    /// # use cute_layout::{atom::MmaOp, ElemType::{F16, F32}};
    /// let op = MmaOp::universal_fma(F32, F16, F16, F32);
    /// assert_eq!(op.to_string(), "UniversalFMA<float,half_t,half_t,float>");
    /// // print(MMA_Atom<UniversalFMA<float,half_t,half_t,float>>{}): Shape_MNK (_1,_1,_1)
    /// assert_eq!(op.shape_mnk().to_string(), "(_1,_1,_1)");
    /// ```
    pub fn universal_fma(d: ElemType, a: ElemType, b: ElemType, c: ElemType) -> MmaOp {
        MmaOp::UniversalFma { d, a, b, c }
    }

    /// `Shape_MNK`.
    ///
    /// ```
    /// # use cute_layout::atom::MmaOp;
    /// let op = MmaOp::from_name("SM80_8x8x16_S32U8S8S32_TN").unwrap();
    /// assert_eq!(op.shape_mnk().to_string(), "(_8,_8,_16)");
    /// ```
    pub fn shape_mnk(&self) -> IntTuple {
        let (m, n, k) = match self {
            MmaOp::Sm90(g) => g.mnk(),
            op => warp_entry(op).map_or((1, 1, 1), |e| e.mnk),
        };
        IntTuple::Tuple(vec![IntTuple::st(m), IntTuple::st(n), IntTuple::st(k)])
    }

    /// (D, A, B, C) value types: `MMA_Traits::ValTypeD/A/B/C`.
    ///
    /// ```
    /// # use cute_layout::{atom::MmaOp, ElemType::{I32, I8, U8}};
    /// let op = MmaOp::from_name("SM80_16x8x32_S32S8U8S32_TN").unwrap();
    /// assert_eq!(op.types(), [I32, I8, U8, I32]);
    /// ```
    pub fn types(&self) -> [ElemType; 4] {
        match *self {
            MmaOp::UniversalFma { d, a, b, c } => [d, a, b, c],
            MmaOp::Sm90(g) => g.types(),
            _ => warp_entry(self).map_or([F32; 4], |e| e.types),
        }
    }

    /// Whether the result saturates (`.satfinite`: the `_SATURATE` integer MMAs).
    ///
    /// ```
    /// # use cute_layout::atom::MmaOp;
    /// assert!(MmaOp::from_name("SM80_16x8x32_S32S8S8S32_TN_SATURATE").unwrap().saturates());
    /// assert!(!MmaOp::from_name("SM80_16x8x32_S32S8S8S32_TN").unwrap().saturates());
    /// ```
    pub fn saturates(&self) -> bool {
        match self {
            MmaOp::Sm90(g) => g.saturate,
            op => warp_entry(op).is_some_and(|e| e.saturate),
        }
    }

    /// `ThrID`.
    ///
    /// ```
    /// # use cute_layout::atom::MmaOp;
    /// // print(MMA_Atom<SM75_16x8x8_F32F16F16F32_TN>{}): ThrID _32:_1
    /// assert_eq!(MmaOp::from_name("SM75_16x8x8_F32F16F16F32_TN").unwrap().thr_id().to_string(), "_32:_1");
    /// ```
    pub fn thr_id(&self) -> Layout {
        match self {
            MmaOp::UniversalFma { .. } => lit("_1:_0"),
            MmaOp::Sm90(g) => g.thr_id(),
            _ => lit("_32:_1"),
        }
    }

    fn layout(&self, i: usize) -> Layout {
        match self {
            MmaOp::Sm90(g) => [Gmma::a_layout, Gmma::b_layout, Gmma::c_layout][i](g),
            op => lit(warp_entry(op).map_or("(_1,_1):(_0,_0)", |e| e.layouts[i])),
        }
    }

    /// `ALayout`: (thread, value) -> (m,k) in the column-major M x K atom tile.
    ///
    /// ```
    /// # use cute_layout::atom::MmaOp;
    /// // print(MMA_Atom<SM80_16x8x32_S32S8S8S32_TN>{}): LayoutA_TV
    /// let op = MmaOp::from_name("SM80_16x8x32_S32S8S8S32_TN").unwrap();
    /// assert_eq!(op.a_layout().to_string(), "((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256))");
    /// ```
    pub fn a_layout(&self) -> Layout {
        self.layout(0)
    }

    /// `BLayout`: (thread, value) -> (n,k).
    ///
    /// ```
    /// # use cute_layout::atom::MmaOp;
    /// // print(MMA_Atom<SM80_16x8x32_S32S8S8S32_TN>{}): LayoutB_TV
    /// let op = MmaOp::from_name("SM80_16x8x32_S32S8S8S32_TN").unwrap();
    /// assert_eq!(op.b_layout().to_string(), "((_4,_8),(_4,_2)):((_32,_1),(_8,_128))");
    /// ```
    pub fn b_layout(&self) -> Layout {
        self.layout(1)
    }

    /// `CLayout`: (thread, value) -> (m,n).
    ///
    /// ```
    /// # use cute_layout::atom::MmaOp;
    /// // print(MMA_Atom<SM80_8x8x16_S32S8S8S32_TN>{}): LayoutC_TV
    /// let op = MmaOp::from_name("SM80_8x8x16_S32S8S8S32_TN").unwrap();
    /// assert_eq!(op.c_layout().to_string(), "((_4,_8),_2):((_16,_1),_8)");
    /// ```
    pub fn c_layout(&self) -> Layout {
        self.layout(2)
    }

    /// The PTX the MMA lowers to (`None` for `UniversalFMA`, a C++ `d = a * b + c`), with the
    /// instruction and register counts of CUTLASS's `mma_sm75.hpp` / `mma_sm80.hpp`.
    ///
    /// ```
    /// # use cute_layout::atom::MmaOp;
    /// let op = MmaOp::from_name("SM80_16x8x32_S32S8S8S32_TN_SATURATE").unwrap();
    /// assert_eq!(
    ///     op.ptx().unwrap(),
    ///     "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32.satfinite {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
    /// );
    /// ```
    pub fn ptx(&self) -> Option<String> {
        let e = warp_entry(self)?;
        let ((m, n, k), [d, a, b, c]) = (e.mnk, e.types);
        let count = |l: Layout, t: ElemType| {
            let vals = l
                .mode(1)
                .ok()
                .and_then(|v| v.size().ok())
                .and_then(|s| s.value())
                .unwrap_or(1);
            (vals * i64::from(t.bits()) + 31) / 32
        };
        let (nd, na, nb) = (
            count(self.c_layout(), d),
            count(self.a_layout(), a),
            count(self.b_layout(), b),
        );
        let mut next = 0;
        let mut group = |n: i64| {
            let g = (next..next + n)
                .map(|i| format!("%{i}"))
                .collect::<Vec<_>>()
                .join(",");
            next += n;
            format!("{{{g}}}")
        };
        let (gd, ga, gb, gc) = (group(nd), group(na), group(nb), group(nd));
        let ty = |t: ElemType| match t {
            F64 => "f64",
            F32 => "f32",
            Tf32 => "tf32",
            F16 => "f16",
            Bf16 => "bf16",
            I32 => "s32",
            I8 => "s8",
            U8 => "u8",
            I4 => "s4",
            U4 => "u4",
            U1 => "b1",
            _ => "?",
        };
        let sat = match e.op {
            MmaOp::Sm80(Sm80Mma::Bits { and: false, .. }) => ".xor.popc",
            MmaOp::Sm80(Sm80Mma::Bits { and: true, .. }) => ".and.popc",
            _ if e.saturate => ".satfinite",
            _ => "",
        };
        Some(format!(
            "mma.sync.aligned.m{m}n{n}k{k}.row.col.{}.{}.{}.{}{sat} {gd}, {ga}, {gb}, {gc};",
            ty(d),
            ty(a),
            ty(b),
            ty(c)
        ))
    }
}

impl fmt::Display for MmaOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MmaOp::UniversalFma { d, a, b, c } => write!(f, "UniversalFMA<{d},{a},{b},{c}>"),
            MmaOp::Sm90(g) => write!(f, "{g}"),
            op => f.write_str(warp_entry(op).map_or("?", |e| e.name)),
        }
    }
}

/// An MMA operation as a type: `MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>()`.
pub trait MmaOperation {
    /// The runtime description.
    const OP: MmaOp;
}

/// `UniversalFMA<D,A,B,C>`.
#[derive(Debug, Clone, Copy, Default)]
pub struct UniversalFMA<D: Numeric, A: Numeric = D, B: Numeric = D, C: Numeric = D>(
    PhantomData<(D, A, B, C)>,
);
impl<D: Numeric, A: Numeric, B: Numeric, C: Numeric> MmaOperation for UniversalFMA<D, A, B, C> {
    const OP: MmaOp = MmaOp::UniversalFma {
        d: D::TYPE,
        a: A::TYPE,
        b: B::TYPE,
        c: C::TYPE,
    };
}

macro_rules! warp_types {
    ($($name:ident => $op:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`")]
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, Default)]
        pub struct $name;
        impl MmaOperation for $name { const OP: MmaOp = $op; }
    )*};
}
warp_types! {
    SM75_16x8x8_F32F16F16F32_TN => MmaOp::Sm75(Sm75Mma::M16N8K8_F32F16);
    SM75_16x8x8_F16F16F16F16_TN => MmaOp::Sm75(Sm75Mma::M16N8K8_F16F16);
    SM75_8x8x16_S32S8S8S32_TN => MmaOp::Sm75(Sm75Mma::M8N8K16_S8S8);
    SM80_16x8x4_F32TF32TF32F32_TN => MmaOp::Sm80(M16N8K4_F32TF32);
    SM80_16x8x8_F32TF32TF32F32_TN => MmaOp::Sm80(M16N8K8_F32TF32);
    SM80_16x8x8_F16F16F16F16_TN => MmaOp::Sm80(M16N8K8_F16F16);
    SM80_16x8x8_F32F16F16F32_TN => MmaOp::Sm80(M16N8K8_F32F16);
    SM80_16x8x8_F32BF16BF16F32_TN => MmaOp::Sm80(M16N8K8_F32BF16);
    SM80_16x8x16_F16F16F16F16_TN => MmaOp::Sm80(M16N8K16_F16F16);
    SM80_16x8x16_F32F16F16F32_TN => MmaOp::Sm80(M16N8K16_F32F16);
    SM80_16x8x16_F32BF16BF16F32_TN => MmaOp::Sm80(M16N8K16_F32BF16);
    SM80_8x8x4_F64F64F64F64_TN => MmaOp::Sm80(M8N8K4_F64);
    SM80_8x8x16_S32S8S8S32_TN => MmaOp::Sm80(M8N8K16_S8S8);
    SM80_8x8x16_S32S8S8S32_TN_SATURATE => MmaOp::Sm80(M8N8K16_S8S8_SATURATE);
    SM80_16x8x16_S32S8S8S32_TN => MmaOp::Sm80(M16N8K16_S8S8);
    SM80_16x8x16_S32S8S8S32_TN_SATURATE => MmaOp::Sm80(M16N8K16_S8S8_SATURATE);
    SM80_16x8x32_S32S8S8S32_TN => MmaOp::Sm80(M16N8K32_S8S8);
    SM80_16x8x32_S32S8S8S32_TN_SATURATE => MmaOp::Sm80(M16N8K32_S8S8_SATURATE);
    SM80_8x8x16_S32S8U8S32_TN => MmaOp::Sm80(M8N8K16_S8U8);
    SM80_8x8x16_S32S8U8S32_TN_SATURATE => MmaOp::Sm80(M8N8K16_S8U8_SATURATE);
    SM80_16x8x16_S32S8U8S32_TN => MmaOp::Sm80(M16N8K16_S8U8);
    SM80_16x8x16_S32S8U8S32_TN_SATURATE => MmaOp::Sm80(M16N8K16_S8U8_SATURATE);
    SM80_16x8x32_S32S8U8S32_TN => MmaOp::Sm80(M16N8K32_S8U8);
    SM80_16x8x32_S32S8U8S32_TN_SATURATE => MmaOp::Sm80(M16N8K32_S8U8_SATURATE);
    SM80_8x8x16_S32U8S8S32_TN => MmaOp::Sm80(M8N8K16_U8S8);
    SM80_8x8x16_S32U8S8S32_TN_SATURATE => MmaOp::Sm80(M8N8K16_U8S8_SATURATE);
    SM80_16x8x16_S32U8S8S32_TN => MmaOp::Sm80(M16N8K16_U8S8);
    SM80_16x8x16_S32U8S8S32_TN_SATURATE => MmaOp::Sm80(M16N8K16_U8S8_SATURATE);
    SM80_16x8x32_S32U8S8S32_TN => MmaOp::Sm80(M16N8K32_U8S8);
    SM80_16x8x32_S32U8S8S32_TN_SATURATE => MmaOp::Sm80(M16N8K32_U8S8_SATURATE);
    SM80_8x8x16_S32U8U8S32_TN => MmaOp::Sm80(M8N8K16_U8U8);
    SM80_8x8x16_S32U8U8S32_TN_SATURATE => MmaOp::Sm80(M8N8K16_U8U8_SATURATE);
    SM80_16x8x16_S32U8U8S32_TN => MmaOp::Sm80(M16N8K16_U8U8);
    SM80_16x8x16_S32U8U8S32_TN_SATURATE => MmaOp::Sm80(M16N8K16_U8U8_SATURATE);
    SM80_16x8x32_S32U8U8S32_TN => MmaOp::Sm80(M16N8K32_U8U8);
    SM80_16x8x32_S32U8U8S32_TN_SATURATE => MmaOp::Sm80(M16N8K32_U8U8_SATURATE);
}
