//! `UniversalCopy<uintN_t>` and `UniversalFMA`: plain C++ assignments of an N-bit vector type and
//! `fmaf`, as CuTe's `copy_unpack` and `UniversalFMA::fma` are.

use cute_layout::atom::CopyOp;

use super::Needs;
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

/// One side of a vector copy of floats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Side {
    /// Register elements, one C reference each (`rA[4]`).
    Regs(Vec<String>),
    /// A shared buffer, the offset of the vector's first element (written through it) and
    /// the 32-bit shared-window byte address of that element (read at it, `ld.shared.v4.f32`).
    Shared {
        name: String,
        off: String,
        addr: String,
    },
    /// Global memory: the reference of the vector's first element (`C[...]`).
    Mem(String),
}

impl Side {
    /// Whether the side is register elements.
    pub fn is_regs(&self) -> bool {
        matches!(self, Side::Regs(_))
    }
}

/// The `ld.shared.v2/v4.f32` helpers at a 32-bit shared-window byte address (a buffer's window
/// address, `cute_smem_u32`, plus a byte offset), so the k-block reads of a fragment differ by
/// an immediate offset.
pub const LDS_FNS: &str = "__device__ __forceinline__ unsigned cute_smem_u32(const void* p) {\n  return static_cast<unsigned>(__cvta_generic_to_shared(p));\n}\n__device__ __forceinline__ float4 cute_lds128(unsigned a) {\n  float4 v;\n  asm volatile(\"ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\\n\" : \"=f\"(v.x), \"=f\"(v.y), \"=f\"(v.z), \"=f\"(v.w) : \"r\"(a));\n  return v;\n}\n__device__ __forceinline__ float2 cute_lds64(unsigned a) {\n  float2 v;\n  asm volatile(\"ld.shared.v2.f32 {%0, %1}, [%2];\\n\" : \"=f\"(v.x), \"=f\"(v.y) : \"r\"(a));\n  return v;\n}";

/// A vector of `lanes` (2 or 4) floats between registers and memory: a `float4`/`float2` load
/// whose lanes are assigned to the register elements, or a store of the register elements as
/// one (`make_float4`), so no register fragment has its address taken.
pub fn copy_f32_vector(w: &mut Writer, lanes: usize, src: &Side, dst: &Side, needs: &mut Needs) {
    let ty = if lanes == 4 { "float4" } else { "float2" };
    let fields = &["x", "y", "z", "w"][..lanes.min(4)];
    let value = match src {
        Side::Regs(r) => format!("make_{ty}({})", r.join(", ")),
        Side::Shared { addr, .. } => {
            needs.lds = true;
            let f = if lanes == 4 {
                "cute_lds128"
            } else {
                "cute_lds64"
            };
            format!("{f}({addr})")
        }
        Side::Mem(m) => format!("*reinterpret_cast<const {ty}*>(&{m})"),
    };
    match dst {
        Side::Regs(r) => {
            let lanes: Vec<String> = r
                .iter()
                .zip(fields)
                .map(|(x, f)| format!("{x} = v.{f};"))
                .collect();
            w.line(format!("{{ const {ty} v = {value}; {} }}", lanes.join(" ")));
        }
        Side::Shared { name, off, .. } => {
            w.line(format!(
                "*reinterpret_cast<{ty}*>(&{name}[{off}]) = {value};"
            ));
        }
        Side::Mem(m) => {
            w.line(format!("*reinterpret_cast<{ty}*>(&{m}) = {value};"));
        }
    }
}
