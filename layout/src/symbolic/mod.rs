//! Dynamic integers: a known value (`8`) or an expression over named kernel parameters (`M`).
//!
//! C++ CuTe's dynamic integers are runtime `int`s. Here a dynamic value is either a literal or a
//! symbolic expression over symbols such as `M` or `ldA`, so the code generator can emit it as a
//! C++ expression. Expressions whose operands are all literals fold to a literal, so a dynamic value
//! with a known value always prints as its value, exactly as C++ CuTe does.
//!
//! # What a symbol stands for
//!
//! A symbol is a kernel parameter: a size or a leading dimension (`M`, `ldA`: [`Dyn::symbol`]),
//! which stands for a **positive** integer, or an index (`tid`, `bx`: [`Dyn::index`]), which
//! stands for a **non-negative** one. An expression is only ever evaluated where it is defined (no
//! division by zero), so a divisor is positive wherever its quotient is used. Under those two facts the constructors keep every expression in a normal form and
//! simplify it as they build it ([`simplify`](self) has the rules):
//!
//! - sums are flattened into `c0 + c1*t1 + ...` with like terms merged (`(M+3)-(M-1)` is `4`,
//!   `1+M-1` is `M`), and a literal factor is distributed over a sum;
//! - products are flattened and ordered; a common factor cancels in a quotient (`(M*K)/M` is `K`),
//!   `signum(x)*x` is `x`, and `x*(c/x)` is `c` when every value `x` can take divides `c`;
//! - nested ceil_divs compose (`ceil_div(ceil_div(x, a), b)` is `ceil_div(x, a*b)`);
//! - every value carries a range (`M` is in `[0, inf)`, `(M+3)/M` in `[1, 4]`); a `min`, `max`,
//!   `abs`, `signum`, `/` or `%` whose outcome the ranges decide is replaced by that outcome
//!   (`min(M, M*X)` with `X >= 1` is `M`, `abs(ldA)` is `ldA`, `(128*M+127)/128` is `M`).
//!
//! Symbolic values are shared (`Arc`), never copied, and one expression may hold at most
//! [`MAX_NODES`] nodes: a longer one is an error ([`SymError::TooLarge`]), not a hang.

mod facts;
mod print;
mod simplify;

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use facts::{Facts, Range};

/// The most nodes one symbolic expression may hold (counted as a tree: a shared subexpression
/// counts each time it is used). Beyond it an operation fails with [`SymError::TooLarge`].
pub const MAX_NODES: u32 = 4096;

/// A dynamic integer: a literal or a symbolic expression.
#[derive(Clone)]
pub enum Dyn {
    /// A dynamic value known now (prints as `8`).
    Lit(i64),
    /// An expression over kernel parameters (prints as `M`, `(M+127)/128`, ...).
    Sym(Arc<Sym>),
}

/// The operators a symbolic dynamic value is built from (those of CuTe's integer arithmetic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Min,
    Max,
    Gcd,
    Lcm,
}

/// Why a dynamic operation has no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymError {
    /// A literal result does not fit in 64 bits.
    Overflow,
    /// A division or remainder by zero.
    DivisionByZero,
    /// The expression would hold more than [`MAX_NODES`] nodes.
    TooLarge,
}

impl SymError {
    /// The condition, for messages.
    pub fn what(self) -> &'static str {
        match self {
            SymError::Overflow => "integer overflow",
            SymError::DivisionByZero => "division by zero",
            SymError::TooLarge => "a symbolic expression of more than 4096 nodes",
        }
    }
}

type SymResult = Result<Dyn, SymError>;

/// A symbolic expression node with what is known of it.
pub struct Sym {
    expr: SymExpr,
    hash: u64,
    size: u32,
    range: Range,
    facts: Facts,
}

/// The shape of a symbolic expression. Terms and factors keep the order in which they first
/// appeared (so `m+k*ldA` prints as it was built); equality and hashing ignore that order.
#[derive(Debug, Clone, Eq)]
pub enum SymExpr {
    /// A named kernel parameter that is a size or leading dimension (at least 1).
    Var(String),
    /// A named index (thread, block or loop index: at least 0).
    Index(String),
    /// `c0 + c1*t1 + c2*t2 + ...`: at least one term, no term a sum or a literal, no coefficient
    /// zero, and not the single term `1*t` with `c0 = 0`.
    Sum(Vec<(i64, Dyn)>, i64),
    /// `f1*f2*...`: at least two factors, none a literal or a product.
    Prod(Vec<Dyn>),
    /// `a/b`, `a%b`, `min(a,b)`, `max(a,b)`, `gcd(a,b)`, `lcm(a,b)`.
    Bin(BinOp, Dyn, Dyn),
    /// `abs(x)`.
    Abs(Dyn),
    /// `signum(x)`.
    Signum(Dyn),
}

impl Dyn {
    /// A size or leading dimension named by a kernel parameter, such as `M` (at least 1).
    pub fn symbol(name: &str) -> Dyn {
        Sym::leaf(SymExpr::Var(name.to_string()))
    }

    /// A thread, block or loop index such as `tid` (at least 0).
    pub fn index(name: &str) -> Dyn {
        Sym::leaf(SymExpr::Index(name.to_string()))
    }

    /// The same value with every size symbol `x` read as the index `x`: how a symbol passed as
    /// a coordinate or a thread index is taken (`tid` may be 0).
    pub fn as_index(&self) -> SymResult {
        let Dyn::Sym(s) = self else {
            return Ok(self.clone());
        };
        let go = |d: &Dyn| d.as_index();
        match &s.expr {
            SymExpr::Var(n) => Ok(Dyn::index(n)),
            SymExpr::Index(_) => Ok(self.clone()),
            SymExpr::Sum(ts, c) => ts.iter().try_fold(Dyn::Lit(*c), |acc, (k, t)| {
                Dyn::bin(
                    BinOp::Add,
                    &acc,
                    &Dyn::bin(BinOp::Mul, &Dyn::Lit(*k), &go(t)?)?,
                )
            }),
            SymExpr::Prod(fs) => fs
                .iter()
                .try_fold(Dyn::Lit(1), |acc, f| Dyn::bin(BinOp::Mul, &acc, &go(f)?)),
            SymExpr::Bin(op, a, b) => Dyn::bin(*op, &go(a)?, &go(b)?),
            SymExpr::Abs(x) => go(x)?.abs(),
            SymExpr::Signum(x) => go(x)?.signum(),
        }
    }

    /// The value, when known.
    pub fn value(&self) -> Option<i64> {
        match self {
            Dyn::Lit(v) => Some(*v),
            Dyn::Sym(_) => None,
        }
    }

    /// The name, when this is a bare symbol (`M`) or index (`tid`).
    pub fn as_symbol(&self) -> Option<&str> {
        match self.expr() {
            Some(SymExpr::Var(n) | SymExpr::Index(n)) => Some(n),
            _ => None,
        }
    }

    /// The expression node, when symbolic.
    pub fn expr(&self) -> Option<&SymExpr> {
        match self {
            Dyn::Lit(_) => None,
            Dyn::Sym(s) => Some(&s.expr),
        }
    }

    /// The smallest and largest values this can take where it is defined (`None`: unbounded).
    pub fn bounds(&self) -> (Option<i64>, Option<i64>) {
        let r = self.range();
        (r.lo_i64(), r.hi_i64())
    }

    /// The number of nodes of the expression, as a tree (1 for a literal).
    pub fn nodes(&self) -> u32 {
        match self {
            Dyn::Lit(_) => 1,
            Dyn::Sym(s) => s.size,
        }
    }

    /// `op(a, b)`, simplified.
    pub fn bin(op: BinOp, a: &Dyn, b: &Dyn) -> SymResult {
        if let (Dyn::Lit(x), Dyn::Lit(y)) = (a, b) {
            return eval_bin_checked(op, *x, *y);
        }
        simplify::bin(op, a, b)
    }

    /// The value with the symbols bound by `env` (`None` if a symbol is unbound, or on overflow
    /// or division by zero).
    pub fn evaluate(&self, env: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
        let e = match self {
            Dyn::Lit(v) => return Some(*v),
            Dyn::Sym(s) => &s.expr,
        };
        match e {
            SymExpr::Var(n) | SymExpr::Index(n) => env(n),
            SymExpr::Sum(terms, c) => terms.iter().try_fold(*c, |acc, (k, t)| {
                acc.checked_add(k.checked_mul(t.evaluate(env)?)?)
            }),
            SymExpr::Prod(fs) => fs
                .iter()
                .try_fold(1i64, |acc, f| acc.checked_mul(f.evaluate(env)?)),
            SymExpr::Bin(op, a, b) => eval_bin(*op, a.evaluate(env)?, b.evaluate(env)?),
            SymExpr::Abs(x) => x.evaluate(env)?.checked_abs(),
            SymExpr::Signum(x) => Some(x.evaluate(env)?.signum()),
        }
    }

    /// `abs(self)`.
    pub fn abs(&self) -> SymResult {
        match self {
            Dyn::Lit(v) => v.checked_abs().map(Dyn::Lit).ok_or(SymError::Overflow),
            _ => simplify::abs(self),
        }
    }

    /// `signum(self)`.
    pub fn signum(&self) -> SymResult {
        match self {
            Dyn::Lit(v) => Ok(Dyn::Lit(v.signum())),
            _ => simplify::signum(self),
        }
    }

    fn range(&self) -> Range {
        match self {
            Dyn::Lit(v) => Range::point(*v),
            Dyn::Sym(s) => s.range,
        }
    }

    fn facts(&self) -> &Facts {
        match self {
            Dyn::Lit(_) => Facts::none(),
            Dyn::Sym(s) => &s.facts,
        }
    }

    fn hash_value(&self) -> u64 {
        match self {
            Dyn::Lit(v) => mix(0x6c69_7465_7261_6c00, *v as u64),
            Dyn::Sym(s) => s.hash,
        }
    }
}

impl Sym {
    /// A leaf node (a symbol).
    fn leaf(expr: SymExpr) -> Dyn {
        let hash = expr.structural_hash();
        let facts = Facts::default();
        let range = facts.node_range(&expr);
        Dyn::Sym(Arc::new(Sym {
            expr,
            hash,
            size: 1,
            range,
            facts,
        }))
    }

    /// Builds a node, refusing one beyond [`MAX_NODES`].
    fn node(expr: SymExpr) -> SymResult {
        let children = expr.children();
        let size = children
            .iter()
            .fold(1u32, |acc, c| acc.saturating_add(c.nodes()));
        if size > MAX_NODES {
            return Err(SymError::TooLarge);
        }
        let divisor = match &expr {
            SymExpr::Bin(BinOp::Div | BinOp::Mod, _, b) => Some(b),
            _ => None,
        };
        let facts = Facts::of(&children, divisor);
        let range = facts.node_range(&expr);
        if range.lo == range.hi {
            // Every value it can take is this one (`(min(M,2)+1)/2` is 1).
            return Ok(Dyn::Lit(range.lo as i64));
        }
        let hash = expr.structural_hash();
        Ok(Dyn::Sym(Arc::new(Sym {
            expr,
            hash,
            size,
            range,
            facts,
        })))
    }
}

impl SymExpr {
    fn children(&self) -> Vec<&Dyn> {
        match self {
            SymExpr::Var(_) | SymExpr::Index(_) => Vec::new(),
            SymExpr::Sum(ts, _) => ts.iter().map(|(_, t)| t).collect(),
            SymExpr::Prod(fs) => fs.iter().collect(),
            SymExpr::Bin(_, a, b) => vec![a, b],
            SymExpr::Abs(x) | SymExpr::Signum(x) => vec![x],
        }
    }

    fn structural_hash(&self) -> u64 {
        match self {
            SymExpr::Var(n) => n.bytes().fold(0x7661_7200, |h, b| mix(h, u64::from(b))),
            SymExpr::Index(n) => n.bytes().fold(0x6964_7800, |h, b| mix(h, u64::from(b))),
            SymExpr::Sum(ts, c) => mix(
                ts.iter().fold(0, |h: u64, (k, t)| {
                    h.wrapping_add(mix(*k as u64, t.hash_value()))
                }),
                mix(0x73_756d, *c as u64),
            ),
            SymExpr::Prod(fs) => mix(
                fs.iter()
                    .fold(0, |h: u64, f| h.wrapping_add(mix(0x66, f.hash_value()))),
                0x70_726f64,
            ),
            SymExpr::Bin(op, a, b) => mix(
                mix(mix(0x62_696e, *op as u64), a.hash_value()),
                b.hash_value(),
            ),
            SymExpr::Abs(x) => mix(0x61_6273, x.hash_value()),
            SymExpr::Signum(x) => mix(0x73_676e, x.hash_value()),
        }
    }
}

// ------------------------------------------------------------------ literal arithmetic

/// Evaluates `op` on two known values with C++ semantics (division truncates toward zero).
pub(crate) fn eval_bin(op: BinOp, x: i64, y: i64) -> Option<i64> {
    eval_bin_checked(op, x, y).ok().and_then(|d| d.value())
}

fn eval_bin_checked(op: BinOp, x: i64, y: i64) -> SymResult {
    let v = match op {
        BinOp::Add => x.checked_add(y),
        BinOp::Sub => x.checked_sub(y),
        BinOp::Mul => x.checked_mul(y),
        BinOp::Div | BinOp::Mod if y == 0 => return Err(SymError::DivisionByZero),
        BinOp::Div => x.checked_div(y),
        BinOp::Mod => x.checked_rem(y),
        BinOp::Min => Some(x.min(y)),
        BinOp::Max => Some(x.max(y)),
        BinOp::Gcd => Some(gcd(x, y)),
        BinOp::Lcm => lcm(x, y),
    };
    v.map(Dyn::Lit).ok_or(SymError::Overflow)
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i64::try_from(a).unwrap_or(i64::MAX)
}

fn lcm(a: i64, b: i64) -> Option<i64> {
    if a == 0 || b == 0 {
        return Some(0);
    }
    (a / gcd(a, b)).checked_mul(b).and_then(i64::checked_abs)
}

// ------------------------------------------------------------- identity and ordering

fn mix(h: u64, v: u64) -> u64 {
    let x = (h ^ v.wrapping_mul(0x9e37_79b9_7f4a_7c15)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^ (x >> 31)
}

impl PartialEq for Dyn {
    fn eq(&self, other: &Dyn) -> bool {
        match (self, other) {
            (Dyn::Lit(a), Dyn::Lit(b)) => a == b,
            (Dyn::Sym(a), Dyn::Sym(b)) => {
                Arc::ptr_eq(a, b) || (a.hash == b.hash && a.size == b.size && a.expr == b.expr)
            }
            _ => false,
        }
    }
}

impl Eq for Dyn {}

impl PartialEq for SymExpr {
    fn eq(&self, other: &SymExpr) -> bool {
        match (self, other) {
            (SymExpr::Var(a), SymExpr::Var(b)) | (SymExpr::Index(a), SymExpr::Index(b)) => a == b,
            (SymExpr::Sum(ta, ca), SymExpr::Sum(tb, cb)) => ca == cb && same_items(ta, tb),
            (SymExpr::Prod(fa), SymExpr::Prod(fb)) => same_items(fa, fb),
            (SymExpr::Bin(oa, a1, a2), SymExpr::Bin(ob, b1, b2)) => {
                oa == ob && a1 == b1 && a2 == b2
            }
            (SymExpr::Abs(a), SymExpr::Abs(b)) | (SymExpr::Signum(a), SymExpr::Signum(b)) => a == b,
            _ => false,
        }
    }
}

/// Equal as multisets (terms and factors are unordered).
fn same_items<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut used = vec![false; b.len()];
    a.iter().all(|x| {
        let hit = (0..b.len()).find(|&i| !used[i] && b[i] == *x);
        hit.map(|i| used[i] = true).is_some()
    })
}

impl Hash for Dyn {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash_value());
    }
}

#[cfg(test)]
mod tests;
