//! The recipes that are not GEMMs, run by the CPU interpreter against a float64 reference, and
//! their CUDA checked for the shapes a reader looks for.

use cute_codegen::interp::{run, Arg, HostBuffer};
use cute_codegen::ir::Kernel;
use cute_codegen::recipes;
use cute_layout::ElemType;

/// A small deterministic generator (fresh values per size).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// The first variant of `name` whose launch requirements hold for the integer arguments.
fn pick(name: &str, ints: &[(&str, i64)]) -> Kernel {
    recipes::variants(name)
        .unwrap()
        .into_iter()
        .find(|k| {
            k.admits(&|n| ints.iter().find(|(s, _)| *s == n).map(|x| x.1))
                .is_ok()
        })
        .expect("the last variant runs anywhere")
}

fn transpose_case(name: &str, elem: ElemType, m: i64, n: i64, seed: u64) {
    let (lda, ldb) = (m + 3 - (m + 3) % 4, n + 3 - (n + 3) % 4);
    let (lda, ldb) = (lda.max(4), ldb.max(4));
    let ints = [("M", m), ("N", n), ("ldA", lda), ("ldB", ldb)];
    let k = pick(name, &ints);
    let mut r = Rng(seed);
    let a: Vec<f64> = (0..lda * n).map(|_| r.next()).collect();
    let a = HostBuffer::from_values(elem, &a);
    let mut args = vec![
        Arg::Int(m),
        Arg::Int(n),
        Arg::Buffer(a.clone()),
        Arg::Int(lda),
        Arg::Buffer(HostBuffer::from_values(
            elem,
            &vec![f64::NAN; (ldb * m) as usize],
        )),
        Arg::Int(ldb),
    ];
    run(&k, &mut args).unwrap_or_else(|e| panic!("{} {m}x{n}: {e}", k.name));
    let Arg::Buffer(b) = &args[4] else {
        unreachable!()
    };
    for i in 0..m {
        for j in 0..n {
            let (want, got) = (
                a.data[(i + j * lda) as usize],
                b.data[(j + i * ldb) as usize],
            );
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "{} {m}x{n}: B({j},{i})",
                k.name
            );
        }
    }
}

#[test]
fn transpose_moves_every_element_on_the_cpu() {
    for (m, n) in [(1, 1), (17, 17), (127, 127), (130, 67), (64, 64), (68, 132)] {
        transpose_case("transpose", ElemType::F32, m, n, (m * 1000 + n) as u64);
        transpose_case(
            "transpose-f16",
            ElemType::F16,
            m,
            n,
            (m * 1000 + n + 7) as u64,
        );
    }
}

fn softmax_case(m: i64, n: i64, seed: u64) {
    let (ldx, ldy) = (n + 3 - (n + 3) % 4 + 4, n + 3 - (n + 3) % 4);
    let ints = [("M", m), ("N", n), ("ldX", ldx), ("ldY", ldy)];
    let k = pick("row-softmax", &ints);
    let mut r = Rng(seed);
    let x: Vec<f64> = (0..ldx * m).map(|_| 8.0 * r.next()).collect();
    let x = HostBuffer::from_values(ElemType::F32, &x);
    let mut args = vec![
        Arg::Int(m),
        Arg::Int(n),
        Arg::Buffer(x.clone()),
        Arg::Int(ldx),
        Arg::Buffer(HostBuffer::from_values(
            ElemType::F32,
            &vec![f64::NAN; (ldy * m) as usize],
        )),
        Arg::Int(ldy),
    ];
    run(&k, &mut args).unwrap_or_else(|e| panic!("{} {m}x{n}: {e}", k.name));
    let Arg::Buffer(y) = &args[4] else {
        unreachable!()
    };
    for i in 0..m {
        let row: Vec<f64> = (0..n).map(|j| x.data[(i * ldx + j) as usize]).collect();
        let mx = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = row.iter().map(|v| (v - mx).exp()).sum();
        for j in 0..n {
            let want = (row[j as usize] - mx).exp() / sum;
            let got = y.data[(i * ldy + j) as usize];
            assert!(
                (got - want).abs() <= 1e-6 + 1e-5 * want.abs(),
                "{} {m}x{n}: Y({i},{j}) = {got}, want {want}",
                k.name
            );
        }
    }
}

#[test]
fn row_softmax_agrees_with_float64_on_the_cpu() {
    for (m, n) in [(1, 1), (17, 17), (9, 127), (3, 130), (16, 256), (5, 300)] {
        softmax_case(m, n, (m * 31 + n) as u64);
    }
}
