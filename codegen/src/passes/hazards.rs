//! Shared-memory hazards between barriers, at buffer granularity: a read of a shared buffer
//! after a write to it with no `__syncthreads()` between (other threads' writes are not yet
//! visible), a write after a read with no barrier between (other threads may still be reading),
//! and a read of a buffer whose only writes are `cp.async` copies not yet waited for. Loops are
//! walked twice, so a hazard between one iteration's end and the next one's start is found;
//! both branches of a condition are walked and their states merged.
//!
//! The check is conservative where threads touch only their own elements (it does not know
//! which thread wrote what); the CPU interpreter's element-level race detection is the precise
//! check.

use std::collections::BTreeMap;

use cute_layout::{Engine, MemSpace, Tensor};

use super::{describe, error};
use crate::error::Result;
use crate::ir::{Barrier, Kernel, Stmt};

#[derive(Debug, Clone, Default)]
struct State {
    /// Buffers written since the last barrier (and by which statement).
    written: BTreeMap<String, String>,
    /// Buffers read since the last barrier.
    read: BTreeMap<String, String>,
    /// `cp.async` writes not yet waited for: (group index or `None` if not committed, buffer,
    /// statement).
    pending: Vec<(Option<usize>, String, String)>,
    /// Buffers whose `cp.async` writes landed (after a wait) at some point.
    landed: BTreeMap<String, String>,
    groups: usize,
}

pub fn shared_memory(k: &Kernel) -> Result<()> {
    let mut st = State::default();
    body(k, &k.body, "body", &mut st)
}

fn smem_name(t: &Tensor) -> Option<&str> {
    match t.engine() {
        Engine::Ptr(p) if p.space == MemSpace::Smem => Some(&p.name),
        _ => None,
    }
}

fn body(k: &Kernel, stmts: &[Stmt], path: &str, st: &mut State) -> Result<()> {
    for (i, s) in stmts.iter().enumerate() {
        let here = format!("{path}[{i}] {}", describe(s));
        match s {
            Stmt::For {
                var, body: inner, ..
            } => {
                let p = format!("{path}[{i}].for {var}");
                body(k, inner, &p, st)?;
                body(k, inner, &p, st)?;
            }
            Stmt::If { then, els, .. } => {
                let mut other = st.clone();
                body(k, then, &format!("{path}[{i}].then"), st)?;
                body(k, els, &format!("{path}[{i}].else"), &mut other)?;
                merge(st, other);
            }
            Stmt::Copy { atom, src, dst, .. } => {
                if let Some(b) = smem_name(src) {
                    read(k, st, b, &here)?;
                }
                if let Some(b) = smem_name(dst) {
                    if atom.op().is_async() {
                        war(k, st, b, &here)?;
                        st.pending.push((None, b.to_string(), here.clone()));
                    } else {
                        write(k, st, b, &here)?;
                    }
                }
            }
            Stmt::Map { dst, srcs, .. } => {
                for t in srcs {
                    if let Some(b) = smem_name(t) {
                        read(k, st, b, &here)?;
                    }
                }
                if let Some(b) = smem_name(dst) {
                    write(k, st, b, &here)?;
                }
            }
            Stmt::Barrier(b) => barrier(st, *b),
            Stmt::Gemm { .. }
            | Stmt::Reduce { .. }
            | Stmt::Shuffle { .. }
            | Stmt::Let { .. }
            | Stmt::Comment(_)
            | Stmt::Bind { .. } => {}
        }
    }
    Ok(())
}

fn read(k: &Kernel, st: &mut State, b: &str, here: &str) -> Result<()> {
    if let Some(w) = st.written.get(b) {
        return Err(error(
            k,
            here,
            format!("reads {b} after the write at {w} with no __syncthreads() between"),
        ));
    }
    let pending = st.pending.iter().find(|(_, p, _)| p == b);
    if let (Some((_, _, w)), None) = (pending, st.landed.get(b)) {
        return Err(error(
            k,
            here,
            format!("reads {b} before the cp.async at {w} is waited for (cp.async.wait_group, then __syncthreads())"),
        ));
    }
    st.read
        .entry(b.to_string())
        .or_insert_with(|| here.to_string());
    Ok(())
}

fn war(k: &Kernel, st: &State, b: &str, here: &str) -> Result<()> {
    match st.read.get(b) {
        Some(r) => Err(error(
            k,
            here,
            format!("writes {b} while other threads may still read it at {r} (no __syncthreads() between)"),
        )),
        None => Ok(()),
    }
}

fn write(k: &Kernel, st: &mut State, b: &str, here: &str) -> Result<()> {
    war(k, st, b, here)?;
    st.written
        .entry(b.to_string())
        .or_insert_with(|| here.to_string());
    Ok(())
}

fn barrier(st: &mut State, b: Barrier) {
    match b {
        Barrier::Cta => {
            st.written.clear();
            st.read.clear();
        }
        Barrier::CpAsyncCommit => {
            let g = st.groups;
            st.groups += 1;
            for p in st.pending.iter_mut().filter(|p| p.0.is_none()) {
                p.0 = Some(g);
            }
        }
        Barrier::CpAsyncWait(n) => {
            let keep_from = st.groups.saturating_sub(usize::try_from(n).unwrap_or(0));
            let (done, still): (Vec<_>, Vec<_>) = std::mem::take(&mut st.pending)
                .into_iter()
                .partition(|(g, _, _)| g.is_some_and(|g| g < keep_from));
            st.pending = still;
            for (_, b, w) in done {
                st.landed.insert(b.clone(), w.clone());
                st.written.entry(b).or_insert(w);
            }
        }
    }
}

fn merge(st: &mut State, other: State) {
    st.written.extend(other.written);
    st.read.extend(other.read);
    st.landed.extend(other.landed);
    for p in other.pending {
        if !st.pending.contains(&p) {
            st.pending.push(p);
        }
    }
    st.groups = st.groups.max(other.groups);
}
