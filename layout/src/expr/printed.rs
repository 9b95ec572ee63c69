//! The printed forms that read back as values: `Sw<3,4,3> o _0 o L` (a composed layout),
//! `gmem_ptr[32b](A+4) o L` and `ArithTuple(_0,_0) o L` (tensors), `M_S|(d&F)=v` offsets.

use super::ast::Expr;
use super::eval::{eval_in, integer, Env};
use super::value::{expected, Value};
use crate::composed::{AnyLayout, ComposedLayout};
use crate::error::{Error, Result};
use crate::int::s;
use crate::tensor::{Engine, MemSpace, Ptr, Tensor};

/// `A o O o B` (a swizzled layout), `E o L` or `E o A o O o B` (a tensor).
pub(super) fn compose(parts: &[Expr], env: &Env) -> Result<Value> {
    if let Expr::Call { name, args, .. } = &parts[0] {
        if name == "ArithTuple" {
            let origin = args
                .iter()
                .map(|a| integer("ArithTuple", &eval_in(a, env)?))
                .collect::<Result<Vec<_>>>()?;
            let layout = layout_of(&parts[1..], env)?;
            return Ok(Value::Tensor(Tensor::from_engine(
                Engine::Coord(origin),
                layout,
            )));
        }
    }
    match (eval_in(&parts[0], env)?, &parts[1..]) {
        (Value::Ptr(p), rest) => Ok(Value::Tensor(Tensor::new(p, layout_of(rest, env)?))),
        (Value::Swizzle(sw), [offset, inner]) => {
            composed(sw, offset, inner, env).map(Value::Layout)
        }
        (
            a @ (Value::Swizzle(_) | Value::Layout(_) | Value::Composition(_)),
            [offset, rest @ ..],
        ) if rest.len() % 2 == 1 => {
            // A o O o (the rest): compositions nest to the right, as C++ CuTe prints them.
            let b = if rest.len() == 1 {
                eval_in(&rest[0], env)?
            } else {
                compose(rest, env)?
            };
            let offset = integer("the offset of a composition", &eval_in(offset, env)?)?;
            Ok(crate::compose3(a.to_part("o")?, offset, b.to_part("o")?).into())
        }
        (other, _) => Err(Error::Eval(format!(
            "'o': expected Sw<B,M,S> o offset o layout, or a pointer or ArithTuple(...) o layout; \
             found {} before 'o'",
            other.kind()
        ))),
    }
}

/// The layout after a tensor's engine: plain, or `A o O o B`.
fn layout_of(parts: &[Expr], env: &Env) -> Result<AnyLayout> {
    match parts {
        [l] => eval_in(l, env)?.to_any_layout("o"),
        [sw, offset, inner] => match eval_in(sw, env)? {
            Value::Swizzle(sw) => composed(sw, offset, inner, env),
            other => Err(expected("o", "a swizzle", &other)),
        },
        _ => Err(Error::Eval(
            "'o': a tensor is an engine o a layout (or o Sw o offset o layout)".into(),
        )),
    }
}

fn composed(
    sw: crate::swizzle::Swizzle,
    offset: &Expr,
    inner: &Expr,
    env: &Env,
) -> Result<AnyLayout> {
    let inner = eval_in(inner, env)?.to_layout("o")?;
    if let Expr::MixedBits { value, mask } = offset {
        return Ok(ComposedLayout::with_mixed_offset(sw, *value, *mask, inner));
    }
    let offset = integer("the offset of a composed layout", &eval_in(offset, env)?)?;
    Ok(ComposedLayout::composition(sw, offset, inner))
}

/// `gmem_ptr[32b](A+off)`.
pub(super) fn pointer(
    space: &str,
    bits: u32,
    name: &str,
    offset: Option<&Expr>,
    env: &Env,
) -> Result<Value> {
    let space = match space {
        "gmem_ptr" => MemSpace::Gmem,
        "smem_ptr" => MemSpace::Smem,
        "rmem_ptr" | "ptr" => MemSpace::Rmem,
        other => {
            return Err(Error::Eval(format!(
                "{other}[...]: expected gmem_ptr, smem_ptr or rmem_ptr"
            )))
        }
    };
    let offset = match offset {
        Some(e) => integer("a pointer offset", &eval_in(e, env)?)?,
        None => s(0),
    };
    Ok(Value::Ptr(Ptr {
        space,
        bits,
        name: name.to_string(),
        offset,
    }))
}
