use super::*;

fn m() -> Dyn {
    Dyn::symbol("M")
}
fn l(v: i64) -> Dyn {
    Dyn::Lit(v)
}
fn b(op: BinOp, a: &Dyn, x: &Dyn) -> Dyn {
    Dyn::bin(op, a, x).unwrap()
}
fn ceil_div(a: &Dyn, x: &Dyn) -> Dyn {
    b(BinOp::Div, &b(BinOp::Sub, &b(BinOp::Add, a, x), &l(1)), x)
}

#[test]
fn literals_fold_and_symbols_print_as_c_expressions() {
    assert_eq!(Dyn::bin(BinOp::Mul, &l(6), &l(7)), Ok(l(42)));
    assert_eq!(
        Dyn::bin(BinOp::Div, &l(6), &l(0)),
        Err(SymError::DivisionByZero)
    );
    let q = ceil_div(&m(), &l(128));
    assert_eq!(q.to_string(), "(M+127)/128");
    let p = b(BinOp::Mul, &q, &Dyn::symbol("ldA"));
    assert_eq!(p.to_string(), "(M+127)/128*ldA");
    let r = b(BinOp::Sub, &l(4), &p);
    assert_eq!(r.to_string(), "4-(M+127)/128*ldA");
    assert_eq!(b(BinOp::Mul, &l(32), &m()).to_string(), "32*M");
    assert_eq!(b(BinOp::Mul, &q, &l(32)).to_string(), "(M+127)/128*32");
    assert_eq!(b(BinOp::Min, &m(), &l(2)).to_string(), "min(M,2)");
}

#[test]
fn sums_merge_like_terms() {
    // (1 + M) - 1 = M; (M + 3) - (M - 1) = 4; 2*(M+1) - M = M + 2
    let one_m = b(BinOp::Add, &l(1), &m());
    assert_eq!(b(BinOp::Sub, &one_m, &l(1)), m());
    let x = b(
        BinOp::Sub,
        &b(BinOp::Add, &m(), &l(3)),
        &b(BinOp::Sub, &m(), &l(1)),
    );
    assert_eq!(x, l(4));
    let y = b(BinOp::Sub, &b(BinOp::Mul, &l(2), &one_m), &m());
    assert_eq!(y.to_string(), "M+2");
}

#[test]
fn quotients_cancel_and_ranges_decide() {
    let k = Dyn::symbol("K");
    // ceil_div(1, M) = (1 + M - 1) / M = 1 wherever it is defined
    assert_eq!(ceil_div(&l(1), &m()), l(1));
    assert_eq!(b(BinOp::Div, &b(BinOp::Mul, &m(), &k), &m()), k);
    // (128*M + 127) / 128 = M for M >= 0
    assert_eq!(ceil_div(&b(BinOp::Mul, &l(128), &m()), &l(128)), m());
    // ceil_div(4, M) is in [1, 4]; ceil_div(4, i) too where it is defined
    assert_eq!(ceil_div(&l(4), &m()).bounds(), (Some(1), Some(4)));
    assert_eq!(
        ceil_div(&l(4), &Dyn::index("i")).bounds(),
        (Some(1), Some(4))
    );
    assert_eq!(b(BinOp::Min, &m(), &b(BinOp::Add, &m(), &l(2))), m());
    assert_eq!(
        b(BinOp::Max, &m(), &b(BinOp::Add, &m(), &l(2))).to_string(),
        "M+2"
    );
    // min(a, a*x) with x >= 1
    let a = ceil_div(&m(), &l(4));
    let ax = b(BinOp::Mul, &a, &b(BinOp::Add, &k, &l(1)));
    assert_eq!(b(BinOp::Min, &a, &ax), a);
    assert_eq!(b(BinOp::Div, &ax, &a).to_string(), "K+1");
}

#[test]
fn quotients_bounded_by_the_divisor() {
    // 0 <= M-1 < M, and M <= 2*M-1 < 2*M (M >= 1)
    let m1 = b(BinOp::Sub, &m(), &l(1));
    assert_eq!(b(BinOp::Div, &m1, &m()), l(0));
    let two_m1 = b(BinOp::Sub, &b(BinOp::Mul, &l(2), &m()), &l(1));
    assert_eq!(b(BinOp::Div, &two_m1, &m()), l(1));
    // (2*i+1)/(i+1) is 1 for every index i; (2*i+3)/(i+1) is 3 at i = 0 and 2 at i = 1
    let i = Dyn::index("i");
    let i1 = b(BinOp::Add, &i, &l(1));
    let n = b(BinOp::Add, &b(BinOp::Mul, &l(2), &i), &l(1));
    assert_eq!(b(BinOp::Div, &n, &i1), l(1));
    let n3 = b(BinOp::Add, &n, &l(2));
    assert_eq!(b(BinOp::Div, &n3, &i1).to_string(), "(2*i+3)/(i+1)");
}

#[test]
fn nested_ceil_divs_compose() {
    // ceil_div(ceil_div(M, 128), 2) = ceil_div(M, 256)
    let c = ceil_div(&ceil_div(&m(), &l(128)), &l(2));
    assert_eq!(c.to_string(), "(M+255)/256");
    // min(M,2) takes the values 1 and 2, which divide 2: min(M,2) * (2/min(M,2)) = 2
    let a = b(BinOp::Min, &m(), &l(2));
    assert_eq!(b(BinOp::Mul, &a, &b(BinOp::Div, &l(2), &a)), l(2));
}

#[test]
fn abs_and_signum_of_non_negative_values() {
    let lda = Dyn::symbol("ldA");
    assert_eq!(lda.abs().unwrap(), lda);
    assert_eq!(lda.signum().unwrap(), l(1));
    let tid = Dyn::index("tid");
    assert_eq!(tid.abs().unwrap(), tid);
    assert_eq!(tid.signum().unwrap().to_string(), "signum(tid)");
    let p = b(BinOp::Mul, &tid.signum().unwrap(), &tid);
    assert_eq!(p, tid);
    assert_eq!(b(BinOp::Add, &tid, &l(1)).signum().unwrap(), l(1));
    // an index is 0 at thread 0: min(tid, 1) stays
    assert_eq!(b(BinOp::Min, &tid, &l(1)).to_string(), "min(tid,1)");
    assert_eq!(b(BinOp::Min, &m(), &l(1)), l(1));
}

#[test]
fn expressions_are_bounded() {
    let mut x = m();
    let mut err = None;
    for i in 0..10_000 {
        let y = Dyn::symbol(&format!("s{i}"));
        match Dyn::bin(BinOp::Min, &x, &y) {
            Ok(v) => x = v,
            Err(e) => {
                err = Some(e);
                break;
            }
        }
    }
    assert_eq!(err, Some(SymError::TooLarge));
}

#[test]
fn evaluation_agrees_with_the_folded_literals() {
    let exprs = |v: &Dyn| {
        let c = ceil_div(&l(4), v);
        let s = ceil_div(v, &c);
        let t = b(BinOp::Min, &ceil_div(v, &l(4)), &s);
        let u = b(
            BinOp::Mul,
            &b(BinOp::Min, v, &l(2)),
            &b(BinOp::Div, &l(2), &b(BinOp::Min, v, &l(2))),
        );
        let w = ceil_div(&ceil_div(&b(BinOp::Add, v, &u), &c), &l(3));
        b(
            BinOp::Add,
            &b(BinOp::Mul, &t, &c),
            &b(BinOp::Add, &b(BinOp::Mod, v, &l(3)), &w),
        )
    };
    let sym = exprs(&m());
    for v in 1..80 {
        assert_eq!(
            sym.evaluate(&|_| Some(v)),
            exprs(&l(v)).value(),
            "M = {v}: {sym}"
        );
    }
}
