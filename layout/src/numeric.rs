//! Element types, with CuTe's names and widths.

use std::fmt;

/// The element types of the expression language and the code generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElemType {
    F64,
    F32,
    Tf32,
    F16,
    Bf16,
    /// `int4b_t`.
    I4,
    /// `uint4b_t`.
    U4,
    /// `uint1b_t`.
    U1,
    I8,
    U8,
    /// `float_e4m3_t` (FP8: 4 exponent bits, 3 mantissa bits).
    E4M3,
    /// `float_e5m2_t` (FP8: 5 exponent bits, 2 mantissa bits).
    E5M2,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    U128,
}

const ALL: [(ElemType, &str, u32); 19] = [
    (ElemType::F64, "double", 64),
    (ElemType::F32, "float", 32),
    (ElemType::Tf32, "tfloat32_t", 32),
    (ElemType::F16, "half_t", 16),
    (ElemType::Bf16, "bfloat16_t", 16),
    (ElemType::I4, "int4b_t", 4),
    (ElemType::U4, "uint4b_t", 4),
    (ElemType::U1, "uint1b_t", 1),
    (ElemType::I8, "int8_t", 8),
    (ElemType::U8, "uint8_t", 8),
    (ElemType::E4M3, "float_e4m3_t", 8),
    (ElemType::E5M2, "float_e5m2_t", 8),
    (ElemType::I16, "int16_t", 16),
    (ElemType::U16, "uint16_t", 16),
    (ElemType::I32, "int32_t", 32),
    (ElemType::U32, "uint32_t", 32),
    (ElemType::I64, "int64_t", 64),
    (ElemType::U64, "uint64_t", 64),
    (ElemType::U128, "uint128_t", 128),
];

impl ElemType {
    /// The type CuTe spells `name` (`float`, `half_t`, `uint128_t`, ...).
    pub fn from_name(name: &str) -> Option<ElemType> {
        ALL.iter().find(|(_, n, _)| *n == name).map(|(t, _, _)| *t)
    }

    /// CuTe's spelling.
    pub fn name(self) -> &'static str {
        ALL.iter()
            .find(|(t, _, _)| *t == self)
            .map_or("?", |(_, n, _)| n)
    }

    /// `sizeof_bits<T>`.
    pub fn bits(self) -> u32 {
        ALL.iter()
            .find(|(t, _, _)| *t == self)
            .map_or(0, |(_, _, b)| *b)
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Rust type standing for a CuTe element type, for the typed atom API
/// (`CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>()`).
pub trait Numeric {
    /// The element type.
    const TYPE: ElemType;
}

macro_rules! elements {
    ($($t:ty => $e:ident),*) => {$(impl Numeric for $t { const TYPE: ElemType = ElemType::$e; })*};
}
elements!(f64 => F64, f32 => F32, i8 => I8, u8 => U8, i16 => I16, u16 => U16, i32 => I32, u32 => U32, i64 => I64, u64 => U64, u128 => U128);

macro_rules! marker_elements {
    ($($t:ident => $e:ident),*) => {$(
        #[doc = concat!("CuTe's `", stringify!($t), "` (an element type without a Rust counterpart).")]
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, Default)]
        pub struct $t;
        impl Numeric for $t { const TYPE: ElemType = ElemType::$e; }
    )*};
}
marker_elements!(half_t => F16, bfloat16_t => Bf16, tfloat32_t => Tf32);
