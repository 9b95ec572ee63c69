//! Elementwise expressions: what an epilogue or a map computes from its sources, scalar
//! parameters and per-thread scalars, as a small tree (no C++ text). The CUDA writer prints it
//! fully parenthesised; the interpreter evaluates it in `f32` as the GPU does.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// An elementwise expression over `f32` values.
#[derive(Debug, Clone, PartialEq)]
pub enum EExpr {
    /// The element of the `i`-th source of a `Map` (or the current value of a `Reduce`).
    Arg(usize),
    /// A scalar parameter of the kernel (`alpha`).
    Param(String),
    /// A per-thread scalar (set by `Let` or `Reduce`).
    Var(String),
    /// A constant.
    Const(f64),
    /// `op(x)`.
    Unary(UnaryOp, Box<EExpr>),
    /// `op(a, b)`.
    Binary(ScalarOp, Box<EExpr>, Box<EExpr>),
    /// `fma(a, b, c)`: `a * b + c` rounded once.
    Fma(Box<EExpr>, Box<EExpr>, Box<EExpr>),
}

/// Binary operations (also the reduction operators).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarOp {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
}

/// Unary operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    /// `max(x, 0)`.
    Relu,
    Exp,
    Sqrt,
    /// `1 / sqrt(x)`.
    Rsqrt,
    Abs,
}

impl EExpr {
    /// The `i`-th source.
    pub fn arg(i: usize) -> EExpr {
        EExpr::Arg(i)
    }

    /// A scalar parameter.
    pub fn param(name: &str) -> EExpr {
        EExpr::Param(name.to_string())
    }

    /// A per-thread scalar.
    pub fn var(name: &str) -> EExpr {
        EExpr::Var(name.to_string())
    }

    /// A constant.
    pub fn c(v: f64) -> EExpr {
        EExpr::Const(v)
    }

    /// `max(self, 0)`.
    pub fn relu(self) -> EExpr {
        EExpr::Unary(UnaryOp::Relu, Box::new(self))
    }

    /// `exp(self)`.
    pub fn exp(self) -> EExpr {
        EExpr::Unary(UnaryOp::Exp, Box::new(self))
    }

    /// `sqrt(self)`.
    pub fn sqrt(self) -> EExpr {
        EExpr::Unary(UnaryOp::Sqrt, Box::new(self))
    }

    /// `1 / sqrt(self)`.
    pub fn rsqrt(self) -> EExpr {
        EExpr::Unary(UnaryOp::Rsqrt, Box::new(self))
    }

    /// `|self|`.
    pub fn abs(self) -> EExpr {
        EExpr::Unary(UnaryOp::Abs, Box::new(self))
    }

    /// `max(self, o)`.
    pub fn max(self, o: EExpr) -> EExpr {
        EExpr::Binary(ScalarOp::Max, Box::new(self), Box::new(o))
    }

    /// `min(self, o)`.
    pub fn min(self, o: EExpr) -> EExpr {
        EExpr::Binary(ScalarOp::Min, Box::new(self), Box::new(o))
    }

    /// `clamp(self, lo, hi)`.
    pub fn clamp(self, lo: f64, hi: f64) -> EExpr {
        self.max(EExpr::c(lo)).min(EExpr::c(hi))
    }

    /// `self * b + c`, rounded once.
    pub fn fma(self, b: EExpr, c: EExpr) -> EExpr {
        EExpr::Fma(Box::new(self), Box::new(b), Box::new(c))
    }

    /// Every node, depth first (for the checks).
    pub fn walk(&self, f: &mut impl FnMut(&EExpr)) {
        f(self);
        match self {
            EExpr::Unary(_, x) => x.walk(f),
            EExpr::Binary(_, a, b) => {
                a.walk(f);
                b.walk(f);
            }
            EExpr::Fma(a, b, c) => {
                a.walk(f);
                b.walk(f);
                c.walk(f);
            }
            _ => {}
        }
    }

    /// The value, computed in `f32` as the GPU computes it (each operation rounded).
    pub fn eval(&self, args: &[f32], scalar: &dyn Fn(&EExpr) -> Option<f32>) -> Option<f32> {
        Some(match self {
            EExpr::Arg(i) => *args.get(*i)?,
            EExpr::Param(_) | EExpr::Var(_) => scalar(self)?,
            EExpr::Const(v) => *v as f32,
            EExpr::Unary(op, x) => {
                let x = x.eval(args, scalar)?;
                match op {
                    UnaryOp::Neg => -x,
                    UnaryOp::Relu => x.max(0.0),
                    UnaryOp::Exp => x.exp(),
                    UnaryOp::Sqrt => x.sqrt(),
                    UnaryOp::Rsqrt => 1.0 / x.sqrt(),
                    UnaryOp::Abs => x.abs(),
                }
            }
            EExpr::Binary(op, a, b) => op.apply(a.eval(args, scalar)?, b.eval(args, scalar)?),
            EExpr::Fma(a, b, c) => a
                .eval(args, scalar)?
                .mul_add(b.eval(args, scalar)?, c.eval(args, scalar)?),
        })
    }
}

impl ScalarOp {
    /// `op(a, b)` in `f32`.
    pub fn apply(self, a: f32, b: f32) -> f32 {
        match self {
            ScalarOp::Add => a + b,
            ScalarOp::Sub => a - b,
            ScalarOp::Mul => a * b,
            ScalarOp::Div => a / b,
            ScalarOp::Max => a.max(b),
            ScalarOp::Min => a.min(b),
        }
    }

    /// The identity of a reduction (`-inf` for max).
    pub fn identity(self) -> f32 {
        match self {
            ScalarOp::Add | ScalarOp::Sub => 0.0,
            ScalarOp::Mul | ScalarOp::Div => 1.0,
            ScalarOp::Max => f32::NEG_INFINITY,
            ScalarOp::Min => f32::INFINITY,
        }
    }
}

macro_rules! binary {
    ($tr:ident, $f:ident, $op:ident) => {
        impl $tr for EExpr {
            type Output = EExpr;
            fn $f(self, o: EExpr) -> EExpr {
                EExpr::Binary(ScalarOp::$op, Box::new(self), Box::new(o))
            }
        }
    };
}
binary!(Add, add, Add);
binary!(Sub, sub, Sub);
binary!(Mul, mul, Mul);
binary!(Div, div, Div);

impl Neg for EExpr {
    type Output = EExpr;
    fn neg(self) -> EExpr {
        EExpr::Unary(UnaryOp::Neg, Box::new(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_evaluate_in_f32() {
        // alpha * acc + beta * c, then ReLU
        let e =
            (EExpr::param("alpha") * EExpr::arg(0) + EExpr::param("beta") * EExpr::arg(1)).relu();
        let scalar = |x: &EExpr| match x {
            EExpr::Param(n) if n == "alpha" => Some(2.0),
            EExpr::Param(n) if n == "beta" => Some(-1.0),
            _ => None,
        };
        assert_eq!(e.eval(&[3.0, 1.0], &scalar), Some(5.0));
        assert_eq!(e.eval(&[-3.0, 1.0], &scalar), Some(0.0));
        assert_eq!(
            e.eval(&[3.0], &scalar),
            None,
            "a missing source has no value"
        );
        assert_eq!(
            EExpr::arg(0).clamp(-1.0, 1.0).eval(&[7.0], &scalar),
            Some(1.0)
        );
    }
}
