//! The SM80 tensor-core GEMMs (`named::TENSOR_CORE_NAMES`) as IR kernels, run by the CPU
//! interpreter (every `ldmatrix` and `mma.sync` executed per warp by the atoms' thread-value
//! layouts) at sizes that do and do not divide the CTA tile and over more k-tiles than stages,
//! with `beta = 0` over a NaN C and with `beta != 0`, against the float64 product of the
//! rounded 16-bit operands.

use cute_codegen::interp::run;
use cute_codegen::named::{plan, TENSOR_CORE_NAMES};
use cute_codegen::recipes::{gemm, gemm_case};
use cute_codegen::GemmLayout;

fn check(name: &str, size: (i64, i64, i64), beta: f64) {
    let tn = GemmLayout::parse("TN").unwrap();
    let p = plan(name, tn).unwrap();
    let k = gemm(&p).unwrap();
    let mut c = gemm_case(&p, size, beta, (size.0 * 31 + size.1 * 7 + size.2) as u64).unwrap();
    run(&k, &mut c.args).unwrap_or_else(|e| panic!("{name} {size:?}: {e}"));
    let v = c.check(c.output());
    assert!(v.ok(), "{name} {size:?} beta {beta}: {v:?}");
}

#[test]
fn the_tensor_core_gemms_agree_with_float64_on_the_cpu() {
    for name in TENSOR_CORE_NAMES {
        // 300: five k-tiles of 64 over three stages, each stage refilled
        for size in [(1, 1, 1), (17, 17, 17), (130, 67, 33), (33, 40, 300)] {
            for beta in [0.0, 0.5] {
                check(name, size, beta);
            }
        }
    }
}

#[test]
fn the_other_layouts_are_refused_for_now() {
    for l in ["NN", "NT", "TT"] {
        let err = plan("hgemm-sm80", GemmLayout::parse(l).unwrap())
            .unwrap_err()
            .to_string();
        assert!(err.contains("only TN"), "{err}");
    }
}
