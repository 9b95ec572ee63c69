//! What is known of a symbolic value: its range, and which subexpressions are positive wherever
//! it is defined.
//!
//! Every size symbol is positive and every index non-negative. A quotient `a / b` (or remainder) is only defined where `b != 0`,
//! so wherever it is used a non-negative `b` is at least 1, and so is every symbol whose being zero
//! would make `b` zero. A node remembers those facts (a few of them) from its divisors and its
//! children, and its range is computed under them: in `((M+3)/M + M - 1)` the `M` is at least 1.

use super::{simplify, BinOp, Dyn, SymExpr};

/// An interval `[lo, hi]`; `±INF` stands for unbounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Range {
    pub lo: i128,
    pub hi: i128,
}

pub(super) const INF: i128 = 1 << 100;

/// The most facts a node keeps (dropping one only loses precision).
const MAX_FACTS: usize = 16;

impl Range {
    pub const NON_NEGATIVE: Range = Range { lo: 0, hi: INF };

    pub fn new(lo: i128, hi: i128) -> Range {
        let clamp = |v: i128| {
            if v >= i128::from(i64::MAX) {
                INF
            } else if v <= i128::from(i64::MIN) {
                -INF
            } else {
                v
            }
        };
        Range {
            lo: clamp(lo),
            hi: clamp(hi),
        }
    }

    pub fn point(v: i64) -> Range {
        Range::new(i128::from(v), i128::from(v))
    }

    pub fn lo_i64(self) -> Option<i64> {
        (self.lo > -INF).then_some(self.lo as i64)
    }

    pub fn hi_i64(self) -> Option<i64> {
        (self.hi < INF).then_some(self.hi as i64)
    }

    /// The intersection (the tighter bounds of two true statements).
    pub fn meet(self, o: Range) -> Range {
        Range::new(self.lo.max(o.lo), self.hi.min(o.hi))
    }

    pub fn add(self, o: Range) -> Range {
        Range::new(sat_add(self.lo, o.lo), sat_add(self.hi, o.hi))
    }

    pub fn scale(self, k: i64) -> Range {
        self.mul(Range::point(k))
    }

    pub fn mul(self, o: Range) -> Range {
        let ps = [
            sat_mul(self.lo, o.lo),
            sat_mul(self.lo, o.hi),
            sat_mul(self.hi, o.lo),
            sat_mul(self.hi, o.hi),
        ];
        Range::new(
            ps.iter().copied().min().unwrap_or(-INF),
            ps.iter().copied().max().unwrap_or(INF),
        )
    }

    pub fn abs(self) -> Range {
        if self.lo >= 0 {
            self
        } else if self.hi <= 0 {
            Range::new(-self.hi, -self.lo)
        } else {
            Range::new(0, self.hi.max(-self.lo))
        }
    }

    /// The range of a divisor where the quotient is defined: a non-negative divisor is positive.
    pub fn defined_divisor(self) -> Range {
        if self.lo == 0 {
            Range::new(1, self.hi.max(1))
        } else {
            self
        }
    }

    /// The range of `op(a, b)` from the operands' ranges alone.
    pub fn bin(op: BinOp, a: Range, b: Range) -> Range {
        let b = match op {
            BinOp::Div | BinOp::Mod => b.defined_divisor(),
            _ => b,
        };
        let magnitude = |r: Range| r.abs().hi;
        match op {
            BinOp::Div if a.lo >= 0 && b.lo >= 1 => Range::new(
                if b.hi >= INF { 0 } else { a.lo / b.hi },
                if a.hi >= INF { INF } else { a.hi / b.lo },
            ),
            BinOp::Div => {
                let m = magnitude(a);
                Range::new(-m, m)
            }
            BinOp::Mod if a.lo >= 0 && b.lo >= 1 => Range::new(0, a.hi.min(b.hi - 1)),
            BinOp::Mod => {
                let m = (magnitude(b) - 1).min(magnitude(a));
                Range::new(
                    if a.lo >= 0 { 0 } else { -m },
                    if a.hi <= 0 { 0 } else { m },
                )
            }
            BinOp::Min => Range::new(a.lo.min(b.lo), a.hi.min(b.hi)),
            BinOp::Max => Range::new(a.lo.max(b.lo), a.hi.max(b.hi)),
            BinOp::Gcd | BinOp::Lcm => Range::NON_NEGATIVE,
            BinOp::Add => a.add(b),
            BinOp::Sub => a.add(b.scale(-1)),
            BinOp::Mul => a.mul(b),
        }
    }
}

fn sat_add(a: i128, b: i128) -> i128 {
    if a >= INF || b >= INF {
        INF
    } else if a <= -INF || b <= -INF {
        -INF
    } else {
        a + b
    }
}

fn sat_mul(a: i128, b: i128) -> i128 {
    if a == 0 || b == 0 {
        return 0;
    }
    if a.abs() >= INF || b.abs() >= INF {
        return if (a > 0) == (b > 0) { INF } else { -INF };
    }
    (a * b).clamp(-INF, INF)
}

/// Subexpressions that are at least 1 wherever a node is defined.
#[derive(Debug, Clone, Default)]
pub(super) struct Facts(Vec<Dyn>);

static NO_FACTS: Facts = Facts(Vec::new());

impl Facts {
    pub fn none() -> &'static Facts {
        &NO_FACTS
    }

    /// The facts of a node: its children's, and for a quotient or remainder, its divisor's.
    pub fn of(children: &[&Dyn], divisor: Option<&Dyn>) -> Facts {
        let mut f = Facts(Vec::new());
        for c in children {
            f.extend(c.facts().0.iter());
        }
        if let Some(b) = divisor {
            f.add_divisor(b);
        }
        f
    }

    /// `b` is a divisor: where the quotient is defined, a non-negative `b` is at least 1, and so
    /// is each symbol whose being zero makes it zero.
    fn add_divisor(&mut self, b: &Dyn) {
        if b.range().lo >= 0 || self.0.contains(b) {
            let mut new = vec![b.clone()];
            zero_symbols(b, &mut new);
            self.extend(new.iter());
        }
    }

    /// These facts and `more`.
    pub fn with(&self, more: &Facts) -> Facts {
        let mut f = self.clone();
        f.extend(more.0.iter());
        f
    }

    /// The facts that hold where both `a` and `b` are defined.
    pub fn both(a: &Dyn, b: &Dyn) -> Facts {
        Facts::of(&[a, b], None)
    }

    /// The facts where `a / b` is defined.
    pub fn quotient(a: &Dyn, b: &Dyn) -> Facts {
        Facts::of(&[a, b], Some(b))
    }

    fn extend<'a>(&mut self, items: impl Iterator<Item = &'a Dyn>) {
        for d in items {
            if self.0.len() >= MAX_FACTS {
                return;
            }
            if d.value().is_none() && !self.0.contains(d) {
                self.0.push(d.clone());
            }
        }
    }

    /// The range of `d` under these facts.
    pub fn range_of(&self, d: &Dyn) -> Range {
        self.refined(d, 2)
    }

    fn refined(&self, d: &Dyn, depth: u8) -> Range {
        let Dyn::Sym(s) = d else { return d.range() };
        let mut r = s.range;
        if self.0.contains(d) {
            r = r.meet(Range::new(1, INF));
        }
        if depth > 0 && !self.0.is_empty() && !matches!(s.expr, SymExpr::Var(_) | SymExpr::Index(_))
        {
            r = r.meet(self.node_range_at(&s.expr, depth - 1));
        }
        r
    }

    /// The range of a node whose children are known, under these facts.
    pub fn node_range(&self, e: &SymExpr) -> Range {
        self.node_range_at(e, 2)
    }

    fn node_range_at(&self, e: &SymExpr, depth: u8) -> Range {
        let child = |d: &Dyn| self.refined(d, depth);
        match e {
            SymExpr::Var(_) => Range::new(1, INF),
            SymExpr::Index(_) => Range::NON_NEGATIVE,
            SymExpr::Sum(ts, c) => ts
                .iter()
                .fold(Range::point(*c), |acc, (k, t)| acc.add(child(t).scale(*k))),
            SymExpr::Prod(fs) => fs.iter().fold(Range::point(1), |acc, f| acc.mul(child(f))),
            SymExpr::Bin(BinOp::Div, a, b) => self.quotient_range(a, b, depth),
            SymExpr::Bin(op, a, b) => Range::bin(*op, child(a), child(b)),
            SymExpr::Abs(x) => child(x).abs(),
            SymExpr::Signum(x) => {
                let r = child(x);
                Range::new(r.lo.signum(), r.hi.signum())
            }
        }
    }

    /// The range of `a / b`; when `a - b = r >= 0` and `b >= 1` (a ceil_div such as `(M+3)/M`),
    /// `a / b = 1 + r / b` lies in `[1 + r.lo / b.hi, 1 + r.hi / b.lo]`.
    fn quotient_range(&self, a: &Dyn, b: &Dyn, depth: u8) -> Range {
        let mut inner = self.clone();
        inner.add_divisor(b);
        let (ra, rb) = (inner.refined(a, depth), inner.refined(b, depth));
        let base = Range::bin(BinOp::Div, ra, rb);
        let rb = rb.defined_divisor();
        if ra.lo < 0 || rb.lo < 1 {
            return base;
        }
        let (terms, c) = simplify::difference_terms(a, b);
        let r = terms.iter().fold(Range::point(c), |acc, (k, t)| {
            acc.add(inner.refined(t, depth.saturating_sub(1)).scale(*k))
        });
        if r.lo < 0 {
            return base;
        }
        let lo = 1 + if rb.hi >= INF { 0 } else { r.lo / rb.hi };
        let hi = if r.hi >= INF { INF } else { 1 + r.hi / rb.lo };
        base.meet(Range::new(lo, hi))
    }
}

/// The indices whose being zero makes `d` zero (every symbol being non-negative): `d != 0`
/// proves each of them positive.
fn zero_symbols(d: &Dyn, out: &mut Vec<Dyn>) {
    match d.expr() {
        Some(SymExpr::Index(_)) => out.push(d.clone()),
        Some(SymExpr::Sum(ts, 0)) if ts.len() == 1 => zero_symbols(&ts[0].1, out),
        Some(SymExpr::Prod(fs)) => fs.iter().for_each(|f| zero_symbols(f, out)),
        Some(SymExpr::Bin(BinOp::Min, a, b)) if a.range().lo >= 0 && b.range().lo >= 0 => {
            zero_symbols(a, out);
            zero_symbols(b, out);
        }
        Some(SymExpr::Abs(x) | SymExpr::Signum(x)) => zero_symbols(x, out),
        _ => {}
    }
}
