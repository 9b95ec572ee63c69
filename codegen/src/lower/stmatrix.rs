//! `SM90_U32x{1,2,4}_STSM_N` and `SM90_U16x{2,4,8}_STSM_T`: `stmatrix[.trans]`, its PTX taken
//! from the atom (`CopyOp::ptx`), wrapped in a device function per form: each thread passes
//! the 32-bit shared-window address of its 16-byte row of the destination and 1, 2 or 4
//! registers of its source fragment, two 16-bit values each (value `2r` the low half of
//! register `r`, CuTe's `SrcLayout`): `ldmatrix` the other way round.

use cute_layout::atom::CopyOp;
use cute_layout::ElemType;

use crate::writer::Writer;

/// The number of 8x8 matrices (registers per thread) of an `stmatrix` atom.
pub fn matrices(op: CopyOp) -> Option<u32> {
    match op {
        CopyOp::StsmN { matrices } | CopyOp::StsmT { matrices } => Some(matrices),
        _ => None,
    }
}

/// The values an `stmatrix` atom moves per thread, `(source, destination)`: two 16-bit values
/// per register it passes, and the 16-byte row it points at; `None` for other widths.
pub fn values(op: CopyOp, elem: ElemType) -> Option<(i64, i64)> {
    let m = i64::from(matrices(op)?);
    (elem.bits() == 16).then_some((2 * m, 8))
}

/// The device function of an `stmatrix` form: its name and definition.
pub fn helper(op: CopyOp) -> Option<(String, String)> {
    let n = matrices(op)?;
    let ptx = op.ptx()?;
    let t = if matches!(op, CopyOp::StsmT { .. }) {
        "_t"
    } else {
        ""
    };
    let name = format!("cute_stsm_x{n}{t}");
    let params: Vec<String> = std::iter::once("unsigned addr".to_string())
        .chain((0..n).map(|i| format!("unsigned r{i}")))
        .collect();
    let ins: Vec<String> = std::iter::once("\"r\"(addr)".to_string())
        .chain((0..n).map(|i| format!("\"r\"(r{i})")))
        .collect();
    let mut w = Writer::new();
    w.comment(format!("{op}: {ptx}"));
    w.open(format!(
        "__device__ __forceinline__ void {name}({})",
        params.join(", ")
    ));
    w.line(format!(
        "asm volatile(\"{ptx}\\n\" :: {} : \"memory\");",
        ins.join(", ")
    ));
    w.close("");
    Some((name, w.finish()))
}

/// One `stmatrix` at the byte address `addr` of the source's 16-bit element references `src`,
/// in the atom's source value order, packed two to a register (`cute_pack16`).
pub fn call(w: &mut Writer, name: &str, addr: &str, src: &[String]) {
    let regs: Vec<String> = src
        .chunks(2)
        .map(|p| format!("cute_pack16({}, {})", p[0], p.get(1).unwrap_or(&p[0])))
        .collect();
    w.line(format!("{name}({addr}, {});", regs.join(", ")));
}

/// One `stmatrix` at `addr` straight from the 32-bit registers `regs` of a fragment that holds
/// its 16-bit values in pairs (`passes::paired_registers`).
pub fn call_from(w: &mut Writer, name: &str, addr: &str, regs: &[String]) {
    w.line(format!("{name}({addr}, {});", regs.join(", ")));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stmatrix_x4_trans_takes_an_address_and_four_registers() {
        let (name, def) = helper(CopyOp::StsmT { matrices: 4 }).unwrap();
        assert_eq!(name, "cute_stsm_x4_t");
        assert!(
            def.contains("stmatrix.sync.aligned.x4.trans.m8n8.shared.b16 [%0], {%1, %2, %3, %4};"),
            "{def}"
        );
        assert!(
            def.contains(":: \"r\"(addr), \"r\"(r0), \"r\"(r1), \"r\"(r2), \"r\"(r3) : \"memory\""),
            "{def}"
        );
        assert_eq!(
            values(CopyOp::StsmT { matrices: 4 }, ElemType::Bf16),
            Some((8, 8))
        );
        assert_eq!(values(CopyOp::StsmN { matrices: 2 }, ElemType::F32), None);
        assert!(helper(CopyOp::LdsmN { matrices: 4 }).is_none());
        let mut w = Writer::new();
        let src: Vec<String> = (0..4).map(|i| format!("rC[{i}]")).collect();
        call(&mut w, "cute_stsm_x2_t", "a", &src);
        assert_eq!(
            w.finish().trim(),
            "cute_stsm_x2_t(a, cute_pack16(rC[0], rC[1]), cute_pack16(rC[2], rC[3]));"
        );
    }
}
