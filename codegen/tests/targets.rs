//! A target is an input: every named kernel is planned, verified and written for each target,
//! and what its launch bounds and header claim holds on that target's SMs; a plan that does not
//! fit the target is refused naming the target and the numbers, never emitted with a wrong claim.

use cute_codegen::gemm::{Pipelined, Policy};
use cute_codegen::target::{Arch, Target};
use cute_codegen::{emit, named, CodegenError, GemmLayout, GemmPlan, Kernel};
use cute_layout::{s, tup, AnyLayout, Layout};

fn layout(l: &str) -> GemmLayout {
    GemmLayout::parse(l).unwrap()
}

fn pipelined(plan: &mut GemmPlan) -> &mut Pipelined {
    match &mut plan.policy {
        Policy::Pipelined(p) => p,
        _ => unreachable!("pipelined"),
    }
}

/// The plan is refused with a plan error naming `part` whose message holds every needle.
fn refused(plan: &GemmPlan, part: &str, needles: &[&str]) {
    match emit(plan) {
        Err(CodegenError::Plan { part: p, msg, .. }) => {
            assert_eq!(p, part, "{msg}");
            for n in needles {
                assert!(msg.contains(n), "{part}: {msg:?} lacks {n:?}");
            }
        }
        Err(e) => panic!("refused, but not with a plan error: {e}"),
        Ok(k) => panic!("accepted and emitted {}", k.name),
    }
}

/// `__launch_bounds__(threads[, ctas])` of an emitted kernel.
fn launch_bounds(k: &Kernel) -> (i64, i64) {
    let line = k
        .source
        .lines()
        .find(|l| l.contains("__launch_bounds__("))
        .expect("a __launch_bounds__");
    let inner = line
        .split("__launch_bounds__(")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .unwrap();
    let nums: Vec<i64> = inner.split(", ").map(|n| n.parse().unwrap()).collect();
    (nums[0], nums.get(1).copied().unwrap_or(1))
}

/// Every named kernel x layout x target emits; its launch bounds ask for CTAs per SM that fit the
/// target with the registers they leave a thread (at least its accumulators), its shared
/// memory, threads and CTA limit; the occupancy note, where there is one, states exactly those
/// figures and the target's GPUs; and the recipe asks for as many CTAs as it wants where they
/// fit (sgemm-sm80: two, the other tiles of `select::FAMILY`: three), else as many as fit.
#[test]
fn every_named_kernel_fits_every_target() {
    for arch in Arch::ALL {
        let t = Target::of(arch);
        for name in named::NAMES {
            for l in GemmLayout::all() {
                let plan = named::plan_for(name, l, &t).unwrap();
                assert_eq!(plan.target, t);
                let k = emit(&plan).unwrap_or_else(|e| panic!("{name} {l} {arch}: {e}"));
                assert_eq!(k.target, t);
                let what = format!("{name} {l} on {arch}");
                let (threads, ctas) = launch_bounds(&k);
                assert_eq!(threads, k.launch.block[0], "{what}");
                let smem = k.launch.dynamic_smem_bytes;
                assert!(smem <= t.smem_per_block, "{what}");
                let registers = t.registers_per_thread_at(threads, ctas);
                assert!(
                    t.ctas_per_sm(threads, registers, smem) >= ctas,
                    "{what}: {ctas} CTAs of {threads} threads, {registers} registers, {smem} bytes"
                );
                let note = k.source.lines().find(|l| l.starts_with("// occupancy:"));
                if let Policy::Pipelined(p) = &plan.policy {
                    assert_eq!(ctas, p.min_blocks_per_sm, "{what}");
                    let accumulators = p.cta.0 * p.cta.1 / threads;
                    assert!(registers >= accumulators, "{what}");
                    if name.starts_with("sgemm-sm80") {
                        // the CTAs the tile asks for at 128 registers, where they fit
                        let asked = cute_codegen::select::FAMILY
                            .iter()
                            .find(|(n, _)| n == name)
                            .map_or(named::SimtTile::SQUARE, |&(_, t)| t)
                            .ctas_per_sm;
                        let fits = t.ctas_per_sm(threads, 128, smem);
                        assert_eq!(ctas, fits.clamp(1, asked), "{what}");
                    }
                }
                match note {
                    Some(n) => {
                        assert!(ctas > 1, "{what}: {n}");
                        let want = format!(
                            "// occupancy: built for {ctas} CTAs per SM ({registers} registers per thread at most; {} bytes of shared memory per SM, within the {}'s {})",
                            smem * ctas,
                            t.devices,
                            t.smem_per_sm
                        );
                        assert_eq!(n, want, "{what}");
                    }
                    None => assert_eq!(ctas, 1, "{what}"),
                }
            }
        }
    }
}

/// On sm_90a sgemm-sm80 is built for two CTAs per SM in every layout.
#[test]
fn sm_90a_keeps_two_ctas_per_sm() {
    for (l, ctas) in [("NN", 2), ("NT", 2), ("TN", 2), ("TT", 2)] {
        let plan = named::plan("sgemm-sm80", layout(l)).unwrap();
        assert_eq!(
            plan,
            named::plan_for("sgemm-sm80", layout(l), &Target::sm90a()).unwrap()
        );
        let k = emit(&plan).unwrap();
        assert_eq!(launch_bounds(&k), (256, ctas), "{l}");
    }
}

/// The A100 case: two CTAs of NN's 99824 bytes (B's tile padded) need 2 * (99824 + 1024) =
/// 201696 bytes of an SM's 167936. Forced, the plan is refused naming sm_80 and the numbers; chosen by the recipe, it is
/// built for one CTA per SM (as on sm_86 and sm_89, 100 KiB per SM).
#[test]
fn the_a100_gets_one_cta_of_the_square_tile_per_sm() {
    let a100 = Target::sm80();
    let mut forced = named::plan_for("sgemm-sm80", layout("NN"), &a100).unwrap();
    pipelined(&mut forced).min_blocks_per_sm = 2;
    refused(
        &forced,
        "launch bounds",
        &[
            // 3 stages of A (128x32) and B padded (132x32 with its last column 128)
            "2 CTAs of 99824 bytes of shared memory",
            "the 1024 the hardware reserves for each",
            "exceed the 167936 bytes of an SM on sm_80",
            "1 fit",
        ],
    );
    // the sm_90a plan retargeted, as it was emitted (and claimed) before targets
    let mut h200_plan = named::plan("sgemm-sm80", layout("NN")).unwrap();
    h200_plan.target = a100;
    refused(&h200_plan, "launch bounds", &["sm_80", "167936"]);
    for t in [Target::sm80(), Target::sm86(), Target::sm89()] {
        for name in ["sgemm-sm80", "sgemm-sm80-bias-relu"] {
            let plan = named::plan_for(name, layout("NN"), &t).unwrap();
            let k = emit(&plan).unwrap();
            assert_eq!(launch_bounds(&k), (256, 1), "{name} on {t}");
            assert!(!k.source.contains("// occupancy:"), "{name} on {t}");
            assert!(k.source.contains("__launch_bounds__(256) "));
        }
    }
    // sm_86 and sm_89 get the same kernel as sm_80: only the launch bounds depend on the target
    let src = |t: &Target| {
        emit(&named::plan_for("sgemm-sm80", layout("NN"), t).unwrap())
            .unwrap()
            .source
    };
    // (the header names the target)
    let as_sm80 = |t: &Target| src(t).replace(&format!("for {};", t.name()), "for sm_80;");
    assert_eq!(as_sm80(&Target::sm86()), src(&Target::sm80()));
    assert_eq!(as_sm80(&Target::sm89()), src(&Target::sm80()));
    let h200 = src(&Target::sm90a());
    assert_eq!(
        h200.replace("__launch_bounds__(256, 2)", "__launch_bounds__(256)")
            .replace("for sm_90a;", "for sm_80;")
            .lines()
            .filter(|l| !l.starts_with("// occupancy:"))
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
        src(&Target::sm80())
    );
}

/// sgemm-sm80 (NT) with 5 stages of stage stride 5376: 2 x 25600 floats = 204800 bytes =
/// 200 KiB of shared memory, one CTA per SM.
fn two_hundred_kib(target: &Target) -> GemmPlan {
    let mut plan = named::plan_for("sgemm-sm80", layout("NT"), target).unwrap();
    let p = pipelined(&mut plan);
    p.stages = 5;
    p.min_blocks_per_sm = 1;
    for l in [&mut p.smem_a, &mut p.smem_b] {
        *l = AnyLayout::Plain(
            Layout::new(tup![s(128), s(32), s(5)], tup![s(1), s(128), s(5376)]).unwrap(),
        );
    }
    plan
}

#[test]
fn two_hundred_kib_fit_sm_90a_not_sm_86() {
    let k = emit(&two_hundred_kib(&Target::sm90a())).unwrap();
    assert_eq!(k.launch.dynamic_smem_bytes, 200 * 1024);
    assert!(k
        .source
        .contains("// shared memory: 204800 bytes (above 48 KiB: the launch opts in)"));
    for t in [Target::sm86(), Target::sm89()] {
        refused(
            &two_hundred_kib(&t),
            "shared memory",
            &[
                "102400 bytes",
                &format!("a block on {t} has at most 101376"),
            ],
        );
    }
    // 200 KiB fit sm_80's 163 KiB per block no better
    refused(
        &two_hundred_kib(&Target::sm80()),
        "shared memory",
        &["204800 bytes exceed the 166912 a block can have on sm_80"],
    );
}

/// The other limits of the target: shared memory and resident threads per SM, and the registers
/// a thread is left at the CTAs asked for.
#[test]
fn threads_and_registers_per_sm_come_from_the_target() {
    // simt-hier: 128 threads, 10240 bytes, 32 accumulators per thread. 13 CTAs: 1664 threads,
    // 13 * (10240 + 1024) = 146432 bytes, 52 warps (13 per sub-partition: 16384/13 -> 1024
    // registers per warp, 32 per thread)
    let simt = |t: &Target, ctas| {
        let mut plan = named::plan_for("simt-hier", layout("NN"), t).unwrap();
        pipelined(&mut plan).min_blocks_per_sm = ctas;
        plan
    };
    let k = emit(&simt(&Target::sm80(), 13)).unwrap();
    assert!(k.source.contains("__launch_bounds__(128, 13)"));
    assert!(k.source.contains("// occupancy: built for 13 CTAs per SM (32 registers per thread at most; 133120 bytes of shared memory per SM, within the A100/A30's 167936)"), "{}", k.source);
    // on sm_86, 102400 / 11264 = 9 CTAs fit by shared memory (12 by threads)
    refused(
        &simt(&Target::sm86(), 13),
        "launch bounds",
        &[
            "13 CTAs of 10240 bytes of shared memory",
            "the 102400 bytes of an SM on sm_86",
            "9 fit",
        ],
    );
    // 17 CTAs of 128 threads are more than sm_90a's 2048 threads
    refused(
        &simt(&Target::sm90a(), 17),
        "launch bounds",
        &["exceed the 2048 resident threads of an SM on sm_90a"],
    );
    // an SM with a quarter of the register file: two CTAs of sgemm-sm80 (NT) would leave a
    // thread 32 registers for its 64 accumulators
    let small = Target {
        registers_per_sm: 16 * 1024,
        ..Target::sm90a()
    };
    let mut plan = named::plan("sgemm-sm80", layout("NT")).unwrap();
    plan.target = small;
    refused(
        &plan,
        "launch bounds",
        &["2 CTAs of 256 threads leave a thread 32 registers on sm_90a (16384 per SM, allocated per warp in units of 256), fewer than its 64 accumulators"],
    );
}

/// The instructions of the atoms are checked against the target's features, not assumed: a
/// target without `cp.async` refuses the pipelined kernels (no target here lacks it; the check is
/// the one later atoms use).
#[test]
fn a_target_without_cp_async_refuses_the_copies() {
    let mut t = Target::sm80();
    t.features.cp_async = false;
    let plan = named::plan_for("sgemm-sm80", layout("NN"), &t).unwrap();
    refused(
        &plan,
        "TiledCopy A",
        &["SM80_CP_ASYNC_CACHEGLOBAL<uint128_t> lowers to cp.async, which sm_80 (A100/A30) does not have"],
    );
    // the kernels without cp.async still emit
    for name in ["naive-rows", "naive-cols", "tiled-16", "tiled-32"] {
        assert!(emit(&named::plan_for(name, layout("NN"), &t).unwrap()).is_ok());
    }
}

#[test]
fn an_unknown_target_is_a_typed_error() {
    for bad in ["sm_70", "sm_90", "sm_100a", "compute_80", "A100"] {
        assert_eq!(
            Target::parse(bad),
            Err(CodegenError::UnknownTarget(bad.to_string()))
        );
    }
    assert_eq!("sm_89".parse::<Target>().map(|t| t.arch), Ok(Arch::Sm89));
}
