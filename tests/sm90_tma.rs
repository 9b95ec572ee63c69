//! `make_tma_copy` TiledCopies (`SM90_TMA_LOAD`, `SM90_TMA_LOAD_MULTICAST`, `SM90_TMA_STORE`
//! over GMMA-swizzled, interleaved and plain shared tiles, 8- to 32-bit elements, 2- and 3-D
//! global tensors, multicasts over 2 and 4 CTAs) print as C++ CuTe prints them
//! (`tests/oracle/cute-sm90-tma.txt`, written by `tools/oracle/sm90_tma.cpp` with CUTLASS
//! 4.7.0's headers), and what C++ refuses is an error naming the condition.

use cute::layout::atom::{make_tma_box, make_tma_copy, TmaOp};
use cute::layout::expr::{eval, Value};
use cute::layout::{AnyLayout, ElemType, Layout};

mod common;

#[test]
fn every_tma_copy_prints_as_cpp_cute_does() {
    let blocks = common::oracle_blocks("cute-sm90-tma.txt");
    assert_eq!(blocks.len(), 23);
    for (expr, want) in &blocks {
        let v = eval(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
        assert_eq!(v.print().unwrap().trim_end(), want.trim_end(), "{expr}");
    }
}

fn layout(s: &str) -> AnyLayout {
    match eval(s).unwrap() {
        Value::Layout(l) => l,
        v => panic!("{s}: {v:?}"),
    }
}

fn plain(s: &str) -> Layout {
    match layout(s) {
        AnyLayout::Plain(l) => l,
        l => panic!("{l}"),
    }
}

/// One TMA of the TiledCopy is one box of `make_tma_box` (what the code generator issues): the
/// atom's bits are the box's, and the values cover the tile in as many boxes as it has issues.
#[test]
fn an_atom_is_one_box_of_the_code_generator() {
    let cases = [
        (
            "(M,K):(K,_1)",
            "tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_128,_128))",
        ),
        (
            "(M,K):(_1,M)",
            "tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>, (_256,_64))",
        ),
        (
            "(M,K):(K,_1)",
            "tile_to_shape(GMMA::Layout_K_INTER_Atom<half_t>, (_64,_16))",
        ),
    ];
    for (g, s) in cases {
        let (g, s) = (plain(g), layout(s));
        let tma = make_tma_copy(TmaOp::Load, &g, ElemType::F16, &s, 1).unwrap();
        let b = make_tma_box(&g, &s, ElemType::F16).unwrap();
        let bits = tma
            .atom()
            .val_layout_src()
            .unwrap()
            .size()
            .unwrap()
            .value()
            .unwrap()
            * 16;
        assert_eq!(bits, b.box_bytes() * 8, "{s}");
        let vals = tma
            .layout_tv()
            .mode(1)
            .unwrap()
            .size()
            .unwrap()
            .value()
            .unwrap();
        assert_eq!(vals * 2, b.tile_bytes(), "{s}");
    }
}

#[test]
fn what_cpp_cute_refuses_is_an_error_naming_the_condition() {
    let err = |e: &str| eval(e).unwrap_err().to_string();
    let g = "make_tensor(make_gmem_ptr<float>(A), (M,K):(K,_1))";
    // copy_traits_sm90_tma.hpp asserts "Majorness of smem doesn't match majorness of gmem"
    assert!(err(&format!(
        "make_tma_copy(SM90_TMA_LOAD, {g}, (_64,_32):(_1,_64))"
    ))
    .contains("TMA's is contiguous"));
    // a box wider than 256 elements
    assert!(err(&format!(
        "make_tma_copy(SM90_TMA_LOAD, {g}, (_8,_512):(_512,_1))"
    ))
    .contains("at most 256"));
    // a tensor in shared memory; an operation make_tma_copy does not build; a multicast of 3
    let s = "make_tensor(make_smem_ptr<float>(S), (M,K):(K,_1))";
    assert!(err(&format!(
        "make_tma_copy(SM90_TMA_LOAD, {s}, (_8,_32):(_32,_1))"
    ))
    .contains("not in global memory"));
    assert!(err(&format!(
        "make_tma_copy(SM90_TMA_LOAD_IM2COL, {g}, (_8,_32):(_32,_1))"
    ))
    .contains("expected (SM90_TMA_LOAD"));
    assert!(err(&format!(
        "make_tma_copy(SM90_TMA_LOAD_MULTICAST, {g}, (_8,_32):(_32,_1), _3)"
    ))
    .contains("dividing the box"));
}

/// With one CTA, the TiledCopy's values are the tile's coordinates, each once: every GMMA layout
/// atom of 8-, 16- and 32-bit types, K- and MN-major, tiled to several shapes.
#[test]
fn the_values_of_a_tma_copy_cover_the_tile_once() {
    let mut cases = 0;
    for (t, elem, bits) in [
        ("half_t", ElemType::F16, 16),
        ("float", ElemType::F32, 32),
        ("float_e4m3_t", ElemType::E4M3, 8),
    ] {
        for major in ["K", "MN"] {
            for sw in ["INTER", "SW32", "SW64", "SW128"] {
                // the atom's K (MN) extent: 128 bytes at SW128, down to 16 bytes at INTER
                let row = match sw {
                    "INTER" => 16,
                    "SW32" => 32,
                    "SW64" => 64,
                    _ => 128,
                } * 8
                    / bits;
                let g = if major == "K" {
                    "(M,K):(K,_1)"
                } else {
                    "(M,K):(_1,M)"
                };
                for (rows, cols) in [(64, 2 * row), (128, row), (256, row)] {
                    // K-major atoms are (8, row), MN-major ones (row, 8)
                    let (m, k) = if major == "K" {
                        (rows, cols)
                    } else {
                        (cols, rows)
                    };
                    let s =
                        format!("tile_to_shape(GMMA::Layout_{major}_{sw}_Atom<{t}>, (_{m},_{k}))");
                    let Ok(tma) = make_tma_copy(TmaOp::Load, &plain(g), elem, &layout(&s), 1)
                    else {
                        continue; // a box wider than 256 elements, or a tile TMA cannot move
                    };
                    let v = tma.layout_tv().mode(1).unwrap();
                    let n = v.size().unwrap().value().unwrap();
                    assert_eq!(n, m * k, "{s}");
                    let mut seen = vec![false; n as usize];
                    for i in 0..n {
                        let x = v.eval(i).unwrap() as usize;
                        assert!(!std::mem::replace(&mut seen[x], true), "{s}: {x} twice");
                    }
                    cases += 1;
                }
            }
        }
    }
    assert!(cases >= 40, "{cases}");
}
