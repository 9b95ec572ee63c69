//! The SM90 warpgroup MMAs (`SM90_64xNxK_{F32,F16,S32}..._{SS,RS}`): one
//! `wgmma.mma_async.sync.aligned` per atom, B (and A, SS) read from shared memory through matrix
//! descriptors, wrapped in a device function per atom whose operands are the accumulator's
//! registers (N/2 floats or 32-bit integers, or N/4 registers of two FP16 values each) and the
//! 64-bit descriptors, as CuTe's `SM90::GMMA::MMA_64xNxK_*::fma` takes them.
//! The descriptors are [`cute_layout::atom::make_gmma_desc`]'s, their constant fields computed
//! here from the tile's layout and their start address at run time
//! (`cute_gmma_desc(fields, address)`). The fences and groups that order them
//! (`wgmma.fence`, `commit_group`, `wait_group`, `fence.proxy.async`) are here too.

use cute_layout::atom::{Gmma, GmmaMajor};
use cute_layout::ElemType;

use crate::writer::Writer;

/// The PTX type of a GMMA operand (`None`: not lowered here).
fn ptx_type(t: ElemType) -> Option<&'static str> {
    Some(match t {
        ElemType::F16 => "f16",
        ElemType::Bf16 => "bf16",
        ElemType::Tf32 => "tf32",
        ElemType::E4M3 => "e4m3",
        ElemType::E5M2 => "e5m2",
        ElemType::I8 => "s8",
        ElemType::U8 => "u8",
        _ => return None,
    })
}

/// The device function name of an atom (`cute_sm90_64x64x16_f32f16f16_ss_k_k`).
pub fn name(g: &Gmma) -> String {
    let mut s = String::from("cute_");
    let mut last = '_';
    for c in g.to_string().chars() {
        let c = if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '_'
        };
        if c != '_' || last != '_' {
            s.push(c);
        }
        last = c;
    }
    s.trim_end_matches('_').to_string()
}

/// The 32-bit registers of a register-sourced A (RS): the warpgroup's 64 x K values of A, `64 K
/// / 128` a thread, packed (4 for every type: 8 16-bit values, 4 TF32, 16 FP8).
pub const RS_A_REGISTERS: i64 = 4;

/// A GMMA accumulator's registers: the PTX type, the C++ type of a register and its asm
/// constraint, and how many registers a thread holds of a 64 x N tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accumulator {
    pub ptx: &'static str,
    pub ctype: &'static str,
    pub constraint: &'static str,
    pub registers: i64,
}

/// The accumulator of `g` (`None`: not lowered): FP32 and S32 one value a register (N/2), FP16
/// two a register (N/4, value `2r` in the low half of register `r`, as CuTe's `uint32_t`
/// fragments of `half_t` pairs hold them).
pub fn accumulator(g: &Gmma) -> Option<Accumulator> {
    let n = g.mnk().1;
    let (ptx, ctype, constraint, per) = match g.d {
        ElemType::F32 => ("f32", "float", "+f", 2),
        ElemType::F16 => ("f16", "unsigned", "+r", 4),
        ElemType::I32 => ("s32", "int", "+r", 2),
        _ => return None,
    };
    Some(Accumulator {
        ptx,
        ctype,
        constraint,
        registers: n / per,
    })
}

/// The PTX of one warpgroup MMA over the accumulator's registers (`%0..`): A's descriptor (SS)
/// or its 4 registers (RS), then B's descriptor, the scale-d predicate from the operand after
/// them (0: D = A * B, 1: D += A * B); the floating-point MMAs take the input scales after it,
/// the integer ones none.
pub fn ptx(g: &Gmma) -> Option<String> {
    let (_, n, k) = g.mnk();
    let acc = accumulator(g)?;
    let (ta, tb) = (ptx_type(g.a)?, ptx_type(g.b)?);
    let regs = acc.registers;
    let d: Vec<String> = (0..regs).map(|i| format!("%{i}")).collect();
    let scale = |neg: bool| if neg { "-1" } else { "1" };
    // only the 16-bit types take the transpose immediates (1: MN-major); a register A has none
    let t = |m: GmmaMajor| if m == GmmaMajor::MN { "1" } else { "0" };
    let trans = match (g.a.bits(), g.a_in_registers) {
        (16, false) => format!(", {}, {}", t(g.major_a), t(g.major_b)),
        (16, true) => format!(", {}", t(g.major_b)),
        _ => String::new(),
    };
    let (a, b) = match g.a_in_registers {
        false => (format!("%{regs}"), regs + 1),
        true => {
            let a: Vec<String> = (0..RS_A_REGISTERS)
                .map(|i| format!("%{}", regs + i))
                .collect();
            (format!("{{{}}}", a.join(", ")), regs + RS_A_REGISTERS)
        }
    };
    let scales = match g.d {
        ElemType::I32 => String::new(),
        _ => format!(", {}, {}", scale(g.negate_a), scale(g.negate_b)),
    };
    Some(format!(
        "wgmma.mma_async.sync.aligned.m64n{n}k{k}.{}.{ta}.{tb} {{{}}}, {a}, %{b}, p{scales}{trans};",
        acc.ptx,
        d.join(", "),
    ))
}

/// The device function of a GMMA atom: its name and definition (`None` for one not lowered).
/// A register A (RS) is its 4 packed registers `a0..a3`.
pub fn helper(g: &Gmma) -> Option<(String, String)> {
    let ptx = ptx(g)?;
    let acc = accumulator(g)?;
    let regs = acc.registers;
    let name = name(g);
    let a_params: Vec<String> = match g.a_in_registers {
        false => vec!["unsigned long long desc_a".into()],
        true => (0..RS_A_REGISTERS)
            .map(|i| format!("unsigned a{i}"))
            .collect(),
    };
    let params: Vec<String> = (0..regs)
        .map(|i| format!("{}& d{i}", acc.ctype))
        .chain(a_params)
        .chain(["unsigned long long desc_b".into(), "int scale_d".into()])
        .collect();
    let outs: Vec<String> = (0..regs)
        .map(|i| format!("\"{}\"(d{i})", acc.constraint))
        .collect();
    let (a_ins, a_what, scale_at) = match g.a_in_registers {
        false => (
            "\"l\"(desc_a), ".to_string(),
            "A and B by descriptor",
            regs + 2,
        ),
        true => (
            (0..RS_A_REGISTERS)
                .map(|i| format!("\"r\"(a{i}), "))
                .collect::<String>(),
            "A from registers, B by descriptor",
            regs + RS_A_REGISTERS + 1,
        ),
    };
    let mut w = Writer::new();
    w.comment(format!("{g}: {ptx} (D += A * B, {a_what})"));
    w.open(format!(
        "__device__ __forceinline__ void {name}({})",
        params.join(", ")
    ));
    w.line(format!(
        "asm volatile(\"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{scale_at}, 0;\\n{ptx}\\n}}\\n\" : {} : {a_ins}\"l\"(desc_b), \"r\"(scale_d));",
        outs.join(", ")
    ));
    w.close("");
    Some((name, w.finish()))
}

/// `cute_gmma_desc(fields, address)`: a descriptor's constant fields with the 14-bit start
/// address (`address >> 4`) of a shared-window byte address.
pub const DESC_FN: &str = "__device__ __forceinline__ unsigned long long cute_gmma_desc(unsigned long long fields, unsigned address) { return fields | static_cast<unsigned long long>((address >> 4) & 0x3fffu); }";

/// `fence.proxy.async.shared::cta`.
pub fn fence_proxy_async(w: &mut Writer) {
    w.line("asm volatile(\"fence.proxy.async.shared::cta;\\n\" ::: \"memory\");");
}

/// `wgmma.fence.sync.aligned`.
pub fn fence(w: &mut Writer) {
    w.line("asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: \"memory\");");
}

/// `wgmma.commit_group.sync.aligned`.
pub fn commit(w: &mut Writer) {
    w.line("asm volatile(\"wgmma.commit_group.sync.aligned;\\n\" ::: \"memory\");");
}

/// `wgmma.wait_group.sync.aligned n`.
pub fn wait(w: &mut Writer, n: i64) {
    w.line(format!(
        "asm volatile(\"wgmma.wait_group.sync.aligned {n};\\n\" ::: \"memory\");"
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use cute_layout::atom::MmaOp;

    fn gmma(name: &str, args: &[&str]) -> Gmma {
        match MmaOp::from_name_args(name, args).unwrap().unwrap() {
            MmaOp::Sm90(g) => g,
            op => panic!("{op}"),
        }
    }

    #[test]
    fn the_fp16_atom_takes_n_over_2_floats_and_two_descriptors() {
        let g = gmma(
            "SM90_64x64x16_F32F16F16_SS",
            &["GMMA::Major::K", "GMMA::Major::MN"],
        );
        let (name, def) = helper(&g).unwrap();
        assert_eq!(
            name,
            "cute_sm90_64x64x16_f32f16f16_ss_gmma_major_k_gmma_major_mn"
        );
        assert!(
            def.contains("float& d31, unsigned long long desc_a"),
            "{def}"
        );
        assert!(
            def.contains("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1,"),
            "{def}"
        );
        assert!(def.contains("%31}, %32, %33, p, 1, 1, 0, 1;"), "{def}");
        let t = gmma("SM90_64x8x8_F32TF32TF32_SS_TN", &[]);
        assert!(ptx(&t)
            .unwrap()
            .ends_with("{%0, %1, %2, %3}, %4, %5, p, 1, 1;"));
        // a register A: its 4 packed registers after the accumulator, B's transpose only
        let rs = gmma(
            "SM90_64x64x16_F32F16F16_RS",
            &["GMMA::Major::K", "GMMA::Major::MN"],
        );
        let (_, def) = helper(&rs).unwrap();
        assert!(def.contains("float& d31, unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned long long desc_b, int scale_d)"), "{def}");
        assert!(
            def.contains("%31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;"),
            "{def}"
        );
        assert!(def.contains("setp.ne.b32 p, %37, 0;"), "{def}");
        assert!(
            def.contains(
                ": \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"l\"(desc_b), \"r\"(scale_d));"
            ),
            "{def}"
        );
    }

    #[test]
    fn an_fp16_accumulator_is_n_over_4_registers_and_an_integer_one_has_no_scales() {
        let f16 = gmma(
            "SM90_64x64x16_F16F16F16_SS",
            &["GMMA::Major::K", "GMMA::Major::MN"],
        );
        let (_, def) = helper(&f16).unwrap();
        assert!(
            def.contains("unsigned& d15, unsigned long long desc_a"),
            "{def}"
        );
        assert!(
            def.contains("wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 {%0, %1,"),
            "{def}"
        );
        assert!(def.contains("%15}, %16, %17, p, 1, 1, 0, 1;"), "{def}");
        assert!(def.contains("\"+r\"(d15)"), "{def}");
        let fp8 = gmma("SM90_64x32x32_F16E4M3E5M2_SS_TN", &[]);
        assert!(ptx(&fp8)
            .unwrap()
            .starts_with("wgmma.mma_async.sync.aligned.m64n32k32.f16.e4m3.e5m2 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1;"));
        let s8 = gmma("SM90_64x16x32_S32S8U8_SS_TN", &[]);
        assert_eq!(
            ptx(&s8).unwrap(),
            "wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.u8 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p;"
        );
        let (_, def) = helper(&s8).unwrap();
        assert!(def.contains("int& d7, unsigned long long desc_a"), "{def}");
    }
}
