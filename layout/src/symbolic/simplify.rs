//! The constructors of symbolic values: each keeps the normal form and applies the identities
//! that hold for non-negative symbols wherever an expression is defined (see the module docs).

use std::cmp::Ordering;

use super::facts::{Facts, Range, INF};
use super::{BinOp, Dyn, Sym, SymError, SymExpr, SymResult};

/// `op(a, b)` with at least one symbolic operand.
pub(super) fn bin(op: BinOp, a: &Dyn, b: &Dyn) -> SymResult {
    match op {
        BinOp::Add => add(a, b, 1),
        BinOp::Sub => add(a, b, -1),
        BinOp::Mul => mul(a, b),
        BinOp::Div => div(a, b),
        BinOp::Mod => rem(a, b),
        BinOp::Min => min_max(a, b, true),
        BinOp::Max => min_max(a, b, false),
        BinOp::Gcd | BinOp::Lcm => gcd_lcm(op, a, b),
    }
}

pub(super) fn abs(x: &Dyn) -> SymResult {
    let r = x.range();
    if r.lo >= 0 {
        Ok(x.clone())
    } else if r.hi <= 0 {
        scale(x, -1)
    } else {
        Sym::node(SymExpr::Abs(x.clone()))
    }
}

pub(super) fn signum(x: &Dyn) -> SymResult {
    let r = x.range();
    match () {
        _ if r.lo >= 1 => Ok(Dyn::Lit(1)),
        _ if r.hi <= -1 => Ok(Dyn::Lit(-1)),
        _ if r.lo == 0 && r.hi == 0 => Ok(Dyn::Lit(0)),
        _ => Sym::node(SymExpr::Signum(x.clone())),
    }
}

fn checked_mul(a: i64, b: i64) -> Result<i64, SymError> {
    a.checked_mul(b).ok_or(SymError::Overflow)
}

// ------------------------------------------------------------------------------ sums

/// `a + sign*b`.
fn add(a: &Dyn, b: &Dyn, sign: i64) -> SymResult {
    let (mut terms, c) = linear_parts(a);
    let (tb, cb) = linear_parts(b);
    let c = c
        .checked_add(checked_mul(cb, sign)?)
        .ok_or(SymError::Overflow)?;
    for (k, t) in tb {
        terms.push((checked_mul(k, sign)?, t));
    }
    linear(terms, c)
}

/// `a - b`.
pub(super) fn difference(a: &Dyn, b: &Dyn) -> SymResult {
    add(a, b, -1)
}

/// The terms and constant of `a - b`, like terms merged, without building a node.
pub(super) fn difference_terms(a: &Dyn, b: &Dyn) -> (Vec<(i64, Dyn)>, i64) {
    let (mut terms, c) = linear_parts(a);
    let (tb, cb) = linear_parts(b);
    for (k, t) in tb {
        match terms.iter_mut().find(|(_, u)| *u == t) {
            Some((k0, _)) => *k0 = k0.saturating_sub(k),
            None => terms.push((k.saturating_neg(), t)),
        }
    }
    terms.retain(|(k, _)| *k != 0);
    (terms, c.saturating_sub(cb))
}

/// `k * a`.
fn scale(a: &Dyn, k: i64) -> SymResult {
    let (terms, c) = linear_parts(a);
    let terms = terms
        .into_iter()
        .map(|(x, t)| Ok((checked_mul(x, k)?, t)))
        .collect::<Result<Vec<_>, SymError>>()?;
    linear(terms, checked_mul(c, k)?)
}

/// The terms and constant of `a` as a linear form.
fn linear_parts(a: &Dyn) -> (Vec<(i64, Dyn)>, i64) {
    match a {
        Dyn::Lit(v) => (Vec::new(), *v),
        Dyn::Sym(s) => match &s.expr {
            SymExpr::Sum(ts, c) => (ts.clone(), *c),
            _ => (vec![(1, a.clone())], 0),
        },
    }
}

/// The normal form of `c + sum(k*t)`: like terms merged (at the first one's place), zero
/// coefficients dropped.
fn linear(terms: Vec<(i64, Dyn)>, c: i64) -> SymResult {
    let mut merged: Vec<(i64, Dyn)> = Vec::with_capacity(terms.len());
    for (k, t) in terms {
        match merged.iter_mut().find(|(_, t0)| *t0 == t) {
            Some((k0, _)) => *k0 = k0.checked_add(k).ok_or(SymError::Overflow)?,
            None => merged.push((k, t)),
        }
    }
    merged.retain(|(k, _)| *k != 0);
    match merged.as_slice() {
        [] => Ok(Dyn::Lit(c)),
        [(1, t)] if c == 0 => Ok(t.clone()),
        _ => Sym::node(SymExpr::Sum(merged, c)),
    }
}

/// `(coefficient, core)`: `c*t` for a single-term sum, `(1, d)` otherwise.
fn split_coefficient(d: &Dyn) -> (i64, Dyn) {
    if let Some(SymExpr::Sum(terms, 0)) = d.expr() {
        if let [(k, t)] = terms.as_slice() {
            return (*k, t.clone());
        }
    }
    (1, d.clone())
}

/// The factors of a product (the value itself when not a product; none for `1`).
fn factors(d: &Dyn) -> Vec<Dyn> {
    match d {
        Dyn::Lit(1) => Vec::new(),
        _ => match d.expr() {
            Some(SymExpr::Prod(fs)) => fs.clone(),
            _ => vec![d.clone()],
        },
    }
}

// -------------------------------------------------------------------------- products

/// `a * b`.
fn mul(a: &Dyn, b: &Dyn) -> SymResult {
    match (a, b) {
        (Dyn::Lit(k), x) | (x, Dyn::Lit(k)) => scale(x, *k),
        _ => {
            let (ka, ca) = split_coefficient(a);
            let (kb, cb) = split_coefficient(b);
            let mut fs = factors(&ca);
            fs.extend(factors(&cb));
            scale(&product(fs)?, checked_mul(ka, kb)?)
        }
    }
}

/// The normal form of a product of non-literal factors: `signum(x)` dropped beside a
/// non-negative factor `x`; `x * (c/x)` is `c` when every value of `x` divides `c`.
fn product(fs: Vec<Dyn>) -> SymResult {
    let facts = Facts::of(&fs.iter().collect::<Vec<_>>(), None);
    let mut fs: Vec<Dyn> = fs
        .iter()
        .filter(|f| !redundant_signum(f, &fs))
        .cloned()
        .collect();
    let mut k = 1;
    while let Some((i, j, c)) = divisor_pair(&fs, &facts) {
        let (hi, lo) = (i.max(j), i.min(j));
        fs.remove(hi);
        fs.remove(lo);
        k = checked_mul(k, c)?;
    }
    let p = match fs.len() {
        0 => Dyn::Lit(1),
        1 => fs.remove(0),
        _ => Sym::node(SymExpr::Prod(fs))?,
    };
    scale(&p, k)
}

fn redundant_signum(f: &Dyn, all: &[Dyn]) -> bool {
    match f.expr() {
        Some(SymExpr::Signum(x)) => x.range().lo >= 0 && all.iter().any(|g| g == x),
        _ => false,
    }
}

/// Factors `x` at `i` and `c/x` or `ceil_div(c, x)` at `j` where every value `x` can take
/// divides the literal `c` (so both quotients are exact and the product is `c`).
fn divisor_pair(fs: &[Dyn], facts: &Facts) -> Option<(usize, usize, i64)> {
    fs.iter().enumerate().find_map(|(j, g)| {
        let Some(SymExpr::Bin(BinOp::Div, n, x)) = g.expr() else {
            return None;
        };
        let c = match n.value() {
            Some(c) => c,
            None => difference(n, x).ok()?.value()?.checked_add(1)?,
        };
        let i = fs.iter().position(|f| f == x)?;
        divides_every_value(x, c, facts).then_some((i, j, c))
    })
}

/// Whether every value `x` takes (at least 1 where `c/x` is defined) divides `c`.
fn divides_every_value(x: &Dyn, c: i64, facts: &Facts) -> bool {
    let r = facts.range_of(x).meet(Range::new(1, INF));
    c > 0
        && r.hi <= i128::from(c)
        && r.hi - r.lo <= 64
        && (r.lo..=r.hi).all(|v| c % (v as i64) == 0)
}

/// `a / b` exactly, when the factors of `b` (with its coefficient) are among those of `a`.
fn cancel(a: &Dyn, b: &Dyn) -> Option<SymResult> {
    let (ka, ca) = split_coefficient(a);
    let (kb, cb) = split_coefficient(b);
    if kb == 0 || ka % kb != 0 {
        return None;
    }
    let mut fa = factors(&ca);
    for f in factors(&cb) {
        let i = fa.iter().position(|g| *g == f)?;
        fa.remove(i);
    }
    Some(product(fa).and_then(|p| scale(&p, ka / kb)))
}

// ---------------------------------------------------------------- quotients, remainders

/// `a / b` (truncating), simplified.
fn div(a: &Dyn, b: &Dyn) -> SymResult {
    match b.value() {
        Some(0) => return Err(SymError::DivisionByZero),
        Some(1) => return Ok(a.clone()),
        Some(-1) => return scale(a, -1),
        _ => {}
    }
    if a.value() == Some(0) {
        return Ok(Dyn::Lit(0));
    }
    if a == b {
        return Ok(Dyn::Lit(1));
    }
    if let Some(q) = cancel(a, b) {
        return q;
    }
    let facts = Facts::quotient(a, b);
    let (ra, rb) = (facts.range_of(a), facts.range_of(b).defined_divisor());
    if ra.lo >= 0 && rb.lo >= 1 && ra.hi < rb.lo {
        return Ok(Dyn::Lit(0));
    }
    if ra.lo >= 0 && rb.lo >= 1 {
        // 0 <= a < b, or b <= a < 2b, shown on the difference: `(2*M-1)/M` is 1.
        let at_least = |x: &Dyn, y: &Dyn, k: i64| {
            let (terms, c) = difference_terms(x, y);
            let r = terms.iter().fold(Range::point(c), |acc, (k, t)| {
                acc.add(facts.range_of(t).scale(*k))
            });
            r.lo >= i128::from(k)
        };
        if at_least(b, a, 1) {
            return Ok(Dyn::Lit(0));
        }
        if at_least(a, b, 0) {
            if let Ok(two_b) = scale(b, 2) {
                if at_least(&two_b, a, 1) {
                    return Ok(Dyn::Lit(1));
                }
            }
        }
    }
    if let Some(d) = b.value().filter(|d| *d > 0) {
        if let Some(q) = div_by_literal(a, d, ra) {
            return q;
        }
    }
    if let Some(q) = nested_ceil_div(a, b, &facts) {
        return q;
    }
    Sym::node(SymExpr::Bin(BinOp::Div, a.clone(), b.clone()))
}

/// `a / d` for a literal `d > 0`: exact when `d` divides every coefficient of `a` (and its
/// constant, or the constant is non-negative and so is every value of `a`); `(x/c)/d` is
/// `x/(c*d)`.
fn div_by_literal(a: &Dyn, d: i64, ra: Range) -> Option<SymResult> {
    if let Some(SymExpr::Bin(BinOp::Div, x, c)) = a.expr() {
        let cd = c.value().filter(|c| *c > 0)?.checked_mul(d)?;
        return Some(div(x, &Dyn::Lit(cd)));
    }
    let (terms, c) = linear_parts(a);
    if terms.iter().any(|(k, _)| k % d != 0) {
        return None;
    }
    if c % d != 0 && !(c >= 0 && ra.lo >= 0) {
        return None;
    }
    let terms = terms.into_iter().map(|(k, t)| (k / d, t)).collect();
    Some(linear(terms, c / d))
}

/// `ceil_div(ceil_div(x, a), b)` is `ceil_div(x, a*b)` for `x >= 0` and `a, b >= 1`: `n / b`
/// where `n - b + 1` is a quotient `m / a` with `x = m - a + 1 >= 0`.
fn nested_ceil_div(n: &Dyn, b: &Dyn, facts: &Facts) -> Option<SymResult> {
    let q = add(&difference(n, b).ok()?, &Dyn::Lit(1), 1).ok()?;
    let Some(SymExpr::Bin(BinOp::Div, m, a)) = q.expr() else {
        return None;
    };
    let inner = facts.with(q.facts());
    let x = add(&difference(m, a).ok()?, &Dyn::Lit(1), 1).ok()?;
    let positive = |d: &Dyn| inner.range_of(d).defined_divisor().lo >= 1;
    if inner.range_of(&x).lo < 0 || !positive(a) || !positive(b) {
        return None;
    }
    let ab = match mul(a, b) {
        Ok(ab) => ab,
        Err(e) => return Some(Err(e)),
    };
    let num = add(&x, &ab, 1).and_then(|s| add(&s, &Dyn::Lit(-1), 1));
    Some(num.and_then(|s| div(&s, &ab)))
}

/// `a % b` (C++'s remainder), simplified.
fn rem(a: &Dyn, b: &Dyn) -> SymResult {
    match b.value() {
        Some(0) => return Err(SymError::DivisionByZero),
        Some(1 | -1) => return Ok(Dyn::Lit(0)),
        _ => {}
    }
    if a.value() == Some(0) || a == b {
        return Ok(Dyn::Lit(0));
    }
    if let Some(Ok(_)) = cancel(a, b) {
        return Ok(Dyn::Lit(0));
    }
    let facts = Facts::quotient(a, b);
    let (ra, rb) = (facts.range_of(a), facts.range_of(b).defined_divisor());
    if ra.lo >= 0 && rb.lo >= 1 && ra.hi < rb.lo {
        return Ok(a.clone());
    }
    Sym::node(SymExpr::Bin(BinOp::Mod, a.clone(), b.clone()))
}

// ------------------------------------------------------------------------ min, max

/// `min(a, b)` (`is_min`) or `max(a, b)`, decided by the ranges where they can.
fn min_max(a: &Dyn, b: &Dyn, is_min: bool) -> SymResult {
    let (small, large) = if is_min { (a, b) } else { (b, a) };
    match order(a, b) {
        Some(Ordering::Less | Ordering::Equal) => Ok(small.clone()),
        Some(Ordering::Greater) => Ok(large.clone()),
        None => {
            let op = if is_min { BinOp::Min } else { BinOp::Max };
            Sym::node(SymExpr::Bin(op, a.clone(), b.clone()))
        }
    }
}

/// `a <= b` (`Less`) or `a >= b` (`Greater`) when it holds for every value of the symbols.
fn order(a: &Dyn, b: &Dyn) -> Option<Ordering> {
    if a == b {
        return Some(Ordering::Equal);
    }
    let facts = Facts::both(a, b);
    let (ra, rb) = (facts.range_of(a), facts.range_of(b));
    if ra.hi <= rb.lo {
        return Some(Ordering::Less);
    }
    if rb.hi <= ra.lo {
        return Some(Ordering::Greater);
    }
    let (terms, c) = difference_terms(b, a);
    let r = terms.iter().fold(Range::point(c), |acc, (k, t)| {
        acc.add(facts.range_of(t).scale(*k))
    });
    if r.lo >= 0 {
        return Some(Ordering::Less);
    }
    if r.hi <= 0 {
        return Some(Ordering::Greater);
    }
    // b = a*x with a >= 0 and x >= 1 (or the other way round).
    let ratio_at_least_one = |big: &Dyn, small: &Dyn, r_small: Range| {
        r_small.lo >= 0
            && small.value().is_none()
            && matches!(cancel(big, small), Some(Ok(x)) if facts.range_of(&x).lo >= 1)
    };
    if ratio_at_least_one(b, a, ra) {
        return Some(Ordering::Less);
    }
    if ratio_at_least_one(a, b, rb) {
        return Some(Ordering::Greater);
    }
    None
}

fn gcd_lcm(op: BinOp, a: &Dyn, b: &Dyn) -> SymResult {
    let unit = |x: &Dyn| matches!(x.value(), Some(1 | -1));
    match op {
        BinOp::Gcd if unit(a) || unit(b) => Ok(Dyn::Lit(1)),
        BinOp::Gcd if a.value() == Some(0) => b.abs(),
        BinOp::Gcd if b.value() == Some(0) => a.abs(),
        BinOp::Lcm if a.value() == Some(0) || b.value() == Some(0) => Ok(Dyn::Lit(0)),
        BinOp::Lcm if unit(a) => b.abs(),
        BinOp::Lcm if unit(b) => a.abs(),
        _ if a == b => a.abs(),
        _ => Sym::node(SymExpr::Bin(op, a.clone(), b.clone())),
    }
}
