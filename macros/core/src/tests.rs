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
        "{m}", "{m * 2}", "{self.ld}", "{v.len()}", "{}", "{m +}", "{ \"x\" }", "{ {m} }",
        "{(_4,_2)}", "{a b}", "{__cute_brace_0}", "__cute_brace_0",
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

#[test]
fn brace_groups_are_rust_expressions() {
    // Literals: each group is built in place, into an Int, with no runtime parse.
    let out = expand_str(Macro::Layout, "({m * 2}, _32):(_1, {self.ld})");
    assert!(
        !out.contains("compile_error") && !out.contains("eval_as"),
        "{out}"
    );
    assert!(out.contains("into_int (& (m * 2))"), "{out}");
    assert!(out.contains("into_int (& (self . ld))"), "{out}");
    let out = expand_str(Macro::Shape, "({v.len()}, _8)");
    assert!(out.contains("into_int (& (v . len ()))"), "{out}");
    // Expressions: the groups are bound, in order, to the placeholders of the evaluated text.
    let out = expand_str(
        Macro::Cute,
        "logical_divide(({m}, {k.max(1)}):(_1, {m}), (_128,_32))",
    );
    assert!(!out.contains("compile_error"), "{out}");
    let bound = [
        "\"__cute_brace_0\"",
        "(m)",
        "\"__cute_brace_1\"",
        "(k . max (1))",
        "\"__cute_brace_2\"",
    ];
    let at: Vec<usize> = bound.iter().map(|b| out.find(b).unwrap()).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{out}");
}

#[test]
fn brace_groups_work_wherever_a_variable_does() {
    for (kind, src) in [
        (Macro::Stride, "(_1, {ld})"),
        (Macro::Tile, "{bm}:_1, (_2,{bn}):(_1,_8)"),
        (Macro::Cute, "make_layout(({m},_4), LayoutRight)"),
        (Macro::Cute, "((_4,_8):(_1,{ld}))({i}, {j})"),
        (Macro::Cute, "size(({m}, n))"),
        (
            Macro::Cute,
            "make_tensor(make_smem_ptr<float>({base}), make_layout((_128,_32)))",
        ),
    ] {
        let out = expand_str(kind, src);
        assert!(!out.contains("compile_error"), "{src}: {out}");
        assert!(out.contains("into_int"), "{src}: {out}");
    }
}

#[test]
fn brace_groups_stand_for_symbols_in_the_compile_time_check() {
    // Structure does not depend on the value: a rank mismatch is found now, named as written.
    let out = expand_str(Macro::Layout, "({m * 2}, _3):(_1)");
    assert!(out.contains("not congruent"), "{out}");
    assert!(out.contains("({m * 2},_3)"), "{out}");
    assert!(!out.contains("__cute_brace"), "{out}");
    let out = expand_str(Macro::Cute, "make_layout(({m},_4), ({v.len()},_1,_4))");
    assert!(
        out.contains("not congruent") && out.contains("({v . len ()},_1,_4)"),
        "{out}"
    );
    // ... while what depends on the value waits for it.
    let out = expand_str(Macro::Cute, "logical_product(_4:_2, _3:{s})");
    assert!(
        !out.contains("compile_error") && out.contains("eval_as"),
        "{out}"
    );
}

#[test]
fn malformed_brace_groups_are_compile_errors() {
    for src in [
        "({m +}, _2)",
        "({}, _2)",
        "({a b}, _2)",
        "({m, n})",
        "({let})",
    ] {
        let out = expand_str(Macro::Shape, src);
        assert!(out.contains("compile_error"), "{src}: {out}");
        assert!(out.contains("is not a Rust expression"), "{src}: {out}");
    }
    // A group where the notation wants a name, not an integer operand.
    for src in [
        "{f}(_4:_1)",
        "(_4:_1).{m}()",
        "make_tiled_copy(Copy_Atom<{t}, float>, (_32,_8):(_1,_32))",
    ] {
        let out = expand_str(Macro::Cute, src);
        assert!(out.contains("is not an operand here"), "{src}: {out}");
    }
}

#[test]
fn rust_syntax_outside_braces_points_to_braces() {
    let out = expand_str(Macro::Layout, "(self.ld, _2):(_1, _2)");
    assert!(out.contains("{self.ld}"), "{out}");
    let out = expand_str(Macro::Shape, "(m * 2, _2)");
    assert!(out.contains("{m * 2}"), "{out}");
    let out = expand_str(Macro::Layout, "[_4]:[_1]");
    assert!(
        out.contains("parentheses") && out.contains("braces"),
        "{out}"
    );
}

#[test]
fn placeholders_never_collide_with_the_input() {
    // A variable that is spelled like a placeholder stays a variable of its own.
    let out = expand_str(Macro::Cute, "make_layout((__cute_brace_0, {m}))");
    assert!(!out.contains("compile_error"), "{out}");
    assert!(out.contains("into_int (& __cute_brace_0)"), "{out}");
    assert!(out.contains("\"__cute_brace__0\""), "{out}");
    let out = expand_str(Macro::Layout, "(x__cute_brace_0, {m}):(_1, {m})");
    assert!(out.contains("into_int (& x__cute_brace_0)"), "{out}");
    assert_eq!(out.matches("into_int (& (m))").count(), 2, "{out}");
}

#[test]
fn messages_show_brace_groups_as_written() {
    let r = crate::render(
        &TokenStream::from_str("({a}, {b}, {c}, {d}, {e}, {f}, {g}, {h}, {i}, {j}, {k})").unwrap(),
    )
    .unwrap();
    assert_eq!(
        r.relabel("(__cute_brace_0,__cute_brace_10,__cute_brace_99,__cute_brace_)"),
        "({a},{k},__cute_brace_99,__cute_brace_)"
    );
}

/// A CuTe literal whose leaves may be Rust values.
#[derive(Debug, Clone)]
enum Node {
    Static(i64),
    Dynamic(i64),
    Variable,
    Brace,
    Tuple(Vec<Node>),
}

fn node() -> impl Strategy<Value = Node> {
    let leaf = prop_oneof![
        (-1i64..9).prop_map(Node::Static),
        (0i64..9).prop_map(Node::Dynamic),
        Just(Node::Variable),
        Just(Node::Brace),
        Just(Node::Brace),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop::collection::vec(inner, 1..4).prop_map(Node::Tuple)
    })
}

/// The text of a literal; the i-th Rust value is a brace group `{(m + i)}` or, for `braces`
/// false, the fresh variable `b{i}`.
fn node_text(n: &Node, braces: bool, next: &mut usize) -> String {
    match n {
        Node::Static(v) => format!("_{v}"),
        Node::Dynamic(v) => v.to_string(),
        Node::Variable => "n".into(),
        Node::Brace => {
            *next += 1;
            if braces {
                format!("{{(m + {})}}", *next - 1)
            } else {
                format!("b{}", *next - 1)
            }
        }
        Node::Tuple(v) => {
            let items: Vec<String> = v.iter().map(|x| node_text(x, braces, next)).collect();
            format!("({})", items.join(","))
        }
    }
}

/// One invocation of a macro over literals `a` and `b` (`a` written twice in `tile!` and
/// `cute!{}`, each time with groups of its own), and how many Rust values it has.
fn invocation(kind: Macro, a: &Node, b: &Node, braces: bool) -> (String, usize) {
    let mut next = 0;
    let mut text = |n: &Node| node_text(n, braces, &mut next);
    let src = match kind {
        Macro::Shape | Macro::Stride => format!("({},{})", text(a), text(b)),
        Macro::Layout => format!("{}:{}", text(a), text(b)),
        Macro::Tile => format!("{}:{}, {}", text(a), text(b), text(a)),
        Macro::Cute => format!(
            "logical_divide(make_layout({}, {}), {})",
            text(a),
            text(b),
            text(a)
        ),
    };
    (src, next)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// A brace group is checked exactly like a fresh variable (same errors, with the group as
    /// written where the variable's name was), and, where the expansion succeeds, each group's
    /// expression is placed in the code once, in source order.
    #[test]
    fn brace_groups_expand_like_fresh_variables(
        a in node(),
        b in node(),
        kind in prop::sample::select(vec![Macro::Shape, Macro::Stride, Macro::Layout, Macro::Tile, Macro::Cute]),
    ) {
        let (with_braces, count) = invocation(kind, &a, &b, true);
        let (with_vars, _) = invocation(kind, &a, &b, false);
        let out = expand_str(kind, &with_braces);
        let expected = expand_str(kind, &with_vars);
        prop_assert_eq!(out.contains("compile_error"), expected.contains("compile_error"), "{} / {}", out, expected);
        if out.contains("compile_error") {
            let mut relabelled = out.clone();
            for i in (0..count).rev() {
                relabelled = relabelled.replace(&format!("{{(m + {i})}}"), &format!("b{i}"));
            }
            prop_assert_eq!(relabelled, expected);
        } else {
            let at: Vec<Option<usize>> = (0..count).map(|i| out.find(&format!("(m + {i}))"))).collect();
            for i in 0..count {
                prop_assert_eq!(out.matches(&format!("(m + {i}))")).count(), 1, "{}", out);
            }
            prop_assert!(at.windows(2).all(|w| w[0] < w[1]), "{}", out);
        }
    }
}
