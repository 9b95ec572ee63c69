//! 16-bit register fragments held two values per 32-bit register: a fragment that only
//! `ldmatrix` fills and only `mma.sync` reads (as A or B) never needs one of its values alone,
//! so the CUDA declares it `unsigned` of half the size, `ldmatrix` writes its registers straight
//! into it and the MMA passes them straight on (value `2r` in the low half of register `r`, the
//! order both atoms use). Without it each register is split into two `unsigned short` on the
//! way in and packed again on the way out, which ptxas folds away but NVRTC's front end and
//! optimizer spend about a quarter of a tensor-core GEMM's compile on.

use std::collections::BTreeSet;

use cute_layout::atom::{CopyOp, MmaOp};
use cute_layout::Engine;

use crate::ir::{Kernel, Stmt};

/// The register buffers of 16-bit values held as pairs: every use an `ldmatrix` destination, an
/// `stmatrix` source or
/// a warp MMA's A or B operand, and an even number of values.
pub fn paired_registers(k: &Kernel) -> BTreeSet<String> {
    let mut paired: BTreeSet<String> = k
        .regs
        .iter()
        .filter(|r| r.elem.bits() == 16 && r.size % 2 == 0)
        .map(|r| r.name.clone())
        .collect();
    let mut ok: BTreeSet<String> = BTreeSet::new();
    let mut bad: BTreeSet<String> = BTreeSet::new();
    crate::ir::visit_stmts(&k.body, &mut |s| {
        let (fits, others): (Vec<&cute_layout::Tensor>, Vec<&cute_layout::Tensor>) = match s {
            Stmt::Copy { atom, src, dst, .. } => match atom.op() {
                CopyOp::LdsmN { .. } | CopyOp::LdsmT { .. } => (vec![dst], vec![src]),
                CopyOp::StsmN { .. } | CopyOp::StsmT { .. } => (vec![src], vec![dst]),
                _ => (vec![], vec![src, dst]),
            },
            Stmt::Gemm { atom, a, b, c, .. }
                if !matches!(atom.op(), MmaOp::UniversalFma { .. }) =>
            {
                (vec![a, b], vec![c])
            }
            Stmt::Gemm { a, b, c, .. } => (vec![], vec![a, b, c]),
            Stmt::Map { dst, srcs, .. } => (vec![], srcs.iter().chain([dst]).collect()),
            Stmt::Reduce { src, .. } => (vec![], vec![src]),
            _ => (vec![], vec![]),
        };
        ok.extend(fits.into_iter().filter_map(buffer));
        bad.extend(others.into_iter().filter_map(buffer));
    });
    paired.retain(|r| ok.contains(r) && !bad.contains(r));
    paired
}

/// The 16-bit register buffers a warpgroup MMA accumulates into (an FP16 GMMA accumulator):
/// `wgmma` reads and writes them as registers of two values each while it runs, so they are
/// declared as pairs too, and every other statement reads and writes their values one at a
/// time through a 16-bit view of the same registers (as CuTe `recast`s its `uint32_t`
/// accumulator fragments).
pub fn accumulator_pairs(k: &Kernel) -> BTreeSet<String> {
    let sixteen: BTreeSet<&str> = k
        .regs
        .iter()
        .filter(|r| r.elem.bits() == 16 && r.size % 2 == 0)
        .map(|r| r.name.as_str())
        .collect();
    let mut out = BTreeSet::new();
    crate::ir::visit_stmts(&k.body, &mut |s| {
        if let Stmt::Gemm { atom, c, .. } = s {
            if matches!(atom.op(), MmaOp::Sm90(_)) {
                out.extend(buffer(c).filter(|b| sixteen.contains(b.as_str())));
            }
        }
    });
    out
}

fn buffer(t: &cute_layout::Tensor) -> Option<String> {
    match t.engine() {
        Engine::Ptr(p) => Some(p.name.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{named, recipes, GemmLayout};

    #[test]
    fn ldmatrix_and_mma_fragments_are_paired_and_the_epilogues_are_not() {
        let p = named::plan("hgemm-sm80", GemmLayout::parse("TN").unwrap())
            .unwrap()
            .with_output(cute_layout::ElemType::F16)
            .unwrap();
        let k = recipes::gemm(&p).unwrap();
        let paired = paired_registers(&k);
        // rC and rY hold 16-bit C values one at a time (the epilogue's map reads and writes them)
        assert_eq!(paired.into_iter().collect::<Vec<_>>(), ["rA", "rB"]);
        let text = crate::cuda::emit(&k).unwrap().source;
        assert!(
            text.contains("unsigned rA[32]; // 64 half_t, two per register"),
            "{text}"
        );
        assert!(text.contains("unsigned short rC[4];"), "{text}");
        assert!(!text.contains("cute_pack16"), "{text}");
        // FP32 fragments (tf32gemm-sm80, the SIMT GEMMs) are not 16-bit
        for name in ["tf32gemm-sm80", "sgemm-sm80"] {
            let p = named::plan(name, GemmLayout::parse("TN").unwrap()).unwrap();
            assert!(paired_registers(&recipes::gemm(&p).unwrap()).is_empty());
        }
    }
}
