//! Every named kernel compiles with NVRTC for sm_90a and sm_80, without spills; ptxas's report
//! (registers, spills) is printed. Without NVRTC these tests skip, saying so, except in CI (`CI`
//! set), where they fail: see `cute_runtime::testing`.

use cute_codegen::named::{plan, NAMES};
use cute_codegen::{emit, GemmLayout};
use cute_runtime::nvrtc;

#[test]
fn every_named_kernel_compiles_for_sm_90a_and_sm_80() {
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    let (major, minor) = nvrtc::version().unwrap();
    println!("NVRTC {major}.{minor}");
    for name in NAMES {
        for layout in GemmLayout::all() {
            let k = emit(&plan(name, layout).unwrap()).unwrap();
            for arch in ["sm_90a", "sm_80"] {
                let c = nvrtc::compile(&k.name, &k.source, arch).unwrap_or_else(|e| panic!("{e}"));
                assert!(!c.cubin.is_empty());
                println!(
                    "{:<24} {arch:<7} registers={:?} spill_bytes={:?}",
                    k.name, c.registers, c.spill_bytes
                );
                assert_eq!(
                    c.spill_bytes,
                    Some(0),
                    "{} spills on {arch}:\n{}",
                    k.name,
                    c.log
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
