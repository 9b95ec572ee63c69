//! `print_layout` equals C++ CuTe's output byte for byte (`tests/oracle/print_layout.txt`, copied
//! verbatim from shared/oracle), through the library and through `cute print-layout`.

use std::process::Command;

use cute::layout::expr::{eval, Value};
use cute::layout::print_layout;

mod common;

/// `(expression, expected table)` blocks: a `@@ EXPR` line, then the table.
fn blocks() -> Vec<(String, String)> {
    common::oracle_blocks("print_layout.txt")
}

#[test]
fn print_layout_matches_cpp_cute_byte_for_byte() {
    let blocks = blocks();
    assert_eq!(blocks.len(), 3);
    for (expr, expected) in blocks {
        let Value::Layout(l) = eval(&expr).unwrap() else {
            panic!("{expr} is not a layout")
        };
        assert_eq!(print_layout(&l).unwrap(), expected, "{expr}");
        let out = Command::new(env!("CARGO_BIN_EXE_cute"))
            .args(["print-layout", &expr])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            expected,
            "cute print-layout {expr}"
        );
    }
}

#[test]
fn print_layout_refuses_what_is_not_a_rank_2_layout() {
    let err = |e: &str| {
        let Value::Layout(l) = eval(e).unwrap() else {
            panic!()
        };
        print_layout(&l).unwrap_err().to_string()
    };
    assert!(err("(_2,_2,_2):(_1,_2,_4)").contains("rank 3, a table needs rank 2"));
    assert!(err("_8:_1").contains("rank 1"));
    assert!(err("(M,_4):(_1,M)").contains("symbolic"));
    assert!(err("(_1024,_1024):(_1,_1024)").contains("more than"));
    let out = Command::new(env!("CARGO_BIN_EXE_cute"))
        .args(["print-layout", "(_2,_3)"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .starts_with("error: expected a layout"));
}
