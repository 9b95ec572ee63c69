//! Dynamic integers: a known value (`8`) or an expression over named kernel parameters (`M`).
//!
//! C++ CuTe's dynamic integers are runtime `int`s. Here a dynamic value is either a literal or a
//! symbolic expression over symbols such as `M` or `ldA`, so the code generator can emit it as a
//! C++ expression. Expressions whose operands are all literals fold to a literal, so a dynamic value
//! with a known value always prints as its value, exactly as C++ CuTe does.

use std::fmt;
use std::sync::Arc;

/// A dynamic integer: a literal or a symbolic expression.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Dyn {
    /// A dynamic value known now (prints as `8`).
    Lit(i64),
    /// An expression over kernel parameters (prints as `M`, `(M+127)/128`, ...).
    Sym(Arc<SymExpr>),
}

/// The operators a symbolic dynamic value is built from (those of CuTe's integer arithmetic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

/// A symbolic expression node.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SymExpr {
    /// A named kernel parameter.
    Var(String),
    /// A binary operation.
    Bin(BinOp, Dyn, Dyn),
    /// `abs(x)`.
    Abs(Dyn),
    /// `signum(x)`.
    Signum(Dyn),
}

impl Dyn {
    /// A named kernel parameter such as `M`.
    pub fn symbol(name: &str) -> Dyn {
        Dyn::Sym(Arc::new(SymExpr::Var(name.to_string())))
    }

    /// The value, when known.
    pub fn value(&self) -> Option<i64> {
        match self {
            Dyn::Lit(v) => Some(*v),
            Dyn::Sym(_) => None,
        }
    }

    /// `op(self, rhs)`; `None` when a literal result overflows or divides by zero.
    pub fn bin(op: BinOp, a: &Dyn, b: &Dyn) -> Option<Dyn> {
        if let (Dyn::Lit(x), Dyn::Lit(y)) = (a, b) {
            return eval_bin(op, *x, *y).map(Dyn::Lit);
        }
        Some(
            simplify(op, a, b)
                .unwrap_or_else(|| Dyn::Sym(Arc::new(SymExpr::Bin(op, a.clone(), b.clone())))),
        )
    }

    /// The value with the symbols bound by `env` (`None` if a symbol is unbound, or on overflow
    /// or division by zero).
    pub fn evaluate(&self, env: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
        match self {
            Dyn::Lit(v) => Some(*v),
            Dyn::Sym(e) => match e.as_ref() {
                SymExpr::Var(n) => env(n),
                SymExpr::Bin(op, a, b) => eval_bin(*op, a.evaluate(env)?, b.evaluate(env)?),
                SymExpr::Abs(x) => x.evaluate(env)?.checked_abs(),
                SymExpr::Signum(x) => Some(x.evaluate(env)?.signum()),
            },
        }
    }

    /// `abs(self)`.
    pub fn abs(&self) -> Option<Dyn> {
        match self {
            Dyn::Lit(v) => v.checked_abs().map(Dyn::Lit),
            Dyn::Sym(_) => Some(Dyn::Sym(Arc::new(SymExpr::Abs(self.clone())))),
        }
    }

    /// `signum(self)`.
    pub fn signum(&self) -> Dyn {
        match self {
            Dyn::Lit(v) => Dyn::Lit(v.signum()),
            Dyn::Sym(_) => Dyn::Sym(Arc::new(SymExpr::Signum(self.clone()))),
        }
    }
}

/// Evaluates `op` on two known values with C++ semantics (division truncates toward zero).
pub(crate) fn eval_bin(op: BinOp, x: i64, y: i64) -> Option<i64> {
    match op {
        BinOp::Add => x.checked_add(y),
        BinOp::Sub => x.checked_sub(y),
        BinOp::Mul => x.checked_mul(y),
        BinOp::Div => x.checked_div(y),
        BinOp::Mod => x.checked_rem(y),
        BinOp::Min => Some(x.min(y)),
        BinOp::Max => Some(x.max(y)),
        BinOp::Gcd => Some(gcd(x, y)),
        BinOp::Lcm => lcm(x, y),
    }
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

/// Value-preserving identities that keep printed symbolic expressions short.
fn simplify(op: BinOp, a: &Dyn, b: &Dyn) -> Option<Dyn> {
    let (av, bv) = (a.value(), b.value());
    match op {
        BinOp::Add if av == Some(0) => Some(b.clone()),
        BinOp::Add | BinOp::Sub if bv == Some(0) => Some(a.clone()),
        BinOp::Mul if av == Some(1) => Some(b.clone()),
        BinOp::Mul | BinOp::Div if bv == Some(1) => Some(a.clone()),
        BinOp::Mul if av == Some(0) || bv == Some(0) => Some(Dyn::Lit(0)),
        BinOp::Mod if bv == Some(1) => Some(Dyn::Lit(0)),
        BinOp::Sub if a == b => Some(Dyn::Lit(0)),
        BinOp::Div if a == b => Some(Dyn::Lit(1)),
        BinOp::Min | BinOp::Max if a == b => Some(a.clone()),
        // (x + c1) - c2  =>  x + (c1 - c2), the shape of every ceil_div
        BinOp::Sub => fold_offset(a, bv?.checked_neg()?),
        BinOp::Add => fold_offset(a, bv?),
        _ => None,
    }
}

/// `a + c` where `a` is `x + c0`: returns `x + (c0 + c)`.
fn fold_offset(a: &Dyn, c: i64) -> Option<Dyn> {
    let Dyn::Sym(e) = a else { return None };
    let SymExpr::Bin(BinOp::Add, x, Dyn::Lit(c0)) = e.as_ref() else {
        return None;
    };
    let sum = c0.checked_add(c)?;
    Dyn::bin(BinOp::Add, x, &Dyn::Lit(sum))
}

impl BinOp {
    fn infix(self) -> Option<(&'static str, u8)> {
        match self {
            BinOp::Add => Some(("+", 1)),
            BinOp::Sub => Some(("-", 1)),
            BinOp::Mul => Some(("*", 2)),
            BinOp::Div => Some(("/", 2)),
            BinOp::Mod => Some(("%", 2)),
            _ => None,
        }
    }

    /// `a op b` as text, for messages (`_7 / _0`, `min(a,b)`).
    pub fn apply_text(self, a: &str, b: &str) -> String {
        match self.infix() {
            Some((sym, _)) => format!("{a} {sym} {b}"),
            None => format!("{}({a},{b})", self.name()),
        }
    }

    fn name(self) -> &'static str {
        match self {
            BinOp::Min => "min",
            BinOp::Max => "max",
            BinOp::Gcd => "gcd",
            BinOp::Lcm => "lcm",
            _ => "?",
        }
    }
}

/// Precedence of the top operator of a dynamic value (3 for atoms and calls).
fn precedence(d: &Dyn) -> u8 {
    match d {
        Dyn::Lit(v) if *v < 0 => 0,
        Dyn::Sym(e) => match e.as_ref() {
            SymExpr::Bin(op, _, _) => op.infix().map_or(3, |(_, p)| p),
            _ => 3,
        },
        Dyn::Lit(_) => 3,
    }
}

/// Writes `d`, parenthesised when its precedence is below `min`.
fn write_operand(f: &mut fmt::Formatter<'_>, d: &Dyn, min: u8) -> fmt::Result {
    if precedence(d) < min {
        write!(f, "({d})")
    } else {
        write!(f, "{d}")
    }
}

impl fmt::Display for Dyn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dyn::Lit(v) => write!(f, "{v}"),
            Dyn::Sym(e) => write!(f, "{e}"),
        }
    }
}

impl fmt::Display for SymExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SymExpr::Var(name) => f.write_str(name),
            SymExpr::Abs(x) => write!(f, "abs({x})"),
            SymExpr::Signum(x) => write!(f, "signum({x})"),
            SymExpr::Bin(op, a, b) => match op.infix() {
                Some((sym, p)) => {
                    write_operand(f, a, p)?;
                    f.write_str(sym)?;
                    write_operand(f, b, p + 1)
                }
                None => write!(f, "{}({a},{b})", op.name()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_fold_and_symbols_print_as_c_expressions() {
        let m = Dyn::symbol("M");
        let l = |v| Dyn::Lit(v);
        assert_eq!(Dyn::bin(BinOp::Mul, &l(6), &l(7)), Some(l(42)));
        assert_eq!(Dyn::bin(BinOp::Div, &l(6), &l(0)), None);
        // ceil_div(M, 128) = (M + 128 - 1) / 128
        let a = Dyn::bin(BinOp::Add, &m, &l(128)).unwrap();
        let s = Dyn::bin(BinOp::Sub, &a, &l(1)).unwrap();
        let q = Dyn::bin(BinOp::Div, &s, &l(128)).unwrap();
        assert_eq!(q.to_string(), "(M+127)/128");
        let p = Dyn::bin(BinOp::Mul, &q, &Dyn::symbol("ldA")).unwrap();
        assert_eq!(p.to_string(), "(M+127)/128*ldA");
        let r = Dyn::bin(BinOp::Sub, &l(4), &p).unwrap();
        assert_eq!(r.to_string(), "4-(M+127)/128*ldA");
    }
}
