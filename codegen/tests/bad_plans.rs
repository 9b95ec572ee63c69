//! A plan that breaks an invariant is refused with a typed error naming the plan, the part and the
//! failed condition; nothing panics and no CUDA is written.

use cute_codegen::gemm::{KMajorTile, Policy};
use cute_codegen::{emit, named, CodegenError, GemmLayout, GemmPlan};
use cute_layout::{s, tup, AnyLayout, Layout};

fn sgemm() -> GemmPlan {
    named::plan("sgemm-sm80", GemmLayout::parse("NT").unwrap()).unwrap()
}

fn refused(plan: &GemmPlan, part: &str, needle: &str) {
    match emit(plan) {
        Err(CodegenError::Plan { part: p, msg, .. }) => {
            assert_eq!(p, part, "{msg}");
            assert!(msg.contains(needle), "{part}: {msg:?} lacks {needle:?}");
        }
        other => panic!(
            "expected a plan error for {part}, got {:?}",
            other.map(|k| k.name)
        ),
    }
}

/// The plan's IR kernel (its default emitter), run by the CPU interpreter at a size that does
/// not divide its tile, agrees with the float64 reference.
fn interpreted(plan: &GemmPlan) {
    let kernel = cute_codegen::recipes::gemm(plan).unwrap();
    let mut case = cute_codegen::recipes::gemm_case(plan, (130, 67, 33), -0.75, 7).unwrap();
    cute_codegen::interp::run(&kernel, &mut case.args).unwrap();
    let v = case.check(case.output());
    assert!(v.ok(), "{}: {v:?}", plan.name);
}

fn pipelined(plan: &mut GemmPlan) -> &mut cute_codegen::gemm::Pipelined {
    match &mut plan.policy {
        Policy::Pipelined(p) => p,
        _ => unreachable!("sgemm-sm80 is pipelined"),
    }
}

#[test]
fn cta_tile_not_divided_by_the_mma() {
    let mut plan = sgemm();
    pipelined(&mut plan).cta = (120, 128, 32);
    refused(&plan, "TiledMMA", "does not divide the CTA tile's 120");
}

#[test]
fn copy_threads_differ_from_mma_threads() {
    let mut plan = sgemm();
    let other = named::plan("simt-hier", GemmLayout::parse("NT").unwrap()).unwrap();
    let Policy::Pipelined(q) = other.policy else {
        unreachable!()
    };
    pipelined(&mut plan).copy_a = q.copy_a;
    refused(
        &plan,
        "TiledCopy A",
        "uses 128 threads but the TiledMMA uses 256",
    );
}

#[test]
fn shared_tile_of_the_wrong_shape() {
    let mut plan = sgemm();
    let l = Layout::new(tup![s(64), s(32), s(3)], tup![s(1), s(64), s(2048)]).unwrap();
    pipelined(&mut plan).smem_b = AnyLayout::Plain(l);
    refused(&plan, "shared B", "must have shape (128,32,3)");
}

#[test]
fn too_much_shared_memory() {
    let mut plan = sgemm();
    let p = pipelined(&mut plan);
    p.stages = 8;
    for l in [&mut p.smem_a, &mut p.smem_b] {
        *l = AnyLayout::Plain(
            Layout::new(tup![s(128), s(32), s(8)], tup![s(1), s(128), s(4096)]).unwrap(),
        );
    }
    refused(&plan, "shared memory", "exceed");
}

#[test]
fn every_named_plan_emits() {
    for name in named::NAMES {
        for layout in GemmLayout::all() {
            let plan = named::plan(name, layout).unwrap();
            assert!(emit(&plan).is_ok(), "{name} {layout}");
        }
    }
    assert!(named::plan("no-such-kernel", GemmLayout::parse("NN").unwrap()).is_err());
}

#[test]
fn more_ctas_per_sm_than_shared_memory_allows() {
    let mut plan = sgemm();
    pipelined(&mut plan).min_blocks_per_sm = 3;
    refused(
        &plan,
        "launch bounds",
        "3 CTAs of 98304 bytes of shared memory (and the 1024 the hardware reserves for each) exceed the 233472 bytes of an SM on sm_90a (H100/H200): 2 fit",
    );
}

#[test]
fn k_block_unroll_must_keep_the_indices_static() {
    let mut plan = sgemm();
    pipelined(&mut plan).k_block_unroll = Some(3);
    refused(&plan, "k-block unroll", "3 must be even and divide BK = 32");
    // NN's swizzled B has 8 phases along K: a factor of 4 would index them at run time (its
    // padded B, as named, has none)
    let mut nn = named::plan("sgemm-sm80", GemmLayout::parse("NN").unwrap())
        .and_then(|p| p.with_k_major_tile(KMajorTile::Swizzled))
        .unwrap();
    pipelined(&mut nn).k_block_unroll = Some(4);
    refused(
        &nn,
        "k-block unroll",
        "4 is not a multiple of the 8 swizzle phases of shared B",
    );
    // 8 k blocks per trip of a rolled loop (as named), read from one byte address per trip
    let trips =
        cute_codegen::gemm::emit_template(&nn.clone().with_k_block_unroll(8).unwrap()).unwrap();
    assert!(trips
        .source
        .contains("#pragma unroll 1\n    for (int kb0 = 0; kb0 < 32; kb0 += 8)"));
    assert!(trips
        .source
        .contains("lds128((tB_t ^ 4 * (swizzle_B(kn * 128)"));
    // the whole k-tile unrolled (as the IR writes every plan whose k-tile is; the template's
    // text is checked here)
    let full = cute_codegen::gemm::emit_template(&nn.with_k_block_unroll(32).unwrap()).unwrap();
    assert!(full
        .source
        .contains("#pragma unroll\n    for (int kb = 0; kb < 32; ++kb)"));
    assert!(!full.source.contains("lds128"));
}

#[test]
fn only_a_pipelined_plan_has_a_k_block_unroll() {
    let naive = named::plan("naive-rows", GemmLayout::parse("NN").unwrap()).unwrap();
    let err = naive.with_k_block_unroll(8).unwrap_err().to_string();
    assert!(
        err.contains("naive-rows")
            && err.contains("k-block unroll")
            && err.contains("only a pipelined plan"),
        "{err}"
    );
}

/// The emitter lowers a per-thread FMA outer product: a tensor-core MMA atom would need the
/// `mma.sync` lowering, so it is refused rather than emitted as something else.
#[test]
fn only_universal_fma_is_lowered() {
    use cute_layout::atom::{make_tiled_mma, MmaAtom, MmaOp};
    let mut plan = sgemm();
    let op = MmaOp::from_name("SM80_16x8x8_F32TF32TF32F32_TN").unwrap();
    let mma = make_tiled_mma(
        MmaAtom::new(op),
        &Layout::new(tup![s(2), s(4)], tup![s(1), s(2)]).unwrap(),
        &[],
    )
    .unwrap();
    pipelined(&mut plan).mma = mma;
    refused(&plan, "TiledMMA", "SM80_16x8x8_F32TF32TF32F32_TN");
}

/// FP32 only so far: an FMA over other types is refused with the types it has.
#[test]
fn only_fp32_is_emitted() {
    use cute_layout::atom::{make_tiled_mma, MmaAtom, MmaOp};
    use cute_layout::ElemType::{F16, F32};
    let mut plan = sgemm();
    let p = pipelined(&mut plan);
    let mma = make_tiled_mma(
        MmaAtom::new(MmaOp::universal_fma(F32, F16, F16, F32)),
        &Layout::new(tup![s(16), s(16)], tup![s(1), s(16)]).unwrap(),
        &[],
    )
    .unwrap();
    p.mma = mma;
    refused(&plan, "TiledMMA", "UniversalFMA<float,half_t,half_t,float>");
}

#[test]
fn a_copy_of_other_values_is_refused() {
    use cute_layout::atom::{make_tiled_copy, CopyAtom, CopyOp};
    use cute_layout::ElemType::F16;
    let mut plan = sgemm();
    // NT: A is M-major, copied as 128-bit vectors by 32 x 8 threads
    let atom = CopyAtom::new(CopyOp::CpAsyncCacheGlobal { bits: 128 }, F16).unwrap();
    let thr = Layout::new(tup![s(32), s(8)], tup![s(1), s(32)]).unwrap();
    let val = Layout::new(tup![s(8), s(1)], tup![s(1), s(0)]).unwrap();
    pipelined(&mut plan).copy_a = make_tiled_copy(&atom, &thr, &val).unwrap();
    refused(&plan, "TiledCopy A", "copies half_t values");
}

/// A partial unroll whose fragment reads cannot take the trip form (here `Sw<1,2,4>` flips B's
/// bit 2 by bit 6, which a thread's second vector (offset 64) sets: the flipped bits are not a
/// function of the k block alone) keeps the same trips through `#pragma unroll N`.
#[test]
fn a_partial_unroll_without_the_trip_form_is_a_pragma_unroll() {
    let mut nn = named::plan("sgemm-sm80", GemmLayout::parse("NN").unwrap()).unwrap();
    let tile = Layout::new(tup![s(128), s(32), s(3)], tup![s(1), s(128), s(4096)]).unwrap();
    let sw = cute_layout::Swizzle::new(1, 2, 4).unwrap();
    pipelined(&mut nn).smem_b = cute_layout::ComposedLayout::composition(sw, s(0), tile);
    interpreted(&nn);
    let k = cute_codegen::gemm::emit_template(&nn).unwrap();
    assert!(k
        .source
        .contains("#pragma unroll 8\n    for (int kb = 0; kb < 32; ++kb)"));
    assert!(!k.source.contains("lds128"));
    // B's reads in the split form, the swizzle of the k block's offset computed per k block
    assert!(k
        .source
        .contains("&sB[(tCsB ^ swizzle_B(kb_next * 128 + 0)) + pipe_read * 4096]"));
}

/// A swizzle whose flipped bits would need the shared memory aligned beyond the 1 KiB the
/// hardware guarantees for the CTA's window (`Sw<1,5,-4>` on `simt-hier`'s B with 4 stages
/// needs 4096; found by a review, where the H200 read wrong addresses) is not emitted in the trip
/// form: the same trips go through `#pragma unroll N`.
#[test]
fn a_trip_form_needing_more_than_1_kib_alignment_is_not_emitted() {
    let mut plan = named::plan("simt-hier", GemmLayout::parse("NN").unwrap()).unwrap();
    let p = pipelined(&mut plan);
    p.stages = 4;
    p.k_block_unroll = Some(2);
    p.smem_a = AnyLayout::Plain(
        Layout::new(tup![s(128), s(8), s(4)], tup![s(1), s(128), s(1024)]).unwrap(),
    );
    let tile_b = Layout::new(tup![s(32), s(8), s(4)], tup![s(1), s(32), s(256)]).unwrap();
    let sw = cute_layout::Swizzle::new(1, 5, -4).unwrap();
    p.smem_b = cute_layout::ComposedLayout::composition(sw, s(0), tile_b);
    // Sw<1,5,-4> XORs bit 5 (k's bit 0) into bit 9 (the stage's bit 1): logical stage 2 lies
    // half in physical stage 0, so the copy into stage kt + 2 races with the reads of stage kt.
    // The IR's hazard check refuses the plan (the template emits it; its text is checked below)
    let ir = emit(&plan).unwrap_err().to_string();
    assert!(
        ir.contains("writes sB while other threads may still read it"),
        "{ir}"
    );
    let k = cute_codegen::gemm::emit_template(&plan).unwrap();
    assert!(!k.source.contains("__align__"), "{}", k.source);
    assert!(!k.source.contains("lds128"));
    assert!(k
        .source
        .contains("#pragma unroll 2\n    for (int kb = 0; kb < 8; ++kb)"));
}

/// Choosing the K-major tiles of a plan without SIMT shared tiles is refused with a typed error
/// naming the plan and the part.
#[test]
fn k_major_tiles_need_a_simt_pipelined_plan() {
    for name in ["sgemm-gemv", "hgemm-sm80", "bgemm-sm90", "naive-rows"] {
        let plan = named::plan(name, GemmLayout::parse("TN").unwrap()).unwrap();
        match plan.with_k_major_tile(KMajorTile::Padded) {
            Err(CodegenError::Plan { plan, part, msg }) => {
                assert_eq!((plan.as_str(), part), (name, "K-major tile"));
                assert!(msg.contains("only a SIMT pipelined plan"), "{msg}");
            }
            other => panic!("{name}: {:?}", other.map(|p| p.name)),
        }
    }
}
