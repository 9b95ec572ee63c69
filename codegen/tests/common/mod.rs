//! What the CPU-interpreter tests of the GEMM recipes share.

use cute_codegen::interp::run;
use cute_codegen::recipes::{gemm, gemm_case};
use cute_codegen::GemmPlan;

/// `p`'s IR kernel run by the interpreter on a fresh case at `size` (C poisoned where `beta`
/// is 0), every element of C checked against float64.
pub fn check_plan(p: &GemmPlan, size: (i64, i64, i64), beta: f64) {
    let (name, layout) = (&p.name, p.layout);
    let k = gemm(p).unwrap();
    let mut c = gemm_case(p, size, beta, (size.0 * 31 + size.1 * 7 + size.2) as u64).unwrap();
    run(&k, &mut c.args).unwrap_or_else(|e| panic!("{name} {layout} {size:?}: {e}"));
    let v = c.check(c.output());
    assert!(v.ok(), "{name} {layout} {size:?} beta {beta}: {v:?}");
}
