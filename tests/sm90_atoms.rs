//! The SM90 GMMA atoms and TiledMMAs over them, the GMMA shared-memory layout atoms (their
//! tilings and casts) and the descriptors of tiles made from them print as C++ CuTe prints them
//! (`tests/oracle/cute-sm90-atoms.txt`, written by `tools/oracle/sm90_atoms.py` from CUTLASS
//! 4.7.0's headers), and the spellings C++ refuses are errors that name the condition
//! (`tests/oracle/cute-sm90-rejected.tsv`).

use std::path::Path;

use cute::layout::expr::{eval, Value};

mod common;

fn oracle(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/oracle")
            .join(name),
    )
    .unwrap()
}

/// `(expression, what C++ printed)` blocks.
fn blocks() -> Vec<(String, String)> {
    common::oracle_blocks("cute-sm90-atoms.txt")
}

fn printed(v: &Value) -> String {
    v.print().unwrap()
}

#[test]
fn every_gmma_atom_and_tiled_mma_prints_as_cpp_cute_does() {
    let blocks = blocks();
    assert_eq!(blocks.len(), 398);
    for (expr, want) in &blocks {
        let v = eval(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
        assert_eq!(printed(&v).trim_end(), want.trim_end(), "{expr}");
    }
}

/// The atom's name is the C++ type (the scales spelled only when one is `Neg`, as these are).
#[test]
fn an_atom_is_spelled_as_cpp_spells_it() {
    for (expr, _) in blocks().iter().filter(|(e, _)| e.starts_with("MMA_Atom<")) {
        let Value::MmaAtom(a) = eval(expr).unwrap() else {
            panic!("{expr}")
        };
        assert_eq!(a.to_string(), *expr);
    }
}

#[test]
fn what_cpp_cute_refuses_is_an_error_naming_the_condition() {
    let why = [
        "register-sourced A (RS) must be K-major",
        "no N = 36",
        "no N = 40",
        "no N = 264",
        "K of tfloat32_t is 8",
        "GMMA has no half_t = bfloat16_t x bfloat16_t",
        "K-major only",
        "16-bit GMMAs end in _SS or _RS",
        "integer GMMAs take no template arguments",
        // make_gmma_desc of a K-major tile read as MN-major, of a K of 64 values (128 bytes), of
        // an MN-major tile read as K-major, of a plain layout
        "chunks of a swizzled MN-major row are 1 unit apart",
        "K is 32 bytes",
        "K is 32 bytes",
        "expected a GMMA layout",
    ];
    let text = oracle("cute-sm90-rejected.tsv");
    let rejected: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split('\t').next())
        .collect();
    assert_eq!(rejected.len(), why.len());
    for (expr, why) in rejected.iter().zip(why) {
        let e = eval(expr).unwrap_err().to_string();
        assert!(e.contains(why), "{expr}: {e}");
    }
}

/// The descriptor's start address is the tile's byte address over 16 (C++ computes it on the GPU
/// only): 1024 halves in, 2048 bytes, 0x80; an address off 16 bytes is refused.
#[test]
fn the_start_address_is_the_byte_address_in_16_byte_units() {
    let desc = |ptr: &str| {
        eval(&format!("make_gmma_desc<GMMA::Major::MN>(make_tensor({ptr}, tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>, (_128,_16))))"))
    };
    let Value::GmmaDesc(d) = desc("smem_ptr[16b](sA+1024)").unwrap() else {
        panic!()
    };
    assert_eq!(d.start_address, 0x80);
    assert_eq!(d.bits() & 0x3fff, 0x80);
    let e = desc("smem_ptr[16b](sA+3)").unwrap_err().to_string();
    assert!(e.contains("starts on 16 bytes"), "{e}");
}
