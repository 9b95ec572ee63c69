//! `UniversalCopy<uintN_t>` and `UniversalFMA`: plain C++ assignments of an N-bit vector type and
//! `fmaf`, as CuTe's `copy_unpack` and `UniversalFMA::fma` are.

use cute_layout::atom::CopyOp;

use crate::writer::Writer;

/// The C type of an N-bit vector (`uint4` for 128 bits).
pub fn vector_type(bits: u32) -> Option<&'static str> {
    Some(match bits {
        8 => "unsigned char",
        16 => "unsigned short",
        32 => "unsigned int",
        64 => "uint2",
        128 => "uint4",
        _ => return None,
    })
}

/// `dst = src` for one `bits`-wide vector at the element references `src`, `dst` (`A[...]`)
/// whose elements are `elem_bits` wide.
pub fn copy(w: &mut Writer, op: CopyOp, elem_bits: u32, src: &str, dst: &str) -> Option<()> {
    let CopyOp::UniversalCopy { bits } = op else {
        return None;
    };
    if bits == elem_bits {
        w.line(format!("{dst} = {src};"));
    } else {
        let t = vector_type(bits)?;
        w.line(format!(
            "*reinterpret_cast<{t}*>(&{dst}) = *reinterpret_cast<const {t}*>(&{src});"
        ));
    }
    Some(())
}

/// `c = fma(a, b, c)` for `float` fragments' elements.
pub fn fma(w: &mut Writer, a: &str, b: &str, c: &str) {
    w.line(format!("{c} = fmaf({a}, {b}, {c});"));
}
