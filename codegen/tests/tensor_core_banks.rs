//! The shared tiles of the tensor-core GEMMs are conflict-free for both the `cp.async` writes
//! and the fragment reads (`gemm::banks`, warp 0; the SM90 GEMMs' wgmmas read by descriptor, so
//! their writes alone, and the TMA kernels' headers give their boxes instead), the figures are
//! in the kernel's header, and
//! the swizzle search departs from the conventional `Sw<3,2,3>` where that one conflicts.

use cute_codegen::gemm::banks::tensor_core_operand;
use cute_codegen::gemm::Policy;
use cute_codegen::named::{plan, TENSOR_CORE_NAMES};
use cute_codegen::recipes::gemm;
use cute_codegen::GemmLayout;
use cute_layout::atom::Operand;
use cute_layout::{compose_swizzle, AnyLayout, Swizzle};

#[test]
fn every_tensor_core_tile_is_conflict_free_and_says_so() {
    for name in TENSOR_CORE_NAMES {
        for layout in GemmLayout::all() {
            let Ok(p) = plan(name, layout) else {
                // TF32 and FP8 GMMAs are K-major only
                assert!(
                    name.starts_with("tf32gemm-sm90") || name.starts_with("fp8gemm-sm90"),
                    "{name} {layout}"
                );
                continue;
            };
            let k = gemm(&p).unwrap();
            if matches!(&p.policy, Policy::TensorCore(tc) if tc.tma) {
                // loaded by TMA: no thread writes the stages, the header gives the boxes
                let boxes = k
                    .notes
                    .iter()
                    .filter(|n| n.contains("loaded by TMA, box {"));
                assert_eq!(boxes.count(), 2, "{name} {layout}: {:?}", k.notes);
                continue;
            }
            let notes: Vec<&String> = k
                .notes
                .iter()
                .filter(|n| n.contains("bank conflicts of s"))
                .collect();
            assert_eq!(notes.len(), 2, "{name} {layout}: {:?}", k.notes);
            for n in notes {
                assert!(
                    n.contains("writes max_ways=1 (128-bit)"),
                    "{name} {layout}: {n}"
                );
                // a GMMA reads its tiles by descriptor: only the copies' writes are the kernel's
                let reads = if name.contains("-sm90") {
                    "the MMA by descriptor"
                } else {
                    "reads max_ways=1 ("
                };
                assert!(n.contains(reads), "{name} {layout}: {n}");
            }
        }
    }
}

/// TF32 M-major A: its fragment is read one 32-bit value at a time, lanes 8 rows (M) by 4
/// columns (K) apart. `Sw<3,2,3>` over 32 x 8 atoms (CUTLASS's SM80 TF32 M-major atom) maps K
/// columns 0 and 1 onto the same banks (2-way); `Sw<2,3,2>` XORs K into bank bits 3-4 (1-way),
/// and the search picks it.
#[test]
fn the_tf32_mn_major_tile_avoids_the_two_way_swizzle() {
    let p = plan("tf32gemm-sm80", GemmLayout::parse("NN").unwrap()).unwrap();
    let Policy::TensorCore(tc) = &p.policy else {
        panic!("{p:?}")
    };
    let AnyLayout::Composed(chosen) = &tc.smem_a else {
        panic!("{:?}", tc.smem_a)
    };
    assert_eq!(chosen.layout_a(), Swizzle::new(2, 3, 2).unwrap());
    let banks = |sw: Swizzle| {
        let l = compose_swizzle(sw, chosen.layout_b());
        tensor_core_operand(
            &tc.mma,
            Operand::A,
            &tc.copy_a,
            tc.s2r_a.as_ref().unwrap(),
            &l,
            32,
        )
        .unwrap()
    };
    let conventional = banks(Swizzle::new(3, 2, 3).unwrap());
    assert_eq!((conventional.writes, conventional.reads), (1, 2));
    assert_eq!(conventional.read_bits, 32);
    let ours = banks(chosen.layout_a());
    assert_eq!((ours.writes, ours.reads), (1, 1));
}
