//! The warp MMAs (`SM80_16x8x16_F32F16F16F32_TN`, `SM80_16x8x8_F32TF32TF32F32_TN`, ...):
//! `mma.sync.aligned`, its PTX taken from the atom (`MmaOp::ptx`), wrapped in a device function
//! per atom whose operands are the instruction's 32-bit registers, as CuTe's `SM80_*::fma`
//! takes them. A 16-bit operand packs two values of the atom's value order into a register
//! (value `2r` in the low half), a TF32 one passes a float's bits, an FP32 accumulator is the
//! fragment's elements themselves.

use cute_layout::atom::MmaOp;
use cute_layout::ElemType;

use crate::writer::Writer;

/// The 32-bit registers an operand of `vals` values of type `t` takes (`None`: not lowered,
/// such as FP64 operands).
pub fn registers(vals: i64, t: ElemType) -> Option<i64> {
    match t.bits() {
        32 => Some(vals),
        16 if vals % 2 == 0 => Some(vals / 2),
        8 if vals % 4 == 0 => Some(vals / 4),
        _ => None,
    }
}

/// The per-operand value counts `(A, B, C)` of the atom (its layouts' value modes).
pub fn values(op: MmaOp) -> Option<(i64, i64, i64)> {
    let vals = |l: cute_layout::Layout| l.mode(1).ok()?.size().ok()?.as_static();
    Some((
        vals(op.a_layout())?,
        vals(op.b_layout())?,
        vals(op.c_layout())?,
    ))
}

/// The device function of a warp MMA: its name and definition (`None` for an atom this module
/// does not lower: UniversalFMA, FP64, sub-byte and binary MMAs).
pub fn helper(op: MmaOp) -> Option<(String, String)> {
    let ptx = op.ptx()?;
    let [d, a, b, c] = op.types();
    if d != c || d.bits() > 32 || a.bits() < 8 {
        return None;
    }
    let (va, vb, vc) = values(op)?;
    let (na, nb, nc) = (registers(va, a)?, registers(vb, b)?, registers(vc, c)?);
    let float_acc = matches!(c, ElemType::F32);
    let (cty, ccon) = if float_acc {
        ("float", "f")
    } else {
        ("unsigned", "r")
    };
    let name = format!("cute_{}", op.to_string().to_lowercase());
    let params: Vec<String> = (0..nc)
        .map(|i| format!("{cty}& d{i}"))
        .chain((0..na).map(|i| format!("unsigned a{i}")))
        .chain((0..nb).map(|i| format!("unsigned b{i}")))
        .collect();
    let outs: Vec<String> = (0..nc).map(|i| format!("\"={ccon}\"(d{i})")).collect();
    let ins: Vec<String> = (0..na)
        .map(|i| format!("\"r\"(a{i})"))
        .chain((0..nb).map(|i| format!("\"r\"(b{i})")))
        .chain((0..nc).map(|i| format!("\"{ccon}\"(d{i})")))
        .collect();
    let mut w = Writer::new();
    w.comment(format!("{op}: {ptx} (D = A * B + C in place)"));
    w.open(format!(
        "__device__ __forceinline__ void {name}({})",
        params.join(", ")
    ));
    w.line(format!(
        "asm volatile(\"{ptx}\\n\" : {} : {});",
        outs.join(", "),
        ins.join(", ")
    ));
    w.close("");
    Some((name, w.finish()))
}

/// The C expression of register `r` of an input operand of type `t` whose values are the
/// element references `vals` (in the atom's value order).
pub fn input_register(vals: &[String], r: usize, t: ElemType) -> Option<String> {
    Some(match t.bits() {
        // TF32 values are held as their bits already (`cuda::ctype`)
        32 if t == ElemType::Tf32 => vals.get(r)?.clone(),
        32 if t == ElemType::F32 => format!("__float_as_uint({})", vals.get(r)?),
        32 => format!("static_cast<unsigned>({})", vals.get(r)?),
        16 => format!(
            "cute_pack16({}, {})",
            vals.get(2 * r)?,
            vals.get(2 * r + 1)?
        ),
        _ => return None,
    })
}

/// `cute_pack16(lo, hi)`: two 16-bit values in one register, `lo` in the low half.
pub const PACK16_FN: &str = "__device__ __forceinline__ unsigned cute_pack16(unsigned short lo, unsigned short hi) { return static_cast<unsigned>(lo) | (static_cast<unsigned>(hi) << 16); }";

/// One MMA: `name(d..., a..., b...)` on the accumulator's element references `c` (FP32: passed
/// as they are; 16-bit: packed into registers around the call and unpacked after).
pub fn call(
    w: &mut Writer,
    name: &str,
    c: &[String],
    c_type: ElemType,
    a: &[String],
    b: &[String],
) {
    let ab = a.iter().chain(b).cloned().collect::<Vec<_>>().join(", ");
    if matches!(c_type, ElemType::F32) {
        w.line(format!("{name}({}, {ab});", c.join(", ")));
        return;
    }
    let n = c.len() / 2;
    let pack: Vec<String> = (0..n)
        .map(|i| format!("d{i} = cute_pack16({}, {})", c[2 * i], c[2 * i + 1]))
        .collect();
    let d: Vec<String> = (0..n).map(|i| format!("d{i}")).collect();
    let unpack: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "{} = static_cast<unsigned short>(d{i} & 0xffffu); {} = static_cast<unsigned short>(d{i} >> 16);",
                c[2 * i],
                c[2 * i + 1]
            )
        })
        .collect();
    w.line(format!(
        "{{ unsigned {}; {name}({}, {ab}); {} }}",
        pack.join(", "),
        d.join(", "),
        unpack.join(" ")
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fp16_mma_takes_four_and_two_registers() {
        let op = MmaOp::from_name("SM80_16x8x16_F32F16F16F32_TN").unwrap();
        let (name, def) = helper(op).unwrap();
        assert_eq!(name, "cute_sm80_16x8x16_f32f16f16f32_tn");
        assert!(def.contains("float& d0, float& d1, float& d2, float& d3, unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1"), "{def}");
        assert!(
            def.contains("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
            "{def}"
        );
        assert!(
            def.contains(": \"=f\"(d0), \"=f\"(d1), \"=f\"(d2), \"=f\"(d3) : \"r\"(a0)"),
            "{def}"
        );
    }

    #[test]
    fn a_half_accumulator_is_packed_around_the_call() {
        let op = MmaOp::from_name("SM80_16x8x16_F16F16F16F16_TN").unwrap();
        let (name, def) = helper(op).unwrap();
        assert!(
            def.contains("unsigned& d0, unsigned& d1, unsigned a0"),
            "{def}"
        );
        let mut w = Writer::new();
        let c: Vec<String> = (0..4).map(|i| format!("acc[{i}]")).collect();
        let a: Vec<String> = (0..4).map(|i| format!("a{i}")).collect();
        call(
            &mut w,
            &name,
            &c,
            ElemType::F16,
            &a,
            &["b0".into(), "b1".into()],
        );
        let text = w.finish();
        assert!(
            text.contains(
                "unsigned d0 = cute_pack16(acc[0], acc[1]), d1 = cute_pack16(acc[2], acc[3]);"
            ),
            "{text}"
        );
        assert!(
            text.contains("acc[3] = static_cast<unsigned short>(d1 >> 16);"),
            "{text}"
        );
    }

    #[test]
    fn fp64_and_universal_mmas_are_not_lowered_here() {
        let fma = MmaOp::universal_fma(ElemType::F32, ElemType::F32, ElemType::F32, ElemType::F32);
        assert!(helper(fma).is_none());
        assert_eq!(
            input_register(&["x".into()], 0, ElemType::Tf32).unwrap(),
            "x"
        );
        assert_eq!(
            input_register(&["x".into()], 0, ElemType::F32).unwrap(),
            "__float_as_uint(x)"
        );
    }
}
