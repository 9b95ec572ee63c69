//! `SM75_U32x{1,2,4}_LDSM_N` and `SM75_U16x{2,4,8}_LDSM_T`: `ldmatrix[.trans]`, its PTX taken
//! from the atom (`CopyOp::ptx`), wrapped in a device function per form: each thread passes the
//! 32-bit shared-window address of its 16-byte row and receives 1, 2 or 4 registers, which the
//! caller splits into the destination fragment's 16-bit values (value `2r` the low half of
//! register `r`, CuTe's `DstLayout`).

use cute_layout::atom::CopyOp;
use cute_layout::ElemType;

use crate::writer::Writer;

/// The number of 8x8 matrices (registers per thread) of an `ldmatrix` atom.
pub fn matrices(op: CopyOp) -> Option<u32> {
    match op {
        CopyOp::LdsmN { matrices } | CopyOp::LdsmT { matrices } => Some(matrices),
        _ => None,
    }
}

/// The values an `ldmatrix` atom moves per thread, `(source, destination)`: the 16-byte row
/// it points at, and one 32-bit register per matrix it receives (two 16-bit values each, or one
/// 32-bit value, as CuTe's `Copy_Atom<SM75_U32x4_LDSM_N, tfloat32_t>` moves them); `None` for
/// other widths and for a transposing one of 32-bit values (it transposes 16-bit halves).
pub fn values(op: CopyOp, elem: ElemType) -> Option<(i64, i64)> {
    let m = i64::from(matrices(op)?);
    match elem.bits() {
        16 => Some((8, 2 * m)),
        32 if matches!(op, CopyOp::LdsmN { .. }) => Some((4, m)),
        _ => None,
    }
}

/// The device function of an `ldmatrix` form: its name and definition.
pub fn helper(op: CopyOp) -> Option<(String, String)> {
    let n = matrices(op)?;
    let ptx = op.ptx()?;
    let t = if matches!(op, CopyOp::LdsmT { .. }) {
        "_t"
    } else {
        ""
    };
    let name = format!("cute_ldsm_x{n}{t}");
    let params: Vec<String> = std::iter::once("unsigned addr".to_string())
        .chain((0..n).map(|i| format!("unsigned& r{i}")))
        .collect();
    let outs: Vec<String> = (0..n).map(|i| format!("\"=r\"(r{i})")).collect();
    let mut w = Writer::new();
    w.comment(format!("{op}: {ptx}"));
    w.open(format!(
        "__device__ __forceinline__ void {name}({})",
        params.join(", ")
    ));
    w.line(format!(
        "asm volatile(\"{ptx}\\n\" : {} : \"r\"(addr));",
        outs.join(", ")
    ));
    w.close("");
    Some((name, w.finish()))
}

/// One `ldmatrix` at the byte address `addr` into the element references `dst`, in the atom's
/// destination value order, two 16-bit values per register (`per_register` 2; a TF32
/// fragment's registers, held as their bits, are written in place by [`call_into`]).
pub fn call(w: &mut Writer, name: &str, addr: &str, dst: &[String], per_register: usize) {
    let n = dst.len() / per_register.max(1);
    let regs: Vec<String> = (0..n).map(|i| format!("r{i}")).collect();
    let split: Vec<String> = (0..n)
        .map(|i| match per_register {
            1 => format!("{} = r{i};", dst[i]),
            _ => format!(
                "{} = static_cast<unsigned short>(r{i} & 0xffffu); {} = static_cast<unsigned short>(r{i} >> 16);",
                dst[2 * i],
                dst[2 * i + 1]
            ),
        })
        .collect();
    w.line(format!(
        "{{ unsigned {}; {name}({addr}, {}); {} }}",
        regs.join(", "),
        regs.join(", "),
        split.join(" ")
    ));
}

/// One `ldmatrix` at `addr` straight into the 32-bit registers `regs` of a fragment that holds
/// its 16-bit values in pairs (`passes::paired_registers`).
pub fn call_into(w: &mut Writer, name: &str, addr: &str, regs: &[String]) {
    w.line(format!("{name}({addr}, {});", regs.join(", ")));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ldmatrix_x4_returns_four_registers() {
        let (name, def) = helper(CopyOp::LdsmN { matrices: 4 }).unwrap();
        assert_eq!(name, "cute_ldsm_x4");
        assert!(
            def.contains("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];"),
            "{def}"
        );
        assert!(
            def.contains(": \"=r\"(r0), \"=r\"(r1), \"=r\"(r2), \"=r\"(r3) : \"r\"(addr)"),
            "{def}"
        );
        let (t, _) = helper(CopyOp::LdsmT { matrices: 2 }).unwrap();
        assert_eq!(t, "cute_ldsm_x2_t");
        assert!(helper(CopyOp::UniversalCopy { bits: 128 }).is_none());
    }

    #[test]
    fn each_register_fills_two_values() {
        let mut w = Writer::new();
        let dst: Vec<String> = (0..4).map(|i| format!("rA[{i}]")).collect();
        call(&mut w, "cute_ldsm_x2", "a", &dst, 2);
        let text = w.finish();
        assert!(text.starts_with("{ unsigned r0, r1; cute_ldsm_x2(a, r0, r1); rA[0] = static_cast<unsigned short>(r0 & 0xffffu);"), "{text}");
    }
}
