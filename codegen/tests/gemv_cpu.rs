//! The few-row GEMMs (`sgemm-gemv`, `hgemm-gemv`, `bgemm-gemv`) as IR kernels, run by the CPU
//! interpreter (every lane's vectors, the shuffles and lane 0's store) at row counts up to and
//! past the rows a warp computes, columns that do not fill a CTA's warps and K past several
//! chunks with a ragged last one (and trips of several steps in flight with a ragged last
//! trip), `beta = 0` over a NaN C and `beta != 0`, against float64.

mod common;

use common::check_plan;
use cute_codegen::gemm::{GemmPlan, Gemv, Policy};
use cute_codegen::named::{plan, GEMV_NAMES, GEMV_ROWS};
use cute_codegen::recipes::gemm;
use cute_codegen::GemmLayout;

fn check(name: &str, layout: &str, size: (i64, i64, i64), beta: f64) {
    let p = plan(name, GemmLayout::parse(layout).unwrap()).unwrap();
    check_plan(&p, size, beta);
}

#[test]
fn the_gemvs_agree_with_float64_on_the_cpu() {
    let past = GEMV_ROWS + 1;
    for name in GEMV_NAMES {
        for layout in ["NN", "TN"] {
            // K: one step, a ragged step, two trips of FP32's 4 x 128 (ragged), three of
            // 16-bit's 4 x 256 (the last one step and 8 values)
            for size in [
                (1, 1, 8),
                (1, 9, 264),
                (3, 5, 1000),
                (past, 6, 520),
                (2, 3, 2056),
            ] {
                for beta in [0.0, 0.5] {
                    check(name, layout, size, beta);
                }
            }
        }
    }
}

/// An N-major B (NT, TT): the CTA's warps split K and meet in shared memory; N is a multiple of
/// the 128-bit vectors along it (8 values covers every dtype).
#[test]
fn the_gemvs_of_an_n_major_b_agree_with_float64_on_the_cpu() {
    for name in GEMV_NAMES {
        for layout in ["NT", "TT"] {
            for size in [
                (1, 8, 1),
                (1, 264, 9),
                (3, 40, 1000),
                (GEMV_ROWS + 1, 16, 37),
            ] {
                for beta in [0.0, 0.5] {
                    check(name, layout, size, beta);
                }
            }
        }
    }
}

fn with_in_flight(name: &str, layout: &str, u: i64) -> GemmPlan {
    let mut p = plan(name, GemmLayout::parse(layout).unwrap()).unwrap();
    match &mut p.policy {
        Policy::Gemv(g) => g.in_flight = u,
        other => panic!("{name}: {other:?}"),
    }
    p
}

/// Any number of B's vectors in flight a lane computes the same product; more than the
/// registers hold, or none, is a plan error naming the bound.
#[test]
fn every_count_of_vectors_in_flight_agrees_and_a_count_out_of_range_is_refused() {
    for u in [1, 3, Gemv::MAX_IN_FLIGHT] {
        for (name, layout) in [
            ("sgemm-gemv", "NN"),
            ("bgemm-gemv", "TN"),
            ("sgemm-gemv", "NT"),
            ("hgemm-gemv", "TT"),
        ] {
            check_plan(&with_in_flight(name, layout, u), (3, 40, 1000), 0.5);
        }
    }
    for u in [0, Gemv::MAX_IN_FLIGHT + 1] {
        let err = gemm(&with_in_flight("sgemm-gemv", "NN", u))
            .unwrap_err()
            .to_string();
        assert!(err.contains("in flight") && err.contains("1 to 8"), "{err}");
    }
}
