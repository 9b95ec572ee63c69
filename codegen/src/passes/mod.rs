//! The passes over the kernel IR. `verify` runs before a kernel can be lowered or interpreted:
//! every statement's operands are declared storage of the right type and space, shapes match,
//! the atoms have a lowering, expressions are well typed (`checks`); every vector access is
//! aligned, or the launch requirement that makes it so is recorded with where it came from
//! (`align`); shared memory fits the target; and no shared buffer is read after a write without
//! the barrier between them (`hazards`).

mod align;
mod checks;
mod hazards;
mod pack16;
mod pipeline;

pub(crate) use align::prefix_mode;
pub use align::vector_requirements;
pub(crate) use checks::atom_values;
pub use pack16::{accumulator_pairs, paired_registers};

use crate::error::{CodegenError, Result};
use crate::ir::{Kernel, Stmt};

/// Checks a kernel; the launch requirements its vector accesses need are added to it.
pub fn verify(k: &Kernel) -> Result<Vec<crate::kernel::Requirement>> {
    checks::kernel(k)?;
    let reqs = align::vector_requirements(k)?;
    hazards::shared_memory(k)?;
    Ok(reqs)
}

/// The error of statement `path` (`body[2].for kt[0]`) of kernel `k`.
pub(crate) fn error(k: &Kernel, stmt: &str, msg: impl Into<String>) -> CodegenError {
    CodegenError::Kernel {
        kernel: k.name.clone(),
        stmt: stmt.to_string(),
        msg: msg.into(),
    }
}

/// Calls `f` on every statement with its path, depth first.
pub(crate) fn walk<'a>(
    body: &'a [Stmt],
    path: &str,
    f: &mut impl FnMut(&'a Stmt, &str) -> Result<()>,
) -> Result<()> {
    for (i, s) in body.iter().enumerate() {
        let here = format!("{path}[{i}]");
        f(s, &format!("{here} {}", describe(s)))?;
        match s {
            Stmt::For { var, body, .. } => walk(body, &format!("{here}.for {var}"), f)?,
            Stmt::If { then, els, .. } => {
                walk(then, &format!("{here}.then"), f)?;
                walk(els, &format!("{here}.else"), f)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// A short description of a statement for messages (`copy A -> sA`).
pub fn describe(s: &Stmt) -> String {
    let name = |t: &cute_layout::Tensor| match t.engine() {
        cute_layout::Engine::Ptr(p) => p.name.clone(),
        cute_layout::Engine::Coord(_) => "coordinates".to_string(),
    };
    match s {
        Stmt::Comment(_) => "comment".into(),
        Stmt::Bind { name, .. } => format!("bind {name}"),
        Stmt::Shuffle { var, across, .. } => format!("shuffle {var} across {across}"),
        Stmt::For { var, .. } => format!("for {var}"),
        Stmt::If { .. } => "if".into(),
        Stmt::Copy { atom, src, dst, .. } => {
            format!("copy({}) {} -> {}", atom.op(), name(src), name(dst))
        }
        Stmt::Gemm { a, b, c, .. } => format!("gemm {} x {} -> {}", name(a), name(b), name(c)),
        Stmt::Map { dst, srcs, .. } => format!(
            "map {} -> {}",
            srcs.iter().map(name).collect::<Vec<_>>().join(", "),
            name(dst)
        ),
        Stmt::Reduce { var, src, .. } => format!("reduce {} -> {var}", name(src)),
        Stmt::Let { var, .. } => format!("let {var}"),
        Stmt::Index { var, .. } => format!("index {var}"),
        Stmt::Barrier(b) => format!("{b:?}"),
        Stmt::Tma { map, dst, .. } => format!("tma load {map} -> {}", name(dst)),
        Stmt::TmaStore { map, src, .. } => format!("tma store {} -> {map}", name(src)),
        Stmt::Mbarrier(op) => format!("mbarrier {op:?}"),
        Stmt::Semaphore(op) => match op {
            crate::ir::SemOp::Wait { sem, .. } => format!("semaphore wait {}", name(sem)),
            crate::ir::SemOp::Release { sem, .. } => format!("semaphore release {}", name(sem)),
        },
    }
}
