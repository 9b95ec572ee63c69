//! `Display` adaptors that print CuTe integers and elementwise expressions as C: every compound
//! operand parenthesised, literals outside `int` suffixed `LL`, and only operations CUDA has
//! (`signum` becomes a comparison, `gcd`/`lcm` call the kernel's own helpers).

use std::fmt;

use cute_layout::symbolic::{BinOp, Dyn, SymExpr};
use cute_layout::Int;

use crate::ir::expr::UnaryOp;
use crate::ir::{EExpr, ScalarOp};

/// An integer as a C expression.
///
/// ```
/// # use cute_codegen::cuda::CInt;
/// # use cute_layout::{expr::{eval, Value}, Int, s};
/// let m = Int::symbol("M");
/// let e = m.add(&s(127)).unwrap().div(&s(128)).unwrap().mul(&Int::symbol("ldA")).unwrap();
/// assert_eq!(CInt(&e).to_string(), "(((M + 127) / 128) * ldA)");
/// // cute eval 'composition((_8,_8):(_1,ldA),(_4,_4):(_2,ldA))' has a signum(ldA) stride
/// let Value::Layout(l) = eval("composition((_8,_8):(_1,ldA),(_4,_4):(_2,ldA))").unwrap() else { panic!() };
/// let text: Vec<String> = l.shape_layout().stride().leaves().iter().map(|i| CInt(i).to_string()).collect();
/// assert!(text.iter().all(|t| !t.contains("signum")), "{text:?}");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct CInt<'a>(pub &'a Int);

impl fmt::Display for CInt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Int::Static(v) => literal(f, *v),
            Int::Dynamic(d) => dyn_c(f, d),
            // coordinate tensors' strides never reach an address; a basis has no C value
            Int::Basis(..) => f.write_str("0 /* basis */"),
        }
    }
}

fn literal(f: &mut fmt::Formatter<'_>, v: i64) -> fmt::Result {
    let big = i32::try_from(v).is_err();
    match (v < 0, big) {
        (false, false) => write!(f, "{v}"),
        (false, true) => write!(f, "{v}LL"),
        (true, false) => write!(f, "({v})"),
        (true, true) => write!(f, "({v}LL)"),
    }
}

fn dyn_c(f: &mut fmt::Formatter<'_>, d: &Dyn) -> fmt::Result {
    let Some(e) = d.expr() else {
        return literal(f, d.value().unwrap_or(0));
    };
    match e {
        SymExpr::Var(n) | SymExpr::Index(n) => f.write_str(n),
        SymExpr::Sum(terms, c0) => {
            f.write_str("(")?;
            for (i, (k, t)) in terms.iter().enumerate() {
                let sign = if *k < 0 { " - " } else { " + " };
                match (i, *k < 0) {
                    (0, false) => {}
                    (0, true) => f.write_str("-")?,
                    _ => f.write_str(sign)?,
                }
                match k.unsigned_abs() {
                    1 => dyn_c(f, t)?,
                    a => {
                        literal(f, a as i64)?;
                        f.write_str(" * ")?;
                        dyn_c(f, t)?;
                    }
                }
            }
            match c0.cmp(&0) {
                std::cmp::Ordering::Greater => write!(f, " + ")?,
                std::cmp::Ordering::Less => write!(f, " - ")?,
                std::cmp::Ordering::Equal => {}
            }
            if *c0 != 0 {
                literal(f, c0.abs())?;
            }
            f.write_str(")")
        }
        SymExpr::Prod(factors) => {
            f.write_str("(")?;
            for (i, t) in factors.iter().enumerate() {
                if i > 0 {
                    f.write_str(" * ")?;
                }
                dyn_c(f, t)?;
            }
            f.write_str(")")
        }
        SymExpr::Bin(op, a, b) => {
            let infix = |sym: &str, f: &mut fmt::Formatter<'_>| -> fmt::Result {
                f.write_str("(")?;
                dyn_c(f, a)?;
                write!(f, " {sym} ")?;
                dyn_c(f, b)?;
                f.write_str(")")
            };
            let call = |name: &str, f: &mut fmt::Formatter<'_>| -> fmt::Result {
                write!(f, "{name}(")?;
                dyn_c(f, a)?;
                f.write_str(", ")?;
                dyn_c(f, b)?;
                f.write_str(")")
            };
            match op {
                BinOp::Add => infix("+", f),
                BinOp::Sub => infix("-", f),
                BinOp::Mul => infix("*", f),
                BinOp::Div => infix("/", f),
                BinOp::Mod => infix("%", f),
                BinOp::Min => call("min", f),
                BinOp::Max => call("max", f),
                BinOp::Gcd => call("cute_gcd", f),
                BinOp::Lcm => call("cute_lcm", f),
            }
        }
        SymExpr::Abs(x) => {
            f.write_str("abs(")?;
            dyn_c(f, x)?;
            f.write_str(")")
        }
        SymExpr::Signum(x) => {
            f.write_str("((")?;
            dyn_c(f, x)?;
            f.write_str(" > 0) - (")?;
            dyn_c(f, x)?;
            f.write_str(" < 0))")
        }
    }
}

/// Whether printing `i` calls the kernel's `cute_gcd`/`cute_lcm` helpers.
pub fn needs_gcd(i: &Int) -> bool {
    let text = CInt(i).to_string();
    text.contains("cute_gcd") || text.contains("cute_lcm")
}

/// The C name an elementwise expression's names are bound to.
pub trait Names {
    /// The C expression of source `i` (`rA[3]`).
    fn arg(&self, i: usize) -> String;
}

/// An elementwise expression as C `float` arithmetic.
pub struct CExpr<'a, N: Names>(pub &'a EExpr, pub &'a N);

impl<'a, N: Names> fmt::Display for CExpr<'a, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.1;
        let sub = |e: &'a EExpr| CExpr(e, n);
        match self.0 {
            EExpr::Arg(i) => f.write_str(&self.1.arg(*i)),
            EExpr::Param(n) | EExpr::Var(n) => f.write_str(n),
            EExpr::Const(v) => float(f, *v),
            EExpr::Unary(op, x) => match op {
                UnaryOp::Neg => write!(f, "(-{})", sub(x)),
                UnaryOp::Relu => write!(f, "fmaxf({}, 0.0f)", sub(x)),
                UnaryOp::Exp => write!(f, "expf({})", sub(x)),
                UnaryOp::Sqrt => write!(f, "sqrtf({})", sub(x)),
                UnaryOp::Rsqrt => write!(f, "(1.0f / sqrtf({}))", sub(x)),
                UnaryOp::Abs => write!(f, "fabsf({})", sub(x)),
            },
            EExpr::Binary(op, a, b) => match op {
                ScalarOp::Add => write!(f, "({} + {})", sub(a), sub(b)),
                ScalarOp::Sub => write!(f, "({} - {})", sub(a), sub(b)),
                ScalarOp::Mul => write!(f, "({} * {})", sub(a), sub(b)),
                ScalarOp::Div => write!(f, "({} / {})", sub(a), sub(b)),
                ScalarOp::Max => write!(f, "fmaxf({}, {})", sub(a), sub(b)),
                ScalarOp::Min => write!(f, "fminf({}, {})", sub(a), sub(b)),
            },
            EExpr::Fma(a, b, c) => write!(f, "fmaf({}, {}, {})", sub(a), sub(b), sub(c)),
        }
    }
}

/// A `float` literal (`2.0f`, `-INFINITY` as its bit pattern: no headers define it).
fn float(f: &mut fmt::Formatter<'_>, v: f64) -> fmt::Result {
    let x = v as f32;
    if x.is_nan() {
        f.write_str("__int_as_float(0x7fc00000)")
    } else if x.is_infinite() {
        let bits = if x > 0.0 { "0x7f800000" } else { "0xff800000" };
        write!(f, "__int_as_float({bits})")
    } else {
        write!(f, "{x:?}f")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cute_layout::s;

    struct Regs;
    impl Names for Regs {
        fn arg(&self, i: usize) -> String {
            format!("r{i}")
        }
    }

    #[test]
    fn integers_print_fully_parenthesised() {
        let m = Int::symbol("M");
        let k = Int::symbol("K");
        let e = m.sub(&k.mul(&s(3)).unwrap()).unwrap().add(&s(-2)).unwrap();
        assert_eq!(CInt(&e).to_string(), "(M - 3 * K - 2)");
        assert_eq!(CInt(&s(-4)).to_string(), "(-4)");
        assert_eq!(CInt(&s(1 << 40)).to_string(), "1099511627776LL");
        let g = m.gcd(&k).unwrap();
        assert_eq!(CInt(&g).to_string(), "cute_gcd(M, K)");
        assert!(needs_gcd(&g));
        let sg = m.sub(&k).unwrap().signum().unwrap();
        assert_eq!(CInt(&sg).to_string(), "(((M - K) > 0) - ((M - K) < 0))");
    }

    #[test]
    fn expressions_print_as_float_c() {
        let e = (EExpr::param("alpha") * EExpr::arg(0) + EExpr::c(-1.5)).relu();
        assert_eq!(
            CExpr(&e, &Regs).to_string(),
            "fmaxf(((alpha * r0) + -1.5f), 0.0f)"
        );
        let inf = EExpr::c(f64::NEG_INFINITY);
        assert_eq!(CExpr(&inf, &Regs).to_string(), "__int_as_float(0xff800000)");
    }
}
