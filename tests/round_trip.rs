//! What prints reads back: for random layouts, swizzles, composed layouts, tuples, tensors and
//! symbolic integers, `print(parse(print(v))) == print(v)` and the value read back equals `v`.
//!
//! The values are made by evaluating random expressions (so they carry every printed form the
//! algebra produces: `MixedBits` offsets of sliced swizzles, basis strides of coordinate tensors,
//! pointer offsets, symbolic sizes), then printed, parsed and evaluated again.
//! `ROUND_TRIP_CASES` sets the number of cases (100,000 by default).

use cute::layout::expr::{eval, Value};

mod common;
use common::Rng;

const LEAVES: &[&str] = &[
    "_1",
    "_2",
    "_3",
    "_4",
    "_8",
    "_16",
    "_0",
    "_-1",
    "1",
    "2",
    "4",
    "6",
    "8",
    "-3",
    "M",
    "N",
    "K",
    "ldA",
    "M+1",
    "2*N",
    "(M+127)/128",
    "min(M,4)",
    "K-1",
];

fn leaf(r: &mut Rng) -> String {
    r.pick(LEAVES).to_string()
}

/// An IntTuple of depth <= 2 with `n` leaves at the top.
fn tuple(r: &mut Rng, depth: usize) -> String {
    if depth == 0 || r.below(3) == 0 {
        return leaf(r);
    }
    let n = r.below(4);
    let items: Vec<String> = (0..n).map(|_| tuple(r, depth - 1)).collect();
    format!("({})", items.join(","))
}

/// A congruent shape and stride of depth <= `depth`.
fn shape_stride(r: &mut Rng, depth: usize) -> (String, String) {
    if depth == 0 || r.below(3) == 0 {
        return (leaf(r), leaf(r));
    }
    let (sh, st): (Vec<String>, Vec<String>) =
        (0..r.below(4)).map(|_| shape_stride(r, depth - 1)).unzip();
    (format!("({})", sh.join(",")), format!("({})", st.join(",")))
}

/// A layout `S:D`.
fn layout(r: &mut Rng) -> String {
    let (sh, st) = shape_stride(r, 2);
    format!("{sh}:{st}")
}

fn swizzle(r: &mut Rng) -> String {
    let b = r.below(4);
    let m = r.below(5);
    let s = b + r.below(4);
    let s = if r.below(4) == 0 {
        format!("-{}", s.max(1))
    } else {
        s.to_string()
    };
    format!("Swizzle<{b},{m},{s}>")
}

fn static_layout(r: &mut Rng) -> &'static str {
    r.pick(&[
        "(_8,_64):(_64,_1)",
        "(_8,_8):(_8,_1)",
        "(_16,_16):(_16,_1)",
        "(_4,_8):(_1,_4)",
        "((_4,_2),_8):((_1,_32),_4)",
        "(_32,_8):(_8,_1)",
    ])
}

fn coord(r: &mut Rng, rank: usize) -> String {
    let items: Vec<&str> = (0..rank)
        .map(|_| r.pick(&["_", "_", "_1", "_3", "2", "5", "i", "_0"]))
        .collect();
    items.join(",")
}

/// A random expression whose value prints in one of the forms under test.
fn expression(r: &mut Rng) -> String {
    match r.below(12) {
        0 | 1 => layout(r),
        2 => tuple(r, 3),
        3 => swizzle(r).replace("Swizzle", "Sw"),
        4 => format!("composition({}, {})", swizzle(r), static_layout(r)),
        5 => format!("(composition({}, {}))({})", swizzle(r), static_layout(r), coord(r, 2)),
        6 => format!(
            "make_tensor(make_{}_ptr<{}>({}), {})",
            r.pick(&["gmem", "smem", "rmem"]),
            r.pick(&["float", "half_t", "double", "uint8_t"]),
            r.pick(&["A", "sA", "rC"]),
            layout(r)
        ),
        7 => format!(
            "local_tile(make_tensor(make_gmem_ptr<float>(A), make_layout((M,K))), (_128,_128,_8), ({},{},_), Step<_1,X,_1>)",
            r.pick(&["bx", "1", "_2", "3"]),
            r.pick(&["by", "0", "_1"])
        ),
        8 => format!(
            "local_tile(make_identity_tensor(({},{})), (_32,_8), ({},_))",
            r.pick(&["M", "_64", "100"]),
            r.pick(&["K", "_16", "7"]),
            r.pick(&["bx", "1", "_2"])
        ),
        9 => format!(
            "make_tensor(make_smem_ptr<half_t>(sA), composition({}, {}))",
            swizzle(r),
            static_layout(r)
        ),
        10 => format!(
            "({})({})",
            format_args!("make_tensor(make_gmem_ptr<float>(A), {})", static_layout(r)),
            coord(r, 2)
        ),
        _ => format!(
            "{} {} {}",
            leaf(r),
            r.pick(&["+", "-", "*", "/", "%"]),
            leaf(r)
        ),
    }
}

/// Why a printed value does not read back, if it does not.
fn check(src: &str) -> Option<String> {
    let Ok(v) = eval(src) else { return None };
    if matches!(v, Value::Under | Value::Major(_)) {
        return None;
    }
    let printed = v.to_string();
    match eval(&printed) {
        Err(e) => Some(format!(
            "{src}\n  printed {printed}\n  reads back as an error: {e}"
        )),
        Ok(back) if back.to_string() != printed => Some(format!(
            "{src}\n  printed {printed}\n  reads back as {back}"
        )),
        Ok(back) if !same_value(&v, &back) => Some(format!(
            "{src}\n  printed {printed}\n  reads back as another value {back:?}"
        )),
        Ok(_) => None,
    }
}

/// Equal values, where a literal 0 offset may come back static (a pointer prints no `+0`).
fn same_value(a: &Value, b: &Value) -> bool {
    a == b || a.to_string() == b.to_string() && matches!(a, Value::Tensor(_) | Value::Ptr(_))
}

#[test]
fn printed_values_read_back() {
    let cases: usize = std::env::var("ROUND_TRIP_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    let (mut evaluated, mut failures) = (0, Vec::new());
    for _ in 0..cases {
        let src = expression(&mut r);
        if eval(&src).is_ok() {
            evaluated += 1;
        }
        if let Some(f) = check(&src) {
            failures.push(f);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {evaluated} values do not read back, e.g.:\n{}",
        failures.len(),
        failures
            .iter()
            .take(12)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        evaluated * 2 > cases,
        "only {evaluated} of {cases} cases evaluated"
    );
}
