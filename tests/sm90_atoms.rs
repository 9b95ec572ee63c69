//! The SM90 GMMA atoms and TiledMMAs over them print as C++ CuTe prints them
//! (`tests/oracle/cute-sm90-atoms.txt`, written by `tools/oracle/sm90_atoms.py` from CUTLASS
//! 4.7.0's headers), and the spellings C++ refuses are errors that name the condition
//! (`tests/oracle/cute-sm90-rejected.tsv`).

use std::path::Path;

use cute::layout::expr::{eval, Value};

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
    let mut out: Vec<(String, String)> = Vec::new();
    for line in oracle("cute-sm90-atoms.txt").split_inclusive('\n') {
        match line.strip_prefix("@@ ") {
            Some(expr) => out.push((expr.trim_end().to_string(), String::new())),
            None => out
                .last_mut()
                .expect("file starts with @@")
                .1
                .push_str(line),
        }
    }
    out
}

fn printed(v: &Value) -> String {
    v.print().unwrap()
}

#[test]
fn every_gmma_atom_and_tiled_mma_prints_as_cpp_cute_does() {
    let blocks = blocks();
    assert_eq!(blocks.len(), 302);
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
