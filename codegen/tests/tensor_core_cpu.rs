//! The SM80 tensor-core GEMMs (`named::TENSOR_CORE_NAMES`) as IR kernels, run by the CPU
//! interpreter (every `ldmatrix` and `mma.sync` executed per warp by the atoms' thread-value
//! layouts) at sizes that do and do not divide the CTA tile and over more k-tiles than stages,
//! with `beta = 0` over a NaN C and with `beta != 0`, against the float64 product of the
//! rounded 16-bit operands.

mod common;

use common::check_plan;
use cute_codegen::interp::run;
use cute_codegen::interp::Arg;
use cute_codegen::ir::{MbarrierOp, Stmt};
use cute_codegen::named::{plan, TENSOR_CORE_NAMES};
use cute_codegen::recipes::{gemm, gemm_case};
use cute_codegen::{GemmLayout, GemmPlan};
use cute_layout::ElemType::{self, Bf16, F16, F32};

fn check(name: &str, layout: GemmLayout, size: (i64, i64, i64), beta: f64) {
    check_plan(&plan(name, layout).unwrap(), size, beta);
}

/// Every layout of `name` at sizes 1, 17 and 130x67x33 (ragged tiles) and 33x40x300 (five
/// k-tiles of 64 over three stages, each stage refilled), beta 0 and 0.5.
fn every_layout(name: &str) {
    for layout in GemmLayout::all() {
        for size in [(1, 1, 1), (17, 17, 17), (130, 67, 33), (33, 40, 300)] {
            for beta in [0.0, 0.5] {
                check(name, layout, size, beta);
            }
        }
    }
}

#[test]
fn hgemm_agrees_with_float64_on_the_cpu() {
    assert!(TENSOR_CORE_NAMES.contains(&"hgemm-sm80"));
    every_layout("hgemm-sm80");
}

/// TF32 in every layout: K-major operands through `ldmatrix`, MN-major ones through 32-bit
/// shared loads (ldmatrix.trans cannot transpose 32-bit values).
#[test]
fn tf32gemm_agrees_with_float64_on_the_cpu() {
    every_layout("tf32gemm-sm80");
}

/// C of FP16 or BF16: the case's C is of that type (rounded on the host, read back by the
/// interpreter as the kernel stores it) and agrees with the float64 reference within the FP32
/// bound plus half an ulp of C's type, in every layout at 1 and 130x67x33 (ragged), beta 0 and
/// 0.5; over five k-tiles in TN; tf32gemm-sm80 in TN writes a 16-bit C too.
#[test]
fn a_16_bit_c_agrees_with_float64_on_the_cpu() {
    let with = |name: &str, layout: GemmLayout, out: ElemType| {
        plan(name, layout).unwrap().with_output(out).unwrap()
    };
    for (name, out) in [
        ("hgemm-sm80", F16),
        ("bgemm-sm80", Bf16),
        ("hgemm-sm80", Bf16),
    ] {
        for layout in GemmLayout::all() {
            let p = with(name, layout, out);
            assert_eq!(p.output_type(), out);
            let c = gemm_case(&p, (17, 17, 17), 0.5, 1).unwrap();
            assert!(matches!(&c.args[9], Arg::Buffer(b) if b.elem == out));
            for beta in [0.0, 0.5] {
                check_plan(&p, (1, 1, 1), beta);
                check_plan(&p, (130, 67, 33), beta);
            }
        }
    }
    let tn = GemmLayout::parse("TN").unwrap();
    check_plan(&with("hgemm-sm80", tn, F16), (33, 40, 300), 0.5);
    check_plan(&with("tf32gemm-sm80", tn, F16), (130, 67, 33), 0.5);
}

/// The fused epilogue of the core on the tensor-core path: a bias per row or per column, then
/// ReLU, with an FP32 or a 16-bit C, ragged tiles, beta 0 and 0.5.
#[test]
fn a_bias_and_relu_fuse_into_the_tensor_core_epilogue() {
    use cute_codegen::gemm::{Bias, Epilogue};
    for (name, bias, out) in [
        ("hgemm-sm80", Bias::PerRow, F32),
        ("hgemm-sm80", Bias::PerCol, F16),
        ("bgemm-sm80", Bias::PerRow, Bf16),
    ] {
        for layout in [
            GemmLayout::parse("TN").unwrap(),
            GemmLayout::parse("NT").unwrap(),
        ] {
            let mut p = plan(name, layout).unwrap().with_output(out).unwrap();
            p.epilogue = Epilogue::bias_relu(bias);
            let k = gemm(&p).unwrap();
            assert!(k.params.iter().any(|q| q.name() == "bias"), "{}", k.name);
            for beta in [0.0, 0.5] {
                check_plan(&p, (130, 67, 33), beta);
            }
        }
    }
}

/// A 16-bit C only for the tensor-core plans, and only FP32, FP16 or BF16.
#[test]
fn the_output_type_is_refused_where_no_kernel_writes_it() {
    let nn = GemmLayout::parse("NN").unwrap();
    let err = cute_codegen::named::plan("sgemm-sm80", nn)
        .unwrap()
        .with_output(F16)
        .unwrap_err()
        .to_string();
    assert!(err.contains("only the tensor-core plans"), "{err}");
    assert!(cute_codegen::named::plan("sgemm-sm80", nn)
        .unwrap()
        .with_output(F32)
        .is_ok());
    let err = plan("hgemm-sm80", nn)
        .unwrap()
        .with_output(ElemType::I32)
        .unwrap_err()
        .to_string();
    assert!(err.contains(&format!("C of {}", ElemType::I32)), "{err}");
    assert!(err.contains("float, half_t or bfloat16_t"), "{err}");
}

#[test]
fn bgemm_agrees_with_float64_on_the_cpu() {
    assert!(TENSOR_CORE_NAMES.contains(&"bgemm-sm80"));
    every_layout("bgemm-sm80");
}

/// The few-row tiles (16x128 over 1x4 warps, 64x128 over 2x2) and the few-column one (128x32
/// over 4x1) in every layout: an MN-major A of 16 rows is staged in 16 x 8 atoms, an MN-major
/// B of 32 columns in 32 x 8 ones (the others in 64 x 8 atoms).
#[test]
fn the_narrow_tiles_agree_with_float64_on_the_cpu() {
    for name in [
        "bgemm-sm80-16x128",
        "hgemm-sm80-64x128",
        "bgemm-sm80-128x32",
    ] {
        assert!(TENSOR_CORE_NAMES.contains(&name));
        every_layout(name);
    }
}

/// M- and N-major operands are read by ldmatrix.trans, K-major ones by ldmatrix.
#[test]
fn each_operand_is_read_by_the_ldmatrix_its_major_needs() {
    for (l, trans_a, trans_b) in [
        ("NN", true, false),
        ("NT", true, true),
        ("TN", false, false),
        ("TT", false, true),
    ] {
        let p = plan("hgemm-sm80", GemmLayout::parse(l).unwrap()).unwrap();
        let cuda = cute_codegen::emit(&p).unwrap().source;
        assert_eq!(
            cuda.contains("ldmatrix.sync.aligned.x4.trans"),
            trans_a || trans_b,
            "{l}"
        );
        assert_eq!(
            cuda.contains("ldmatrix.sync.aligned.x4.m8n8"),
            !(trans_a && trans_b),
            "{l}"
        );
    }
}

/// 16-bit operands move in 128-bit vectors: the kernel requires leading dimensions that are
/// multiples of 8 and says which copy needs it; a problem with an odd one is refused before it
/// runs (the interpreter, like the runtime, checks the requirements first).
#[test]
fn an_odd_leading_dimension_is_refused_before_the_launch() {
    use cute_codegen::interp::Arg;
    let p = plan("hgemm-sm80", GemmLayout::parse("TN").unwrap()).unwrap();
    let k = gemm(&p).unwrap();
    let conditions: Vec<String> = k.requirements.iter().map(|r| r.to_string()).collect();
    for ld in ["ldA % 8 == 0", "ldB % 8 == 0"] {
        assert!(
            conditions
                .iter()
                .any(|c| c.contains(ld) && c.contains("copy(SM80_CP_ASYNC")),
            "{ld} in {conditions:?}"
        );
    }
    let mut c = gemm_case(&p, (16, 16, 16), 0.0, 1).unwrap();
    c.args[5] = Arg::Int(17); // ldA
    let err = k.admits(&|n| c.int(&k, n)).unwrap_err();
    assert!(err.contains("ldA % 8 == 0") && err.contains("17"), "{err}");
    let err = run(&k, &mut c.args).unwrap_err().to_string();
    assert!(err.contains("ldA"), "{err}");
}

/// A TiledMMA whose tile does not divide the CTA tile is a plan error naming it; so is a
/// tensor-core atom on a target without its feature.
#[test]
fn a_tiled_mma_that_does_not_divide_the_tile_is_a_plan_error() {
    use cute_codegen::gemm::Policy;
    use cute_layout::atom::{make_tiled_mma, MmaAtom, MmaOp};
    use cute_layout::{s, tup, Layout, Tiler};
    let mut p = plan("hgemm-sm80", GemmLayout::parse("TN").unwrap()).unwrap();
    let Policy::TensorCore(tc) = &mut p.policy else {
        panic!("a tensor-core plan")
    };
    // 3 warps along M: a 48-row MMA tile, which 128 rows do not divide
    let op = MmaOp::from_name("SM80_16x8x16_F32F16F16F32_TN").unwrap();
    tc.mma = make_tiled_mma(
        MmaAtom::new(op),
        &Layout::col_major(&tup![s(3), s(2), s(1)]).unwrap(),
        &[Tiler::Int(s(48)), Tiler::Int(s(32)), Tiler::Int(s(16))],
    )
    .unwrap();
    let err = gemm(&p).map(|_| ()).unwrap_err().to_string();
    assert!(
        err.contains("48x32x16 tile does not divide the 128x256x64 CTA tile"),
        "{err}"
    );
}

/// The GPU check's case: the same operands as `gemm_case`'s but no host reference, which the
/// caller sets from its own `alpha * A * B + beta * C` (the runtime's DGEMM); a reference of
/// the wrong length is refused, and the padding rows stay NaN.
#[test]
fn an_unreferenced_case_takes_the_callers_reference() {
    use cute_codegen::recipes::{gemm_case_unreferenced, operands, set_reference};
    let p = plan("hgemm-sm80", GemmLayout::all()[2]).unwrap();
    let full = gemm_case(&p, (17, 9, 33), 0.5, 3).unwrap();
    let mut bare = gemm_case_unreferenced(&p, (17, 9, 33), 0.5, 3).unwrap();
    assert!(bare.expected.iter().all(|x| x.is_nan()));
    let o = operands(&p, &bare).unwrap();
    assert_eq!(
        (o.m, o.n, o.k, o.ldc),
        (17, 9, 33, full.expected.len() as i64 / 9)
    );
    // alpha * A * B + beta * C by a plain loop over the operands' storage (K-major A and B)
    let mut abc = vec![0.0; o.c.data.len()];
    for j in 0..o.n {
        for i in 0..o.m {
            let dot: f64 = (0..o.k)
                .map(|kk| o.a.data[(i * o.lda + kk) as usize] * o.b.data[(j * o.ldb + kk) as usize])
                .sum();
            let at = (i + j * o.ldc) as usize;
            abc[at] = o.alpha * dot + o.beta * o.c.data[at];
        }
    }
    let short = abc[1..].to_vec();
    let err = set_reference(&p, &mut bare, short).unwrap_err().to_string();
    assert!(err.contains("reference of"), "{err}");
    set_reference(&p, &mut bare, abc).unwrap();
    for (got, want) in bare.expected.iter().zip(&full.expected) {
        assert!(got.is_nan() == want.is_nan() && (got.is_nan() || (got - want).abs() < 1e-12));
    }
}

/// The SM90 GEMMs (`wgmma` from shared memory through descriptors, two consumer warpgroups fed
/// by a TMA producer warpgroup through mbarriers): hgemm-sm90 in every layout at the sizes
/// above, bgemm-sm90 in NT and TT (MN-major B, the descriptor's transpose) and tf32gemm-sm90 in
/// TN at a ragged size over several k-tiles, fp8gemm-sm90 (E4M3, a BF16 C) in TN, hgemm-sm90-cpasync (every thread's cp.async) in
/// NN and TN and hgemm-sm90-tma (a CTA per tile) in NN; TF32 in another layout and any of them for a target without wgmma are plan errors
/// saying why.
#[test]
fn the_sm90_gemms_agree_with_float64_on_the_cpu() {
    every_layout("hgemm-sm90");
    for (name, l) in [
        ("hgemm-sm90-cpasync", "NN"),
        ("hgemm-sm90-cpasync", "TN"),
        ("hgemm-sm90-tma", "NN"),
    ] {
        check(name, GemmLayout::parse(l).unwrap(), (130, 67, 300), 0.5);
    }
    for l in ["NT", "TT"] {
        check(
            "bgemm-sm90",
            GemmLayout::parse(l).unwrap(),
            (130, 67, 33),
            0.5,
        );
    }
    let tn = GemmLayout::parse("TN").unwrap();
    check("tf32gemm-sm90", tn, (33, 40, 300), 0.5);
    // FP8 (E4M3) in, BF16 out: three k-tiles of 128 at a ragged size, beta 0 and 0.5
    for beta in [0.0, 0.5] {
        check("fp8gemm-sm90", tn, (130, 67, 300), beta);
    }
    for name in ["tf32gemm-sm90", "fp8gemm-sm90"] {
        let err = plan(name, GemmLayout::parse("NN").unwrap())
            .unwrap_err()
            .to_string();
        assert!(err.contains("K-major only"), "{err}");
    }
    let err = cute_codegen::named::plan_for("hgemm-sm90", tn, &cute_codegen::Target::sm80())
        .unwrap_err()
        .to_string();
    assert!(err.contains("sm_80 has no wgmma"), "{err}");
}

/// A 16-bit C of the persistent SM90 GEMMs is stored into `sC` by `stmatrix.trans`
/// (`SM90_U16x8_STSM_T`, 8 values per thread per instruction): hgemm-sm90 with an FP16 C in TN
/// and NN (M-major A) and with a per-column bias and ReLU, agreeing with float64 at a ragged
/// size over three k-tiles, beta 0 and 0.5 (fp8gemm-sm90's BF16 C above takes it too).
#[test]
fn a_16_bit_c_of_the_sm90_gemms_is_stored_by_stmatrix_on_the_cpu() {
    use cute_codegen::gemm::{Bias, Epilogue};
    for (layout, bias) in [("TN", None), ("NN", None), ("TN", Some(Bias::PerCol))] {
        let mut p = plan("hgemm-sm90", GemmLayout::parse(layout).unwrap())
            .unwrap()
            .with_output(F16)
            .unwrap();
        if let Some(b) = bias {
            p.epilogue = Epilogue::bias_relu(b);
        }
        let k = gemm(&p).unwrap();
        let mut stsm = 0;
        each_stmt(&mut k.body.clone(), &mut |s| {
            if let Stmt::Copy { atom, .. } = s {
                stsm += usize::from(atom.op().to_string() == "SM90_U16x8_STSM_T");
            }
        });
        assert_eq!(
            stsm, 4,
            "{layout}: one stmatrix copy per pass of 64 columns"
        );
        for beta in [0.0, 0.5] {
            check_plan(&p, (130, 67, 300), beta);
        }
    }
}

/// The persistent schedule over several tiles per CTA: hgemm-sm90 planned for a GPU of 2 SMs
/// takes the 6 tiles of a 300 x 300 C (ragged in M and N) in 2 CTAs, 3 each, its pipeline's
/// stages and phases running on from tile to tile (5 k-tiles of 64 each over 4 stages); so
/// does bgemm-sm90-128x128 (128x128 tiles, 6 stages) in a K-major and an N-major B.
#[test]
fn the_persistent_sm90_gemm_carries_its_pipeline_across_tiles() {
    let two = cute_codegen::Target {
        sms: 2,
        ..cute_codegen::Target::sm90a()
    };
    for layout in ["TN", "NT"] {
        let l = GemmLayout::parse(layout).unwrap();
        let p = cute_codegen::named::plan_for("hgemm-sm90", l, &two).unwrap();
        check_plan(&p, (300, 300, 300), 0.5);
    }
    // the 128x128 tile: 6 tiles of 140 x 260 in 2 CTAs, 8 k-tiles over its 6 stages
    for layout in ["TN", "NT"] {
        let l = GemmLayout::parse(layout).unwrap();
        let p = cute_codegen::named::plan_for("bgemm-sm90-128x128", l, &two).unwrap();
        check_plan(&p, (140, 260, 450), 0.5);
    }
}

/// hgemm-sm90 planned for a GPU of 4 SMs in clusters of 2 CTAs: along M (the pair shares
/// B's k-tiles, each CTA multicasting half of them) in every layout (K- and MN-major shares:
/// half a box, or whole boxes), and along N (sharing A's). 3 M-blocks (3 N-blocks along N):
/// the last cluster has a CTA past C, which still loads and multicasts its share; 2 tiles of
/// 3 k-tiles per CTA run the 4 stages round more than once.
#[test]
fn a_cluster_shares_its_k_tiles_by_multicast_on_the_cpu() {
    let four = cute_codegen::Target {
        sms: 4,
        ..cute_codegen::Target::sm90a()
    };
    let cases = [
        ((2, 1), "TN", (260, 300, 130)),
        ((2, 1), "NN", (260, 300, 130)),
        ((2, 1), "NT", (260, 300, 130)),
        ((2, 1), "TT", (260, 300, 130)),
        ((2, 1), "TN", (17, 17, 17)),
        ((1, 2), "TN", (130, 600, 130)),
        ((1, 2), "NT", (130, 600, 130)),
    ];
    for (cluster, layout, size) in cases {
        let l = GemmLayout::parse(layout).unwrap();
        let mut p = cute_codegen::named::plan_for("hgemm-sm90", l, &four).unwrap();
        set_cluster(&mut p, cluster);
        check_plan(&p, size, 0.5);
    }
}

fn set_cluster(p: &mut GemmPlan, cluster: (i64, i64)) {
    match &mut p.policy {
        cute_codegen::gemm::Policy::TensorCore(t) => t.cluster = cluster,
        other => panic!("{other:?}"),
    }
}

/// A clustered pipeline that misses a CTA is reported, not run: a multicast that lands in
/// one CTA only (the other's stage never receives its bytes), a release of the stage on
/// this CTA only (the other's producer would wait forever).
#[test]
fn a_broken_cluster_pipeline_is_reported_not_run() {
    let four = cute_codegen::Target {
        sms: 4,
        ..cute_codegen::Target::sm90a()
    };
    let run_broken = |f: &mut dyn FnMut(&mut Stmt)| -> Result<(), String> {
        let l = GemmLayout::parse("TN").unwrap();
        let mut p = cute_codegen::named::plan_for("hgemm-sm90", l, &four).unwrap();
        set_cluster(&mut p, (2, 1));
        let mut k = gemm(&p).unwrap();
        each_stmt(&mut k.body, &mut |s| f(s));
        let mut c = gemm_case(&p, (260, 300, 130), 0.0, 7).unwrap();
        run(&k, &mut c.args).map_err(|e| e.to_string())?;
        match c.check(c.output()) {
            v if v.ok() => Ok(()),
            v => Err(format!("wrong result: {v:?}")),
        }
    };
    assert!(run_broken(&mut |_| {}).is_ok());
    let e = run_broken(&mut |s| {
        if let Stmt::Tma {
            multicast: Some(m), ..
        } = s
        {
            *m = cute_layout::s(1);
        }
    })
    .unwrap_err();
    assert!(e.contains("expects 49152 bytes, its TMA loads move"), "{e}");
    let e = run_broken(&mut |s| {
        if let Stmt::Mbarrier(MbarrierOp::ArriveCluster { cta, .. }) = s {
            *cta = cute_layout::s(0);
        }
    })
    .unwrap_err();
    assert!(
        e.contains("which has not completed") || e.contains("a deadlock"),
        "{e}"
    );
}

/// Calls `f` on every statement of `body`, depth first.
fn each_stmt(body: &mut [Stmt], f: &mut impl FnMut(&mut Stmt)) {
    for s in body {
        f(s);
        match s {
            Stmt::For { body, .. } => each_stmt(body, f),
            Stmt::If { then, els, .. } => {
                each_stmt(then, f);
                each_stmt(els, f);
            }
            _ => {}
        }
    }
}

/// hgemm-sm90 TN with its IR changed by `f`, run over five k-tiles (more than its four stages).
fn broken_pipeline(f: &mut impl FnMut(&mut Stmt)) -> Result<(), String> {
    let p = plan("hgemm-sm90", GemmLayout::parse("TN").unwrap()).unwrap();
    let mut k = gemm(&p).unwrap();
    each_stmt(&mut k.body, f);
    let mut c = gemm_case(&p, (33, 40, 300), 0.0, 7).unwrap();
    run(&k, &mut c.args).map_err(|e| e.to_string())?;
    match c.check(c.output()) {
        v if v.ok() => Ok(()),
        v => Err(format!("wrong result: {v:?}")),
    }
}

/// The interpreter's model of the TMA pipeline catches what would hang or race on the GPU: no
/// consumer releasing the stages (the producer would wait forever for the fifth k-tile's
/// stage), a transaction count that is not the loads' bytes, consumers that do not wait for the
/// loads (they read shared memory before it lands).
#[test]
fn a_broken_tma_pipeline_is_reported_not_run() {
    let e = broken_pipeline(&mut |s| {
        if matches!(s, Stmt::Mbarrier(MbarrierOp::Arrive(_))) {
            *s = Stmt::Comment("no release".into());
        }
    })
    .unwrap_err();
    assert!(e.contains("wait for parity 0 of empty[0], which has not completed (the producer would wait forever)"), "{e}");
    let e = broken_pipeline(&mut |s| {
        if let Stmt::Mbarrier(MbarrierOp::ArriveExpectTx { bytes, .. }) = s {
            *bytes -= 2;
        }
    })
    .unwrap_err();
    assert!(
        e.contains("expects 49150 bytes, its TMA loads move 49152"),
        "{e}"
    );
    let e = broken_pipeline(&mut |s| {
        if matches!(s, Stmt::Mbarrier(MbarrierOp::Wait { bar, .. }) if bar.name == "full") {
            *s = Stmt::Comment("no wait".into());
        }
    })
    .unwrap_err();
    assert!(e.contains("wrong result"), "{e}");
    assert!(broken_pipeline(&mut |_| {}).is_ok());
}

/// The TMA-store epilogue's ordering, as the interpreter models it: a pass that writes `sC`
/// before the previous pass's store has read it (no `cp.async.bulk.wait_group.read`), or a
/// store issued with no barrier after the other threads' writes, is reported.
#[test]
fn a_broken_tma_store_epilogue_is_reported_not_run() {
    use cute_codegen::ir::Barrier;
    let e = broken_pipeline(&mut |s| {
        if matches!(s, Stmt::Barrier(Barrier::BulkWaitRead(_))) {
            *s = Stmt::Comment("no wait".into());
        }
    })
    .unwrap_err();
    assert!(e.contains("while a TMA store still reads it"), "{e}");
    let e = broken_pipeline(&mut |s| {
        if matches!(s, Stmt::Barrier(Barrier::Named { .. })) {
            *s = Stmt::Comment("no barrier".into());
        }
    })
    .unwrap_err();
    assert!(
        e.contains("with no __syncthreads() between (a race)"),
        "{e}"
    );
}
