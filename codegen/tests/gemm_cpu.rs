//! Every named GEMM (`named::NAMES`) as its IR kernel (`recipes::gemm`), run by the CPU
//! interpreter in every layout at sizes 1, 17, 127 and 130x67x33 (that do and do not divide the
//! tiles), with `beta = 0` over a C of NaN (which must not be read) and with `beta != 0`, against
//! a float64 reference; and plans that are wrong on purpose, caught by the static hazards pass,
//! the recipe's own checks or the interpreter. The interpreter also checks what the GPU would
//! get wrong: shared-memory races, reads of `cp.async` data not yet waited for, out-of-bounds
//! accesses, two threads writing one element of C.
//!
//! The cases (operands, the poisoned C, the float64 reference and its rigorous tolerance) are
//! `recipes::gemm_case`'s, the ones `cute check --cpu` runs.

use std::time::Instant;

use cute_codegen::gemm::KMajorTile;
use cute_codegen::interp::run;
use cute_codegen::ir::{Barrier, Kernel, Stmt};
use cute_codegen::named::{plan, NAMES};
use cute_codegen::recipes::gemm_simple::{naive, tiled_with_smem};
use cute_codegen::recipes::{gemm, gemm_case, Case};
use cute_codegen::{passes, CodegenError, GemmLayout};
use cute_layout::{s, tup, Layout};

/// Runs `kernel` on the case and checks every element of C against the reference (the padding
/// rows must stay NaN).
fn run_case(kernel: &Kernel, mut case: Case) {
    run(kernel, &mut case.args).unwrap_or_else(|e| panic!("{}: {e}", kernel.name));
    let v = case.check(case.output());
    assert!(v.ok(), "{} {}x{}: {v:?}", kernel.name, case.m, case.n);
    let ldc = case.output_len() as i64 / case.n;
    for (i, x) in case.output().iter().enumerate() {
        if i as i64 % ldc >= case.m {
            assert!(
                x.is_nan(),
                "{}: padding element {i} written with {x}",
                kernel.name
            );
        }
    }
}

/// Every named GEMM in every layout at `size`, with `beta = 0` over a NaN C and with
/// `beta = -0.75`.
fn every_kernel_at(size: (i64, i64, i64)) {
    let start = Instant::now();
    for (ni, name) in NAMES.iter().enumerate() {
        for (li, layout) in GemmLayout::all().into_iter().enumerate() {
            let p = plan(name, layout).unwrap();
            let kernel = gemm(&p).unwrap();
            for (bi, beta) in [0.0, -0.75].into_iter().enumerate() {
                let seed = (size.0 * 1_000_003 + size.1 * 1009 + size.2) as u64 * 64
                    + (ni * 8 + li * 2 + bi) as u64;
                run_case(&kernel, gemm_case(&p, size, beta, seed).unwrap());
            }
        }
    }
    println!(
        "{}x{}x{}: {} kernels x 4 layouts x 2 betas in {:.2?}",
        size.0,
        size.1,
        size.2,
        NAMES.len(),
        start.elapsed()
    );
}

/// The kernels written for 64-bit index arithmetic (the pipelined plans store C from registers
/// there, `gemm_pipelined::pipelined`) agree with the reference too, in every layout.
#[test]
fn named_gemms_as_built_for_64_bit_indices() {
    for name in ["sgemm-sm80", "sgemm-sm80-bias-relu"] {
        for layout in GemmLayout::all() {
            let p = plan(name, layout).unwrap();
            let kernel =
                cute_codegen::recipes::gemm_for(&p, cute_codegen::cuda::IndexWidth::I64).unwrap();
            assert!(!kernel.smem.iter().any(|b| b.reuses), "{name} {layout}");
            run_case(&kernel, gemm_case(&p, (130, 67, 33), -0.75, 11).unwrap());
        }
    }
}

/// The SIMT pipelined plans with their K-major shared tiles swizzled (`with_k_major_tile`, `cute
/// ... --k-major-tile swizzled`; as named, they are padded where that fits) agree with the
/// reference in every layout, with 32- and 64-bit indices, in one k-tile and over several
/// (130x67x33, 127x129x65), the interpreter checking the transposing copies' writes against
/// the MMA's reads.
#[test]
fn swizzled_k_major_tiles_agree_in_every_layout() {
    use cute_codegen::cuda::IndexWidth;
    let pipelined = cute_codegen::named::SIMT_TILES
        .iter()
        .map(|(n, _)| *n)
        .chain(["sgemm-sm80-bias-relu", "simt-hier"]);
    for (i, name) in pipelined.enumerate() {
        for layout in GemmLayout::all() {
            let p = plan(name, layout)
                .and_then(|p| p.with_k_major_tile(KMajorTile::Swizzled))
                .unwrap();
            for (j, width) in [IndexWidth::I32, IndexWidth::I64].into_iter().enumerate() {
                let kernel = cute_codegen::recipes::gemm_for(&p, width).unwrap();
                for (k, size) in [(130, 67, 33), (127, 129, 65)].into_iter().enumerate() {
                    let seed = (i * 16 + j * 2 + k) as u64;
                    run_case(&kernel, gemm_case(&p, size, -0.75, seed).unwrap());
                }
            }
        }
    }
}

#[test]
fn named_gemms_at_1x1x1() {
    every_kernel_at((1, 1, 1));
}

#[test]
fn named_gemms_at_17x17x17() {
    every_kernel_at((17, 17, 17));
}

#[test]
fn named_gemms_at_127x127x127() {
    every_kernel_at((127, 127, 127));
}

#[test]
fn named_gemms_at_130x67x33() {
    every_kernel_at((130, 67, 33));
}

/// Removes the `n`-th `__syncthreads()` of the k-tile loop of a tiled kernel.
fn without_barrier(mut k: Kernel, n: usize) -> Kernel {
    for s in &mut k.body {
        if let Stmt::For { var, body, .. } = s {
            if var == "k_tile" {
                let at = body
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| matches!(s, Stmt::Barrier(Barrier::Cta)))
                    .nth(n)
                    .map(|(i, _)| i)
                    .expect("the k-tile loop has two barriers");
                body.remove(at);
            }
        }
    }
    k
}

#[test]
fn a_tiled_gemm_without_its_barriers_is_refused_naming_the_statement() {
    let p = plan("tiled-16", GemmLayout::parse("NN").unwrap()).unwrap();
    let good = gemm(&p).unwrap();
    // the barrier between the shared stores and the reads of the k blocks
    let raw = without_barrier(good.clone(), 0);
    match passes::verify(&raw) {
        Err(CodegenError::Kernel { kernel, stmt, msg }) => {
            assert_eq!(kernel, "tiled_16_NN");
            assert!(
                stmt.contains(".for k_tile") && stmt.contains(".for k_block"),
                "{stmt}"
            );
            assert!(stmt.contains("sA -> tCrA"), "{stmt}");
            assert!(msg.contains("reads sA after the write at"), "{msg}");
            assert!(msg.contains("-> sA"), "{msg}");
        }
        other => panic!("a read after a write with no barrier: {other:?}"),
    }
    let mut case = gemm_case(&p, (17, 17, 17), 0.0, 1).unwrap();
    assert!(
        run(&raw, &mut case.args).is_err(),
        "nor does the interpreter run it"
    );
    assert!(cute_codegen::cuda::emit(&raw).is_err(), "nor is it lowered");
    // the barrier after the reads, before the next k tile's stores
    match passes::verify(&without_barrier(good, 1)) {
        Err(CodegenError::Kernel { stmt, msg, .. }) => {
            assert!(stmt.contains("tArA -> sA"), "{stmt}");
            assert!(
                msg.contains("writes sA while other threads may still read it"),
                "{msg}"
            );
        }
        other => panic!("a write after a read with no barrier: {other:?}"),
    }
}

#[test]
fn a_shared_tile_that_aliases_is_a_race_the_interpreter_finds() {
    // (16,16):(1,15): element (15,k) and (0,k+1) are one word. Barriers are in place, so the
    // buffer-level hazards pass accepts it; the interpreter sees two threads store one element.
    let p = plan("tiled-16", GemmLayout::parse("NN").unwrap()).unwrap();
    let bad = Layout::new(tup![s(16), s(16)], tup![s(1), s(15)]).unwrap();
    let k = tiled_with_smem(&p, 16, &bad).unwrap();
    let mut case = gemm_case(&p, (17, 17, 17), 0.0, 2).unwrap();
    match run(&k, &mut case.args) {
        Err(CodegenError::Kernel { stmt, msg, .. }) => {
            assert!(stmt.contains("tArA -> sA"), "{stmt}");
            assert!(msg.contains("also written by thread"), "{msg}");
        }
        other => panic!("two threads store one shared element: {other:?}"),
    }
}

#[test]
fn a_naive_thread_layout_that_is_no_bijection_is_refused() {
    // (8,32):(16,1) sends threads 0 and 128 to the same output, and no thread to others
    let p = plan("naive-rows", GemmLayout::parse("NN").unwrap()).unwrap();
    let thr = Layout::new(tup![s(8), s(32)], tup![s(16), s(1)]).unwrap();
    match naive(&p, (8, 32), &thr) {
        Err(CodegenError::Plan { part, msg, .. }) => {
            assert_eq!(part, "thread layout");
            assert!(msg.contains("bijection"), "{msg}");
        }
        other => panic!("{other:?}"),
    }
}
