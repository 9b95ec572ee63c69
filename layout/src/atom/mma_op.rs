//! MMA operations: `MMA_Traits` (shape MNK, thread ID and the A/B/C thread-value layouts) and the
//! instruction each one is.

use std::fmt;
use std::marker::PhantomData;

use super::lit;
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
    /// An SM80 warp-level `mma.sync` (`SM80_16x8x8_F32TF32TF32F32_TN`, ...).
    Sm80(Sm80Mma),
}

/// The SM80 `mma.sync` shapes and types of the catalog.
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
}

use ElemType::{Bf16, Tf32, F16, F32, F64};
use Sm80Mma::*;

/// One row of the SM80 catalog: (CuTe name, op, (M,N,K), (D,A,B,C) types).
type Sm80Entry = (&'static str, Sm80Mma, (i64, i64, i64), [ElemType; 4]);

const SM80: [Sm80Entry; 9] = [
    (
        "SM80_16x8x4_F32TF32TF32F32_TN",
        M16N8K4_F32TF32,
        (16, 8, 4),
        [F32, Tf32, Tf32, F32],
    ),
    (
        "SM80_16x8x8_F32TF32TF32F32_TN",
        M16N8K8_F32TF32,
        (16, 8, 8),
        [F32, Tf32, Tf32, F32],
    ),
    (
        "SM80_16x8x8_F16F16F16F16_TN",
        M16N8K8_F16F16,
        (16, 8, 8),
        [F16, F16, F16, F16],
    ),
    (
        "SM80_16x8x8_F32F16F16F32_TN",
        M16N8K8_F32F16,
        (16, 8, 8),
        [F32, F16, F16, F32],
    ),
    (
        "SM80_16x8x8_F32BF16BF16F32_TN",
        M16N8K8_F32BF16,
        (16, 8, 8),
        [F32, Bf16, Bf16, F32],
    ),
    (
        "SM80_16x8x16_F16F16F16F16_TN",
        M16N8K16_F16F16,
        (16, 8, 16),
        [F16, F16, F16, F16],
    ),
    (
        "SM80_16x8x16_F32F16F16F32_TN",
        M16N8K16_F32F16,
        (16, 8, 16),
        [F32, F16, F16, F32],
    ),
    (
        "SM80_16x8x16_F32BF16BF16F32_TN",
        M16N8K16_F32BF16,
        (16, 8, 16),
        [F32, Bf16, Bf16, F32],
    ),
    (
        "SM80_8x8x4_F64F64F64F64_TN",
        M8N8K4_F64,
        (8, 8, 4),
        [F64, F64, F64, F64],
    ),
];

fn sm80_entry(op: Sm80Mma) -> (&'static str, (i64, i64, i64), [ElemType; 4]) {
    let e = SM80.iter().find(|e| e.1 == op).copied().unwrap_or(SM80[0]);
    (e.0, e.2, e.3)
}

const SM80_16X8_ROW: &str = "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))";
const SM80_8X8_ROW: &str = "((_4,_8),_2):((_16,_1),_8)";
const SM80_8X4: &str = "((_4,_8),_1):((_8,_1),_0)";

impl MmaOp {
    /// The operation CuTe spells `name` (`UniversalFMA` takes its types separately).
    pub fn from_name(name: &str) -> Option<MmaOp> {
        SM80.iter().find(|e| e.0 == name).map(|e| MmaOp::Sm80(e.1))
    }

    /// `UniversalFMA<D,A,B,C>`.
    pub fn universal_fma(d: ElemType, a: ElemType, b: ElemType, c: ElemType) -> MmaOp {
        MmaOp::UniversalFma { d, a, b, c }
    }

    /// `Shape_MNK`.
    pub fn shape_mnk(&self) -> IntTuple {
        let (m, n, k) = match self {
            MmaOp::UniversalFma { .. } => (1, 1, 1),
            MmaOp::Sm80(op) => sm80_entry(*op).1,
        };
        IntTuple::Tuple(vec![IntTuple::st(m), IntTuple::st(n), IntTuple::st(k)])
    }

    /// (D, A, B, C) value types.
    pub fn types(&self) -> [ElemType; 4] {
        match *self {
            MmaOp::UniversalFma { d, a, b, c } => [d, a, b, c],
            MmaOp::Sm80(op) => sm80_entry(op).2,
        }
    }

    /// `ThrID`.
    pub fn thr_id(&self) -> Layout {
        match self {
            MmaOp::UniversalFma { .. } => lit("_1:_0"),
            MmaOp::Sm80(_) => lit("_32:_1"),
        }
    }

    /// `ALayout`: (thread, value) -> (m,k) in the column-major M x K atom tile.
    pub fn a_layout(&self) -> Layout {
        lit(match self {
            MmaOp::UniversalFma { .. } => "(_1,_1):(_0,_0)",
            MmaOp::Sm80(M16N8K4_F32TF32) => "((_4,_8),_2):((_16,_1),_8)",
            MmaOp::Sm80(M16N8K8_F32TF32) => "((_4,_8),(_2,_2)):((_16,_1),(_8,_64))",
            MmaOp::Sm80(M16N8K8_F16F16 | M16N8K8_F32F16 | M16N8K8_F32BF16) => SM80_16X8_ROW,
            MmaOp::Sm80(M16N8K16_F16F16 | M16N8K16_F32F16 | M16N8K16_F32BF16) => {
                "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))"
            }
            MmaOp::Sm80(M8N8K4_F64) => SM80_8X4,
        })
    }

    /// `BLayout`: (thread, value) -> (n,k).
    pub fn b_layout(&self) -> Layout {
        lit(match self {
            MmaOp::UniversalFma { .. } => "(_1,_1):(_0,_0)",
            MmaOp::Sm80(M16N8K4_F32TF32 | M8N8K4_F64) => SM80_8X4,
            MmaOp::Sm80(M16N8K8_F32TF32) => "((_4,_8),_2):((_8,_1),_32)",
            MmaOp::Sm80(M16N8K8_F16F16 | M16N8K8_F32F16 | M16N8K8_F32BF16) => SM80_8X8_ROW,
            MmaOp::Sm80(M16N8K16_F16F16 | M16N8K16_F32F16 | M16N8K16_F32BF16) => {
                "((_4,_8),(_2,_2)):((_16,_1),(_8,_64))"
            }
        })
    }

    /// `CLayout`: (thread, value) -> (m,n).
    pub fn c_layout(&self) -> Layout {
        lit(match self {
            MmaOp::UniversalFma { .. } => "(_1,_1):(_0,_0)",
            MmaOp::Sm80(M8N8K4_F64) => SM80_8X8_ROW,
            MmaOp::Sm80(_) => SM80_16X8_ROW,
        })
    }

    /// The PTX the MMA lowers to (`None` for `UniversalFMA`, a C++ `d = a * b + c`).
    pub fn ptx(&self) -> Option<String> {
        let MmaOp::Sm80(op) = self else { return None };
        let (_, (m, n, k), [d, a, b, c]) = sm80_entry(*op);
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
            _ => "?",
        };
        Some(format!(
            "mma.sync.aligned.m{m}n{n}k{k}.row.col.{}.{}.{}.{} {gd}, {ga}, {gb}, {gc};",
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
            MmaOp::Sm80(op) => f.write_str(sm80_entry(*op).0),
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

macro_rules! sm80_types {
    ($($name:ident => $op:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`")]
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, Default)]
        pub struct $name;
        impl MmaOperation for $name { const OP: MmaOp = MmaOp::Sm80($op); }
    )*};
}
sm80_types! {
    SM80_16x8x4_F32TF32TF32F32_TN => M16N8K4_F32TF32;
    SM80_16x8x8_F32TF32TF32F32_TN => M16N8K8_F32TF32;
    SM80_16x8x8_F16F16F16F16_TN => M16N8K8_F16F16;
    SM80_16x8x8_F32F16F16F32_TN => M16N8K8_F32F16;
    SM80_16x8x8_F32BF16BF16F32_TN => M16N8K8_F32BF16;
    SM80_16x8x16_F16F16F16F16_TN => M16N8K16_F16F16;
    SM80_16x8x16_F32F16F16F32_TN => M16N8K16_F32F16;
    SM80_16x8x16_F32BF16BF16F32_TN => M16N8K16_F32BF16;
    SM80_8x8x4_F64F64F64F64_TN => M8N8K4_F64;
}
