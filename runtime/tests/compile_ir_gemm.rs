//! The pipelined named GEMMs as IR kernels (`gemm::emit_by(.., Emitter::Ir, ..)`) compile with
//! NVRTC for sm_90a in every layout within the registers their launch bounds leave a thread;
//! ptxas's registers, spills and the compile time are printed beside the template emitter's
//! kernel of the same plan (`gemm::emit_template`, the one these plans launch, which must not
//! spill). Without NVRTC the test skips, saying so, except in CI.

use cute_codegen::cuda::IndexWidth;
use cute_codegen::gemm::{emit_by, emit_template, Emitter, Policy};
use cute_codegen::named::plan;
use cute_codegen::{GemmLayout, Target};
use cute_runtime::nvrtc;

#[test]
fn pipelined_ir_kernels_compile_without_spills_beside_the_template() {
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    let target = Target::sm90a();
    let arch = target.name();
    for (name, layout) in ["sgemm-sm80", "sgemm-sm80-bias-relu", "simt-hier"]
        .into_iter()
        .flat_map(|n| GemmLayout::all().map(|l| (n, l)))
    {
        let p = plan(name, layout).unwrap();
        let ir_k = emit_by(&p, Emitter::Ir, IndexWidth::I32).unwrap();
        let tpl_k = emit_template(&p).unwrap();
        let mut report = Vec::new();
        for (k, default) in [(&ir_k, false), (&tpl_k, true)] {
            let start = std::time::Instant::now();
            let c = nvrtc::compile(&k.name, &k.source, arch).unwrap_or_else(|e| panic!("{e}"));
            let ms = start.elapsed().as_millis();
            // the kernel the plan launches must not spill; the IR's (not yet the default for a
            // pipelined plan, `gemm::default_emitter`) is reported beside it
            if default {
                assert_eq!(
                    c.spill_bytes,
                    Some(0),
                    "{} spills on {arch}:\n{}",
                    k.name,
                    c.log
                );
            }
            let used = i64::from(c.registers.expect("ptxas reports the registers"));
            let min_blocks = match &p.policy {
                Policy::Pipelined(pp) => pp.min_blocks_per_sm,
                _ => 1,
            };
            let cap = target.registers_per_thread_at(k.launch.block[0], min_blocks);
            assert!(used <= cap, "{} uses {used} registers, above {cap}", k.name);
            report.push(format!(
                "{:<18} registers={used:<4} spill_bytes={:?} nvrtc={ms} ms",
                k.name, c.spill_bytes
            ));
        }
        println!("{arch} {name} {layout}: {}   |   {}", report[0], report[1]);
    }
}

/// Every named GEMM's 64-bit build (`gemm::emit_with(.., IndexWidth::I64)`, the IR's: the kernel
/// a problem beyond 2^31 - 1 elements launches) compiles with NVRTC for sm_90a, its integer
/// parameters and index arithmetic `long long`.
#[test]
fn every_named_gemm_compiles_with_64_bit_indices() {
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    for name in cute_codegen::named::NAMES {
        let p = plan(name, GemmLayout::parse("NN").unwrap()).unwrap();
        let k = cute_codegen::gemm::emit_with(&p, IndexWidth::I64).unwrap();
        assert_eq!(k.launch.index, IndexWidth::I64);
        assert!(k.source.contains("typedef long long cute_idx;"), "{name}");
        assert!(k.source.contains("long long M"), "{name}");
        let c =
            nvrtc::compile(&k.name, &k.source, "sm_90a").unwrap_or_else(|e| panic!("{name}: {e}"));
        println!(
            "sm_90a {name} NN, 64-bit indices: registers={} spill_bytes={:?}",
            c.registers.unwrap_or(0),
            c.spill_bytes
        );
    }
}
