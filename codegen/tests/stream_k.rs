//! Stream-K on the CPU interpreter: the partial products of a plan `with_stream_k` (`G`
//! persistent CTAs sharing every tile's k-tiles evenly, each unit's FP32 product into its slot
//! of a NaN-poisoned workspace) and `stream_k_reduce` (each tile's slots summed in order of the
//! CTA, through the plan's epilogue into C), against the float64 reference of the plan's own
//! case. Tile counts that do not divide the CTAs, CTAs whose ranges cross tile boundaries,
//! sizes that divide no tile.

use cute_codegen::interp::{run, Arg};
use cute_codegen::named::plan;
use cute_codegen::recipes::{gemm, gemm_case, schedule, stream_k_reduce, StreamCase};
use cute_codegen::{GemmLayout, GemmPlan};

/// Runs `plan`'s stream-K at `size` over at most `ctas` CTAs and checks C; returns the CTAs.
fn check(plan: &GemmPlan, size: (i64, i64, i64), beta: f64, ctas: i64, seed: u64) -> i64 {
    let case = gemm_case(plan, size, beta, seed).unwrap();
    let mut sc = StreamCase::new(plan, case.args.clone(), ctas).unwrap();
    let partial = gemm(&plan.clone().with_stream_k().unwrap()).unwrap();
    let reduce = stream_k_reduce(plan).unwrap();
    for (kernel, at) in [(&partial, sc.partial.clone()), (&reduce, sc.reduce.clone())] {
        let mut args = sc.gather(&at);
        assert_eq!(args.len(), kernel.params.len(), "{}", kernel.name);
        run(kernel, &mut args).unwrap_or_else(|e| panic!("{}: {e}", kernel.name));
        sc.scatter(&at, args);
    }
    let Arg::Buffer(c) = &sc.args[StreamCase::C] else {
        unreachable!()
    };
    let v = case.check(&c.data);
    assert!(v.ok(), "{} {size:?}, {:?}: {v:?}", plan.name, sc.schedule);
    sc.schedule.ctas
}

#[test]
fn stream_k_agrees_with_float64_in_every_layout() {
    for (i, layout) in GemmLayout::all().into_iter().enumerate() {
        // 3 x 2 tiles of 16x128, 4 k-tiles each: 24 iterations over 5 CTAs (4.8 each)
        let p = plan("sgemm-sm80-16x128", layout).unwrap();
        assert_eq!(check(&p, (40, 200, 120), 0.0, 5, 80 + i as u64), 5);
        // more CTAs than one tile's k-tiles: a tile shared by three or four CTAs
        assert_eq!(check(&p, (17, 130, 100), -0.75, 7, 90 + i as u64), 7);
    }
    // the 128x128 tile, 2 x 1 tiles of 13 k-tiles over 3 CTAs: ranges of 8 or 9 cross the seam
    let p = plan("sgemm-sm80", GemmLayout::parse("TN").unwrap()).unwrap();
    assert_eq!(check(&p, (200, 100, 400), 0.5, 3, 99), 3);
}

#[test]
fn stream_k_applies_the_epilogue_once_to_the_sum() {
    let p = plan("sgemm-sm80-bias-relu", GemmLayout::parse("NT").unwrap()).unwrap();
    check(&p, (130, 20, 257), -0.75, 5, 98);
}

#[test]
fn the_schedule_gives_every_cta_an_iteration_and_bounds_its_slots() {
    let p = plan("sgemm-sm80", GemmLayout::parse("NN").unwrap()).unwrap();
    let bk = p.cp_async_pipeline().unwrap().0 .2;
    for (m, n, k) in [
        (1, 1, 1),
        (129, 300, 1000),
        (4096, 4096, 4096),
        (1000, 17, 300),
    ] {
        for ctas in [1, 2, 7, 132, 264, 5000] {
            let s = schedule(&p, (m, n, k), ctas).unwrap();
            let kt = (k + bk - 1) / bk;
            let iters = ((m + 127) / 128) * ((n + 127) / 128) * kt;
            assert_eq!(s.ctas, ctas.min(iters));
            // the most tiles one CTA's range touches, by brute force
            let most = (0..s.ctas)
                .map(|c| {
                    let (a, b) = (c * iters / s.ctas, (c + 1) * iters / s.ctas);
                    (b - 1) / kt - a / kt + 1
                })
                .max()
                .unwrap();
            assert!(
                most <= s.slots,
                "{m}x{n}x{k} over {ctas}: {most} > {}",
                s.slots
            );
        }
    }
    assert_eq!(schedule(&p, (0, 5, 5), 4), None);
    assert_eq!(schedule(&p, (5, 5, 5), 0), None);
    // a workspace past 2^28 elements is refused, and so is a schedule whose arithmetic passes
    // 2^31 - 1 (here 2^23 + 1 iterations times 256 CTAs)
    assert_eq!(schedule(&p, (1 << 20, 1 << 20, 1 << 10), 1 << 20), None);
    assert!(schedule(&p, (8192, 8192, 1 << 16), 255).is_some());
    assert_eq!(schedule(&p, (8192, 8192, 1 << 16), 256), None);
}

#[test]
fn a_tensor_core_plan_is_refused_with_the_reason() {
    let p = plan("hgemm-sm80", GemmLayout::parse("TN").unwrap()).unwrap();
    let e = p.with_stream_k().unwrap_err().to_string();
    assert!(e.contains("stream-K") && e.contains("SIMT"), "{e}");
}

mod random_shapes {
    use super::*;
    use cute_codegen::recipes::SplitCase;
    use proptest::prelude::*;

    proptest! {
        // each case runs two kernels of a few hundred CTAs on the interpreter: few cases
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Stream-K of the 16x128 tile at random shapes, CTA counts and layouts agrees with
        /// float64: every iteration summed once, whatever the seams between CTAs and tiles.
        #[test]
        fn stream_k_at_random_shapes(
            m in 1i64..70, n in 1i64..300, k in 1i64..300, ctas in 1i64..12,
            layout in 0usize..4, beta in prop::sample::select(vec![0.0, -0.75]), seed in 0u64..1000,
        ) {
            let p = plan("sgemm-sm80-16x128", GemmLayout::all()[layout]).unwrap();
            check(&p, (m, n, k), beta, ctas, seed);
        }

        /// Serial split-K at random shapes and slices: the semaphores hand every tile's slices
        /// on in order and end at zero.
        #[test]
        fn serial_split_k_at_random_shapes(
            m in 1i64..70, n in 1i64..300, k in 1i64..400, splits in 1i64..6,
            layout in 0usize..4, seed in 0u64..1000,
        ) {
            let p = plan("sgemm-sm80-16x128", GemmLayout::all()[layout]).unwrap();
            let case = gemm_case(&p, (m, n, k), 0.5, seed).unwrap();
            let mut sc = SplitCase::serial(&p, case.args.clone(), splits).unwrap();
            let kernel = gemm(&p.clone().with_serial_split_k().unwrap()).unwrap();
            run(&kernel, &mut sc.args).unwrap();
            let Arg::Buffer(c) = &sc.args[SplitCase::C] else { unreachable!() };
            let v = case.check(&c.data);
            prop_assert!(v.ok(), "{m}x{n}x{k}, {splits} slices: {v:?}");
            let Some(Arg::Buffer(sem)) = sc.args.last() else { unreachable!() };
            prop_assert!(sem.data.iter().all(|&x| x == 0.0));
        }
    }
}
