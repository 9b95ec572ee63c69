//! Copy and MMA atoms, TiledCopy and TiledMMA in the expression language: the atom types
//! (`Copy_Atom<OP, T>`, `MMA_Atom<OP>`), `make_tiled_copy[_A|_B|_C]`, `make_tiled_mma`, and the
//! methods (`.tidfrg_S(L)`, `.thrfrg_C(L)`, `.get_layoutC_TV()`, `.get_slice(i).partition_S(T)`).

use super::ast::TArg;
use super::value::{expected, Value};
use crate::atom::{
    make_tiled_copy, make_tiled_copy_A, make_tiled_copy_B, make_tiled_copy_C, make_tiled_mma,
    CopyAtom, CopyOp, MmaAtom, MmaOp, Operand,
};
use crate::error::{Error, Result};
use crate::int::{s, Int};
use crate::layout::Layout;
use crate::numeric::ElemType;
use crate::tiler::Tiler;
use crate::AnyLayout;

/// A template type that is an atom or an MMA operation; `None` for other names.
pub fn atom_type(name: &str, targs: &[TArg]) -> Option<Result<Value>> {
    match name {
        "Copy_Atom" => Some(copy_atom(targs)),
        "MMA_Atom" => Some(match targs {
            [TArg::Type(op, inner)] => mma_op(op, inner).map(|op| Value::MmaAtom(MmaAtom::new(op))),
            _ => Err(Error::Eval(
                "MMA_Atom<OP>: expected one MMA operation".into(),
            )),
        }),
        n if n.starts_with("GMMA::Layout_") => Some(gmma_layout(n, targs)),
        // a bare MMA operation with template arguments, as make_tiled_mma takes one
        // (`SM90_64x128x16_F32F16F16_SS<GMMA::Major::K,GMMA::Major::K>`)
        n if n == "UniversalFMA" || n.starts_with("SM90_") => {
            Some(mma_op(name, targs).map(|op| Value::MmaAtom(MmaAtom::new(op))))
        }
        _ => None,
    }
}

/// A bare MMA operation name (`SM80_16x8x8_F32TF32TF32F32_TN`) used as an atom.
pub fn atom_name(name: &str) -> Option<Value> {
    MmaOp::from_name(name).map(|op| Value::MmaAtom(MmaAtom::new(op)))
}

fn type_name(t: &TArg) -> Option<(&str, &[TArg])> {
    match t {
        TArg::Type(n, inner) => Some((n.as_str(), inner.as_slice())),
        TArg::Int(_) => None,
    }
}

/// `Copy_Atom<OP, T>`.
fn copy_atom(targs: &[TArg]) -> Result<Value> {
    let usage =
        || Error::Eval("Copy_Atom<OP, T>: expected a copy operation and an element type".into());
    let [op, val] = targs else {
        return Err(usage());
    };
    let ((op_name, op_args), (val_name, _)) = (
        type_name(op).ok_or_else(usage)?,
        type_name(val).ok_or_else(usage)?,
    );
    let arg = match op_args {
        [] => None,
        [TArg::Int(n)] => Some(n.to_string()),
        [t] => type_name(t).map(|(n, _)| n.to_string()),
        _ => {
            return Err(Error::Eval(format!(
                "{op_name}<...>: expected one type argument"
            )))
        }
    };
    let op = CopyOp::from_name(op_name, arg.as_deref()).ok_or_else(|| {
        Error::Eval(format!(
            "Copy_Atom: unknown copy operation {op_name}{} (known: UniversalCopy<uintN_t>, DefaultCopy, AutoVectorizingCopy, \
             AutoVectorizingCopyWithAssumedAlignment<8|16|32|64|128>, \
             SM80_CP_ASYNC_CACHEALWAYS<uint32_t|uint64_t|uint128_t>, SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, \
             SM75_U32x{{1,2,4}}_LDSM_N, SM75_U16x{{2,4,8}}_LDSM_T)",
            arg.as_ref().map_or(String::new(), |a| format!("<{a}>"))
        ))
    })?;
    let val = ElemType::from_name(val_name)
        .ok_or_else(|| Error::Eval(format!("Copy_Atom: unknown element type '{val_name}'")))?;
    Ok(Value::CopyAtom(CopyAtom::new(op, val)?))
}

/// An MMA operation: `UniversalFMA<D[,A,B,C]>` or a catalog name.
fn mma_op(name: &str, targs: &[TArg]) -> Result<MmaOp> {
    if name == "UniversalFMA" {
        let types = targs
            .iter()
            .map(|t| type_name(t).and_then(|(n, _)| ElemType::from_name(n)))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| Error::Eval("UniversalFMA<D,A,B,C>: expected element types".into()))?;
        return match types.as_slice() {
            [d] => Ok(MmaOp::universal_fma(*d, *d, *d, *d)),
            [d, a, b, c] => Ok(MmaOp::universal_fma(*d, *a, *b, *c)),
            _ => Err(Error::Eval(
                "UniversalFMA<D,A,B,C>: expected one or four element types".into(),
            )),
        };
    }
    // an SM90 GMMA's template arguments are names (`GMMA::Major::K`)
    let args = targs
        .iter()
        .map(|t| match t {
            TArg::Type(n, inner) if inner.is_empty() => Ok(n.as_str()),
            _ => Err(Error::Eval(format!(
                "{name}<...>: expected names as template arguments (GMMA::Major::K, GMMA::ScaleIn::One)"
            ))),
        })
        .collect::<Result<Vec<_>>>()?;
    MmaOp::from_name_args(name, &args).unwrap_or_else(|| {
        Err(Error::Eval(format!(
            "MMA_Atom: unknown MMA operation {name}"
        )))
    })
}

/// The atom functions; `None` when `name` is not one of them.
pub fn call_atom(name: &str, targs: &[TArg], args: &[Value]) -> Option<Result<Value>> {
    Some(match name {
        "make_tiled_copy" => tiled_copy(args),
        "make_tiled_copy_A" | "make_tiled_copy_B" | "make_tiled_copy_C" => {
            tiled_copy_for(name, args)
        }
        "make_tiled_mma" => tiled_mma(args),
        "make_gmma_desc" => gmma_desc(targs, args),
        "make_tma_copy" => tma_copy(args),
        "partition_shape_A" | "partition_shape_B" | "partition_shape_C" => {
            partition_shape(name, args)
        }
        "tile_size" => tile_size(targs, args),
        "tile_shape" => (0..3)
            .map(|i| tile_size(&[TArg::Int(i)], args))
            .collect::<Result<Vec<_>>>()
            .map(Value::Tuple),
        "size" if matches!(args, [Value::TiledCopy(_) | Value::TiledMma(_)]) => match &args[0] {
            Value::TiledCopy(t) => t.num_threads().map(Value::Int),
            Value::TiledMma(t) => t.num_threads().map(Value::Int),
            _ => unreachable!("matched above"),
        },
        _ => return None,
    })
}

fn mma_arg(name: &str, v: &Value) -> Result<MmaAtom> {
    match v {
        Value::MmaAtom(a) => Ok(*a),
        Value::Int(Int::Dynamic(d)) => match d.as_symbol() {
            Some(n) => MmaOp::from_name(n)
                .map(MmaAtom::new)
                .ok_or_else(|| Error::Eval(format!("{name}: unknown MMA operation {n}"))),
            None => Err(expected(name, "an MMA atom", v)),
        },
        other => Err(expected(name, "an MMA atom", other)),
    }
}

fn copy_arg(name: &str, v: &Value) -> Result<CopyAtom> {
    match v {
        Value::CopyAtom(a) => Ok(a.clone()),
        other => Err(expected(name, "a copy atom (Copy_Atom<OP, T>)", other)),
    }
}

/// `make_tiled_copy(atom, thr_layout[, val_layout])`.
fn tiled_copy(args: &[Value]) -> Result<Value> {
    const NAME: &str = "make_tiled_copy";
    let (atom, thr, val) = match args {
        [a, t] => (a, t.to_layout(NAME)?, Layout::trivial()),
        [a, t, v] => (a, t.to_layout(NAME)?, v.to_layout(NAME)?),
        _ => {
            return Err(Error::Eval(format!(
                "{NAME}: expected (atom, thr_layout[, val_layout])"
            )))
        }
    };
    Ok(Value::TiledCopy(Box::new(make_tiled_copy(
        &copy_arg(NAME, atom)?,
        &thr,
        &val,
    )?)))
}

/// `make_tiled_copy_A/B/C(atom, tiled_mma)`: the MMA's operand TV layout and tile.
fn tiled_copy_for(name: &str, args: &[Value]) -> Result<Value> {
    let [atom, mma] = args else {
        return Err(Error::Eval(format!(
            "{name}: expected (copy_atom, tiled_mma)"
        )));
    };
    let Value::TiledMma(mma) = mma else {
        return Err(expected(name, "a TiledMMA", mma));
    };
    let atom = copy_arg(name, atom)?;
    let tiled = match operand_of(name)? {
        Operand::A => make_tiled_copy_A(&atom, mma)?,
        Operand::B => make_tiled_copy_B(&atom, mma)?,
        Operand::C => make_tiled_copy_C(&atom, mma)?,
    };
    Ok(Value::TiledCopy(Box::new(tiled)))
}

/// `make_tiled_mma(atom, thr_layout[, permutation_mnk])`.
fn tiled_mma(args: &[Value]) -> Result<Value> {
    const NAME: &str = "make_tiled_mma";
    let (atom, thr, perm) = match args {
        [a] => (
            a,
            Layout::col_major(&crate::tup![s(1), s(1), s(1)])?,
            vec![],
        ),
        [a, t] => (a, thr_layout(t)?, vec![]),
        [a, t, p] => {
            let perm = match p.to_tiler(NAME)? {
                Tiler::Tuple(v) => v,
                other => vec![other],
            };
            (a, thr_layout(t)?, perm)
        }
        _ => {
            return Err(Error::Eval(format!(
                "{NAME}: expected (atom[, thr_layout[, permutation]])"
            )))
        }
    };
    Ok(Value::TiledMma(Box::new(make_tiled_mma(
        mma_arg(NAME, atom)?,
        &thr,
        &perm,
    )?)))
}

/// The thread layout of `make_tiled_mma`: a layout. C++ CuTe rejects a plain shape here
/// (`make_tiled_mma(atom, make_shape(_2{},_2{},_1{}))` fails to compile: "logical_product: Too
/// many modes in tiler"); what C++ code writes is `Layout<Shape<_2,_2,_1>>{}`, the compact
/// layout `make_layout((_2,_2,_1))`.
fn thr_layout(v: &Value) -> Result<Layout> {
    match v {
        Value::Tuple(_) => Err(Error::Eval(format!(
            "make_tiled_mma: the thread layout must be a layout, got the shape {v}; C++ CuTe rejects a shape \
             here (logical_product: Too many modes in tiler): write make_layout({v}), C++'s Layout<Shape<...>>{{}}"
        ))),
        other => other.to_layout("make_tiled_mma"),
    }
}

fn partition_shape(name: &str, args: &[Value]) -> Result<Value> {
    let [Value::TiledMma(mma), shape] = args else {
        return Err(Error::Eval(format!("{name}: expected (tiled_mma, shape)")));
    };
    Ok(mma
        .partition_shape(operand_of(name)?, &shape.to_int_tuple(name)?)?
        .into())
}

fn tile_size(targs: &[TArg], args: &[Value]) -> Result<Value> {
    let i = match targs {
        [TArg::Int(i)] if (0..3).contains(i) => *i as usize,
        _ => return Err(Error::Eval("tile_size<I>: expected I in 0..3".into())),
    };
    match args {
        [Value::TiledMma(m)] => Ok(m.tile_size(i)?.into()),
        [Value::TiledCopy(c)] => match c.tiler().get(i) {
            Some(t) => Ok(t.product()?.into()),
            None => Err(Error::Eval(format!(
                "tile_size<{i}>: the TiledCopy's tiler {} has no mode {i}",
                c.tiler()
            ))),
        },
        _ => Err(Error::Eval(
            "tile_size<I>: expected a TiledCopy or a TiledMMA".into(),
        )),
    }
}

/// `x.name(args)`.
pub fn method(target: &Value, name: &str, args: &[Value]) -> Result<Value> {
    let layout_arg = |args: &[Value]| -> Result<AnyLayout> {
        match args {
            [v] => v.to_any_layout(name),
            _ => Err(Error::Eval(format!(".{name}(L): expected one layout"))),
        }
    };
    let tensor_arg = |args: &[Value]| -> Result<crate::Tensor> {
        match args {
            [Value::Tensor(t)] => Ok(t.clone()),
            [other] => Err(expected(name, "a tensor", other)),
            _ => Err(Error::Eval(format!(".{name}(T): expected one tensor"))),
        }
    };
    let index_arg = |args: &[Value]| -> Result<Int> {
        match args {
            [Value::Int(i)] => Ok(i.clone()),
            _ => Err(Error::Eval(format!(".{name}(i): expected a thread index"))),
        }
    };
    let none = |args: &[Value]| -> Result<()> {
        if args.is_empty() {
            Ok(())
        } else {
            Err(Error::Eval(format!(".{name}(): takes no arguments")))
        }
    };
    match (target, name) {
        (Value::TiledCopy(t), "tidfrg_S") => Ok(t.tidfrg_s(&layout_arg(args)?)?.into()),
        (Value::TiledCopy(t), "tidfrg_D") => Ok(t.tidfrg_d(&layout_arg(args)?)?.into()),
        (Value::TiledCopy(t), "get_layoutS_TV") => {
            none(args).and_then(|_| Ok(t.get_layout_s_tv()?.into()))
        }
        (Value::TiledCopy(t), "get_layoutD_TV") => {
            none(args).and_then(|_| Ok(t.get_layout_d_tv()?.into()))
        }
        (Value::TiledCopy(t), "get_layoutS_MN") => {
            none(args)?;
            let (mk, thr) = t.get_layout_s_mn()?;
            Ok(Value::Tuple(vec![mk.into(), thr.into()]))
        }
        (Value::TiledCopy(t), "retile") => match layout_arg(args)? {
            AnyLayout::Plain(l) => Ok(t.retile(&l)?.into()),
            other => Err(Error::Eval(format!(
                "retile: {other} is not a register fragment layout"
            ))),
        },
        (Value::TiledCopy(t), "get_slice" | "get_thread_slice") => {
            Ok(Value::ThrCopy(Box::new(t.get_slice(&index_arg(args)?)?)))
        }
        (Value::ThrCopy(t), "partition_S") => Ok(t.partition_s(&tensor_arg(args)?)?.into()),
        (Value::ThrCopy(t), "partition_D") => Ok(t.partition_d(&tensor_arg(args)?)?.into()),
        (Value::ThrCopy(t), "retile_S" | "retile_D") => Ok(t.retile(&tensor_arg(args)?)?.into()),
        (Value::TiledMma(m), "thrfrg_A") => Ok(m.thrfrg_a(&layout_arg(args)?)?.into()),
        (Value::TiledMma(m), "thrfrg_B") => Ok(m.thrfrg_b(&layout_arg(args)?)?.into()),
        (Value::TiledMma(m), "thrfrg_C") => Ok(m.thrfrg_c(&layout_arg(args)?)?.into()),
        (Value::TiledMma(m), "get_layoutA_TV") => {
            none(args).and_then(|_| Ok(m.get_layout_a_tv()?.into()))
        }
        (Value::TiledMma(m), "get_layoutB_TV") => {
            none(args).and_then(|_| Ok(m.get_layout_b_tv()?.into()))
        }
        (Value::TiledMma(m), "get_layoutC_TV") => {
            none(args).and_then(|_| Ok(m.get_layout_c_tv()?.into()))
        }
        (Value::TiledMma(m), "get_thr_layout_vmnk") => {
            none(args).map(|_| m.thr_layout_vmnk().clone().into())
        }
        (Value::TiledMma(m), "get_slice" | "get_thread_slice") => {
            Ok(Value::ThrMma(Box::new(m.get_slice(&index_arg(args)?)?)))
        }
        (Value::ThrMma(t), p) if p.starts_with("partition_fragment_") => Ok(t
            .partition_fragment(operand_of(p)?, &tensor_arg(args)?)?
            .into()),
        (Value::ThrMma(t), p) if p.starts_with("partition_") => {
            Ok(t.partition(operand_of(p)?, &tensor_arg(args)?)?.into())
        }
        _ => Err(Error::Eval(format!(
            "{}: no method .{name}()",
            target.kind()
        ))),
    }
}

/// The operand a CuTe name ends with (`partition_A`, `make_tiled_copy_C`).
fn operand_of(name: &str) -> Result<Operand> {
    match name.chars().last() {
        Some('A') => Ok(Operand::A),
        Some('B') => Ok(Operand::B),
        Some('C') => Ok(Operand::C),
        _ => Err(Error::Eval(format!("no method .{name}()"))),
    }
}

/// `GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>` and `GMMA::Layout_{SW..}_Atom<T, Major>`.
fn gmma_layout(name: &str, targs: &[TArg]) -> Result<Value> {
    use crate::atom::{gmma_layout_atom, GmmaMajor, GmmaSwizzle};
    let usage = || {
        Error::Eval(format!(
            "{name}: expected GMMA::Layout_{{K,MN}}_{{INTER,SW32,SW64,SW128}}_Atom<T> or GMMA::Layout_{{INTER,SW32,SW64,SW128}}_Atom<T, GMMA::Major::K|MN>"
        ))
    };
    let body = name
        .strip_prefix("GMMA::Layout_")
        .and_then(|r| r.strip_suffix("_Atom"))
        .ok_or_else(usage)?;
    let (major, sw) = match body.split_once('_') {
        Some(("K", sw)) => (Some(GmmaMajor::K), sw),
        Some(("MN", sw)) => (Some(GmmaMajor::MN), sw),
        _ => (None, body),
    };
    let sw = match sw {
        "INTER" => GmmaSwizzle::Inter,
        "SW32" => GmmaSwizzle::Sw32,
        "SW64" => GmmaSwizzle::Sw64,
        "SW128" => GmmaSwizzle::Sw128,
        _ => return Err(usage()),
    };
    let (elem, major) = match (targs, major) {
        ([t], Some(m)) => (t, m),
        ([t, TArg::Type(m, inner)], None) if inner.is_empty() => (
            t,
            match m.as_str() {
                "GMMA::Major::K" => GmmaMajor::K,
                "GMMA::Major::MN" => GmmaMajor::MN,
                _ => return Err(usage()),
            },
        ),
        _ => return Err(usage()),
    };
    let elem = type_name(elem)
        .and_then(|(n, _)| ElemType::from_name(n))
        .ok_or_else(usage)?;
    Ok(Value::Layout(gmma_layout_atom(major, sw, elem)?))
}

/// `make_gmma_desc<GMMA::Major::K|MN>(tensor)` of a shared-memory tensor over a GMMA layout.
fn gmma_desc(targs: &[TArg], args: &[Value]) -> Result<Value> {
    use crate::atom::{make_gmma_desc, GmmaMajor};
    let usage = || {
        Error::Eval(
            "make_gmma_desc<GMMA::Major::K|MN>(T): expected a major and a shared-memory tensor"
                .into(),
        )
    };
    let major = match targs {
        [TArg::Type(m, inner)] if inner.is_empty() && m == "GMMA::Major::K" => GmmaMajor::K,
        [TArg::Type(m, inner)] if inner.is_empty() && m == "GMMA::Major::MN" => GmmaMajor::MN,
        _ => return Err(usage()),
    };
    let [Value::Tensor(t)] = args else {
        return Err(usage());
    };
    let crate::tensor::Engine::Ptr(p) = t.engine() else {
        return Err(Error::Eval("make_gmma_desc: GMMA Descriptors can only be constructed on smem (the tensor has no pointer)".into()));
    };
    if p.space != crate::tensor::MemSpace::Smem {
        return Err(Error::Eval(format!(
            "make_gmma_desc: {p}: GMMA Descriptors can only be constructed on smem"
        )));
    }
    let off = p.offset.value().ok_or_else(|| {
        Error::Eval(format!(
            "make_gmma_desc: {p}: the pointer's offset must be known"
        ))
    })?;
    let bytes = off.checked_mul(i64::from(p.bits)).ok_or_else(usage)? / 8;
    Ok(Value::GmmaDesc(make_gmma_desc(
        major,
        p.bits,
        t.layout(),
        bytes,
    )?))
}

/// `make_tma_copy(SM90_TMA_LOAD|SM90_TMA_LOAD_MULTICAST|SM90_TMA_STORE, gtensor, slayout[,
/// cluster_size])` over a global-memory tensor. A tensor's pointer keeps its element width, not
/// its type: the atom's value type is the unsigned integer of that width (C++ prints only the
/// width, `ValueType: 16b`).
fn tma_copy(args: &[Value]) -> Result<Value> {
    use crate::atom::{make_tma_copy, TmaOp};
    use crate::numeric::ElemType;
    use crate::tensor::{Engine, MemSpace};
    const NAME: &str = "make_tma_copy";
    let usage = || {
        Error::Eval(format!(
            "{NAME}: expected (SM90_TMA_LOAD|SM90_TMA_LOAD_MULTICAST|SM90_TMA_STORE, gmem_tensor, smem_layout[, cluster_size])"
        ))
    };
    let (op, g, smem, cluster) = match args {
        [op, g, smem] => (op, g, smem, 1),
        [op, g, smem, Value::Int(c)] => (op, g, smem, c.value().ok_or_else(usage)?),
        _ => return Err(usage()),
    };
    let op = match op {
        Value::Int(Int::Dynamic(d)) => d.as_symbol().and_then(TmaOp::from_name),
        _ => None,
    }
    .ok_or_else(usage)?;
    let Value::Tensor(t) = g else {
        return Err(expected(NAME, "a global-memory tensor", g));
    };
    let (Engine::Ptr(p), crate::AnyLayout::Plain(gl)) = (t.engine(), t.layout()) else {
        return Err(expected(
            NAME,
            "a global-memory tensor of a plain layout",
            g,
        ));
    };
    if p.space != MemSpace::Gmem {
        return Err(Error::Eval(format!("{NAME}: {p} is not in global memory")));
    }
    let elem = [ElemType::U8, ElemType::U16, ElemType::U32, ElemType::U64]
        .into_iter()
        .find(|e| e.bits() == p.bits)
        .ok_or_else(|| Error::Eval(format!("{NAME}: {p}: TMA moves elements of 8 to 64 bits")))?;
    let smem = smem.to_any_layout(NAME)?;
    let tma = make_tma_copy(op, gl, elem, &smem, cluster)?;
    Ok(Value::TiledCopy(Box::new(tma)))
}
