//! The recipes that are not GEMMs, run by the CPU interpreter on the cases of
//! `recipes::problem` and compared with their float64 references.

use cute_codegen::interp::run;
use cute_codegen::recipes::{self, case, pick};

fn check(name: &str, m: i64, n: i64) -> String {
    let variants = recipes::variants(name).unwrap();
    let mut c = case(name, m, n, (m * 7919 + n) as u64).unwrap();
    let k = &variants[pick(&variants, &c).expect("the last variant runs anywhere")];
    run(k, &mut c.args).unwrap_or_else(|e| panic!("{} {m}x{n}: {e}", k.name));
    let v = c.check(c.output());
    assert!(v.ok(), "{} {m}x{n}: {v:?}", k.name);
    assert_eq!(v.checked as i64, m * n, "every element is compared");
    k.name.clone()
}

#[test]
fn transpose_moves_every_element_on_the_cpu() {
    for (m, n) in [(1, 1), (17, 17), (127, 127), (130, 67), (64, 64), (68, 132)] {
        let f32 = check("transpose", m, n);
        let f16 = check("transpose-f16", m, n);
        let vector = m % 8 == 0 && n % 8 == 0;
        assert_eq!(
            f32.ends_with("_v"),
            m % 4 == 0 && n % 4 == 0,
            "{f32} at {m}x{n}"
        );
        assert_eq!(f16.ends_with("_v"), vector, "{f16} at {m}x{n}");
    }
}

#[test]
fn row_softmax_agrees_with_float64_on_the_cpu() {
    for (m, n) in [(1, 1), (17, 17), (9, 127), (3, 130), (16, 256), (5, 300)] {
        let name = check("row-softmax", m, n);
        assert_eq!(name.ends_with("_v"), n % 4 == 0, "{name} at {m}x{n}");
    }
}
