//! The seed SGEMM's partitions, built with the typed Rust API and printed as C++ CuTe prints them:
//!
//! - the global-to-shared copy: `Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>` tiled by
//!   `(32,8)` threads and `(4,1)` values over a `(128,32,3)` shared-memory tile (`tidfrg_D`);
//! - the MMA: `UniversalFMA` tiled 16x16 with the M permutation `(16,4,2):(4,1,64)` over a
//!   128x128 tile (`thrfrg_A/B/C`).
//!
//! Layouts are written with the `layout!` macro, checked when this example compiles.
//!
//! Each line whose expression is in `tests/oracle/tiled.tsv` says whether it matches C++ CuTe.
//! Run with `cargo run --example print_partitions`.

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;

use cute::layout;
use cute::layout::atom::copy_op::{uint128_t, SM80_CP_ASYNC_CACHEGLOBAL};
use cute::layout::atom::mma_op::UniversalFMA;
use cute::layout::atom::{make_tiled_copy, make_tiled_mma, CopyAtom, MmaAtom};
use cute::layout::expr::eval_str;
use cute::layout::{AnyLayout, Result, Tiler};

/// The oracle's `expression -> C++ output`.
fn oracle() -> HashMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/tiled.tsv");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(e, x)| (e.to_string(), x.to_string()))
        .collect()
}

/// Prints `name = value` and, when the expression is in the oracle, whether it matches.
fn show(oracle: &HashMap<String, String>, name: &str, expr: &str, value: &str) -> bool {
    println!("{name}\n  = {value}");
    match oracle.get(expr) {
        Some(expected) if expected == value => println!("  (matches C++ CuTe)"),
        Some(expected) => {
            println!("  C++ CuTe prints {expected}");
            return false;
        }
        None => {}
    }
    true
}

fn run() -> Result<bool> {
    let oracle = oracle();
    let mut ok = true;

    // gmem -> smem copy: 256 threads, each moving 4 consecutive floats with one 16-byte cp.async.
    let atom = CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>()?;
    let thr = layout!((_32,_8):(_1,_32)); // (m,n) -> thr_idx
    let val = layout!((_4,_1):(_1,_0)); // (m,n) -> val_idx
    let copy_a = make_tiled_copy(&atom, &thr, &val)?;
    print!("{}", copy_a.print()?);
    let s_a = AnyLayout::Plain(layout!((_128,_32,_3):(_1,_128,_4096))); // (BLK_M,BLK_K,PIPE)
    let t_as = copy_a.tidfrg_d(&s_a)?; // (THR,(CPY),(CPY_M,CPY_K,PIPE))
    let expr = "make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>, (_32,_8):(_1,_32), (_4,_1):(_1,_0)).tidfrg_D((_128,_32,_3):(_1,_128,_4096))";
    ok &= show(&oracle, "tAsA: tidfrg_D(sA)", expr, &t_as.to_string());

    // The MMA: 16x16 threads of UniversalFMA; M permuted so each thread's 8 C rows are 4+4 contiguous.
    let fma = MmaAtom::of::<UniversalFMA<f32>>();
    let perm_m = layout!((_16,_4,_2):(_4,_1,_64));
    let tiles = [
        Tiler::Layout(perm_m),
        Tiler::Int(cute::layout::s(128)),
        Tiler::Int(cute::layout::s(32)),
    ];
    let mma = make_tiled_mma(fma, &layout!((_16,_16):(_1,_16)), &tiles)?;
    print!("{}", mma.print());
    let c = AnyLayout::Plain(layout!((_128,_128):(_1,_128))); // (BLK_M,BLK_N)
    let expr_c = "make_tiled_mma(MMA_Atom<UniversalFMA<float,float,float,float>>, (_16,_16):(_1,_16), make_tile((_16,_4,_2):(_4,_1,_64), _128, _32)).thrfrg_C((_128,_128):(_1,_128))";
    ok &= show(
        &oracle,
        "tCgC: thrfrg_C(C)",
        expr_c,
        &mma.thrfrg_c(&c)?.to_string(),
    );
    let expr_tv = "make_tiled_mma(MMA_Atom<UniversalFMA<float,float,float,float>>, (_16,_16):(_1,_16), make_tile((_16,_4,_2):(_4,_1,_64), _128, _32)).get_layoutC_TV()";
    ok &= show(
        &oracle,
        "layoutC_TV",
        expr_tv,
        &mma.get_layout_c_tv()?.to_string(),
    );

    // A and B from shared memory, as the mainloop reads them (the oracle has the unpermuted MMA).
    for (name, op, smem) in [
        (
            "tCsA: thrfrg_A(sA)",
            "thrfrg_A",
            "(_128,_32,_3):(_1,_128,_4096)",
        ),
        (
            "tCsB: thrfrg_B(sB)",
            "thrfrg_B",
            "(_128,_32,_3):(_32,_1,_4096)",
        ),
    ] {
        let expr = format!(
            "make_tiled_mma(MMA_Atom<UniversalFMA<float,float,float,float>>, (_16,_16):(_1,_16)).{op}({smem})"
        );
        ok &= show(&oracle, name, &expr, &eval_str(&expr)?);
    }
    Ok(ok)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
