//! Parallel split-K on the CPU interpreter: the partial products of a plan `with_split_k` (CTA
//! `z` over its k range, FP32 into slice `z` of a NaN-poisoned workspace) and
//! `split_k_reduce` (the sum over `z` through the plan's epilogue into C), against the float64
//! reference of the plan's own case (`gemm_case`: fresh operands, C poisoned when beta is 0,
//! padding rows that must stay NaN). Sizes that divide neither the tiles nor the splits.

use cute_codegen::interp::{run, Arg};
use cute_codegen::named::plan;
use cute_codegen::recipes::{gemm, gemm_case, k_chunk, split_k_reduce, SplitCase};
use cute_codegen::{GemmLayout, GemmPlan};
use cute_layout::ElemType;

/// Runs `plan`'s split-K at `size` with at most `splits` splits and checks C; returns the
/// splits it made.
fn check(plan: &GemmPlan, size: (i64, i64, i64), beta: f64, splits: i64, seed: u64) -> i64 {
    let case = gemm_case(plan, size, beta, seed).unwrap();
    let k = size.2;
    let mut sc = SplitCase::new(plan, case.args.clone(), splits).unwrap();
    let (kc, s) = (sc.kc, sc.splits);
    assert_eq!(k_chunk(plan, k, splits), Some((kc, s)));
    assert!((s - 1) * kc < k && s * kc >= k, "{kc} x {s} for K = {k}");
    let partial = gemm(&plan.clone().with_split_k().unwrap()).unwrap();
    let reduce = split_k_reduce(plan).unwrap();
    for (kernel, at) in [(&partial, sc.partial.clone()), (&reduce, sc.reduce.clone())] {
        let mut args = sc.gather(&at);
        assert_eq!(args.len(), kernel.params.len(), "{}", kernel.name);
        run(kernel, &mut args).unwrap_or_else(|e| panic!("{}: {e}", kernel.name));
        sc.scatter(&at, args);
    }
    let Arg::Buffer(c) = &sc.args[SplitCase::C] else {
        unreachable!()
    };
    let v = case.check(&c.data);
    assert!(v.ok(), "{} {size:?}, {s} splits: {v:?}", plan.name);
    s
}

#[test]
fn simt_split_k_agrees_with_float64_in_every_layout() {
    for (i, layout) in GemmLayout::all().into_iter().enumerate() {
        let p = plan("sgemm-sm80", layout).unwrap();
        assert_eq!(check(&p, (17, 33, 1000), 0.0, 4, i as u64), 4);
        assert_eq!(check(&p, (1, 67, 300), -0.75, 3, 10 + i as u64), 3);
        // the wide tile for a few rows of C
        let p = plan("sgemm-sm80-16x128", layout).unwrap();
        assert_eq!(check(&p, (3, 200, 500), 0.5, 4, 20 + i as u64), 4);
        // and the 64x128 tile for tens of rows
        let p = plan("sgemm-sm80-64x128", layout).unwrap();
        assert_eq!(check(&p, (70, 130, 300), 0.0, 3, 30 + i as u64), 3);
    }
}

/// K up to 65536 (the bar): each slice's FP32 sum and their sum stay within the case's
/// tolerance, which grows with K (`gamma(K + 3)`, see `recipes::gemm_case`).
#[test]
fn split_k_agrees_with_float64_at_k_65536() {
    let p = plan("sgemm-sm80-16x128", GemmLayout::parse("TN").unwrap()).unwrap();
    assert_eq!(check(&p, (3, 5, 65536), 0.5, 8, 41), 8);
}

#[test]
fn the_epilogue_runs_once_after_the_sum() {
    // bias + ReLU apply to the sum, not to each partial (a ReLU of partials would differ)
    let p = plan("sgemm-sm80-bias-relu", GemmLayout::parse("TN").unwrap()).unwrap();
    assert_eq!(check(&p, (130, 20, 257), -0.75, 5, 3), 5);
}

#[test]
fn tensor_core_split_k_agrees_with_float64() {
    for name in ["hgemm-sm80", "tf32gemm-sm80"] {
        let p = plan(name, GemmLayout::parse("TN").unwrap()).unwrap();
        check(&p, (20, 40, 333), 0.5, 3, 7);
    }
    // a 16-bit C: the partials stay FP32, the reduction rounds once
    let p = plan("bgemm-sm80", GemmLayout::parse("NT").unwrap())
        .unwrap()
        .with_output(ElemType::Bf16)
        .unwrap();
    check(&p, (9, 24, 200), 0.0, 2, 8);
}

#[test]
fn k_is_cut_into_whole_k_tiles_and_never_into_empty_splits() {
    let p = plan("sgemm-sm80", GemmLayout::parse("NN").unwrap()).unwrap();
    let bk = match &p.policy {
        cute_codegen::gemm::Policy::Pipelined(x) => x.cta.2,
        _ => unreachable!(),
    };
    for k in [1, 7, bk, bk + 1, 1000, 4096] {
        for splits in [1, 2, 3, 8, 64, 10_000] {
            let (kc, s) = k_chunk(&p, k, splits).unwrap();
            assert_eq!(kc % bk, 0);
            assert!(s >= 1 && s <= splits && (s - 1) * kc < k && s * kc >= k);
        }
    }
    let (kc, s) = k_chunk(&p, i64::MAX, 3).unwrap();
    assert!(s <= 3 && kc % bk == 0);
    assert_eq!(k_chunk(&p, 0, 4), None);
    assert_eq!(k_chunk(&p, 100, 0), None);
}

/// The SM90 TMA GEMMs split: CTA `z`'s boxes start at `k = z Kc` of the whole tensor maps, so
/// a slice's last box past K (the last slice's, K not a multiple of BLK_K) reads TMA's zero fill;
/// the persistent plans' partials run a CTA per tile and slice. Both tiles, K-major and
/// MN-major operands, a 16-bit C after the reduction.
#[test]
fn sm90_split_k_agrees_with_float64() {
    for (name, layout, size, beta, splits, seed) in [
        ("bgemm-sm90-128x128", "TN", (130, 40, 333), 0.5, 3, 50),
        ("hgemm-sm90", "NT", (20, 260, 200), 0.0, 2, 51),
        ("bgemm-sm90", "NN", (7, 9, 450), -0.75, 4, 52),
    ] {
        let p = plan(name, GemmLayout::parse(layout).unwrap()).unwrap();
        assert_eq!(check(&p, size, beta, splits, seed), splits, "{name}");
    }
    let p = plan("bgemm-sm90-128x128", GemmLayout::parse("TT").unwrap())
        .unwrap()
        .with_output(ElemType::Bf16)
        .unwrap();
    check(&p, (65, 129, 300), 0.5, 2, 53);
}

#[test]
fn a_plan_without_a_k_tile_pipeline_is_refused_with_the_reason() {
    let p = plan("tiled-16", GemmLayout::parse("TN").unwrap()).unwrap();
    let e = p.with_split_k().unwrap_err().to_string();
    assert!(
        e.contains("split-K") && e.contains("k-tile pipeline"),
        "{e}"
    );
}

/// Runs `plan`'s serial split-K at `size` (at most `splits` slices) and checks C and that the
/// semaphores are back at zero; returns the slices it made.
fn check_serial(plan: &GemmPlan, size: (i64, i64, i64), beta: f64, splits: i64, seed: u64) -> i64 {
    let case = gemm_case(plan, size, beta, seed).unwrap();
    let mut sc = SplitCase::serial(plan, case.args.clone(), splits).unwrap();
    let kernel = gemm(&plan.clone().with_serial_split_k().unwrap()).unwrap();
    assert_eq!(sc.args.len(), kernel.params.len(), "{}", kernel.name);
    run(&kernel, &mut sc.args).unwrap_or_else(|e| panic!("{}: {e}", kernel.name));
    let Arg::Buffer(c) = &sc.args[SplitCase::C] else {
        unreachable!()
    };
    let v = case.check(&c.data);
    assert!(
        v.ok(),
        "{} {size:?}, {} serial slices: {v:?}",
        plan.name,
        sc.splits
    );
    let Some(Arg::Buffer(sem)) = sc.args.last() else {
        unreachable!()
    };
    assert!(
        sem.data.iter().all(|&x| x == 0.0),
        "semaphores left {:?}",
        sem.data
    );
    sc.splits
}

#[test]
fn serial_split_k_agrees_with_float64_in_every_layout() {
    for (i, layout) in GemmLayout::all().into_iter().enumerate() {
        let p = plan("sgemm-sm80", layout).unwrap();
        assert_eq!(check_serial(&p, (17, 133, 1000), 0.0, 4, 50 + i as u64), 4);
        let p = plan("sgemm-sm80-16x128", layout).unwrap();
        assert_eq!(check_serial(&p, (3, 200, 500), 0.5, 3, 60 + i as u64), 3);
    }
    let p = plan("sgemm-sm80-64x128", GemmLayout::parse("TN").unwrap()).unwrap();
    assert_eq!(check_serial(&p, (70, 130, 300), -0.75, 3, 70), 3);
}

#[test]
fn serial_split_k_adds_the_bias_once_and_the_relu_to_the_sum() {
    // the bias in slice 0 alone, the ReLU in the last slice alone: a ReLU of each slice's
    // running sum would clamp what a later slice makes positive
    let p = plan("sgemm-sm80-bias-relu", GemmLayout::parse("NT").unwrap()).unwrap();
    assert_eq!(check_serial(&p, (130, 20, 257), -0.75, 5, 71), 5);
}

#[test]
fn serial_split_k_on_tensor_cores_and_at_k_65536() {
    let p = plan("hgemm-sm80", GemmLayout::parse("TN").unwrap()).unwrap();
    check_serial(&p, (20, 40, 333), 0.5, 3, 72);
    let p = plan("sgemm-sm80-16x128", GemmLayout::parse("NN").unwrap()).unwrap();
    assert_eq!(check_serial(&p, (3, 5, 65536), 0.5, 8, 73), 8);
}

#[test]
fn serial_split_k_refuses_a_16_bit_c_and_a_tma_plan() {
    let p = plan("bgemm-sm80", GemmLayout::parse("NT").unwrap())
        .unwrap()
        .with_output(ElemType::Bf16)
        .unwrap();
    let e = p.with_serial_split_k().unwrap_err().to_string();
    assert!(e.contains("FP32") && e.contains("parallel"), "{e}");
    let p = plan("hgemm-sm90", GemmLayout::parse("TN").unwrap()).unwrap();
    let e = p.with_serial_split_k().unwrap_err().to_string();
    assert!(e.contains("TMA"), "{e}");
}

#[test]
fn a_slice_that_waits_for_a_later_one_is_reported_not_hung() {
    // semaphores that do not start at zero: slice 0 of tile 0 would wait forever
    let p = plan("sgemm-sm80", GemmLayout::parse("NN").unwrap()).unwrap();
    let case = gemm_case(&p, (8, 8, 200), 0.0, 74).unwrap();
    let mut sc = SplitCase::serial(&p, case.args.clone(), 2).unwrap();
    if let Some(Arg::Buffer(sem)) = sc.args.last_mut() {
        sem.set(0, 1.0);
    }
    let kernel = gemm(&p.with_serial_split_k().unwrap()).unwrap();
    let e = run(&kernel, &mut sc.args).unwrap_err().to_string();
    assert!(e.contains("hang") && e.contains("Sem"), "{e}");
}
