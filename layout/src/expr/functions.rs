//! The function table of the expression language: CuTe's names and argument orders.

use super::ast::TArg;
use super::value::{expected, Value};
use crate::error::{Error, Result};
use crate::int::s;
use crate::layout::Layout;
use crate::stride::{idx2crd, Major};
use crate::tile_to_shape::ModeOrder;
use crate::tiler::Tiler;
use crate::*;

/// The functions written with integer template arguments (`get<1,0>`, `upcast<2>`).
const TAKES_TEMPLATE_ARGS: &[&str] = &[
    "size",
    "cosize",
    "rank",
    "depth",
    "shape",
    "stride",
    "get",
    "layout",
    "select",
    "take",
    "upcast",
    "downcast",
    "tile_size",
    "append",
    "prepend",
];

/// Calls the function `name<targs>(args)`; arithmetic errors inside are reported under its name.
pub fn call(name: &str, targs: &[TArg], args: &[Value]) -> Result<Value> {
    dispatch(name, targs, args).map_err(|e| match static_name(name) {
        Some(n) => e.in_op(n),
        None => e,
    })
}

/// The table's own spelling of a known function name (error messages hold `&'static str`).
fn static_name(name: &str) -> Option<&'static str> {
    FUNCTIONS.iter().find(|k| **k == name).copied()
}

/// Every function of the expression language.
#[rustfmt::skip]
pub const FUNCTIONS: &[&str] = &[
    "size", "cosize", "rank", "depth", "shape", "stride", "get", "layout",
    "select", "take", "flatten", "make_layout", "make_shape", "make_stride", "make_coord", "make_tile",
    "make_tuple", "make_step", "make_ordered_layout", "make_layout_like", "make_fragment_like", "coalesce", "filter", "filter_zeros",
    "composition", "complement", "right_inverse", "left_inverse", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
    "logical_product", "zipped_product", "tiled_product", "flat_product", "blocked_product", "raked_product", "tile_to_shape", "max_common_vector",
    "max_common_layout", "upcast", "downcast", "recast_layout", "crd2idx", "idx2crd", "ceil_div", "product", "product_each", "make_gmem_ptr", "make_smem_ptr",
    "make_rmem_ptr", "make_tensor", "make_identity_tensor", "local_tile", "local_partition",
    "inner_partition", "outer_partition", "recast", "make_tiled_copy", "make_tiled_copy_A",
    "make_tiled_copy_B", "make_tiled_copy_C", "make_tiled_mma", "partition_shape_A", "partition_shape_B",
    "partition_shape_C", "tile_size", "tile_shape", "make_gmma_desc", "make_tma_copy", "append", "prepend", "min", "max", "gcd", "lcm", "abs", "signum",
];

fn dispatch(name: &str, targs: &[TArg], args: &[Value]) -> Result<Value> {
    if let Some(out) = super::tensor_functions::call_tensor(name, targs, args) {
        return out;
    }
    if let Some(out) = super::atom_functions::call_atom(name, targs, args) {
        return out;
    }
    if let Some(out) = on_tensor(name, targs, args) {
        return out;
    }
    if name == "recast_layout" {
        return recast_layout_call(targs, args);
    }
    let ix = indices(name, targs)?;
    if !ix.is_empty() && !TAKES_TEMPLATE_ARGS.contains(&name) {
        return Err(Error::Eval(format!("{name} takes no template arguments")));
    }
    match name {
        "size" | "cosize" | "rank" | "depth" | "shape" | "stride" => query(name, &ix, args),
        "get" | "layout" => one(name, args).and_then(|x| get(name, x, &ix)),
        "select" => select(one(name, args)?, &ix),
        "take" => take(one(name, args)?, &ix),
        "flatten" => flatten(one(name, args)?),
        "make_layout" => make_layout(args),
        "append" | "prepend" => append_prepend(name, &ix, args),
        "make_shape" | "make_stride" | "make_coord" | "make_tile" | "make_tuple" | "make_step" => {
            Ok(Value::Tuple(args.to_vec()))
        }
        "make_ordered_layout" => {
            let [sh, ord] = two(name, args)?;
            Ok(Layout::ordered(&sh.to_int_tuple(name)?, &ord.to_int_tuple(name)?)?.into())
        }
        "make_layout_like" => Ok(layout1(name, args)?.layout_like()?.into()),
        "make_fragment_like" => make_fragment_like(one(name, args)?),
        "coalesce" | "filter" => by_profile(name, args),
        "filter_zeros" => Ok(filter_zeros(&layout1(name, args)?)?.into()),
        "composition" => composition_call(args),
        "complement" => complement_call(args),
        "right_inverse" | "left_inverse" => inverse_call(name, one(name, args)?),
        "logical_divide" | "zipped_divide" | "tiled_divide" | "flat_divide" | "logical_product"
        | "zipped_product" | "tiled_product" | "flat_product" => tiler_op(name, args),
        "blocked_product" | "raked_product" => rank_product(name, args),
        "tile_to_shape" => tile_to_shape_call(args),
        "max_common_vector" | "max_common_layout" => max_common(name, args),
        "upcast" | "downcast" => cast(name, &ix, args),
        "crd2idx" => crd2idx_call(args),
        "idx2crd" => idx2crd_call(args),
        "min" | "max" | "gcd" | "lcm" => {
            let [a, b] = two(name, args)?;
            let (a, b) = (
                super::eval::integer(name, a)?,
                super::eval::integer(name, b)?,
            );
            Ok(match name {
                "min" => a.min(&b),
                "max" => a.max(&b),
                "gcd" => a.gcd(&b),
                _ => a.lcm(&b),
            }?
            .into())
        }
        "abs" => Ok(super::eval::integer(name, one(name, args)?)?.abs()?.into()),
        "signum" => Ok(super::eval::integer(name, one(name, args)?)?
            .signum()?
            .into()),
        "ceil_div" => {
            let [a, b] = two(name, args)?;
            Ok(int_tuple::ceil_div(&a.to_int_tuple(name)?, &b.to_int_tuple(name)?)?.into())
        }
        "product" => Ok(one(name, args)?.to_int_tuple(name)?.product()?.into()),
        "product_each" => Ok(one(name, args)?.to_int_tuple(name)?.product_each()?.into()),
        _ => Err(Error::Eval(format!("unknown function '{name}'"))),
    }
}

/// A layout function applied to a tensor: queries see its layout, layout operations keep its
/// engine (`zipped_divide(T, tiler)`, `composition(T, tiler)`, `coalesce(T)`).
fn on_tensor(name: &str, targs: &[TArg], args: &[Value]) -> Option<Result<Value>> {
    let Some((Value::Tensor(t), rest)) = args.split_first() else {
        return None;
    };
    let mut with_layout = vec![Value::Layout(t.layout().clone())];
    with_layout.extend(rest.iter().cloned());
    if name == "layout" && targs.is_empty() {
        return Some(Ok(with_layout.remove(0)));
    }
    let out = match dispatch(name, targs, &with_layout) {
        Ok(v) => v,
        Err(e) => return Some(Err(e)),
    };
    Some(Ok(match out {
        Value::Layout(l) if !QUERIES.contains(&name) => Value::Tensor(t.with_layout(l)),
        other => other,
    }))
}

/// Functions whose result describes a layout rather than replacing it.
const QUERIES: &[&str] = &[
    "size", "cosize", "rank", "depth", "shape", "stride", "get", "layout",
];

/// Integer template arguments (`get<1,0>`, `upcast<2>`); others are refused for functions.
fn indices(name: &str, targs: &[TArg]) -> Result<Vec<i64>> {
    targs
        .iter()
        .map(|t| match t {
            TArg::Int(v) => Ok(*v),
            TArg::Type(n, _) => Err(Error::Eval(format!(
                "{name}<...>: expected integer template arguments, got '{n}'"
            ))),
        })
        .collect()
}

fn arity(name: &str, args: &[Value], n: &str) -> Error {
    Error::Eval(format!(
        "{name}: expected {n} argument(s), got {}",
        args.len()
    ))
}

fn one<'a>(name: &str, args: &'a [Value]) -> Result<&'a Value> {
    match args {
        [x] => Ok(x),
        _ => Err(arity(name, args, "1")),
    }
}

fn two<'a>(name: &str, args: &'a [Value]) -> Result<[&'a Value; 2]> {
    match args {
        [a, b] => Ok([a, b]),
        _ => Err(arity(name, args, "2")),
    }
}

fn layout1(name: &str, args: &[Value]) -> Result<Layout> {
    one(name, args)?.to_layout(name)
}

fn usize_index(name: &str, i: i64) -> Result<usize> {
    usize::try_from(i).map_err(|_| Error::Eval(format!("{name}: negative mode index {i}")))
}

fn path(name: &str, ix: &[i64]) -> Result<Vec<usize>> {
    ix.iter().map(|&i| usize_index(name, i)).collect()
}

/// `get<I...>` on a layout or a tuple.
fn get(name: &str, x: &Value, ix: &[i64]) -> Result<Value> {
    let p = path(name, ix)?;
    match x {
        Value::Layout(l) => Ok(l.map(|b| b.get(&p))?.into()),
        Value::Tuple(_) | Value::Int(_) => p.iter().try_fold(x.clone(), |v, &i| match v {
            Value::Tuple(items) => items.get(i).cloned().ok_or_else(|| {
                Error::Eval(format!(
                    "{name}<{i}>: mode {i} out of range for {}",
                    Value::Tuple(items.clone())
                ))
            }),
            other if i == 0 => Ok(other),
            other => Err(Error::Eval(format!(
                "{name}<{i}>: mode {i} out of range for {other}"
            ))),
        }),
        other => Err(expected(name, "a layout or a tuple", other)),
    }
}

/// `size<I...>`, `cosize`, `rank`, `depth`, `shape`, `stride`, on a layout (or a tuple for
/// `size`, `rank`, `depth`).
fn query(name: &str, ix: &[i64], args: &[Value]) -> Result<Value> {
    if let (Value::Incongruent(sh, st), []) = (one(name, args)?, ix) {
        return match name {
            "size" => Ok(sh.product()?.into()),
            "rank" => Ok(s(sh.rank() as i64).into()),
            "depth" => Ok(s(sh.depth() as i64).into()),
            "shape" => Ok(sh.clone().into()),
            "stride" => Ok(st.clone().into()),
            _ => Err(Error::Eval(format!(
                "{name}: shape {sh} and stride {st} are not congruent (rank mismatch)"
            ))),
        };
    }
    let x = get(name, one(name, args)?, ix)?;
    if let Value::Layout(any) = &x {
        if name == "stride" && matches!(any, AnyLayout::Composed(_)) {
            return Err(Error::Eval(
                "stride: a composed layout has no stride (deleted in CuTe)".into(),
            ));
        }
        let l = any.shape_layout();
        return Ok(match name {
            "size" => l.size()?.into(),
            "cosize" => l.cosize()?.into(),
            "rank" => s(l.rank() as i64).into(),
            "depth" => s(l.depth() as i64).into(),
            "shape" => l.shape().clone().into(),
            _ => l.stride().clone().into(),
        });
    }
    let t = x.to_int_tuple(name)?;
    match name {
        "size" => Ok(t.product()?.into()),
        "rank" => Ok(s(t.rank() as i64).into()),
        "depth" => Ok(s(t.depth() as i64).into()),
        "shape" => Ok(t.into()),
        _ => Err(expected(name, "a layout", &x)),
    }
}

fn select(x: &Value, ix: &[i64]) -> Result<Value> {
    let p = path("select", ix)?;
    match x {
        Value::Layout(AnyLayout::Plain(l)) => Ok(l.select(&p)?.into()),
        // C++ CuTe's select of a composed layout is the tuple of its modes, each still swizzled.
        other => {
            let items = p
                .iter()
                .map(|&i| get("select", other, &[i as i64]))
                .collect::<Result<_>>()?;
            Ok(Value::Tuple(items))
        }
    }
}

fn take(x: &Value, ix: &[i64]) -> Result<Value> {
    let [b, e] = ix else {
        return Err(Error::Eval(
            "take<B,E>: expected two template arguments".into(),
        ));
    };
    let (b, e) = (usize_index("take", *b)?, usize_index("take", *e)?);
    Ok(x.to_any_layout("take")?.map(|l| l.take(b, e))?.into())
}

fn flatten(x: &Value) -> Result<Value> {
    match x {
        Value::Layout(l) => Ok(l.map(|b| Ok(b.flatten()))?.into()),
        other => Ok(other.to_int_tuple("flatten")?.flatten().into()),
    }
}

/// `make_layout(shape)`, `make_layout(shape, LayoutLeft|LayoutRight|stride)`, `make_layout(L0, L1, ...)`.
fn make_layout(args: &[Value]) -> Result<Value> {
    const NAME: &str = "make_layout";
    if !args.is_empty()
        && args
            .iter()
            .all(|a| matches!(a, Value::Layout(AnyLayout::Plain(_))))
    {
        let modes = args
            .iter()
            .map(|a| a.to_layout(NAME))
            .collect::<Result<_>>()?;
        return Ok(Layout::from_modes(modes).into());
    }
    match args {
        [Value::Swizzle(sw)] => Ok(crate::make_layout_of_swizzle(*sw).into()),
        [sh] => Ok(Layout::col_major(&sh.to_int_tuple(NAME)?)?.into()),
        [sh, Value::Major(m)] => Ok(Layout::compact(&sh.to_int_tuple(NAME)?, *m)?.into()),
        [sh, st] => super::eval::layout_value(sh.to_int_tuple(NAME)?, st.to_int_tuple(NAME)?),
        _ => Err(arity(NAME, args, "1 or 2")),
    }
}

/// `append(a, x)` / `prepend(a, x)` (and `<N>`: padded to rank N with x): of layouts, mode by mode
/// of shape and stride (x defaults to `_1:_0`); of tuples and integers, as tuples.
fn append_prepend(name: &str, ix: &[i64], args: &[Value]) -> Result<Value> {
    let front = name == "prepend";
    let n = match ix {
        [] => None,
        [n] => Some(usize_index(name, *n)?),
        _ => {
            return Err(Error::Eval(format!(
                "{name}<N>: expected one template argument"
            )))
        }
    };
    let join = |a: &IntTuple, x: &IntTuple| -> Result<IntTuple> {
        let mut items = match a {
            IntTuple::Tuple(v) => v.clone(),
            one => vec![one.clone()],
        };
        let copies = match n {
            None => 1,
            Some(n) if n >= items.len() => n - items.len(),
            Some(n) => {
                return Err(Error::Eval(format!(
                    "{name}<{n}>: {a} already has rank {} (N > rank required)",
                    items.len()
                )))
            }
        };
        if n == Some(1) && !a.is_tuple() {
            return Ok(a.clone());
        }
        for _ in 0..copies {
            if front {
                items.insert(0, x.clone());
            } else {
                items.push(x.clone());
            }
        }
        Ok(IntTuple::Tuple(items))
    };
    match args {
        [Value::Layout(AnyLayout::Plain(l))] | [Value::Layout(AnyLayout::Plain(l)), _] => {
            let x = match args.get(1) {
                Some(v) => v.to_layout(name)?,
                None => Layout::trivial(),
            };
            Ok(
                Layout::congruent(join(l.shape(), x.shape())?, join(l.stride(), x.stride())?)?
                    .into(),
            )
        }
        [a, x] => Ok(join(&a.to_int_tuple(name)?, &x.to_int_tuple(name)?)?.into()),
        _ => Err(arity(name, args, "1 or 2")),
    }
}

fn make_fragment_like(x: &Value) -> Result<Value> {
    match x {
        Value::Layout(l) => Ok(crate::make_fragment_like(l)?.into()),
        other => Ok(Layout::col_major(&other.to_int_tuple("make_fragment_like")?)?.into()),
    }
}

/// `coalesce(L[, profile])`, `filter(L[, profile])`.
fn by_profile(name: &str, args: &[Value]) -> Result<Value> {
    let (l, profile) = match args {
        [Value::Layout(AnyLayout::Composed(c))] if name == "filter" => {
            return Err(Error::Eval(format!(
                "filter: a composed layout {c} takes filter(L, profile) only (C++ CuTe has no one-argument form)"
            )))
        }
        [l] => (l.to_any_layout(name)?, None),
        [l, p] => (l.to_any_layout(name)?, Some(p.to_int_tuple(name)?)),
        _ => return Err(arity(name, args, "1 or 2")),
    };
    let out = l.map(|l| match (name, &profile) {
        ("coalesce", None) => coalesce(l),
        ("coalesce", Some(p)) => coalesce_profile(l, p),
        (_, None) => filter(l),
        (_, Some(p)) => filter_profile(l, p),
    })?;
    Ok(out.into())
}

/// `composition(Swizzle, L)`, `composition(L, tiler)`, `composition(A o O o B, tiler)`.
fn composition_call(args: &[Value]) -> Result<Value> {
    const NAME: &str = "composition";
    if let [a, o, b] = args {
        let offset = super::eval::integer("the offset of composition(A, O, B)", o)?;
        return Ok(crate::compose3(a.to_part(NAME)?, offset, b.to_part(NAME)?).into());
    }
    let [a, b] = two(NAME, args)?;
    match (a, b) {
        (Value::Swizzle(sw), Value::Layout(AnyLayout::Plain(l))) => {
            Ok(compose_swizzle(*sw, l).into())
        }
        (Value::Swizzle(x), Value::Swizzle(y)) => {
            Ok(Value::Swizzle(crate::composition_swizzles(*x, *y)?))
        }
        (Value::Swizzle(_), other) => Err(expected(
            NAME,
            "a plain layout or a swizzle after a swizzle",
            other,
        )),
        (Value::Layout(AnyLayout::Plain(l)), Value::Swizzle(sw)) => {
            Ok(crate::composition_swizzle(l, *sw)?.into())
        }
        (Value::Layout(AnyLayout::Plain(l)), Value::Layout(AnyLayout::Composed(c))) => {
            Ok(crate::composition_composed(l, c)?.into())
        }
        (
            Value::Layout(AnyLayout::Composed(c)),
            Value::Swizzle(_) | Value::Layout(AnyLayout::Composed(_)),
        ) => Ok(crate::composition_of_composed(c, &b.to_part(NAME)?)?.into()),
        _ => {
            let t = b.to_tiler(NAME)?;
            Ok(a.to_any_layout(NAME)?
                .map(|l| composition_tiler(l, &t))?
                .into())
        }
    }
}

/// `right_inverse(x)` / `left_inverse(x)` of a layout, a swizzled layout or a swizzle.
fn inverse_call(name: &str, x: &Value) -> Result<Value> {
    let right = name == "right_inverse";
    match x {
        Value::Swizzle(sw) => Ok(Value::Swizzle(*sw)),
        Value::Layout(l) if right => Ok(right_inverse(l)?.into()),
        Value::Layout(l) => Ok(left_inverse(l)?.into()),
        Value::Composition(c) if right => Ok(right_inverse(c.as_ref())?.into()),
        Value::Composition(c) => Ok(left_inverse(c.as_ref())?.into()),
        other => Ok(if right {
            right_inverse(&other.to_layout(name)?)?
        } else {
            left_inverse(&other.to_layout(name)?)?
        }
        .into()),
    }
}

/// `recast_layout<Old, New>(L)` of a layout, a swizzled layout or a swizzle.
fn recast_layout_call(targs: &[TArg], args: &[Value]) -> Result<Value> {
    const NAME: &str = "recast_layout";
    let ty = |t: &TArg| match t {
        TArg::Type(n, inner) if inner.is_empty() => crate::ElemType::from_name(n)
            .ok_or_else(|| Error::Eval(format!("{NAME}: unknown element type {n}"))),
        _ => Err(Error::Eval(format!(
            "{NAME}<Old,New>: expected two element types such as half_t and float"
        ))),
    };
    let [old, new] = targs else {
        return Err(Error::Eval(format!(
            "{NAME}<Old,New>: expected two element types such as half_t and float"
        )));
    };
    let (old, new) = (ty(old)?, ty(new)?);
    match one(NAME, args)? {
        Value::Swizzle(sw) => Ok(Value::Swizzle(crate::recast_swizzle(old, new, *sw)?)),
        Value::Layout(l) => Ok(crate::recast_layout(old, new, l)?.into()),
        other => Ok(crate::recast_layout(old, new, &other.to_layout(NAME)?.into())?.into()),
    }
}

/// `complement(L[, cotarget])`; of a composed layout, the complement of B.
fn complement_call(args: &[Value]) -> Result<Value> {
    const NAME: &str = "complement";
    let inner = |v: &Value| v.to_any_layout(NAME).map(|l| l.shape_layout().clone());
    match args {
        [l] => Ok(complement_default(&inner(l)?)?.into()),
        [l, c] => Ok(complement(&inner(l)?, &c.to_int_tuple(NAME)?)?.into()),
        _ => Err(arity(NAME, args, "1 or 2")),
    }
}

/// The divides and products that take a layout and a tiler.
fn tiler_op(name: &str, args: &[Value]) -> Result<Value> {
    let [a, t] = two(name, args)?;
    if let (Value::Layout(AnyLayout::Plain(l)), Value::Layout(AnyLayout::Composed(c))) = (a, t) {
        if name == "logical_product" {
            return Ok(crate::logical_product_swizzled(l, c)?.into());
        }
    }
    let (a, t) = (a.to_any_layout(name)?, t.to_tiler(name)?);
    let f: fn(&Layout, &Tiler) -> Result<Layout> = match name {
        "logical_divide" => logical_divide,
        "zipped_divide" => zipped_divide,
        "tiled_divide" => tiled_divide,
        "flat_divide" => flat_divide,
        "logical_product" => logical_product,
        "zipped_product" => zipped_product,
        "tiled_product" => tiled_product,
        _ => flat_product,
    };
    Ok(a.map(|l| f(l, &t))?.into())
}

fn rank_product(name: &str, args: &[Value]) -> Result<Value> {
    let [a, b] = two(name, args)?;
    let (a, b) = (a.to_any_layout(name)?, b.to_layout(name)?);
    let f = if name == "blocked_product" {
        blocked_product
    } else {
        raked_product
    };
    Ok(a.map(|l| f(l, &b))?.into())
}

fn tile_to_shape_call(args: &[Value]) -> Result<Value> {
    const NAME: &str = "tile_to_shape";
    let (block, shape, order) = match args {
        [b, sh] => (b, sh, ModeOrder::Major(Major::Left)),
        [b, sh, Value::Major(m)] => (b, sh, ModeOrder::Major(*m)),
        [b, sh, o] => (b, sh, ModeOrder::Order(o.to_int_tuple(NAME)?)),
        _ => return Err(arity(NAME, args, "2 or 3")),
    };
    let shape = shape.to_int_tuple(NAME)?;
    Ok(block
        .to_any_layout(NAME)?
        .map(|l| crate::tile_to_shape(l, &shape, &order))?
        .into())
}

fn max_common(name: &str, args: &[Value]) -> Result<Value> {
    let [a, b] = two(name, args)?;
    let (a, b) = (a.to_any_layout(name)?, b.to_any_layout(name)?);
    if name == "max_common_vector" {
        Ok(crate::max_common_vector_any(&a, &b)?.into())
    } else {
        Ok(crate::max_common_layout_any(&a, &b)?.into())
    }
}

fn cast(name: &str, ix: &[i64], args: &[Value]) -> Result<Value> {
    let [n] = ix else {
        return Err(Error::Eval(format!(
            "{name}<N>: expected one template argument"
        )));
    };
    let up = name == "upcast";
    match one(name, args)? {
        Value::Swizzle(sw) => Ok(Value::Swizzle(if up {
            sw.upcast(*n)?
        } else {
            sw.downcast(*n)?
        })),
        Value::Layout(AnyLayout::Composed(c)) => {
            Ok(if up { c.upcast(*n)? } else { c.downcast(*n)? }.into())
        }
        Value::Int(i) => cast_int(name, up, i, *n),
        other => {
            let l = other.to_layout(name)?;
            Ok(if up {
                upcast(&l, *n)?
            } else {
                downcast(&l, *n)?
            }
            .into())
        }
    }
}

/// `upcast<N>(x)` / `downcast<N>(x)` of an integer: `x / N` (a static x must divide: C++'s
/// `safe_div`) or `x * N`.
fn cast_int(name: &str, up: bool, x: &Int, n: i64) -> Result<Value> {
    if n <= 0 {
        return Err(Error::Eval(format!("{name}<{n}>: N must be positive")));
    }
    if !up {
        return Ok(x.mul(&s(n))?.into());
    }
    if let Some(v) = x.as_static() {
        if v % n != 0 {
            return Err(Error::Eval(format!(
                "{name}<{n}>({x}): Static safe_div requires t % u == 0"
            )));
        }
    }
    Ok(x.div(&s(n))?.into())
}

/// `idx2crd(i, shape)` (colexicographic) or `idx2crd(i, shape, stride)`.
fn idx2crd_call(args: &[Value]) -> Result<Value> {
    const NAME: &str = "idx2crd";
    match args {
        [i, sh] => Ok(idx2crd(&i.to_int_tuple(NAME)?, &sh.to_int_tuple(NAME)?)?.into()),
        [i, sh, st] => Ok(crate::stride::idx2crd_strided(
            &i.to_int_tuple(NAME)?,
            &sh.to_int_tuple(NAME)?,
            &st.to_int_tuple(NAME)?,
        )?
        .into()),
        _ => Err(arity(NAME, args, "2 or 3")),
    }
}

/// `crd2idx(coord, L)`, `crd2idx(coord, shape)` (colexicographic) or `crd2idx(coord, shape, stride)`.
fn crd2idx_call(args: &[Value]) -> Result<Value> {
    const NAME: &str = "crd2idx";
    match args {
        [c, Value::Layout(l)] => Ok(l.crd2idx(&c.to_int_tuple(NAME)?)?.into()),
        [c, sh] => Ok(crate::stride::crd2idx_colex(
            &c.to_int_tuple(NAME)?,
            &sh.to_int_tuple(NAME)?,
        )?
        .into()),
        [c, sh, st] => Ok(Value::from(crate::stride::crd2idx(
            &c.to_int_tuple(NAME)?,
            &sh.to_int_tuple(NAME)?,
            &st.to_int_tuple(NAME)?,
        )?)),
        _ => Err(arity(NAME, args, "2 or 3")),
    }
}
