//! Unit tests and a fuzzer of the expansion (outside a compiler: spans are the fallback ones).

use std::str::FromStr;

use proc_macro2::TokenStream;
use proptest::prelude::*;

use super::{expand, Macro};

fn expand_str(kind: Macro, src: &str) -> String {
    expand(kind, TokenStream::from_str(src).unwrap()).to_string()
}

#[test]
fn static_literals_are_built_at_compile_time() {
    let out = expand_str(Macro::Layout, "(_128,_32,_3):(_1,_128,_4096)");
    assert!(out.contains("Layout :: new"), "{out}");
    assert!(!out.contains("eval_as"), "{out}");
    let out = expand_str(Macro::Cute, "composition((_6,_2):(_8,_2), (_4,_3):(_3,_1))");
    // ((_2,_2),_3):((_24,_2),_8) is computed now: the expansion holds its values.
    assert!(
        out.contains("24i64") && !out.contains("composition"),
        "{out}"
    );
}

#[test]
fn rust_variables_become_runtime_leaves() {
    let out = expand_str(Macro::Layout, "(m, _32):(_1, m)");
    assert!(out.contains("into_int (& m)"), "{out}");
    let out = expand_str(Macro::Cute, "logical_divide((m,k):(_1,m), (_128,_32))");
    assert!(out.contains("eval_as") && out.contains("\"m\""), "{out}");
}

#[test]
fn errors_are_compile_errors() {
    for (kind, src, needle) in [
        (Macro::Layout, "(_4,_3):(_1)", "not congruent"),
        (Macro::Layout, "(_4::_3):(_1,_4)", "unexpected character"),
        (Macro::Shape, "(_-4,_3)", "negative size"),
        (Macro::Layout, "[_4]:[_1]", "parentheses"),
        (Macro::Cute, "frobnicate(_4:_1)", "unknown function"),
        (
            Macro::Cute,
            "logical_product(_4:_2, _3:_1)",
            "Shape Divisibility Condition",
        ),
        (
            Macro::Cute,
            "make_tiled_copy(Copy_Atom<SM75_U32x4_LDSM_N, half_t>, (_16,_1):(_1,_0))",
            "too few thrs",
        ),
        (Macro::Shape, "make_layout((_4,_4))", "use cute!{}"),
        (Macro::Cute, "", "found nothing"),
    ] {
        let out = expand_str(kind, src);
        assert!(out.contains("compile_error"), "{src}: {out}");
        assert!(out.contains(needle), "{src}: {out}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Random token soups never panic the expansion.
    #[test]
    fn expansion_never_panics(tokens in prop::collection::vec(prop::sample::select(vec![
        "(", ")", ",", ":", "_", "_1", "_4", "_-2", "3", "m", "::", "<", ">", ".", "composition", "make_tile",
        "Swizzle", "[", "]", "{", "}", "\"s\"", "1.5", "'c'", "#", "-", "X", "Copy_Atom",
    ]), 0..24), kind in prop::sample::select(vec![Macro::Shape, Macro::Stride, Macro::Layout, Macro::Tile, Macro::Cute])) {
        if let Ok(ts) = TokenStream::from_str(&tokens.join(" ")) {
            let _ = expand(kind, ts);
        }
    }
}

/// A qualified CuTe name where a Rust variable would go (found by the fuzzer): an error, not a
/// panic in `Ident::new`.
#[test]
fn qualified_names_are_not_variables() {
    for (kind, src) in [
        (Macro::Shape, "(Copy_Atom::X, _2)"),
        (Macro::Layout, "(Copy_Atom::X, _2):(_1, _2)"),
        (Macro::Cute, "make_layout((Copy_Atom::X, m))"),
    ] {
        let out = expand_str(kind, src);
        assert!(out.contains("compile_error"), "{src}: {out}");
    }
}
