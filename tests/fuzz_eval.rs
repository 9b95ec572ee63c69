//! Fuzzing the expression parser and evaluator: random strings, token soups and random
//! well-formed calls over hostile values must give a value or an `Error`, never a panic, a hang
//! or a stack overflow. What the fuzzers found is kept in `tests/bad_input.rs`.

use cute::layout::expr::{eval, FUNCTIONS};
use proptest::prelude::*;

/// Punctuation and hostile values of the token soup (the function names are added from
/// `expr::FUNCTIONS`).
const TOKENS: &[&str] = &[
    "(",
    ")",
    ",",
    ":",
    "<",
    ">",
    ".",
    "_",
    "_0",
    "_1",
    "_2",
    "_3",
    "_8",
    "_-1",
    "_-8",
    "0",
    "1",
    "2",
    "3",
    "-1",
    "M",
    "ldA",
    "_9223372036854775807",
    "9223372036854775807",
    "_-9223372036854775808",
    "4611686018427387904",
    "::",
    "LayoutLeft",
    "LayoutRight",
    "Swizzle",
    "tidfrg_S",
];

/// Every token of the soup.
fn vocabulary() -> Vec<&'static str> {
    TOKENS.iter().chain(FUNCTIONS).copied().collect()
}

/// Random layouts in CuTe notation, leaves from hostile values.
fn layout_text() -> impl Strategy<Value = String> {
    let common = prop::sample::select(vec!["_1", "_2", "_4", "_8", "_0", "_3", "2", "4", "8"]);
    let hostile = prop::sample::select(vec![
        "_16",
        "_-1",
        "_-4",
        "0",
        "1",
        "-2",
        "M",
        "N",
        "_4611686018427387904",
        "_1099511627776",
        "9223372036854775807",
        "_-9223372036854775808",
    ]);
    let leaf = prop_oneof![6 => common, 1 => hostile];
    let tuple =
        prop::collection::vec(leaf.clone(), 1..4).prop_map(|v| format!("({})", v.join(",")));
    let int_tuple = prop_oneof![leaf.prop_map(str::to_string), tuple];
    (int_tuple.clone(), int_tuple).prop_map(|(a, b)| format!("{a}:{b}"))
}

/// A random call of a real function over random layouts and tuples.
fn call_text() -> impl Strategy<Value = String> {
    let names = prop::sample::select(FUNCTIONS.to_vec());
    let arg = prop_oneof![
        layout_text(),
        layout_text().prop_map(|l| format!("composition(Swizzle<2,3,3>, {l})")),
        layout_text().prop_map(|l| format!("make_tensor(make_gmem_ptr<float>(A), {l})")),
        Just("make_identity_tensor((_8,M))".to_string()),
        Just("Step<_1,X>".to_string()),
        Just("Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>".to_string()),
        Just("MMA_Atom<SM80_16x8x8_F32TF32TF32F32_TN>".to_string()),
        layout_text().prop_map(|l| format!("make_tiled_mma(MMA_Atom<UniversalFMA<float>>, {l})")),
        layout_text().prop_map(|l| format!(
            "make_tiled_copy(Copy_Atom<UniversalCopy<uint32_t>, float>, {l})"
        )),
        layout_text().prop_map(|l| format!("make_tile({l}, _)")),
        Just("(_4,_8)".to_string()),
        Just("_".to_string()),
        Just("LayoutRight".to_string()),
        Just("(_1,_-1)".to_string()),
    ];
    let targs = prop::option::weighted(0.2, prop::collection::vec(-3i64..70, 1..3));
    let args = prop_oneof![1 => prop::collection::vec(arg.clone(), 0..4), 4 => prop::collection::vec(arg, 1..3)];
    (names, targs, args).prop_map(|(n, t, args)| {
        let t = t.map_or(String::new(), |v| {
            format!(
                "<{}>",
                v.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
            )
        });
        format!("{n}{t}({})", args.join(", "))
    })
}

fn fuzz_cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000)
}

proptest! {
    // FUZZ_CASES raises the count for a long local run (`FUZZ_CASES=200000 cargo test --release`).
    #![proptest_config(ProptestConfig { cases: fuzz_cases(), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_never_panic(src in "\\PC{0,120}") {
        let _ = eval(&src);
    }

    #[test]
    fn token_soups_never_panic(tokens in prop::collection::vec(prop::sample::select(vocabulary()), 0..40)) {
        let _ = eval(&tokens.join(""));
        let _ = eval(&tokens.join(" "));
    }

    #[test]
    fn random_calls_never_panic(src in call_text()) {
        if std::env::var("FUZZ_SHOW").is_ok() {
            println!("{src} => {:?}", eval(&src).map(|v| v.to_string()));
        }
        let _ = eval(&src);
    }

    #[test]
    fn nested_random_calls_never_panic(inner in call_text(), outer in call_text()) {
        // Splice one call into the first argument slot of another.
        let src = match outer.find('(') {
            Some(i) => format!("{}({inner}, {}", &outer[..i], &outer[i + 1..]),
            None => outer,
        };
        let _ = eval(&src);
    }
}

#[test]
fn absurd_nesting_is_an_error_not_a_stack_overflow() {
    for depth in [65, 1_000, 100_000] {
        let src = format!("{}_1{}", "(".repeat(depth), ")".repeat(depth));
        let e = eval(&src).unwrap_err().to_string();
        assert!(e.contains("nested deeper than"), "{e}");
        let src = format!("{}_1", "size(".repeat(depth));
        assert!(eval(&src).is_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: fuzz_cases() / 4, ..ProptestConfig::default() })]

    /// Methods of random TiledCopy / TiledMMA values over random layouts.
    #[test]
    fn random_tiled_methods_never_panic(
        tiled in prop_oneof![
            layout_text().prop_map(|l| format!("make_tiled_mma(MMA_Atom<UniversalFMA<float>>, {l})")),
            layout_text().prop_map(|l| format!("make_tiled_mma(MMA_Atom<SM80_16x8x8_F32TF32TF32F32_TN>, {l})")),
            (layout_text(), layout_text()).prop_map(|(t, v)| format!("make_tiled_copy(Copy_Atom<UniversalCopy<uint64_t>, float>, {t}, {v})")),
            (layout_text(), layout_text()).prop_map(|(t, v)| format!("make_tiled_copy(Copy_Atom<SM75_U32x1_LDSM_N, half_t>, {t}, {v})")),
        ],
        method in prop::sample::select(vec!["tidfrg_S", "tidfrg_D", "thrfrg_A", "thrfrg_B", "thrfrg_C", "retile", "get_layoutA_TV", "get_layoutS_TV"]),
        arg in layout_text(),
    ) {
        let _ = eval(&format!("({tiled}).{method}({arg})"));
        let _ = eval(&format!("({tiled}).{method}()"));
        let _ = eval(&format!("({tiled}).get_slice(3).partition_S(make_tensor(make_smem_ptr<float>(S), {arg}))"));
    }
}
