//! Evaluation of the syntax tree.

use super::ast::{ArithOp, Expr, TArg};
use super::functions::call;
use super::value::{expected, Value};
use crate::error::{Error, Result};
use crate::int::{d, s, Int};
use crate::layout::Layout;
use crate::stride::Major;
use crate::swizzle::Swizzle;

/// Variables bound by the caller (the proc-macros bind Rust variables): name -> integer.
pub type Env = [(String, Int)];

/// Evaluates an expression.
pub fn eval_expr(e: &Expr) -> Result<Value> {
    eval_in(e, &[])
}

/// Evaluates an expression where the names in `env` are bound to integers (other names are
/// keywords, atoms or kernel-parameter symbols).
pub fn eval_in(e: &Expr, env: &Env) -> Result<Value> {
    let eval_expr = |x: &Expr| eval_in(x, env);
    let eval_all = |xs: &[Expr]| {
        xs.iter()
            .map(|x| eval_in(x, env))
            .collect::<Result<Vec<_>>>()
    };
    match e {
        Expr::Static(v) => Ok(Value::Int(s(*v))),
        Expr::Dynamic(v) => Ok(Value::Int(d(*v))),
        Expr::Under => Ok(Value::Under),
        Expr::Name(n) => Ok(match env.iter().find(|(k, _)| k == n) {
            Some((_, v)) => Value::Int(v.clone()),
            None => name(n),
        }),
        Expr::Tuple(items) => tuple(eval_all(items)?),
        Expr::Layout(sh, st) => {
            let shape = eval_expr(sh)?.to_int_tuple("layout shape")?;
            let stride = eval_expr(st)?.to_int_tuple("layout stride")?;
            layout_value(shape, stride)
        }
        Expr::Call {
            name, targs, args, ..
        } if name == "Swizzle" || name == "Sw" => {
            apply(&template_value(name, targs)?, &eval_all(args)?)
        }
        Expr::Call {
            name, targs, args, ..
        } => call(name, targs, &eval_all(args)?),
        Expr::Type { name, targs } => template_value(name, targs),
        Expr::Apply { target, args } => {
            apply(&eval_expr(target)?, &eval_all(args)?).map_err(|e| e.in_op("crd2idx"))
        }
        Expr::Method {
            target, name, args, ..
        } => super::atom_functions::method(&eval_expr(target)?, name, &eval_all(args)?),
        Expr::Neg(x) => Ok(Value::Int(s(0).sub(&integer("-x", &eval_expr(x)?)?)?)),
        Expr::Arith(first, rest) => rest.iter().try_fold(eval_expr(first)?, |acc, (op, x)| {
            arith(*op, &acc, &eval_expr(x)?)
        }),
        Expr::Basis(v, m) => Ok(Value::Int(Int::Basis(
            Box::new(integer("a basis stride", &eval_expr(v)?)?),
            *m,
        ))),
        Expr::Compose(parts) => super::printed::compose(parts, env),
        Expr::Ptr {
            space,
            bits,
            name,
            offset,
        } => super::printed::pointer(space, *bits, name, offset.as_deref(), env),
        Expr::MixedBits { .. } => Err(Error::Eval(
            "a MixedBits value (M_S|(d&F)=v) is only the offset of a composed layout".into(),
        )),
    }
}

/// `make_layout(shape, stride)` as C++ CuTe makes it: a layout, or, when shape and stride are not
/// congruent, the pair as C++ keeps and prints it (`(_6,_4):(_1,_6,_24)`), on which only the
/// queries of its shape are defined.
pub(super) fn layout_value(shape: crate::IntTuple, stride: crate::IntTuple) -> Result<Value> {
    if shape.congruent(&stride) {
        Ok(Layout::congruent(shape, stride)?.into())
    } else {
        Ok(Value::Incongruent(shape, stride))
    }
}

/// The integer a value holds; `(x)` around an integer only groups here (`(M+127)/128`).
pub(super) fn integer(what: &str, v: &Value) -> Result<Int> {
    match v {
        Value::Int(i) => Ok(i.clone()),
        Value::Tuple(items) if items.len() == 1 => integer(what, &items[0]),
        other => Err(expected(what, "an integer", other)),
    }
}

/// `a op b` on integers, with C++ CuTe's static/dynamic rules (`_8 * _4` is `_32`, `_8 * 4` is
/// `32`).
fn arith(op: ArithOp, a: &Value, b: &Value) -> Result<Value> {
    let what = match op {
        ArithOp::Add => "+",
        ArithOp::Sub => "-",
        ArithOp::Mul => "*",
        ArithOp::Div => "/",
        ArithOp::Mod => "%",
    };
    let (x, y) = (integer(what, a)?, integer(what, b)?);
    Ok(Value::Int(match op {
        ArithOp::Add => x.add(&y),
        ArithOp::Sub => x.sub(&y),
        ArithOp::Mul => x.mul(&y),
        ArithOp::Div => x.div(&y),
        ArithOp::Mod => x.rem(&y),
    }?))
}

/// `(a,b,...)` is a tuple; `(x)` around a single layout, tensor, atom, ... only groups
/// (`((_4,_8):(_1,_4))(_,2)`), while `(_4)`, `((_2,_3))` and `(_)` stay the rank-1 tuples CuTe
/// prints.
fn tuple(mut values: Vec<Value>) -> Result<Value> {
    let grouping = !matches!(
        values.first(),
        Some(Value::Int(_) | Value::Tuple(_) | Value::Under)
    );
    if values.len() == 1 && grouping {
        return Ok(values.remove(0));
    }
    Ok(Value::Tuple(values))
}

/// A bare name: a keyword or a kernel-parameter symbol.
fn name(n: &str) -> Value {
    match n {
        "LayoutLeft" | "GenColMajor" => Value::Major(Major::Left),
        "LayoutRight" | "GenRowMajor" => Value::Major(Major::Right),
        "X" => Value::Under,
        _ => super::atom_functions::atom_name(n).unwrap_or_else(|| Value::Int(Int::symbol(n))),
    }
}

/// A template type used as a value: `Swizzle<B,M,S>`.
fn template_value(name: &str, targs: &[TArg]) -> Result<Value> {
    if let Some(v) = super::atom_functions::atom_type(name, targs) {
        return v;
    }
    match (name, targs) {
        ("Swizzle" | "Sw", [TArg::Int(b), TArg::Int(m), TArg::Int(s)]) => {
            Ok(Value::Swizzle(Swizzle::new(*b, *m, *s)?))
        }
        ("Swizzle" | "Sw", _) => Err(Error::Eval(
            "Swizzle<B,M,S>: expected three integers".into(),
        )),
        ("Step" | "Shape" | "Stride" | "Tile", _) => {
            let items = targs.iter().map(|t| match t {
                TArg::Int(v) => Ok(Value::Int(s(*v))),
                TArg::Type(n, inner) if n == "X" && inner.is_empty() => Ok(Value::Under),
                TArg::Type(n, _) => Err(Error::Eval(format!("{name}<...>: unexpected '{n}'"))),
            });
            Ok(Value::Tuple(items.collect::<Result<_>>()?))
        }
        _ => Err(Error::Eval(format!(
            "{name}<...>: not available yet (copy and MMA atoms come with TiledCopy / TiledMMA)"
        ))),
    }
}

/// `L(c)` or `L(c0, c1, ...)`: an offset, or a slice when the coordinate has `_`.
fn apply(target: &Value, args: &[Value]) -> Result<Value> {
    if let Value::Swizzle(sw) = target {
        let [x] = args else {
            return Err(Error::Eval(format!("{sw}(x): expected one offset")));
        };
        let Value::Int(x) = x else {
            return Err(expected("applying a swizzle", "an integer offset", x));
        };
        return Ok(Value::Int(sw.apply_int(x)?));
    }
    if let Value::Tensor(t) = target {
        let c = coordinate(args, &t.to_string())?;
        return if c.has_underscore() {
            Ok(Value::Tensor(t.slice(&c)?))
        } else {
            Ok(t.at(&c.zeroed())?.into())
        };
    }
    let Value::Layout(l) = target else {
        return Err(expected(
            "evaluating with (...)",
            "a layout or a tensor",
            target,
        ));
    };
    let c = coordinate(args, &l.to_string())?;
    if c.has_underscore() {
        Ok(Value::Layout(l.slice(&c)?))
    } else {
        Ok(Value::Int(l.crd2idx(&c.zeroed())?))
    }
}

/// The coordinate of `x(c)` or `x(c0, c1, ...)`.
fn coordinate(args: &[Value], what: &str) -> Result<crate::coord::Coord> {
    let coord = match args {
        [one] => one.clone(),
        [] => return Err(Error::Eval(format!("{what}(): a coordinate is required"))),
        many => Value::Tuple(many.to_vec()),
    };
    coord.to_coord("coordinate")
}
