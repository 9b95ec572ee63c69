//! Generates the compile-time oracle test of the macros: one `cute!{...}` per case of
//! `tests/oracle/algebra.tsv` and `tiled.tsv`, paired with C++ CuTe's expected output
//! (included by `tests/macros.rs`).

use std::fmt::Write;
use std::path::Path;

fn main() {
    let mut text = String::new();
    for f in ["tests/oracle/algebra.tsv", "tests/oracle/tiled.tsv"] {
        println!("cargo:rerun-if-changed={f}");
        text.push_str(&std::fs::read_to_string(f).unwrap_or_default());
    }
    let mut out =
        String::from("/// (C++ CuTe's output, the macro's value printed) for each oracle case.\n");
    out.push_str(
        "pub fn macro_oracle_cases() -> Vec<(&'static str, &'static str, String)> {\n    vec![\n",
    );
    for line in text.lines() {
        let Some((expr, expected)) = line.split_once('\t') else {
            continue;
        };
        let _ = writeln!(
            out,
            "        ({expr:?}, {expected:?}, ::std::format!(\"{{}}\", ::cute::cute!{{ {expr} }})),"
        );
    }
    out.push_str("    ]\n}\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into()))
        .join("macro_oracle_cases.rs");
    let _ = std::fs::write(dest, out);
}
