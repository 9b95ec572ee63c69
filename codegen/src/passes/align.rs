//! Vector alignment: every vector a copy moves is contiguous on both sides and starts at a
//! multiple of its width, for every thread and block. What holds by the layouts alone is
//! proven here; what depends on a parameter (`ldA % 4 == 0`, `A` aligned to 16 bytes, `N % 4
//! == 0` for a predicated vector) becomes a launch requirement naming the statement it came
//! from; what cannot hold (a vector that starts at `tid + 1`) is an error.

use cute_layout::{ElemType, Engine, Int, MemSpace, Tensor};

use super::{error, walk};
use crate::error::Result;
use crate::ir::index::{addr, coord, size, Addr};
use crate::ir::{sym, Kernel, ParamType, Pred, Stmt};
use crate::kernel::Requirement;

/// The launch requirements the kernel's vector copies need.
pub fn vector_requirements(k: &Kernel) -> Result<Vec<Requirement>> {
    let mut out = Vec::new();
    walk(&k.body, "body", &mut |s, path| {
        if let Stmt::Copy {
            atom,
            src,
            dst,
            pred,
        } = s
        {
            let elem = atom.val_type();
            if let Some((row, _)) = crate::lower::ldmatrix::values(atom.op(), elem) {
                // each thread's 16-byte row: contiguous and aligned (the registers need nothing)
                return tensor(k, src, row, elem, path, &mut out);
            }
            if let Some((_, row)) = crate::lower::stmatrix::values(atom.op(), elem) {
                return tensor(k, dst, row, elem, path, &mut out);
            }
            let width = super::checks::atom_values(atom.op(), elem).unwrap_or(1);
            if width > 1 {
                for t in [src, dst] {
                    tensor(k, t, width, elem, path, &mut out)?;
                }
                if let Some(p) = pred {
                    let zfill = atom.op().ptx_zfill().is_some();
                    predicate(k, p, width, zfill, path, &mut out)?;
                }
            }
        }
        Ok(())
    })?;
    // one requirement per condition: the first statement that needs it names it
    let mut unique: Vec<Requirement> = Vec::new();
    for r in out {
        if !unique.iter().any(|u| u.condition() == r.condition()) {
            unique.push(r);
        }
    }
    Ok(unique)
}

fn is_int_param(k: &Kernel) -> impl Fn(&str) -> bool + '_ {
    |n: &str| k.param(n).is_some_and(|p| p.ty == ParamType::Int)
}

/// Each vector of `t` (`width` consecutive elements) is contiguous and aligned.
fn tensor(
    k: &Kernel,
    t: &Tensor,
    width: i64,
    elem: ElemType,
    path: &str,
    out: &mut Vec<Requirement>,
) -> Result<()> {
    let Engine::Ptr(p) = t.engine() else {
        return Ok(());
    };
    let n = size(t).unwrap_or(0);
    let bytes = width * i64::from(elem.bits()) / 8;
    let fail = |m: String| error(k, path, format!("{t}: {m}"));
    let at = |j: i64| addr(t, j).map_err(|e| fail(format!("element {j}: {e}")));
    for v in (0..n).step_by(width as usize) {
        let start = at(v)?;
        for e in 1..width {
            if !contiguous(&start, &at(v + e)?, e) {
                return Err(fail(format!(
                    "the {width}-element vector at element {v} is not contiguous (element {e} is not {e} past its start)"
                )));
            }
        }
        let (base, swz) = start.parts();
        let mut need = |i: &Int, what: &str| -> Result<()> {
            let reqs = sym::divisible(i, width, &is_int_param(k)).map_err(|m| {
                fail(format!(
                    "the vector at element {v} need not be {bytes}-byte aligned: {what} {m}"
                ))
            })?;
            out.extend(reqs.into_iter().map(|(symbol, by)| Requirement::Divisible {
                symbol,
                by,
                from: format!("{path}: {bytes}-byte vectors of {}", p.name),
            }));
            Ok(())
        };
        need(base, "its offset")?;
        if let Some((sw, arg)) = swz {
            need(arg, "the swizzle's argument")?;
            // the lowest bit a swizzle touches is M, whichever way it shifts (CuTe: the YYY
            // bits at M + max(0,S) move to M - min(0,S))
            let (_, m, _) = sw.params();
            let kept = i64::from(m);
            if (1i64 << kept.max(0)) < width {
                return Err(fail(format!(
                    "{sw} moves bit {} of the offset: a {width}-element vector does not stay contiguous",
                    kept.max(0)
                )));
            }
        }
    }
    if p.space == MemSpace::Gmem {
        if let Some(ParamType::Ptr { align, .. }) = k.param(&p.name).map(|q| q.ty) {
            if align < bytes {
                return Err(fail(format!(
                    "{} is declared {align}-byte aligned; {bytes}-byte vectors need more",
                    p.name
                )));
            }
        }
        out.push(Requirement::Aligned {
            pointer: p.name.clone(),
            bytes,
            from: format!("{path}: {bytes}-byte vectors"),
        });
    } else if p.space == MemSpace::Smem && bytes > 128 {
        return Err(fail(format!(
            "shared buffers are 128-byte aligned; {bytes}-byte vectors need more"
        )));
    }
    Ok(())
}

/// `b` is `e` elements past `a`.
fn contiguous(a: &Addr, b: &Addr, e: i64) -> bool {
    match (a, b) {
        (Addr::Lin(x), Addr::Lin(y)) => y.sub(x).ok().and_then(|d| d.value()) == Some(e),
        (
            Addr::Swz { base, sw, arg },
            Addr::Swz {
                base: b2,
                sw: s2,
                arg: a2,
            },
        ) => sw == s2 && base == b2 && a2.sub(arg).ok().and_then(|d| d.value()) == Some(e),
        _ => false,
    }
}

/// A predicated vector is all in bounds or all out: its coordinates move along one mode from a
/// multiple of the width, and that mode's bound is a multiple of it. A zero-filling copy
/// (`zfill`) guards each element instead: its in-bounds elements must be a prefix of the vector,
/// so the vector's coordinates move along one mode one step per element.
fn predicate(
    k: &Kernel,
    p: &Pred,
    width: i64,
    zfill: bool,
    path: &str,
    out: &mut Vec<Requirement>,
) -> Result<()> {
    if zfill {
        return prefix_predicate(k, p, width, path);
    }
    let n = size(&p.coord).unwrap_or(0);
    let fail = |m: String| error(k, path, format!("predicate {}: {m}", p.coord));
    let at = |j: i64| coord(&p.coord, j).map_err(|e| fail(format!("element {j}: {e}")));
    for v in (0..n).step_by(width as usize) {
        let start = at(v)?;
        let last = at(v + width - 1)?;
        let moving: Vec<usize> = (0..start.len()).filter(|&d| last[d] != start[d]).collect();
        let [d] = moving.as_slice() else {
            if moving.is_empty() {
                continue;
            }
            return Err(fail(format!(
                "the vector at element {v} moves along {} modes",
                moving.len()
            )));
        };
        let d = *d;
        let is_param = is_int_param(k);
        for (i, what) in [
            (&start[d], "its first coordinate"),
            (&p.bounds[d], "the bound"),
        ] {
            let reqs = sym::divisible(i, width, &is_param).map_err(|m| {
                fail(format!(
                    "a {width}-element vector may straddle the bound {}: {what} {m}",
                    p.bounds[d]
                ))
            })?;
            out.extend(reqs.into_iter().map(|(symbol, by)| Requirement::Divisible {
                symbol,
                by,
                from: format!("{path}: predicated {width}-element vectors"),
            }));
        }
    }
    Ok(())
}

/// Each vector's coordinates move along one mode, one step per element: the elements below that
/// mode's bound are a prefix of the vector (the others being in bounds or not as one).
fn prefix_predicate(k: &Kernel, p: &Pred, width: i64, path: &str) -> Result<()> {
    let n = size(&p.coord).unwrap_or(0);
    let fail = |m: String| error(k, path, format!("predicate {}: {m}", p.coord));
    for v in (0..n).step_by(width as usize) {
        if prefix_mode(p, v, width)
            .map_err(|e| fail(format!("element {v}: {e}")))?
            .is_none()
        {
            return Err(fail(format!(
                "the zero-filled vector at element {v} does not move along one mode one element at a time: its in-bounds elements need not be a prefix"
            )));
        }
    }
    Ok(())
}

/// The mode a predicated vector of `width` elements from element `v` moves along, one step per
/// element (`Some(None)`: it does not move; `None`: it moves otherwise).
pub(crate) fn prefix_mode(
    p: &Pred,
    v: i64,
    width: i64,
) -> cute_layout::Result<Option<Option<usize>>> {
    let start = coord(&p.coord, v)?;
    let mut mode = None;
    for e in 1..width {
        let c = coord(&p.coord, v + e)?;
        for (d, (a, b)) in start.iter().zip(&c).enumerate() {
            match b.sub(a)?.value() {
                Some(0) => {}
                Some(x) if x == e && mode.is_none_or(|m| m == d) => mode = Some(d),
                _ => return Ok(None),
            }
        }
    }
    Ok(Some(mode))
}
