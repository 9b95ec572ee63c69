//! A kernel's IR as text: its interface, storage, launch and body, one statement per line with
//! the tensors as CuTe prints them. Snapshot tests keep this text for every recipe.

use std::fmt;

use super::{BarRef, Barrier, Cond, Kernel, MbarrierOp, ParamType, Pred, SemOp, Stmt, Unroll};
use crate::cuda::{CExpr, Names};

struct Args;

impl Names for Args {
    fn arg(&self, i: usize) -> String {
        format!("${i}")
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "kernel {} for {}: {}", self.name, self.target, self.doc)?;
        for note in &self.notes {
            writeln!(f, "  note: {note}")?;
        }
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| match p.ty {
                ParamType::Int => format!("{}: int", p.name),
                ParamType::Scalar(e) => format!("{}: {e}", p.name),
                ParamType::Ptr {
                    elem,
                    writable,
                    align,
                } => format!(
                    "{}: {}{elem}* ({align}-byte aligned)",
                    p.name,
                    if writable { "" } else { "const " }
                ),
                ParamType::TensorMap { elem } => format!("{}: tensor map of {elem}", p.name),
            })
            .collect();
        writeln!(f, "  params: {}", params.join(", "))?;
        for m in &self.tensor_maps {
            let dims: Vec<String> = m.tma.dims.iter().map(|d| format!("{}", d.extent)).collect();
            writeln!(
                f,
                "  tensor map {}: dims ({}), {}",
                m.param,
                dims.join(","),
                m.tma
            )?;
        }
        for b in &self.mbarriers {
            writeln!(
                f,
                "  mbarriers {}[{}] of {} arrivals",
                b.name, b.len, b.count
            )?;
        }
        for b in &self.smem {
            let reuse = if b.reuses {
                ", over the buffers before it"
            } else {
                ""
            };
            writeln!(
                f,
                "  smem {}: {} {}, {}-byte aligned{reuse}",
                b.name, b.elem, b.layout, b.align
            )?;
        }
        for r in &self.regs {
            writeln!(f, "  regs {}: {}[{}]", r.name, r.elem, r.size)?;
        }
        let [gx, gy, gz] = &self.grid;
        let [x, y, z] = self.block;
        let cluster = match self.cluster {
            [1, 1, 1] => String::new(),
            [cx, cy, cz] => format!(", cluster ({cx}, {cy}, {cz})"),
        };
        writeln!(
            f,
            "  launch: grid ({gx}, {gy}, {gz}), block ({x}, {y}, {z}){cluster}, {} CTA(s) per SM",
            self.min_blocks_per_sm
        )?;
        for r in &self.requirements {
            writeln!(f, "  requires {r}")?;
        }
        writeln!(f, "  body:")?;
        body(f, &self.body, 2)
    }
}

fn body(f: &mut fmt::Formatter<'_>, stmts: &[Stmt], depth: usize) -> fmt::Result {
    for s in stmts {
        stmt(f, s, depth)?;
    }
    Ok(())
}

fn pred(p: &Option<Pred>) -> String {
    match p {
        None => String::new(),
        Some(p) => {
            let b: Vec<String> = p.bounds.iter().map(|b| b.to_string()).collect();
            format!(" if {} < ({})", p.coord, b.join(","))
        }
    }
}

fn cond(c: &Cond) -> String {
    match c {
        Cond::Lt(a, b) => format!("{a} < {b}"),
        Cond::Le(a, b) => format!("{a} <= {b}"),
        Cond::And(a, b) => format!("({}) && ({})", cond(a), cond(b)),
        Cond::NonZero(p) => format!("{p} != 0"),
        Cond::Elect => "elect.sync".to_string(),
    }
}

fn stmt(f: &mut fmt::Formatter<'_>, s: &Stmt, depth: usize) -> fmt::Result {
    let pad = "  ".repeat(depth);
    match s {
        Stmt::Comment(t) => writeln!(f, "{pad}// {t}"),
        Stmt::Bind { name, tensor } => writeln!(f, "{pad}{name} = {tensor}"),
        Stmt::For {
            var,
            extent,
            unroll,
            body: inner,
        } => {
            let u = match unroll {
                Unroll::Full => " unroll".to_string(),
                Unroll::None => String::new(),
                Unroll::By(n) => format!(" unroll {n}"),
                Unroll::Auto => " unroll auto".to_string(),
            };
            writeln!(f, "{pad}for {var} in 0..{extent}{u} {{")?;
            body(f, inner, depth + 1)?;
            writeln!(f, "{pad}}}")
        }
        Stmt::If { cond: c, then, els } => {
            writeln!(f, "{pad}if {} {{", cond(c))?;
            body(f, then, depth + 1)?;
            if !els.is_empty() {
                writeln!(f, "{pad}}} else {{")?;
                body(f, els, depth + 1)?;
            }
            writeln!(f, "{pad}}}")
        }
        Stmt::Copy {
            atom,
            src,
            dst,
            pred: p,
        } => {
            writeln!(f, "{pad}copy({}){}: {src} -> {dst}", atom.op(), pred(p))
        }
        Stmt::Gemm {
            atom,
            a,
            b,
            c,
            overwrite,
        } => {
            let first = match overwrite {
                Some(cond) => format!(" (k block 0 overwrites where {cond:?})"),
                None => String::new(),
            };
            writeln!(f, "{pad}gemm({}): {a} x {b} -> {c}{first}", atom.op())
        }
        Stmt::Map {
            dst,
            srcs,
            f: e,
            pred: p,
        } => {
            let srcs: Vec<String> = srcs
                .iter()
                .enumerate()
                .map(|(i, t)| format!("${i} = {t}"))
                .collect();
            writeln!(
                f,
                "{pad}map{}: {dst} = {} where {}",
                pred(p),
                CExpr(e, &Args),
                srcs.join(", ")
            )
        }
        Stmt::Reduce { var, op, src } => writeln!(f, "{pad}{var} = reduce {op:?} over {src}"),
        Stmt::Shuffle { var, op, across } => {
            writeln!(f, "{pad}{var} = {op:?} across {across} lanes")
        }
        Stmt::Let { var, f: e } => writeln!(f, "{pad}{var} = {}", CExpr(e, &Args)),
        Stmt::Index { var, value } => writeln!(f, "{pad}index {var} = {value}"),
        Stmt::Barrier(b) => match b {
            Barrier::Cta => writeln!(f, "{pad}sync"),
            Barrier::CpAsyncCommit => writeln!(f, "{pad}cp.async commit"),
            Barrier::CpAsyncWait(n) => writeln!(f, "{pad}cp.async wait {n}"),
            Barrier::ProxyAsync => writeln!(f, "{pad}fence.proxy.async"),
            Barrier::WgmmaFence => writeln!(f, "{pad}wgmma fence"),
            Barrier::WgmmaCommit => writeln!(f, "{pad}wgmma commit"),
            Barrier::WgmmaWait(n) => writeln!(f, "{pad}wgmma wait {n}"),
            Barrier::Named { id, threads } => writeln!(f, "{pad}bar.sync {id}, {threads}"),
            Barrier::SetMaxNReg { inc, regs } => {
                let dir = if *inc { "inc" } else { "dec" };
                writeln!(f, "{pad}setmaxnreg.{dir} {regs}")
            }
            Barrier::MbarrierInit => writeln!(f, "{pad}fence.mbarrier_init"),
            Barrier::BulkCommit => writeln!(f, "{pad}bulk commit"),
            Barrier::BulkWaitRead(n) => writeln!(f, "{pad}bulk wait {n} (read)"),
            Barrier::Cluster => writeln!(f, "{pad}cluster barrier"),
        },
        Stmt::Tma {
            map,
            coords,
            dst,
            bar,
            multicast,
        } => {
            let c: Vec<String> = coords.iter().map(|c| c.to_string()).collect();
            let mc = match multicast {
                Some(mask) => format!(" multicast to CTAs {mask}"),
                None => String::new(),
            };
            writeln!(
                f,
                "{pad}tma load {map}({}) -> {dst} on {}{mc}",
                c.join(", "),
                bar_ref(bar)
            )
        }
        Stmt::TmaStore { map, coords, src } => {
            let c: Vec<String> = coords.iter().map(|c| c.to_string()).collect();
            writeln!(f, "{pad}tma store {src} -> {map}({})", c.join(", "))
        }
        Stmt::Mbarrier(op) => match op {
            MbarrierOp::Init(name) => writeln!(f, "{pad}mbarrier init {name}"),
            MbarrierOp::ArriveExpectTx { bar, bytes } => {
                writeln!(
                    f,
                    "{pad}mbarrier arrive {} expecting {bytes} bytes",
                    bar_ref(bar)
                )
            }
            MbarrierOp::Arrive(bar) => writeln!(f, "{pad}mbarrier arrive {}", bar_ref(bar)),
            MbarrierOp::ArriveCluster { bar, cta } => {
                writeln!(f, "{pad}mbarrier arrive {} of CTA {cta}", bar_ref(bar))
            }
            MbarrierOp::Wait { bar, parity } => {
                writeln!(f, "{pad}mbarrier wait {} parity {parity}", bar_ref(bar))
            }
        },
        Stmt::Semaphore(SemOp::Wait { sem, value }) => {
            writeln!(f, "{pad}semaphore wait {sem} == {value}")
        }
        Stmt::Semaphore(SemOp::Release { sem, value }) => {
            writeln!(f, "{pad}semaphore release {sem} = {value}")
        }
    }
}

fn bar_ref(b: &BarRef) -> String {
    format!("{}[{}]", b.name, b.index)
}
