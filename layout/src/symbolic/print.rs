//! Symbolic values printed as C expressions: `M+127`, `(M+127)/128*ldA`, `4-M`, `min(M,2)`.
//! Parentheses appear exactly where C's precedence needs them, so the text parses back (in the
//! expression language and in C++) to the same value.

use std::fmt;

use super::{BinOp, Dyn, Sym, SymExpr};

impl BinOp {
    fn infix(self) -> Option<&'static str> {
        match self {
            BinOp::Add => Some("+"),
            BinOp::Sub => Some("-"),
            BinOp::Mul => Some("*"),
            BinOp::Div => Some("/"),
            BinOp::Mod => Some("%"),
            _ => None,
        }
    }

    /// `a op b` as text, for messages (`_7 / _0`, `min(a,b)`).
    pub fn apply_text(self, a: &str, b: &str) -> String {
        match self.infix() {
            Some(sym) => format!("{a} {sym} {b}"),
            None => format!("{}({a},{b})", self.name()),
        }
    }

    /// The function name of a non-infix operator.
    pub fn name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::Div => "div",
            BinOp::Mod => "mod",
            BinOp::Min => "min",
            BinOp::Max => "max",
            BinOp::Gcd => "gcd",
            BinOp::Lcm => "lcm",
        }
    }
}

/// Precedence of the top operator: 1 for a sum, 2 for a product or quotient, 3 for atoms, 0
/// for a negative literal.
fn precedence(d: &Dyn) -> u8 {
    match d {
        Dyn::Lit(v) if *v < 0 => 0,
        Dyn::Lit(_) => 3,
        Dyn::Sym(s) => match &s.expr {
            SymExpr::Sum(..) => 1,
            SymExpr::Prod(_) | SymExpr::Bin(BinOp::Div | BinOp::Mod, ..) => 2,
            _ => 3,
        },
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

/// Writes `|k|*t`: the coefficient first where C reads it so (`32*M`, `32*ci*ldB`), after a
/// leading quotient (`(M+31)/32*32`, not `32*(M+31)/32`).
fn write_term(f: &mut fmt::Formatter<'_>, k: i64, t: &Dyn) -> fmt::Result {
    let k = k.unsigned_abs();
    if k == 1 {
        return write_operand(f, t, 2);
    }
    if leads_with_atom(t) {
        write!(f, "{k}*{t}")
    } else {
        write_operand(f, t, 2)?;
        write!(f, "*{k}")
    }
}

/// Whether `t` is an atom or a product starting with one (so `k*t` reads as intended).
fn leads_with_atom(t: &Dyn) -> bool {
    let leading = match t.expr() {
        Some(SymExpr::Prod(fs)) => fs.first(),
        _ => Some(t),
    };
    leading.is_some_and(|x| precedence(x) == 3)
}

/// Positive terms, then a positive constant, then the negative terms and constant:
/// `M+N+1`, `4-M`, `M-K-1`.
fn write_sum(f: &mut fmt::Formatter<'_>, terms: &[(i64, Dyn)], c: i64) -> fmt::Result {
    let mut first = true;
    for (k, t) in terms.iter().filter(|(k, _)| *k > 0) {
        if !first {
            f.write_str("+")?;
        }
        write_term(f, *k, t)?;
        first = false;
    }
    if c > 0 {
        write!(f, "{}{c}", if first { "" } else { "+" })?;
        first = false;
    }
    for (k, t) in terms.iter().filter(|(k, _)| *k < 0) {
        f.write_str("-")?;
        // A leading minus is unary and binds tighter than `/`: `-((M+127)/128)`, not
        // `-(M+127)/128`, which reads as `(-(M+127))/128`.
        let unary = first && !(precedence(t) == 3 || leads_with_atom(t) && *k != -1);
        if unary {
            f.write_str("(")?;
        }
        write_term(f, *k, t)?;
        if unary {
            f.write_str(")")?;
        }
        first = false;
    }
    if c < 0 {
        write!(f, "-{}", c.unsigned_abs())?;
    }
    Ok(())
}

impl fmt::Display for Dyn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dyn::Lit(v) => write!(f, "{v}"),
            Dyn::Sym(s) => write!(f, "{}", s.expr),
        }
    }
}

impl fmt::Display for SymExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SymExpr::Var(name) | SymExpr::Index(name) => f.write_str(name),
            SymExpr::Sum(terms, c) => write_sum(f, terms, *c),
            SymExpr::Prod(fs) => {
                for (i, x) in fs.iter().enumerate() {
                    if i > 0 {
                        f.write_str("*")?;
                    }
                    write_operand(f, x, if i == 0 { 2 } else { 3 })?;
                }
                Ok(())
            }
            SymExpr::Abs(x) => write!(f, "abs({x})"),
            SymExpr::Signum(x) => write!(f, "signum({x})"),
            SymExpr::Bin(op, a, b) => match op.infix() {
                Some(sym) => {
                    write_operand(f, a, 2)?;
                    f.write_str(sym)?;
                    write_operand(f, b, 3)
                }
                None => write!(f, "{}({a},{b})", op.name()),
            },
        }
    }
}

impl fmt::Debug for Dyn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Dyn({self})")
    }
}

impl fmt::Debug for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.expr)
    }
}
