//! Symbolic values agree with the dynamic values C++ CuTe computes at run time.
//!
//! For random algebra over layouts whose leaves include the size symbols `M` and `N`, the result
//! computed with the symbols, evaluated at `M = m, N = n`, must equal the result computed with the
//! dynamic literals `m` and `n` in their place (what C++ CuTe prints, checked by the oracle tests):
//! every simplification the symbolic arithmetic makes keeps the value.

use cute_layout::expr::{eval, Value};
use cute_layout::{AnyLayout, Int, IntTuple};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn leaf_shape(r: &mut Rng) -> String {
    r.pick(&["_1", "_2", "_4", "_8", "2", "3", "4", "M", "N", "M", "_3"])
        .to_string()
}

fn leaf_stride(r: &mut Rng) -> String {
    r.pick(&["_0", "_1", "_2", "_4", "_8", "1", "2", "M", "N", "_16"])
        .to_string()
}

/// A layout of rank 1..=3 with at most one level of nesting.
fn layout(r: &mut Rng) -> String {
    let rank = 1 + r.below(3);
    let (mut sh, mut st) = (Vec::new(), Vec::new());
    for _ in 0..rank {
        if r.below(4) == 0 {
            sh.push(format!("({},{})", leaf_shape(r), leaf_shape(r)));
            st.push(format!("({},{})", leaf_stride(r), leaf_stride(r)));
        } else {
            sh.push(leaf_shape(r));
            st.push(leaf_stride(r));
        }
    }
    if rank == 1 {
        format!("{}:{}", sh[0], st[0])
    } else {
        format!("({}):({})", sh.join(","), st.join(","))
    }
}

/// A small static tiler layout (what kernels divide by).
fn tiler(r: &mut Rng) -> String {
    r.pick(&[
        "_2:_1",
        "_4:_1",
        "(_2,_2):(_1,_2)",
        "(_2,_4):(_4,_1)",
        "_4:_2",
        "(_4,_2):(_1,_8)",
    ])
    .to_string()
}

fn case(r: &mut Rng) -> String {
    let a = layout(r);
    let t = tiler(r);
    match r.below(9) {
        0 => format!("composition({a}, {t})"),
        1 => format!("logical_divide({a}, {t})"),
        2 => format!("zipped_divide({a}, {t})"),
        3 => format!("zipped_divide(zipped_divide({a}, {t}), {t})"),
        4 => format!("coalesce({a})"),
        5 => format!("logical_product({t}, {a})"),
        6 => format!("complement({t}, M)"),
        7 => format!("composition({a}, {})", layout(r)),
        _ => format!("logical_divide({a}, make_tile({t}, {t}))"),
    }
}

/// Replaces the symbols by dynamic literals in the expression text.
fn with_literals(src: &str, m: i64, n: i64) -> String {
    let mut out = String::new();
    let mut prev_ident = false;
    for c in src.chars() {
        let ident = c.is_ascii_alphanumeric() || c == '_';
        match c {
            'M' if !prev_ident => out.push_str(&m.to_string()),
            'N' if !prev_ident => out.push_str(&n.to_string()),
            _ => out.push(c),
        }
        prev_ident = ident;
    }
    out
}

/// The value's integers with `M = m, N = n`, printed (None: not an integer structure).
fn evaluated(v: &Value, m: i64, n: i64) -> Option<String> {
    let env = |name: &str| match name {
        "M" => Some(m),
        "N" => Some(n),
        _ => None,
    };
    let at = |t: &IntTuple| -> Option<IntTuple> {
        t.map_leaves(&mut |i: &Int| match i {
            Int::Dynamic(_) => i
                .evaluate(&env)
                .map(cute_layout::d)
                .ok_or_else(|| cute_layout::Error::Eval(format!("cannot evaluate {i}"))),
            _ => Ok(i.clone()),
        })
        .ok()
    };
    match v {
        Value::Layout(AnyLayout::Plain(l)) => {
            Some(format!("{}:{}", at(l.shape())?, at(l.stride())?))
        }
        Value::Int(i) => Some(at(&IntTuple::Int(i.clone()))?.to_string()),
        _ => None,
    }
}

#[test]
fn symbolic_results_evaluate_to_the_dynamic_results() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut compared, mut cases) = (0, 0);
    for _ in 0..3000 {
        let src = case(&mut r);
        let Ok(sym) = eval(&src) else { continue };
        cases += 1;
        for (m, n) in [
            (1, 1),
            (2, 3),
            (3, 2),
            (4, 4),
            (5, 7),
            (8, 16),
            (16, 5),
            (33, 64),
        ] {
            let Ok(lit) = eval(&with_literals(&src, m, n)) else {
                continue;
            };
            let (Some(got), Some(want)) = (evaluated(&sym, m, n), evaluated(&lit, m, n)) else {
                continue;
            };
            assert_eq!(got, want, "{src} at M={m}, N={n}: symbolic {sym}");
            compared += 1;
        }
    }
    assert!(
        cases > 1000 && compared > 5000,
        "{cases} cases, {compared} comparisons"
    );
}
