//! The few-row GEMMs (`sgemm-gemv`, `hgemm-gemv`, `bgemm-gemv`) as IR kernels, run by the CPU
//! interpreter (every lane's vectors, the shuffles and lane 0's store) at row counts up to and
//! past the rows a warp computes, columns that do not fill a CTA's warps and K past several
//! chunks with a ragged last one, `beta = 0` over a NaN C and `beta != 0`, against float64.

use cute_codegen::interp::run;
use cute_codegen::named::{plan, GEMV_NAMES, GEMV_ROWS};
use cute_codegen::recipes::{gemm, gemm_case};
use cute_codegen::GemmLayout;

fn check(name: &str, layout: &str, size: (i64, i64, i64), beta: f64) {
    let p = plan(name, GemmLayout::parse(layout).unwrap()).unwrap();
    let k = gemm(&p).unwrap();
    let mut c = gemm_case(&p, size, beta, (size.0 * 31 + size.1 * 7 + size.2) as u64).unwrap();
    run(&k, &mut c.args).unwrap_or_else(|e| panic!("{name} {layout} {size:?}: {e}"));
    let v = c.check(c.output());
    assert!(v.ok(), "{name} {layout} {size:?} beta {beta}: {v:?}");
}

#[test]
fn the_gemvs_agree_with_float64_on_the_cpu() {
    let past = GEMV_ROWS + 1;
    for name in GEMV_NAMES {
        for layout in ["NN", "TN"] {
            for size in [(1, 1, 8), (1, 9, 264), (3, 5, 1000), (past, 6, 520)] {
                for beta in [0.0, 0.5] {
                    check(name, layout, size, beta);
                }
            }
        }
    }
}

/// B streamed along K must be K-major: NT and TT are refused with the reason.
#[test]
fn an_mn_major_b_is_refused() {
    for layout in ["NT", "TT"] {
        let p = plan("sgemm-gemv", GemmLayout::parse(layout).unwrap()).unwrap();
        let err = gemm(&p).unwrap_err().to_string();
        assert!(err.contains("B must be K-major"), "{err}");
    }
}
