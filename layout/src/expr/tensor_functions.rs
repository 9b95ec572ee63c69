//! The tensor functions of the expression language: pointers, `make_tensor`,
//! `make_identity_tensor`, `local_tile`, `local_partition`, `inner_partition`, `outer_partition`,
//! `recast`.

use super::ast::TArg;
use super::value::{expected, Value};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::numeric::ElemType;
use crate::tensor::{make_identity_tensor, MemSpace, Ptr, Tensor};
use crate::{AnyLayout, Int};

/// The tensor functions; `None` when `name` is not one of them.
pub fn call_tensor(name: &str, targs: &[TArg], args: &[Value]) -> Option<Result<Value>> {
    Some(match name {
        "make_gmem_ptr" => make_ptr(MemSpace::Gmem, name, targs, args),
        "make_smem_ptr" => make_ptr(MemSpace::Smem, name, targs, args),
        "make_rmem_ptr" => make_ptr(MemSpace::Rmem, name, targs, args),
        "make_tensor" => make_tensor(args),
        "make_identity_tensor" => match args {
            [sh] => sh
                .to_int_tuple(name)
                .and_then(|sh| make_identity_tensor(&sh))
                .map(Value::Tensor),
            _ => Err(Error::Eval(format!(
                "{name}: expected 1 argument, got {}",
                args.len()
            ))),
        },
        "local_tile" | "inner_partition" | "outer_partition" => partition(name, args),
        "local_partition" => local_partition(args),
        "recast" => recast(targs, args),
        _ => return None,
    })
}

/// The element type of `f<T>(...)`.
fn elem_type(name: &str, targs: &[TArg]) -> Result<ElemType> {
    match targs {
        [TArg::Type(t, inner)] if inner.is_empty() => ElemType::from_name(t)
            .ok_or_else(|| Error::Eval(format!("{name}<{t}>: unknown element type '{t}'"))),
        _ => Err(Error::Eval(format!(
            "{name}<T>: expected one element type, e.g. {name}<float>"
        ))),
    }
}

/// `make_gmem_ptr<T>(A)`: a pointer named by a kernel parameter.
fn make_ptr(space: MemSpace, name: &str, targs: &[TArg], args: &[Value]) -> Result<Value> {
    let t = elem_type(name, targs)?;
    let base = match args {
        [Value::Int(Int::Dynamic(d))] => match d.as_symbol() {
            Some(n) => n.to_string(),
            None => {
                return Err(Error::Eval(format!(
                    "{name}: expected a pointer name such as A"
                )))
            }
        },
        _ => {
            return Err(Error::Eval(format!(
                "{name}: expected one pointer name such as A"
            )))
        }
    };
    Ok(Value::Ptr(Ptr::new(space, t, base)))
}

/// `make_tensor(ptr, layout)`, `make_tensor(ptr, shape)`, `make_tensor(ptr, shape, stride)`.
fn make_tensor(args: &[Value]) -> Result<Value> {
    const NAME: &str = "make_tensor";
    let (ptr, rest) = match args.split_first() {
        Some((Value::Ptr(p), rest)) => (p.clone(), rest),
        Some((other, _)) => return Err(expected(NAME, "a pointer (make_gmem_ptr<T>(A))", other)),
        None => {
            return Err(Error::Eval(format!(
                "{NAME}: expected a pointer and a layout"
            )))
        }
    };
    let layout: AnyLayout = match rest {
        [Value::Layout(l)] => l.clone(),
        [sh] => Layout::col_major(&sh.to_int_tuple(NAME)?)?.into(),
        [sh, st] => Layout::new(sh.to_int_tuple(NAME)?, st.to_int_tuple(NAME)?)?.into(),
        _ => {
            return Err(Error::Eval(format!(
                "{NAME}: expected a pointer and a layout"
            )))
        }
    };
    Ok(Value::Tensor(crate::tensor::make_tensor(ptr, layout)))
}

fn tensor_arg<'a>(name: &str, v: &'a Value) -> Result<&'a Tensor> {
    match v {
        Value::Tensor(t) => Ok(t),
        other => Err(expected(name, "a tensor", other)),
    }
}

/// `local_tile(T, tiler, coord[, proj])`, `inner_partition(T, tiler, coord)`,
/// `outer_partition(T, tiler, coord)`.
fn partition(name: &str, args: &[Value]) -> Result<Value> {
    let (t, tiler, coord, proj) = match args {
        [t, tiler, coord] => (t, tiler, coord, None),
        [t, tiler, coord, proj] if name == "local_tile" => {
            (t, tiler, coord, Some(proj.to_coord(name)?))
        }
        _ => {
            return Err(Error::Eval(format!(
                "{name}: expected (tensor, tiler, coord{})",
                if name == "local_tile" { "[, proj]" } else { "" }
            )))
        }
    };
    let (t, tiler, coord) = (
        tensor_arg(name, t)?,
        tiler.to_tiler(name)?,
        coord.to_coord(name)?,
    );
    let out = match name {
        "local_tile" => t.local_tile(&tiler, &coord, proj.as_ref())?,
        "inner_partition" => t.inner_partition(&tiler, &coord)?,
        _ => t.outer_partition(&tiler, &coord)?,
    };
    Ok(Value::Tensor(out))
}

/// `local_partition(T, thr_layout, idx[, proj])`.
fn local_partition(args: &[Value]) -> Result<Value> {
    const NAME: &str = "local_partition";
    let (t, thr, idx, proj) = match args {
        [t, thr, idx] => (t, thr, idx, None),
        [t, thr, idx, proj] => (t, thr, idx, Some(proj.to_coord(NAME)?)),
        _ => {
            return Err(Error::Eval(format!(
                "{NAME}: expected (tensor, thr_layout, idx[, proj])"
            )))
        }
    };
    let Value::Int(idx) = idx else {
        return Err(expected(NAME, "a thread index", idx));
    };
    let out = tensor_arg(NAME, t)?.local_partition(&thr.to_layout(NAME)?, idx, proj.as_ref())?;
    Ok(Value::Tensor(out))
}

/// `recast<T>(tensor)`.
fn recast(targs: &[TArg], args: &[Value]) -> Result<Value> {
    const NAME: &str = "recast";
    let t = elem_type(NAME, targs)?;
    let [x] = args else {
        return Err(Error::Eval(format!("{NAME}<T>: expected one tensor")));
    };
    Ok(Value::Tensor(tensor_arg(NAME, x)?.recast(t.bits())?))
}
