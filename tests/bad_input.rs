//! Bad input gives one clear error naming the operation and the failed condition, never a panic.
//! The cases C++ CuTe rejects at compile time come from `tests/oracle/cute-rejected.tsv` (found by
//! compiling them against C++ CuTe, tools/oracle); the others are hand-picked and fuzzer finds.

use std::path::Path;

use cute::layout::expr::eval_str;

/// Asserts that `expr` fails with a message containing every one of `needles`.
fn fails_with(expr: &str, needles: &[&str]) {
    match eval_str(expr) {
        Ok(v) => panic!("{expr} evaluated to {v}, expected an error"),
        Err(e) => {
            let msg = e.to_string();
            for n in needles {
                assert!(
                    msg.contains(n),
                    "{expr}: error '{msg}' does not mention '{n}'"
                );
            }
        }
    }
}

#[test]
fn what_cpp_cute_rejects_is_an_error_here() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/cute-rejected.tsv");
    let text = std::fs::read_to_string(path).unwrap();
    let mut n = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (expr, rest) = line.split_once('\t').unwrap();
        let name = expr.split(['(', '<']).next().unwrap();
        assert!(
            eval_str(expr).is_err(),
            "{expr} is rejected by C++ CuTe ({rest}) but evaluated"
        );
        fails_with(expr, &[name]);
        n += 1;
    }
    assert!(n >= 30, "only {n} rejected cases");
}

#[test]
fn malformed_expressions() {
    fails_with(
        "composition((_6,_2):(_8,_2)",
        &["parse error at column 28", "expected ',' or ')'"],
    );
    fails_with("(_4,_3):(_1,_4", &["parse error", "end of the input"]);
    fails_with("_4::_2", &["parse error at column 3"]);
    fails_with("99999999999999999999", &["does not fit in 64 bits"]);
    fails_with("_-", &["parse error"]);
    fails_with("size(_4:_1) extra", &["unexpected 'extra'"]);
    fails_with("foo(_1)", &["unknown function 'foo'"]);
    fails_with(
        "make_layout<2>((_4,_2))",
        &["make_layout takes no template arguments"],
    );
    fails_with("((_4,_8):(_1,_4)).tidfrg_S(_1)", &["tidfrg_S"]);
}

#[test]
fn rank_mismatches() {
    // C++ CuTe builds and prints a layout of shape and stride that are not congruent; the
    // algebra refuses it, naming the condition.
    assert_eq!(
        cute::layout::expr::eval_str("(_4,_3):(_1)").unwrap(),
        "(_4,_3):(_1)"
    );
    fails_with("coalesce((_4,_3):(_1))", &["coalesce", "not congruent"]);
    fails_with("get<3>((_4,_3):(_1,_4))", &["get", "mode 3 out of range"]);
    fails_with("get<-1>((_2,_2):(_1,_2))", &["negative mode index"]);
    fails_with(
        "logical_divide((_4,_3):(_1,_4), (_2,_2,_2))",
        &["logical_divide", "too many modes"],
    );
    fails_with(
        "crd2idx((1,2,3), (_2,_2):(_1,_2))",
        &["crd2idx", "mismatched ranks"],
    );
    fails_with("((_4,_8):(_1,_4))(_,_,_)", &["slice", "mismatched ranks"]);
    fails_with(
        "tile_to_shape((_8,_8,_2):(_8,_1,_64), (_32,_64))",
        &["tile_to_shape", "rank"],
    );
}

#[test]
fn impossible_algebra() {
    fails_with(
        "logical_product(_4:_2, _3:_1)",
        &["logical_product", "Shape Divisibility Condition"],
    );
    fails_with(
        "composition((_4,_4):(_1,_8), _2:_6)",
        &["composition", "Stride Divisibility Condition"],
    );
    fails_with(
        "composition((_4,_4):(_1,_8), _3:_2)",
        &["composition", "Shape Divisibility Condition"],
    );
    fails_with(
        "complement((_2,_2):(_1,_1), _8)",
        &["complement", "not injective"],
    );
    fails_with(
        "complement((4,2):(1,8), 64)",
        &["complement", "dynamic-stride complement only for rank-1"],
    );
    fails_with(
        "left_inverse((_4,_8):(M,_1))",
        &["left_inverse", "static strides"],
    );
    fails_with("upcast<3>((_4,_3):(_2,_4))", &["upcast", "divide"]);
    fails_with("downcast<2>(_4:_2)", &["downcast", "stride-1"]);
    fails_with(
        "tile_to_shape((_8,_8):(_8,_1), (_12,_64))",
        &["tile_to_shape", "does not divide"],
    );
    fails_with(
        "composition((_4,_4):(_1,_8), _4:0)",
        &["composition", "dynamic stride 0"],
    );
}

#[test]
fn overflow_and_division_by_zero() {
    fails_with(
        "make_layout((_4611686018427387904,_4))",
        &["make_layout", "integer overflow"],
    );
    fails_with(
        "size((_4611686018427387904,_4611686018427387904))",
        &["size", "integer overflow"],
    );
    fails_with(
        "logical_divide(_8:_1, _0:_1)",
        &["logical_divide", "division by zero"],
    );
    fails_with("idx2crd(_3, (_0,_2))", &["idx2crd", "division by zero"]);
    fails_with("ceil_div(_3, _0)", &["ceil_div", "division by zero"]);
    fails_with(
        "((_4,_8):(_1,_4))(4611686018427387904,4611686018427387904)",
        &["crd2idx", "overflow"],
    );
    fails_with(
        "cosize(_9223372036854775807:_-9223372036854775808)",
        &["cosize", "overflow"],
    );
}

/// Pictures and access patterns of layouts with negative extents or offsets near i64's range
/// (found by fuzzing the CLI): errors, not panics.
#[test]
fn tables_pictures_and_access_patterns_of_hostile_layouts() {
    use cute::layout::svg::{draw_layout, Shading};
    use cute::layout::{bank_conflicts, coalescing, print_layout, AnyLayout};
    let layout = |e: &str| -> AnyLayout {
        match cute::layout::expr::eval(e).unwrap() {
            cute::layout::expr::Value::Layout(l) => l,
            other => panic!("{e} is {other}"),
        }
    };
    // C++ CuTe makes and prints a layout of negative static size, so the expression language
    // does (the typed Layout::new refuses it, as layout! does); tables and pictures refuse it.
    let negative = layout("(_3,_-4):(_3,_4)");
    assert_eq!(negative.to_string(), "(_3,_-4):(_3,_4)");
    let plain = negative.shape_layout();
    assert!(cute::layout::Layout::new(plain.shape().clone(), plain.stride().clone()).is_err());
    let err = print_layout(&negative).unwrap_err().to_string();
    assert!(err.contains("positive"), "{err}");
    assert!(draw_layout(&negative, Shading::Offsets).is_err());
    let pattern = layout("(_4,_-4):(_1,_4)");
    assert!(bank_conflicts(&pattern, 32).is_err());
    assert!(coalescing(&pattern, 32).is_err());
    // banks of offsets near i64's range, in 128-bit units: an error or a picture, not a panic
    for e in [
        "(_8,_8):(_-9223372036854775808,_1)",
        "(_8,_8):(_9223372036854775807,_1)",
    ] {
        let _ = draw_layout(&layout(e), Shading::Banks { bits: 128 });
    }
}
