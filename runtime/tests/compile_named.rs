//! Every named kernel compiles with NVRTC for each target it was planned for (sm_90a and sm_80
//! in every layout; sm_86 and sm_89 for the kernels whose launch bounds or tiles differ there;
//! the tensor-core GEMMs with mma.sync in their source, and ldmatrix unless both operands are
//! TF32 M-/N-major; the SM90 ones with wgmma, on sm_90a only, without ptxas's wgmma
//! serialization warnings C7510/C7511/C7515, setmaxnreg ignored C7508), without
//! spills and within the registers its launch bounds leave a thread on that target; ptxas's
//! report (registers, spills) is printed. Without NVRTC these tests skip, saying so, except in CI
//! (`CI` set), where they fail: see `cute_runtime::testing`.

use cute_codegen::gemm::Policy;
use cute_codegen::named::{plan, plan_for, NAMES, TENSOR_CORE_NAMES};
use cute_codegen::{emit, GemmLayout, Target};
use cute_layout::atom::CopyOp;
use cute_runtime::nvrtc;

#[test]
fn every_named_kernel_compiles_for_its_target() {
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    let (major, minor) = nvrtc::version().unwrap();
    println!("NVRTC {major}.{minor}");
    for target in [
        Target::sm90a(),
        Target::sm80(),
        Target::sm86(),
        Target::sm89(),
    ] {
        for name in NAMES.iter().chain(TENSOR_CORE_NAMES) {
            for layout in GemmLayout::all() {
                // the SM90 GEMMs are sm_90a's alone (wgmma), TF32's and FP8's in TN alone
                if name.contains("-sm90")
                    && (target != Target::sm90a()
                        || ((name.starts_with("tf32") || name.starts_with("fp8"))
                            && layout.to_string() != "TN"))
                {
                    let err = plan_for(name, layout, &target).unwrap_err().to_string();
                    assert!(
                        err.contains("has no wgmma") || err.contains("K-major only"),
                        "{err}"
                    );
                    continue;
                }
                let plan = plan_for(name, layout, &target).unwrap();
                let (ctas, tensor_core, ldsm) = match &plan.policy {
                    Policy::Pipelined(p) => (p.min_blocks_per_sm, false, false),
                    // TF32 M-/N-major operands are read by 32-bit loads, not ldmatrix
                    Policy::TensorCore(p) => (
                        p.min_blocks_per_sm,
                        true,
                        [&p.s2r_a, &p.s2r_b]
                            .iter()
                            .flat_map(|a| a.as_ref())
                            .any(|a| matches!(a.op(), CopyOp::LdsmN { .. } | CopyOp::LdsmT { .. })),
                    ),
                    _ => (1, false, false),
                };
                // sm_86 and sm_89 get sm_80's SIMT kernels but for sgemm-sm80 NN (one CTA per
                // SM); their tensor-core tiles are their own (100 KiB per block)
                let ampere = matches!(target.name(), "sm_86" | "sm_89");
                let own =
                    tensor_core || (name.starts_with("sgemm-sm80") && layout.to_string() == "NN");
                if ampere && !own {
                    continue;
                }
                let k = emit(&plan).unwrap();
                if tensor_core && name.contains("-sm90") {
                    let n = if name.ends_with("-128x128") { 128 } else { 256 };
                    let wgmma = format!("wgmma.mma_async.sync.aligned.m64n{n}k");
                    assert!(k.source.contains(&wgmma), "{name}");
                    // the TMA kernels are warp-specialized: a producer, two consumers
                    let tma = !name.ends_with("-cpasync");
                    assert_eq!(k.source.contains("cp.async.bulk.tensor.2d"), tma);
                    assert_eq!(k.source.contains("setmaxnreg.dec.sync.aligned.u32 40"), tma);
                } else if tensor_core {
                    assert!(k.source.contains("mma.sync.aligned.m16n8k"));
                    assert_eq!(k.source.contains("ldmatrix.sync.aligned.x4"), ldsm);
                }
                assert_eq!(k.target, target);
                let arch = k.target.name();
                let c = nvrtc::compile(&k.name, &k.source, arch).unwrap_or_else(|e| panic!("{e}"));
                assert!(!c.cubin.is_empty());
                assert_eq!(c.arch, arch);
                // ptxas's warnings of a silently slow wgmma kernel (serialized wgmmas,
                // setmaxnreg ignored), which `compile` refuses
                for w in ["C7508", "C7510", "C7511", "C7515"] {
                    assert!(!c.log.contains(w), "{} on {arch}: {w}\n{}", k.name, c.log);
                }
                println!(
                    "{:<24} {arch:<7} ctas_per_sm={ctas} registers={:?} spill_bytes={:?}",
                    k.name, c.registers, c.spill_bytes
                );
                assert_eq!(
                    c.spill_bytes,
                    Some(0),
                    "{} spills on {arch}:\n{}",
                    k.name,
                    c.log
                );
                // the occupancy the kernel is built for holds with the registers ptxas used
                let cap = target.registers_per_thread_at(k.launch.block[0], ctas);
                let used = i64::from(c.registers.expect("ptxas reports the registers"));
                assert!(
                    used <= cap,
                    "{} on {arch} uses {used} registers, above the {cap} of {ctas} CTAs per SM",
                    k.name
                );
                assert!(
                    target.ctas_per_sm(k.launch.block[0], used, k.launch.dynamic_smem_bytes)
                        >= ctas,
                    "{} on {arch}",
                    k.name
                );
            }
        }
    }
}

/// `sgemm-sm80` with the whole k-tile unrolled (`--k-block-unroll 32`; as named it runs 8 k
/// blocks per trip) compiles without spills in every layout too.
#[test]
fn sgemm_sm80_with_the_whole_k_tile_unrolled_compiles_without_spills() {
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    for layout in GemmLayout::all() {
        let p = plan("sgemm-sm80", layout).unwrap();
        let k = emit(&p.with_k_block_unroll(32).unwrap()).unwrap();
        let c = nvrtc::compile(&k.name, &k.source, "sm_90a").unwrap_or_else(|e| panic!("{e}"));
        println!(
            "{:<24} unroll 32 registers={:?} spill_bytes={:?}",
            k.name, c.registers, c.spill_bytes
        );
        assert_eq!(c.spill_bytes, Some(0), "{} spills:\n{}", k.name, c.log);
    }
}

/// The tensor-core GEMMs writing a 16-bit C (hgemm-sm80 FP16, bgemm-sm80 BF16) compile for
/// sm_90a and sm_80 in every layout without spills, their C a `unsigned short` parameter.
#[test]
fn tensor_core_gemms_with_a_16_bit_c_compile_without_spills() {
    use cute_layout::ElemType::{Bf16, F16};
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    for target in [Target::sm90a(), Target::sm80()] {
        for (name, out) in [("hgemm-sm80", F16), ("bgemm-sm80", Bf16)] {
            for layout in GemmLayout::all() {
                let p = plan_for(name, layout, &target).unwrap();
                let k = emit(&p.with_output(out).unwrap()).unwrap();
                assert!(
                    k.source.contains("unsigned short* __restrict__ C"),
                    "{}",
                    k.name
                );
                let arch = target.name();
                let c = nvrtc::compile(&k.name, &k.source, arch).unwrap_or_else(|e| panic!("{e}"));
                println!(
                    "{:<30} {arch:<7} registers={:?} spill_bytes={:?}",
                    k.name, c.registers, c.spill_bytes
                );
                assert_eq!(c.spill_bytes, Some(0), "{} spills:\n{}", k.name, c.log);
            }
        }
    }
}

#[test]
fn a_compile_error_carries_the_log_and_the_numbered_source() {
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    let err = nvrtc::compile(
        "broken",
        "extern \"C\" __global__ void broken() { int x = ; }",
        "sm_90a",
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("NVRTC failed to compile broken for sm_90a"),
        "{msg}"
    );
    assert!(msg.contains("   1 | extern"), "{msg}");
}

/// The warpgroup `wgmma` tiles compile for sm_90a without spills (ptxas accepts the
/// descriptors, the register A operands, the FP16 accumulator pairs and the wgmma fences), and
/// none is serialised.
#[test]
fn the_wgmma_tiles_compile_for_sm_90a() {
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    for (atom, k) in [
        (
            "SM90_64x64x16_F32F16F16_SS<GMMA::Major::K,GMMA::Major::K>",
            64,
        ),
        (
            "SM90_64x32x16_F32BF16BF16_SS<GMMA::Major::MN,GMMA::Major::MN>",
            64,
        ),
        ("SM90_64x16x8_F32TF32TF32_SS_TN<>", 32),
        // A from registers (RS)
        (
            "SM90_64x128x16_F32F16F16_RS<GMMA::Major::K,GMMA::Major::MN>",
            64,
        ),
        ("SM90_64x32x8_F32TF32TF32_RS_TN<>", 32),
        // FP16 accumulators (pairs of values a register) and an integer one
        (
            "SM90_64x128x16_F16F16F16_SS<GMMA::Major::K,GMMA::Major::MN>",
            64,
        ),
        (
            "SM90_64x64x16_F16F16F16_RS<GMMA::Major::K,GMMA::Major::K>",
            64,
        ),
        ("SM90_64x64x32_F16E4M3E4M3_SS_TN<>", 64),
        ("SM90_64x64x32_S32S8S8_SS_TN", 128),
    ] {
        let k = cute_codegen::recipes::wgmma_tile(atom, k).unwrap();
        let src = cute_codegen::cuda::emit(&k).unwrap();
        if std::env::var_os("CUTE_DUMP").is_some() {
            std::fs::write(format!("/tmp/{}.cu", src.name), &src.source).unwrap();
        }
        let c = nvrtc::compile(&src.name, &src.source, "sm_90a").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.spill_bytes, Some(0), "{}:\n{}", src.name, c.log);
        assert!(
            !c.log.contains("C7510") && !c.log.contains("C7515"),
            "{}",
            c.log
        );
    }
}

/// `k` compiles for sm_90a without spills, within the registers `ctas` CTAs an SM of `target`
/// leave a thread; ptxas's figures printed.
fn compiles_within(target: &Target, k: &cute_codegen::Kernel, ctas: i64) {
    let c = nvrtc::compile(&k.name, &k.source, "sm_90a").unwrap_or_else(|e| panic!("{e}"));
    println!(
        "{:<40} registers={:?} spill_bytes={:?}",
        k.name, c.registers, c.spill_bytes
    );
    assert_eq!(c.spill_bytes, Some(0), "{} spills:\n{}", k.name, c.log);
    let cap = target.registers_per_thread_at(k.launch.block[0], ctas);
    let used = i64::from(c.registers.expect("ptxas reports the registers"));
    assert!(used <= cap, "{} uses {used} registers, cap {cap}", k.name);
}

/// The split-K kernels of the `cp.async` GEMMs compile for sm_90a without spills and within
/// their launch bounds' registers: parallel split-K's partial products and reduction, serial
/// split-K's one kernel (its semaphore an `ld.global.acquire.gpu` / `st.global.release.gpu`
/// pair); every layout for the SIMT tiles, TN for the tensor-core ones.
#[test]
fn split_k_kernels_compile_without_spills() {
    use cute_codegen::recipes::{emit_serial_split_k, emit_split_k};
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    let target = Target::sm90a();
    let simt = ["sgemm-sm80", "sgemm-sm80-16x128", "sgemm-sm80-64x128"];
    let tc = ["hgemm-sm80", "bgemm-sm80-128x128", "tf32gemm-sm80"];
    let cases = GemmLayout::all()
        .into_iter()
        .flat_map(|l| simt.map(|n| (n, l)))
        .chain(tc.map(|n| (n, GemmLayout::parse("TN").unwrap())));
    for (name, layout) in cases {
        let p = plan_for(name, layout, &target).unwrap();
        let ctas = p.cp_async_pipeline().unwrap().1;
        let serial = emit_serial_split_k(&p).unwrap();
        assert!(serial.source.contains("ld.global.acquire.gpu.b32"));
        let [partial, reduce] = emit_split_k(&p).unwrap();
        for (k, ctas) in [(&serial, ctas), (&partial, ctas), (&reduce, 1)] {
            compiles_within(&target, k, ctas);
        }
    }
}

/// Stream-K's kernels of the SIMT tiles compile for sm_90a without spills and within their
/// launch bounds' registers: the partials (the persistent loop over a CTA's units around the
/// whole mainloop and epilogue) and the reduction.
#[test]
fn stream_k_kernels_compile_without_spills() {
    use cute_codegen::recipes::emit_stream_k;
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    let target = Target::sm90a();
    for name in ["sgemm-sm80", "sgemm-sm80-16x128", "sgemm-sm80-64x128"] {
        for layout in GemmLayout::all() {
            let p = plan_for(name, layout, &target).unwrap();
            // the CTAs an SM the partials are built for (one fewer for 64 accumulators a thread)
            let ctas = p
                .clone()
                .with_stream_k()
                .unwrap()
                .cp_async_pipeline()
                .unwrap()
                .1;
            let [partial, reduce] = emit_stream_k(&p).unwrap();
            for (k, ctas) in [(&partial, ctas), (&reduce, 1)] {
                compiles_within(&target, k, ctas);
            }
        }
    }
}

/// The GEMVs compile for sm_90a without spills in every layout, within the registers of 4 CTAs
/// of 128 threads an SM where B is K-major (NN, TN), 2 of 512 where it is N-major (NT, TT).
#[test]
fn the_gemvs_compile_without_spills() {
    use cute_codegen::named::GEMV_NAMES;
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    let target = Target::sm90a();
    for name in GEMV_NAMES {
        for layout in ["NN", "TN", "NT", "TT"] {
            let p = plan_for(name, GemmLayout::parse(layout).unwrap(), &target).unwrap();
            let ctas = if layout.ends_with('N') { 4 } else { 2 };
            compiles_within(&target, &cute_codegen::gemm::emit(&p).unwrap(), ctas);
        }
    }
}
