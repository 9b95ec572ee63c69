//! `cute draw`: SVG pictures of layouts, kept as reviewed snapshots (`tests/snapshots/`; CI runs
//! with `INSTA_UPDATE=no`). A PNG rendering of each was looked at when the snapshot was accepted.

use std::process::Command;

use cute::layout::expr::{eval, Value};
use cute::layout::svg::{draw_layout, Shading};
use cute::layout::AnyLayout;

fn layout(src: &str) -> AnyLayout {
    match eval(src).unwrap() {
        Value::Layout(l) => l,
        other => panic!("{src} gave {other}"),
    }
}

#[test]
fn offsets_of_a_plain_layout() {
    let svg = draw_layout(&layout("(_4,(_2,_2)):(_2,(_1,_8))"), Shading::Offsets).unwrap();
    insta::assert_snapshot!("offsets_4x4", svg);
}

#[test]
fn banks_of_a_swizzled_layout() {
    let svg = draw_layout(
        &layout("composition(Swizzle<1,2,3>, (_4,_8):(_8,_1))"),
        Shading::Banks { bits: 32 },
    )
    .unwrap();
    insta::assert_snapshot!("banks_sw123_4x8", svg);
}

#[test]
fn the_cli_draws_swizzled_layouts_by_bank() {
    let out = Command::new(env!("CARGO_BIN_EXE_cute"))
        .args(["draw", "composition(Swizzle<1,2,3>, (_4,_8):(_8,_1))"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let svg = String::from_utf8(out.stdout).unwrap();
    assert!(svg.starts_with("<svg"));
    assert!(svg.contains(">b17<"), "bank labels are drawn");
    assert!(svg.trim_end().ends_with("</svg>"));
}

#[test]
fn draw_refuses_bad_input() {
    let err = |src: &str, shading| draw_layout(&layout(src), shading).unwrap_err().to_string();
    assert!(err("(_2,_2,_2):(_1,_2,_4)", Shading::Offsets).contains("rank 3"));
    assert!(err("(_4,_4):(_1,_4)", Shading::Banks { bits: 12 }).contains("12 bits"));
    for args in [
        &["draw"][..],
        &["draw", "_1:_0", "_2:_1"],
        &["draw", "--bits"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_cute"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_cute"))
        .args(["draw", "(_8,_8"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .starts_with("error: parse error"));
}

#[test]
fn thread_ownership_of_a_tiled_copy_and_a_tiled_mma() {
    use cute::layout::atom::draw::{draw_tiled_copy, draw_tiled_mma};
    let Value::TiledCopy(tc) = eval("make_tiled_copy(Copy_Atom<UniversalCopy<uint64_t>, float>, (_4,_8):(_8,_1), (_1,_2):(_0,_1))").unwrap() else {
        panic!()
    };
    insta::assert_snapshot!("tiled_copy_u64_4x8", draw_tiled_copy(&tc).unwrap());
    let Value::TiledMma(mma) =
        eval("make_tiled_mma(MMA_Atom<SM80_16x8x8_F32TF32TF32F32_TN>)").unwrap()
    else {
        panic!()
    };
    let svg = draw_tiled_mma(&mma).unwrap();
    // The PTX ISA's figure for m16n8k8 tf32: C row 0 is T0 V0, T0 V1, T1 V0, ...; A row 8 starts T0 V1.
    assert!(svg.contains(">T31<"));
    insta::assert_snapshot!("tiled_mma_sm80_16x8x8_tf32", svg);
}
