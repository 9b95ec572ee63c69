//! Swizzles: each is an involution and a bijection on its domain; a composed layout evaluates as
//! `A(O + B(c))`; the forwarded algebra keeps the swizzle and offset.

use std::collections::HashSet;

use cute_layout::expr::{eval, Value};
use cute_layout::*;
use proptest::prelude::*;

fn swizzles() -> impl Strategy<Value = Swizzle> {
    (0i64..=4, 0i64..=5, 0i64..=3, any::<bool>()).prop_map(|(b, m, extra, neg)| {
        let s = b + extra;
        Swizzle::new(b, m, if neg { -s } else { s }).unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Sw(Sw(x)) == x, and Sw permutes each aligned block of 2^(M+B+|S|) offsets.
    #[test]
    fn a_swizzle_is_an_involution_and_a_bijection(sw in swizzles()) {
        let (b, m, s) = sw.params();
        let span = 1i64 << (b + m + s.unsigned_abs());
        let mut image = HashSet::new();
        for x in 0..2 * span {
            let y = sw.apply(x).unwrap();
            prop_assert_eq!(sw.apply(y).unwrap(), x, "{} is not an involution at {}", sw, x);
            prop_assert_eq!(y / span, x / span, "{} leaves its block at {}", sw, x);
            image.insert(y);
        }
        prop_assert_eq!(image.len() as i64, 2 * span, "{} is not a bijection", sw);
    }

    /// (Sw o O o L)(c) == Sw(O + L(c)) for every c; slicing twice (first a stage, then a row)
    /// with slice_and_offset keeps every value, whether a slice decays to a plain layout or keeps
    /// the swizzle (O then carries the swizzle bits of the sliced-away coordinates).
    #[test]
    fn a_composed_layout_evaluates_as_a_of_o_plus_b(
        sw in swizzles(),
        rows in prop::sample::select(vec![1i64, 2, 4, 8]),
        cols in prop::sample::select(vec![1i64, 2, 4, 8, 16]),
        stage in 0i64..2,
        dynamic in any::<bool>(),
    ) {
        let inner = Layout::new(tup![s(rows), s(cols), s(2)], tup![s(cols), s(1), s(rows * cols)]).unwrap();
        let any = compose_swizzle(sw, &inner);
        for c in 0..rows * cols * 2 {
            prop_assert_eq!(any.eval(c).unwrap(), sw.apply(inner.eval(c).unwrap()).unwrap());
        }
        let k = if dynamic { d(stage) } else { s(stage) };
        let (tile, off0) = any
            .slice_and_offset(&Coord::Tuple(vec![Coord::Under, Coord::Under, Coord::Int(k.clone())]))
            .unwrap();
        let off0 = off0.value().unwrap();
        for m in 0..rows {
            let mc = if dynamic { d(m) } else { s(m) };
            let c = Coord::Tuple(vec![Coord::Int(mc), Coord::Under]);
            let (row, off1) = tile.slice_and_offset(&c).unwrap();
            let off = off0 + off1.value().unwrap();
            for n in 0..cols {
                let full = any.crd2idx(&tup![d(m), d(n), k.clone()]).unwrap().value().unwrap();
                prop_assert_eq!(row.eval(n).unwrap() + off, full, "{} at (_,_,{}) is {}, at {} is {} + {}", any, k, tile, c, row, off);
            }
        }
    }
}

fn composed(src: &str) -> ComposedLayout {
    match eval(src).unwrap() {
        Value::Layout(AnyLayout::Composed(c)) => c,
        other => panic!("{src} gave {other}"),
    }
}

#[test]
fn forwarded_algebra_keeps_the_swizzle() {
    // Expected strings printed by C++ CuTe (compiled against CUTLASS 4.x headers).
    let cl = composed("composition(Swizzle<3,4,3>, (_8,_64):(_64,_1))");
    assert_eq!(cl.layout_a().to_string(), "Sw<3,4,3>");
    for (expr, expected) in [
        (
            "tile_to_shape(composition(Swizzle<3,4,3>, (_8,_64):(_64,_1)), (_128,_64))",
            "Sw<3,4,3> o _0 o ((_8,_16),(_64,_1)):((_64,_512),(_1,_0))",
        ),
        (
            "size(composition(Swizzle<3,4,3>, (_8,_64):(_64,_1)))",
            "_512",
        ),
        (
            "(composition(Swizzle<2,0,3>, (_8,_8):(_8,_1)))(_3,_1)",
            "_26",
        ),
        (
            "(composition(Swizzle<2,0,3>, (_8,_8):(_8,_1)))(_,_1)",
            "((_2,_2,_2)):((_7,_18,_32))",
        ),
        ("composition(Swizzle<0,4,3>, _8:_1)", "_8:_1"),
        (
            "upcast<2>(composition(Swizzle<3,4,3>, (_8,_64):(_64,_1)))",
            "Sw<3,3,3> o _0 o (_8,_32):(_32,_1)",
        ),
        ("Swizzle<3,4,3>(144)", "128"),
    ] {
        assert_eq!(expr::eval_str(expr).unwrap(), expected, "{expr}");
    }
}

#[test]
fn invalid_swizzles_are_errors() {
    for (src, needle) in [
        ("Swizzle<3,4,2>", "abs(SShift) must be at least BBits"),
        ("Swizzle<-1,4,3>", "BBits must be non-negative"),
        ("Swizzle<3,-4,3>", "MBase must be non-negative"),
        ("Swizzle<30,30,30>", "64-bit"),
        ("Swizzle<3,4>", "three integers"),
        ("composition(Swizzle<3,4,3>, (_8,_8))", "plain layout"),
        (
            "stride(composition(Swizzle<3,4,3>, (_8,_8):(_8,_1)))",
            "no stride",
        ),
        ("Swizzle<3,4,3>(M)", "symbolic"),
    ] {
        let e = expr::eval_str(src).unwrap_err().to_string();
        assert!(e.contains(needle), "{src}: {e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Slicing a swizzled layout at a symbolic index `i` keeps the swizzle over a symbolic
    /// offset; bound to each value v, it is the same function as the slice at the literal v
    /// (whose forms, decayed or not, agree with C++ CuTe's): Sw(O(v) + B'(x)) == L_v(x) + off_v.
    #[test]
    fn a_slice_at_a_symbolic_index_is_the_slice_at_every_value(
        sw in swizzles(),
        rows in 1u32..=4,
        cols in 1u32..=4,
        row_major in any::<bool>(),
    ) {
        let (r, c) = (1i64 << rows, 1i64 << cols);
        let inner = if row_major { format!("(_{r},_{c}):(_{c},_1)") } else { format!("(_{r},_{c}):(_1,_{r})") };
        let composed = format!("composition({sw}, {inner})").replace("Sw<", "Swizzle<");
        let Ok(Value::Layout(AnyLayout::Composed(l))) = eval(&composed) else { return Ok(()) };
        let idx = Coord::Tuple(vec![Coord::Int(Int::index("i")), Coord::Under]);
        let (sym, sym_off) = l.slice_and_offset(&idx).unwrap();
        prop_assert_eq!(sym_off, s(0));
        let AnyLayout::Composed(sym) = sym else { panic!("{sym} lost the swizzle") };
        for v in 0..r {
            let (lit, off) = l.slice_and_offset(&Coord::Tuple(vec![Coord::Int(d(v)), Coord::Under])).unwrap();
            let o = sym.offset().evaluate(&|n| (n == "i").then_some(v)).unwrap();
            for x in 0..c {
                let inner = sym.layout_b().crd2idx(&IntTuple::Int(s(x))).unwrap().value().unwrap();
                let want = lit.crd2idx(&IntTuple::Int(s(x))).unwrap().value().unwrap() + off.value().unwrap();
                prop_assert_eq!(sw.apply(o + inner).unwrap(), want, "{} at i={} x={}", sym, v, x);
            }
        }
    }
}
