//! Structural checks of a kernel: names, the launch shape, the storage every tensor refers to,
//! operand shapes, the atoms that have a lowering, and well-typed expressions.

use std::collections::HashSet;

use cute_layout::atom::{CopyOp, MmaOp};
use cute_layout::{ElemType, Engine, Int, MemSpace, Tensor};

use super::{error, walk};
use crate::error::Result;
use crate::ir::{sym, Barrier, Cond, EExpr, Kernel, ParamType, Pred, SemOp, Stmt};

/// Names the generated CUDA declares itself.
const RESERVED: &[&str] = &["tid", "bx", "by", "bz", "smem_raw"];

pub fn kernel(k: &Kernel) -> Result<()> {
    names(k)?;
    launch(k)?;
    super::pipeline::cluster(k)?;
    storage(k)?;
    let mut vars: HashSet<String> = HashSet::new();
    walk(&k.body, "body", &mut |s, path| {
        statement(k, s, path, &mut vars)
    })
}

fn is_ident(n: &str) -> bool {
    n.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn names(k: &Kernel) -> Result<()> {
    if !is_ident(&k.name) {
        return Err(error(
            k,
            "name",
            format!("'{}' is not a C identifier", k.name),
        ));
    }
    let mut seen = HashSet::new();
    let all = k
        .params
        .iter()
        .map(|p| &p.name)
        .chain(k.smem.iter().map(|b| &b.name))
        .chain(k.regs.iter().map(|b| &b.name));
    for n in all {
        if !is_ident(n) || RESERVED.contains(&n.as_str()) {
            return Err(error(
                k,
                "declarations",
                format!("'{n}' is not a C identifier the kernel may use (reserved: {RESERVED:?})"),
            ));
        }
        if !seen.insert(n.clone()) {
            return Err(error(k, "declarations", format!("'{n}' is declared twice")));
        }
    }
    Ok(())
}

fn launch(k: &Kernel) -> Result<()> {
    let threads = k.threads();
    if k.block.iter().any(|&d| d < 1) || !(1..=1024).contains(&threads) {
        return Err(error(
            k,
            "launch",
            format!(
                "{:?} threads per block: each dimension at least 1, at most 1024 in all",
                k.block
            ),
        ));
    }
    if k.min_blocks_per_sm < 1 {
        return Err(error(k, "launch", "at least one block per SM"));
    }
    for g in &k.grid {
        if g.evaluate(&|n| int_param(k, n).then_some(1)).is_none() {
            return Err(error(
                k,
                "launch",
                format!("the grid dimension {g} is not an expression of the int parameters"),
            ));
        }
    }
    Ok(())
}

fn int_param(k: &Kernel, name: &str) -> bool {
    k.param(name).is_some_and(|p| p.ty == ParamType::Int)
}

fn storage(k: &Kernel) -> Result<()> {
    for b in &k.smem {
        let n = b.elements();
        if n.is_none_or(|n| n <= 0) {
            return Err(error(
                k,
                &format!("smem {}", b.name),
                format!("{} needs a static positive cosize", b.layout),
            ));
        }
    }
    let total = crate::cuda::smem_layout(k).1;
    let t = &k.target;
    if total > t.smem_per_block {
        return Err(error(
            k,
            "shared memory",
            format!(
                "{total} bytes exceed the {} a block may have on {t} ({})",
                t.smem_per_block, t.devices
            ),
        ));
    }
    let fit = t.occupancy(k.threads(), 0, total);
    if fit.by_threads.min(fit.by_shared_memory).min(fit.by_blocks) < k.min_blocks_per_sm {
        return Err(error(
            k,
            "launch bounds",
            format!(
                "{} CTAs per SM of {} threads and {total} bytes of shared memory (and the {} the hardware reserves for each) do not fit an SM of {t}: {} fit",
                k.min_blocks_per_sm,
                k.threads(),
                t.smem_reserved_per_block,
                fit.by_threads.min(fit.by_shared_memory).min(fit.by_blocks)
            ),
        ));
    }
    Ok(())
}

/// The element type and space of the storage a tensor's pointer names.
pub(super) fn storage_of(k: &Kernel, t: &Tensor, path: &str) -> Result<(MemSpace, ElemType, bool)> {
    let Engine::Ptr(p) = t.engine() else {
        return Err(error(
            k,
            path,
            format!("{t}: a coordinate tensor is only a predicate"),
        ));
    };
    let found = match p.space {
        MemSpace::Gmem => match k.param(&p.name).map(|q| q.ty) {
            Some(ParamType::Ptr { elem, writable, .. }) => Some((elem, writable)),
            _ => None,
        },
        MemSpace::Smem => k.smem_buf(&p.name).map(|b| (b.elem, true)),
        MemSpace::Rmem => k.reg_buf(&p.name).map(|b| (b.elem, true)),
    };
    let (elem, writable) = found.ok_or_else(|| {
        error(
            k,
            path,
            format!("{t}: {} is not a declared {} buffer", p.name, p.space),
        )
    })?;
    if elem.bits() != p.bits {
        return Err(error(
            k,
            path,
            format!("{t}: {} holds {elem}, not {}-bit elements", p.name, p.bits),
        ));
    }
    Ok((p.space, elem, writable))
}

/// The static size of a tensor, if it has one.
pub(super) fn tensor_size(t: &Tensor) -> Option<i64> {
    t.layout().shape_layout().size().ok()?.as_static()
}

/// The static size of a tensor (a fragment or a tile).
fn size(k: &Kernel, t: &Tensor, path: &str) -> Result<i64> {
    t.layout()
        .shape_layout()
        .size()
        .ok()
        .and_then(|s| s.as_static())
        .ok_or_else(|| error(k, path, format!("{t}: the operand needs a static size")))
}

/// The static size of mode 0 (the values one atom moves).
pub(crate) fn vector(t: &Tensor) -> Option<i64> {
    t.layout()
        .shape_layout()
        .mode(0)
        .ok()?
        .size()
        .ok()?
        .as_static()
}

fn statement(k: &Kernel, s: &Stmt, path: &str, vars: &mut HashSet<String>) -> Result<()> {
    match s {
        Stmt::Copy {
            atom,
            src,
            dst,
            pred,
        } => {
            let (ss, se, _) = storage_of(k, src, path)?;
            let (ds, de, dw) = storage_of(k, dst, path)?;
            if !dw {
                return Err(error(
                    k,
                    path,
                    format!("{dst}: the destination is read-only"),
                ));
            }
            if !same_storage(se, de) {
                return Err(error(k, path, format!("{se} copied into {de}")));
            }
            let (n, m) = (size(k, src, path)?, size(k, dst, path)?);
            if let Some(m8) = crate::lower::ldmatrix::matrices(atom.op()) {
                if pred.is_some() {
                    let msg = format!("{}: ldmatrix is warp-collective and cannot be predicated (zero-fill the shared tile instead)", atom.op());
                    return Err(error(k, path, msg));
                }
                return ldmatrix(k, atom.op(), m8, (ss, se, n, src), (ds, m, dst), path);
            }
            if crate::lower::stmatrix::matrices(atom.op()).is_some() {
                if pred.is_some() {
                    let msg = format!(
                        "{}: stmatrix is warp-collective and cannot be predicated",
                        atom.op()
                    );
                    return Err(error(k, path, msg));
                }
                return stmatrix(k, atom.op(), (ss, se, n, src), (ds, m, dst), path);
            }
            if n != m {
                return Err(error(
                    k,
                    path,
                    format!("{n} source values for {m} destination values"),
                ));
            }
            if atom.val_type().bits() != se.bits() {
                return Err(error(
                    k,
                    path,
                    format!("a copy atom of {} moves {se} values", atom.val_type()),
                ));
            }
            let vals = atom_values(atom.op(), se).ok_or_else(|| {
                error(
                    k,
                    path,
                    format!(
                        "{}: the CUDA lowering of this copy atom is not written yet",
                        atom.op()
                    ),
                )
            })?;
            for t in [src, dst] {
                if vector(t).is_none_or(|v| v % vals != 0) {
                    return Err(error(
                        k,
                        path,
                        format!("{} moves {vals} values at a time: mode 0 of {t} must hold a multiple of {vals}", atom.op()),
                    ));
                }
            }
            if let Some(f) = crate::target::Feature::of_copy(&atom.op()) {
                if !k.target.has(f) {
                    return Err(error(
                        k,
                        path,
                        format!("{}: {t} has no {f:?}", atom.op(), t = k.target),
                    ));
                }
            }
            if atom.op().is_async() && (ss != MemSpace::Gmem || ds != MemSpace::Smem) {
                return Err(error(
                    k,
                    path,
                    format!("{} copies global memory into shared memory", atom.op()),
                ));
            }
            if let Some(p) = pred {
                predicate(k, p, dst, path)?;
            }
            Ok(())
        }
        Stmt::Gemm { atom, a, b, c, .. } if matches!(atom.op(), MmaOp::Sm90(_)) => {
            warpgroup_mma(k, atom.op(), [a, b, c], path)
        }
        Stmt::Gemm {
            overwrite: Some(_),
            atom,
            ..
        } => Err(error(
            k,
            path,
            format!(
                "{}: only a GMMA's first k block overwrites its accumulator",
                atom.op()
            ),
        )),
        Stmt::Gemm { atom, a, b, c, .. } => {
            for t in [a, b, c] {
                if storage_of(k, t, path)?.0 != MemSpace::Rmem {
                    return Err(error(
                        k,
                        path,
                        format!("{t}: gemm operands are register fragments"),
                    ));
                }
            }
            match atom.op() {
                MmaOp::UniversalFma {
                    d,
                    a: ea,
                    b: eb,
                    c: ec,
                } if [d, ea, eb, ec].iter().all(|t| *t == ElemType::F32) => {}
                op if crate::lower::mma_sync::helper(op).is_some() => {
                    return warp_mma(k, op, [a, b, c], path);
                }
                op => {
                    return Err(error(
                        k,
                        path,
                        format!("{op}: the CUDA lowering of this MMA atom is not written yet"),
                    ))
                }
            }
            gemm_shapes(k, a, b, c, path)
        }
        Stmt::Map { dst, srcs, f, pred } => {
            if !storage_of(k, dst, path)?.2 {
                return Err(error(
                    k,
                    path,
                    format!("{dst}: the destination is read-only"),
                ));
            }
            let n = size(k, dst, path)?;
            for t in srcs {
                storage_of(k, t, path)?;
                if size(k, t, path)? != n {
                    return Err(error(
                        k,
                        path,
                        format!("{t} and the destination differ in size"),
                    ));
                }
            }
            expression(k, f, srcs.len(), vars, path)?;
            if let Some(p) = pred {
                predicate(k, p, dst, path)?;
            }
            Ok(())
        }
        Stmt::Reduce { var, src, .. } => {
            if storage_of(k, src, path)?.0 != MemSpace::Rmem {
                return Err(error(
                    k,
                    path,
                    format!("{src}: a reduction reads a register fragment"),
                ));
            }
            size(k, src, path)?;
            define(k, var, vars, path)
        }
        Stmt::Shuffle { var, across, .. } => {
            if !(2..=32).contains(across) || across & (across - 1) != 0 {
                return Err(error(
                    k,
                    path,
                    format!("across {across} lanes: a power of two from 2 to 32"),
                ));
            }
            if k.threads() % 32 != 0 {
                return Err(error(
                    k,
                    path,
                    "warp shuffles need whole warps (threads a multiple of 32)",
                ));
            }
            if !vars.contains(var) {
                return Err(error(
                    k,
                    path,
                    format!("the scalar {var} is shuffled before it is set"),
                ));
            }
            Ok(())
        }
        Stmt::Let { var, f } => {
            expression(k, f, 0, vars, path)?;
            define(k, var, vars, path)
        }
        Stmt::For { var, extent, .. } => {
            if !is_ident(var) || k.param(var).is_some() || RESERVED.contains(&var.as_str()) {
                return Err(error(
                    k,
                    path,
                    format!("'{var}' cannot name a loop variable"),
                ));
            }
            uniform(k, extent, "the loop extent", path)
        }
        Stmt::Index { var, value } => {
            if !is_ident(var) || k.param(var).is_some() || RESERVED.contains(&var.as_str()) {
                return Err(error(k, path, format!("'{var}' cannot name an index")));
            }
            uniform(k, value, "the index", path)
        }
        Stmt::If { cond, then, els } => {
            if cond.per_thread() {
                divergent(k, then, path)?;
                divergent(k, els, path)?;
            }
            if matches!(cond, Cond::And(..)) && cond.elects() {
                return Err(error(
                    k,
                    path,
                    "elect.sync inside a conjunction: every thread of the warp reaches elect.sync, so it is a condition of its own".to_string(),
                ));
            }
            let mut c = vec![cond];
            while let Some(x) = c.pop() {
                match x {
                    Cond::Lt(..) | Cond::Le(..) | Cond::Elect => {}
                    Cond::And(a, b) => c.extend([a.as_ref(), b.as_ref()]),
                    Cond::NonZero(p) => {
                        let scalar = matches!(k.param(p).map(|q| q.ty), Some(ParamType::Scalar(_)));
                        if !scalar && !vars.contains(p) {
                            return Err(error(
                                k,
                                path,
                                format!("the condition {p} != 0: {p} is neither a scalar parameter nor a per-thread scalar set before it"),
                            ));
                        }
                    }
                }
            }
            Ok(())
        }
        Stmt::Bind { tensor, .. } => match tensor.engine() {
            Engine::Coord(_) => Ok(()),
            Engine::Ptr(_) => storage_of(k, tensor, path).map(|_| ()),
        },
        Stmt::Comment(_) => Ok(()),
        Stmt::Barrier(_) | Stmt::Tma { .. } | Stmt::TmaStore { .. } | Stmt::Mbarrier(_) => {
            super::pipeline::statement(k, s, path)
        }
        Stmt::Semaphore(op) => semaphore(k, op, path),
    }
}

/// A semaphore is one writable 32-bit integer in global memory, its value CTA-uniform.
fn semaphore(k: &Kernel, op: &SemOp, path: &str) -> Result<()> {
    let (sem, value) = op.parts();
    let (space, elem, writable) = storage_of(k, sem, path)?;
    if space != MemSpace::Gmem || elem != ElemType::I32 || !writable {
        return Err(error(
            k,
            path,
            format!(
                "{sem}: a semaphore is a writable int32_t in global memory, not {elem} in {space}"
            ),
        ));
    }
    if size(k, sem, path)? != 1 {
        return Err(error(k, path, format!("{sem}: a semaphore is one element")));
    }
    uniform(k, value, "the semaphore's value", path)
}

/// Values per instruction of the copy atoms that have a lowering, for elements of `elem`.
pub(crate) fn atom_values(op: CopyOp, elem: ElemType) -> Option<i64> {
    let bits = match op {
        CopyOp::UniversalCopy { bits } => bits,
        CopyOp::CpAsyncCacheAlways { bits } | CopyOp::CpAsyncCacheGlobal { bits } => bits,
        _ => return None,
    };
    let eb = elem.bits().max(1);
    (bits % eb == 0).then_some(i64::from(bits / eb))
}

/// An `ldmatrix` copy: shared memory of 16-bit values into registers, as many atoms on each
/// side (`CPY_S` values of the source per atom, `CPY_D` of the destination), on a target that
/// has it.
fn ldmatrix(
    k: &Kernel,
    op: CopyOp,
    matrices: u32,
    (ss, se, n, src): (MemSpace, ElemType, i64, &cute_layout::Tensor),
    (ds, m, dst): (MemSpace, i64, &cute_layout::Tensor),
    path: &str,
) -> Result<()> {
    let fail = |msg: String| Err(error(k, path, format!("{op}: {msg}")));
    if ss != MemSpace::Smem || ds != MemSpace::Rmem {
        return fail("ldmatrix copies shared memory into registers".into());
    }
    let Some((vs, vd)) = crate::lower::ldmatrix::values(op, se) else {
        return fail(format!(
            "ldmatrix moves 16-bit values (32-bit ones untransposed), not {se}"
        ));
    };
    for (t, v) in [(src, vs), (dst, vd)] {
        if vector(t).is_none_or(|x| x % v != 0) {
            return fail(format!("mode 0 of {t} must hold a multiple of {v} values"));
        }
    }
    if n / vs != m / vd {
        return fail(format!(
            "{n} source values ({vs} per atom) for {m} destination values ({vd} per atom, x{matrices})"
        ));
    }
    if !k.target.has(crate::target::Feature::Ldmatrix) {
        return fail(format!("{} has no ldmatrix", k.target));
    }
    Ok(())
}

/// An `stmatrix` copy: registers of 16-bit values into shared memory, as many atoms on each
/// side, on a target that has it.
fn stmatrix(
    k: &Kernel,
    op: CopyOp,
    (ss, se, n, src): (MemSpace, ElemType, i64, &cute_layout::Tensor),
    (ds, m, dst): (MemSpace, i64, &cute_layout::Tensor),
    path: &str,
) -> Result<()> {
    let fail = |msg: String| Err(error(k, path, format!("{op}: {msg}")));
    if ss != MemSpace::Rmem || ds != MemSpace::Smem {
        return fail("stmatrix copies registers into shared memory".into());
    }
    let Some((vs, vd)) = crate::lower::stmatrix::values(op, se) else {
        return fail(format!("stmatrix moves 16-bit values, not {se}"));
    };
    for (t, v) in [(src, vs), (dst, vd)] {
        if vector(t).is_none_or(|x| x % v != 0) {
            return fail(format!("mode 0 of {t} must hold a multiple of {v} values"));
        }
    }
    if n / vs != m / vd {
        return fail(format!(
            "{n} source values ({vs} per atom) for {m} destination values ({vd} per atom)"
        ));
    }
    if !k.target.has(crate::target::Feature::Stmatrix) {
        return fail(format!("{} has no stmatrix", k.target));
    }
    Ok(())
}

/// A warp MMA over `(V,MMA_M,MMA_K)`, `(V,MMA_N,MMA_K)`, `(V,MMA_M,MMA_N)` register fragments
/// of the atom's value counts and types, on a target with its tensor cores, for a kernel of
/// whole warps.
/// A warpgroup MMA (`wgmma`, SS or RS): the target has it, the block is whole warpgroups, A
/// (SS; RS: the thread's registers `(64 K / 128,X,Y)`) and B
/// are shared-memory partitions `(MMA,X,Y)` of the atom's `64 x K` / `N x K` tiles and C the
/// accumulator registers `(N/2,MMA_M,MMA_N)` (FP32, S32, or FP16 held in pairs), their modes
/// agreeing. The descriptors are checked
/// where they are written (the tile layouts `make_gmma_desc` accepts).
fn warpgroup_mma(
    k: &Kernel,
    op: MmaOp,
    [a, b, c]: [&cute_layout::Tensor; 3],
    path: &str,
) -> Result<()> {
    let fail = |msg: String| Err(error(k, path, format!("{op}: {msg}")));
    if !k.target.has(crate::target::Feature::Wgmma) {
        return fail(format!("{} has no wgmma (sm_90a only)", k.target));
    }
    if k.threads() % 128 != 0 {
        return fail(format!(
            "{} threads: a wgmma needs whole warpgroups (128 threads)",
            k.threads()
        ));
    }
    let MmaOp::Sm90(g) = op else {
        return fail("not a GMMA atom".into());
    };
    if crate::lower::wgmma::helper(&g).is_none() || (g.a_in_registers && g.a.bits() == 8) {
        return fail(
            "the wgmma lowering takes FP32, FP16 or S32 accumulators (RS over 16-bit or TF32 A)"
                .into(),
        );
    }
    let (m, n, kk) = g.mnk();
    let [_, ta, tb, tc] = op.types();
    let dims = |t: &cute_layout::Tensor,
                v: i64,
                ty: ElemType,
                space: MemSpace,
                what: &str|
     -> Result<(i64, i64)> {
        let (sp, e, _) = storage_of(k, t, path)?;
        if sp != space || !same_storage(e, ty) {
            return Err(error(
                k,
                path,
                format!("{op}: {what} {t} is {e} in {sp:?}, the atom takes {ty} in {space:?}"),
            ));
        }
        match crate::ir::index::warp_dims(t) {
            Some((x, y, z)) if x == v => Ok((y, z)),
            _ => Err(error(
                k,
                path,
                format!("{op}: {what} {t} is not ({v},{what}_X,{what}_Y)"),
            )),
        }
    };
    // A from shared memory (SS): the whole 64 x K tile a descriptor; from registers (RS): the
    // warpgroup's fragment, 64 K / 128 values a thread
    let (va, space_a) = match g.a_in_registers {
        false => (m * kk, MemSpace::Smem),
        true => (m * kk / 128, MemSpace::Rmem),
    };
    let ((ma, ka), (nb, kb), (mc, nc)) = (
        dims(a, va, ta, space_a, "A")?,
        dims(b, n * kk, tb, MemSpace::Smem, "B")?,
        dims(c, n / 2, tc, MemSpace::Rmem, "C")?,
    );
    if ka != kb || ma != mc || nb != nc {
        return fail(format!(
            "A is (_,{ma},{ka}), B (_,{nb},{kb}), C (_,{mc},{nc}): their M, N and K modes disagree"
        ));
    }
    Ok(())
}

fn warp_mma(k: &Kernel, op: MmaOp, [a, b, c]: [&cute_layout::Tensor; 3], path: &str) -> Result<()> {
    let fail = |msg: String| Err(error(k, path, format!("{op}: {msg}")));
    if let Some(f) = crate::target::Feature::of_mma(&op) {
        if !k.target.has(f) {
            return fail(format!("{} has no {f:?}", k.target));
        }
    }
    if k.threads() % 32 != 0 {
        return fail(format!(
            "{} threads: a warp MMA needs whole warps",
            k.threads()
        ));
    }
    let Some((va, vb, vc)) = crate::lower::mma_sync::values(op) else {
        return fail("no value layouts".into());
    };
    let [_, ta, tb, tc] = op.types();
    let dims = |t: &cute_layout::Tensor, v: i64, ty: ElemType, what: &str| -> Result<(i64, i64)> {
        let (_, e, _) = storage_of(k, t, path)?;
        if !same_storage(e, ty) {
            return Err(error(
                k,
                path,
                format!("{op}: {what} {t} holds {e}, the atom takes {ty}"),
            ));
        }
        match crate::ir::index::warp_dims(t) {
            Some((x, y, z)) if x == v => Ok((y, z)),
            _ => Err(error(
                k,
                path,
                format!("{op}: {what} {t} is not ({v},{what}_X,{what}_Y), {v} the atom's values per thread"),
            )),
        }
    };
    let ((ma, ka), (nb, kb), (mc, nc)) = (
        dims(a, va, ta, "A")?,
        dims(b, vb, tb, "B")?,
        dims(c, vc, tc, "C")?,
    );
    if ka != kb || ma != mc || nb != nc {
        return fail(format!(
            "A ({va},{ma},{ka}), B ({vb},{nb},{kb}) and C ({vc},{mc},{nc}) do not agree on MMA_M, MMA_N and MMA_K"
        ));
    }
    Ok(())
}

/// `a: (M,K)`, `b: (N,K)`, `c: (M,N)` after dropping a leading mode of size 1 (CuTe's MMA value
/// mode of UniversalFMA).
fn gemm_shapes(
    k: &Kernel,
    a: &cute_layout::Tensor,
    b: &cute_layout::Tensor,
    c: &cute_layout::Tensor,
    path: &str,
) -> Result<()> {
    let dims = crate::ir::index::fma_dims;
    let (Some((m, ka)), Some((n, kb)), Some((cm, cn))) = (dims(a), dims(b), dims(c)) else {
        return Err(error(
            k,
            path,
            "UniversalFMA fragments are (M,K), (N,K) and (M,N) (a leading mode of size 1 allowed)",
        ));
    };
    if ka != kb || m != cm || n != cn {
        return Err(error(
            k,
            path,
            format!("a is {m}x{ka}, b {n}x{kb}, c {cm}x{cn}: c += a * b needs a (M,K), b (N,K), c (M,N)"),
        ));
    }
    Ok(())
}

fn predicate(k: &Kernel, p: &Pred, guarded: &Tensor, path: &str) -> Result<()> {
    let Engine::Coord(origin) = p.coord.engine() else {
        return Err(error(
            k,
            path,
            format!("{}: a predicate's tensor is a coordinate tensor", p.coord),
        ));
    };
    if origin.len() != p.bounds.len() {
        return Err(error(
            k,
            path,
            format!(
                "{} coordinates checked against {} bounds",
                origin.len(),
                p.bounds.len()
            ),
        ));
    }
    if size(k, &p.coord, path)? != size(k, guarded, path)? {
        return Err(error(
            k,
            path,
            format!("the predicate {} and {guarded} differ in size", p.coord),
        ));
    }
    // a bound is the same for every thread of a block: the int parameters, the block indices
    // (a split-K CTA's `min(Kc, K - bz*Kc)`) and the CTA-uniform indices (a stream-K unit's
    // k length)
    let mut indices = HashSet::new();
    crate::ir::visit_stmts(&k.body, &mut |s| {
        if let Stmt::Index { var, .. } = s {
            indices.insert(var.as_str());
        }
    });
    let uniform =
        |n: &str| int_param(k, n) || matches!(n, "bx" | "by" | "bz") || indices.contains(n);
    for b in &p.bounds {
        if b.evaluate(&|n| uniform(n).then_some(1)).is_none() {
            return Err(error(
                k,
                path,
                format!(
                    "the bound {b} is not an expression of the int parameters and block indices"
                ),
            ));
        }
    }
    Ok(())
}

fn define(k: &Kernel, var: &str, vars: &mut HashSet<String>, path: &str) -> Result<()> {
    if !is_ident(var) || k.param(var).is_some() || RESERVED.contains(&var) {
        return Err(error(k, path, format!("'{var}' cannot name a scalar")));
    }
    vars.insert(var.to_string());
    Ok(())
}

/// An expression reads sources that exist, scalar parameters and defined scalars only.
fn expression(
    k: &Kernel,
    f: &EExpr,
    n_srcs: usize,
    vars: &HashSet<String>,
    path: &str,
) -> Result<()> {
    let mut bad = None;
    f.walk(&mut |e| {
        let problem = match e {
            EExpr::Arg(i) if *i >= n_srcs => Some(format!("source {i} of {n_srcs}")),
            EExpr::Param(n) => match k.param(n).map(|p| p.ty) {
                Some(ParamType::Scalar(_)) => None,
                Some(other) => Some(format!("the parameter {n} is {other:?}, not a scalar")),
                None => Some(format!("{n} is not a parameter")),
            },
            EExpr::Var(n) if !vars.contains(n) => {
                Some(format!("the scalar {n} is used before it is set"))
            }
            _ => None,
        };
        if bad.is_none() {
            bad = problem;
        }
    });
    match bad {
        Some(m) => Err(error(k, path, format!("expression: {m}"))),
        None => Ok(()),
    }
}

/// The branches of a condition on the thread index: each thread takes its own, so they hold
/// no `__syncthreads()` (the threads of the other branch never reach it) and no warp shuffle
/// (its partner lanes may sit the branch out).
fn divergent(k: &Kernel, body: &[Stmt], path: &str) -> Result<()> {
    let mut bad = None;
    crate::ir::visit_stmts(body, &mut |s| match s {
        Stmt::Barrier(Barrier::Cta) => bad = bad.or(Some("__syncthreads()")),
        Stmt::Semaphore(_) => bad = bad.or(Some("a semaphore (a CTA-wide barrier)")),
        Stmt::Shuffle { .. } => bad = bad.or(Some("a warp shuffle")),
        _ => {}
    });
    match bad {
        Some(what) => Err(error(
            k,
            path,
            format!("{what} under a condition on the thread index: threads that take the other branch never reach it"),
        )),
        None => Ok(()),
    }
}

/// Loop extents are the same for every thread of a block (they may read the
/// parameters, the block indices and the loop variables, not `tid`).
fn uniform(k: &Kernel, i: &Int, what: &str, path: &str) -> Result<()> {
    if sym::names(i).contains("tid") {
        return Err(error(
            k,
            path,
            format!("{what} {i} depends on the thread index: loop extents are CTA-uniform (use a predicate or a condition)"),
        ));
    }
    Ok(())
}

/// Whether values of `a` can move into storage of `b` (and an atom taking `b` read them) bit
/// for bit: the same width, and TF32 only with TF32 — the CUDA holds TF32 as its bits
/// (`unsigned`) and FP32 as `float`, so an assignment between them would convert the number.
fn same_storage(a: ElemType, b: ElemType) -> bool {
    a.bits() == b.bits() && ((a == ElemType::Tf32) == (b == ElemType::Tf32))
}
