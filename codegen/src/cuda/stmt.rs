//! Statements to CUDA: loops, conditions, barriers, scalar arithmetic here; copies and MMAs
//! through the atoms' lowerings. Every element reference is `buffer[offset]` with the offset the
//! layout algebra gives element `j` of the tensor (`ir::index`).

use cute_layout::atom::{CopyOp, MmaOp};
use cute_layout::{ElemType, Engine, Int, MemSpace, Tensor};

use super::cexpr::{CExpr, CInt, Names};
use super::elem_loop;
use crate::error::Result;
use crate::ir::index::{addr, coord, size, Addr};
use crate::ir::{BarRef, Barrier, Cond, EExpr, Kernel, MbarrierOp, Pred, SemOp, Stmt, Unroll};
use crate::lower::{self, LoopBound, Needs};
use crate::passes::{describe, error};
use crate::writer::Writer;

pub(super) fn body(k: &Kernel, stmts: &[Stmt], w: &mut Writer, needs: &mut Needs) -> Result<()> {
    for s in stmts {
        statement(k, s, w, needs)?;
    }
    Ok(())
}

fn statement(k: &Kernel, s: &Stmt, w: &mut Writer, needs: &mut Needs) -> Result<()> {
    let here = describe(s);
    match s {
        Stmt::Comment(t) => {
            w.comment(t);
        }
        Stmt::Bind { name, tensor } => {
            w.comment(format!("{name}: {tensor}"));
        }
        Stmt::For {
            var,
            extent,
            unroll,
            body: inner,
        } => {
            match unroll {
                Unroll::Full => {
                    w.line("#pragma unroll");
                }
                Unroll::None => {
                    w.line("#pragma unroll 1");
                }
                Unroll::By(n) => {
                    w.line(format!("#pragma unroll {n}"));
                }
                Unroll::Auto => {}
            };
            needs.gcd |= super::needs_gcd(extent);
            w.open(format!(
                "for (cute_idx {var} = 0; {var} < {}; ++{var})",
                CInt(extent)
            ));
            let bounded = extent.as_static().filter(|&n| n > 0).map(|n| LoopBound {
                var: var.clone(),
                max: n - 1,
                unrolled: *unroll == Unroll::Full,
            });
            let pushed = bounded.is_some();
            needs.loops.extend(bounded);
            let r = body(k, inner, w, needs);
            if pushed {
                needs.loops.pop();
            }
            r?;
            w.close("");
        }
        Stmt::If { cond, then, els } => {
            w.open(format!("if ({})", cond_c(cond, needs)));
            // `if (kb1 < 7)` over a loop index: the then-branch sees kb1 <= 6
            let saved = needs.loops.clone();
            narrow(cond, needs);
            let r = body(k, then, w, needs);
            needs.loops = saved;
            r?;
            if !els.is_empty() {
                w.reopen("else");
                body(k, els, w, needs)?;
            }
            w.close("");
        }
        Stmt::Copy {
            atom,
            src,
            dst,
            pred,
        } => copy(
            k,
            &here,
            atom.op(),
            atom.val_type(),
            src,
            dst,
            pred.as_ref(),
            w,
            needs,
        )?,
        Stmt::Gemm {
            atom,
            a,
            b,
            c,
            overwrite,
        } => match (atom.op(), overwrite) {
            (MmaOp::Sm90(g), first) => {
                warpgroup_gemm(k, &here, &g, [a, b, c], first.as_ref(), w, needs)?
            }
            (op, None) => gemm(k, &here, op, a, b, c, w, needs)?,
            (op, Some(_)) => {
                return Err(error(
                    k,
                    &here,
                    format!("{op}: only a GMMA's first k block overwrites its accumulator"),
                ))
            }
        },
        Stmt::Map { dst, srcs, f, pred } => hoisted(w, needs, |w, needs| {
            map(k, &here, dst, srcs, f, pred.as_ref(), w, needs)
        })?,
        Stmt::Reduce { var, op, src } => {
            let n = size(src).unwrap_or(0);
            for j in 0..n {
                let x = to_float(
                    &elem_ref(k, &here, src, j, needs)?,
                    storage_type(k, src),
                    needs,
                );
                if j == 0 {
                    w.line(format!("{var} = {x};"));
                } else {
                    let e = EExpr::Binary(*op, Box::new(EExpr::var(var)), Box::new(EExpr::arg(0)));
                    w.line(format!("{var} = {};", CExpr(&e, &Args(vec![x]))));
                }
            }
        }
        Stmt::Shuffle { var, op, across } => {
            let mut o = across / 2;
            while o > 0 {
                let e = EExpr::Binary(*op, Box::new(EExpr::var(var)), Box::new(EExpr::arg(0)));
                let other = format!("__shfl_xor_sync(0xffffffffu, {var}, {o})");
                w.line(format!("{var} = {};", CExpr(&e, &Args(vec![other]))));
                o /= 2;
            }
        }
        Stmt::Let { var, f } => {
            w.line(format!("{var} = {};", CExpr(f, &Args(vec![]))));
        }
        Stmt::Index { var, value } => {
            needs.gcd |= super::needs_gcd(value);
            w.line(format!("const cute_idx {var} = {};", CInt(value)));
        }
        Stmt::Barrier(b) => match b {
            Barrier::Cta => {
                w.line("__syncthreads();");
            }
            Barrier::CpAsyncCommit => lower::cp_async::commit(w),
            Barrier::CpAsyncWait(n) => lower::cp_async::wait(w, *n),
            Barrier::ProxyAsync => lower::wgmma::fence_proxy_async(w),
            Barrier::WgmmaFence => lower::wgmma::fence(w),
            Barrier::WgmmaCommit => lower::wgmma::commit(w),
            Barrier::WgmmaWait(n) => lower::wgmma::wait(w, *n),
            Barrier::Named { id, threads } => lower::tma::named_barrier(w, *id, *threads),
            Barrier::SetMaxNReg { inc, regs } => lower::tma::setmaxnreg(w, *inc, *regs),
            Barrier::MbarrierInit => lower::tma::fence_mbarrier_init(w),
            Barrier::BulkCommit => lower::tma::bulk_commit(w),
            Barrier::BulkWaitRead(n) => lower::tma::bulk_wait_read(w, *n),
            Barrier::Cluster => lower::tma::cluster_barrier(w),
        },
        Stmt::Tma {
            map,
            coords,
            dst,
            bar,
            multicast,
        } => tma_load(
            k,
            &here,
            (map, coords),
            dst,
            bar,
            multicast.as_ref(),
            w,
            needs,
        )?,
        Stmt::TmaStore { map, coords, src } => tma_store(k, &here, map, coords, src, w, needs)?,
        Stmt::Mbarrier(op) => mbarrier(k, op, w, needs),
        Stmt::Semaphore(op) => {
            let (sem, value) = op.parts();
            needs.gcd |= super::needs_gcd(value);
            let at = elem_ref(k, &here, sem, 0, needs)?;
            needs.fns.insert(
                "cute_semaphore".into(),
                lower::semaphore::SEMAPHORE_FNS.into(),
            );
            let release = matches!(op, SemOp::Release { .. });
            w.line(lower::semaphore::call(
                release,
                &format!("&{at}"),
                &CInt(value).to_string(),
            ));
        }
    }
    Ok(())
}

/// An mbarrier operation, through the `cute_mbar_*` helpers.
fn mbarrier(k: &Kernel, op: &MbarrierOp, w: &mut Writer, needs: &mut Needs) {
    needs.lds = true; // cute_smem_u32
    needs
        .fns
        .insert("cute_mbar".into(), lower::tma::MBARRIER_FNS.into());
    let at = |b: &BarRef, needs: &mut Needs| {
        needs.gcd |= super::needs_gcd(&b.index);
        format!("&{}[{}]", b.name, CInt(&b.index))
    };
    match op {
        MbarrierOp::Init(name) => {
            let (len, count) = k.mbarrier(name).map_or((0, 0), |b| (b.len, b.count));
            w.open(format!("for (int i = 0; i < {len}; ++i)"));
            w.line(format!("cute_mbar_init(&{name}[i], {count}u);"));
            w.close("");
        }
        MbarrierOp::ArriveExpectTx { bar, bytes } => {
            let b = at(bar, needs);
            w.line(format!("cute_mbar_arrive_expect_tx({b}, {bytes}u);"));
        }
        MbarrierOp::Arrive(bar) => {
            let b = at(bar, needs);
            w.line(format!("cute_mbar_arrive({b});"));
        }
        MbarrierOp::ArriveCluster { bar, cta } => {
            let b = at(bar, needs);
            needs.gcd |= super::needs_gcd(cta);
            needs.fns.insert(
                "cute_mbar_cluster".into(),
                lower::tma::MBARRIER_CLUSTER_FN.into(),
            );
            w.line(format!(
                "cute_mbar_arrive_cluster({b}, static_cast<unsigned>({}));",
                CInt(cta)
            ));
        }
        MbarrierOp::Wait { bar, parity } => {
            let b = at(bar, needs);
            needs.gcd |= super::needs_gcd(parity);
            w.line(format!(
                "cute_mbar_wait({b}, static_cast<unsigned>({}));",
                CInt(parity)
            ));
        }
    }
}

/// One TMA load: the box of `map` at `coords` into the shared tile `dst`, completing on `bar`
/// (of every CTA of the `multicast` mask).
#[allow(clippy::too_many_arguments)]
fn tma_load(
    k: &Kernel,
    here: &str,
    (map, coords): (&str, &[Int]),
    dst: &Tensor,
    bar: &BarRef,
    multicast: Option<&Int>,
    w: &mut Writer,
    needs: &mut Needs,
) -> Result<()> {
    let smem = tma_smem(k, here, dst, needs)?;
    let rank = coords.len();
    let (name, def) = match multicast {
        None => (lower::tma::load_name(rank), lower::tma::load_fn(rank)),
        Some(_) => (
            lower::tma::load_multicast_name(rank),
            lower::tma::load_multicast_fn(rank),
        ),
    };
    needs.fns.insert(name.clone(), def);
    needs.gcd |= super::needs_gcd(&bar.index);
    let mask = match multicast {
        None => String::new(),
        Some(m) => {
            needs.gcd |= super::needs_gcd(m);
            format!("static_cast<unsigned short>({}), ", CInt(m))
        }
    };
    w.line(format!(
        "{name}({smem}, &{map}, &{}[{}], {mask}{});",
        bar.name,
        CInt(&bar.index),
        tma_coords(coords, needs)
    ));
    Ok(())
}

/// One TMA store: the shared tile `src` into the box of `map` at `coords`.
fn tma_store(
    k: &Kernel,
    here: &str,
    map: &str,
    coords: &[Int],
    src: &Tensor,
    w: &mut Writer,
    needs: &mut Needs,
) -> Result<()> {
    let smem = tma_smem(k, here, src, needs)?;
    let name = lower::tma::store_name(coords.len());
    needs
        .fns
        .insert(name.clone(), lower::tma::store_fn(coords.len()));
    w.line(format!(
        "{name}(&{map}, {smem}, {});",
        tma_coords(coords, needs)
    ));
    Ok(())
}

/// A box's coordinates as the helpers take them.
fn tma_coords(coords: &[Int], needs: &mut Needs) -> String {
    let cs: Vec<String> = coords
        .iter()
        .map(|c| {
            needs.gcd |= super::needs_gcd(c);
            format!("static_cast<int>({})", CInt(c))
        })
        .collect();
    cs.join(", ")
}

/// The shared byte address of a TMA box's tile `t` (its first element), whose unswizzled
/// offset must be a multiple of the swizzle's period (TMA swizzles the byte address, as the
/// layout does only from a period's start).
fn tma_smem(k: &Kernel, here: &str, t: &Tensor, needs: &mut Needs) -> Result<String> {
    let Engine::Ptr(p) = t.engine() else {
        return Err(error(
            k,
            here,
            format!("{t}: a TMA box's tile is in shared memory"),
        ));
    };
    let buf = k
        .smem_buf(&p.name)
        .ok_or_else(|| error(k, here, format!("{t}: {} is not a shared buffer", p.name)))?;
    let le = |e: cute_layout::Error| error(k, here, format!("{t}: {e}"));
    let origin = cute_layout::IntTuple::Int(cute_layout::s(0));
    let (inside, period) = match t.layout() {
        cute_layout::AnyLayout::Plain(l) => (l.crd2idx(&origin).map_err(le)?, 1),
        cute_layout::AnyLayout::Composed(l) => {
            let (b, m, s) = l.layout_a().params();
            let at = l
                .offset()
                .add(&l.layout_b().crd2idx(&origin).map_err(le)?)
                .map_err(le)?;
            (
                at,
                1i64 << (i64::from(b) + i64::from(m) + i64::from(s)).clamp(0, 62),
            )
        }
    };
    let off = p.offset.add(&inside).map_err(le)?;
    if period > 1 && crate::ir::sym::divisible(&off, period, &|_| false).is_err() {
        return Err(error(k, here, format!("{t}: its offset {off} is not a multiple of the swizzle's {period} elements, where TMA's address-based swizzle agrees with the layout's")));
    }
    needs.lds = true; // cute_smem_u32
    needs.gcd |= super::needs_gcd(&off);
    let bytes = i64::from(buf.elem.bits()) / 8;
    Ok(format!(
        "cute_smem_u32({}) + {bytes}u * ({})",
        p.name,
        CInt(&off)
    ))
}

/// The C names of a map's sources.
struct Args(Vec<String>);

impl Names for Args {
    fn arg(&self, i: usize) -> String {
        self.0.get(i).cloned().unwrap_or_else(|| "0.0f".into())
    }
}

fn cond_c(c: &Cond, needs: &mut Needs) -> String {
    match c {
        Cond::Lt(a, b) | Cond::Le(a, b) => {
            needs.gcd |= super::needs_gcd(a) || super::needs_gcd(b);
            let op = if matches!(c, Cond::Lt(..)) { "<" } else { "<=" };
            format!("{} {op} {}", CInt(a), CInt(b))
        }
        Cond::And(a, b) => format!("({}) && ({})", cond_c(a, needs), cond_c(b, needs)),
        Cond::NonZero(p) => format!("{p} != 0.0f"),
        Cond::Elect => {
            needs
                .fns
                .insert("cute_elect_one".into(), lower::tma::ELECT_ONE_FN.into());
            "cute_elect_one()".to_string()
        }
    }
}

/// `name[offset]` of element `j`.
fn elem_ref(k: &Kernel, here: &str, t: &Tensor, j: i64, needs: &mut Needs) -> Result<String> {
    let (name, off) = elem_off(k, here, t, j, needs)?;
    Ok(format!("{name}[{off}]"))
}

/// The references of elements `first .. first + n` (one atom's values of a fragment).
fn elem_refs(
    k: &Kernel,
    here: &str,
    t: &Tensor,
    first: i64,
    n: i64,
    needs: &mut Needs,
) -> Result<Vec<String>> {
    (first..first + n)
        .map(|j| elem_ref(k, here, t, j, needs))
        .collect()
}

/// Whether `t` lies in a 16-bit register buffer held two values per register
/// (`passes::paired_registers`).
fn paired(t: &Tensor, needs: &Needs) -> bool {
    matches!(t.engine(), Engine::Ptr(p) if needs.pairs.contains(&p.name) || needs.viewed.contains(&p.name))
}

/// The registers of values `first .. first + n` of a paired 16-bit fragment, two values each:
/// value `first + 2r` must lie at an even offset and `first + 2r + 1` right after it, so the
/// pair is register `offset / 2` (low half, high half), the order `ldmatrix` and `mma.sync` use.
fn pair_refs(
    k: &Kernel,
    here: &str,
    t: &Tensor,
    first: i64,
    n: i64,
    needs: &mut Needs,
) -> Result<Vec<String>> {
    let Engine::Ptr(p) = t.engine() else {
        return Err(error(k, here, format!("{t}: not a register fragment")));
    };
    let at = |j: i64| match addr(t, j) {
        Ok(Addr::Lin(o)) => Ok(o),
        Ok(_) => Err(error(k, here, format!("{t}: a swizzled register fragment"))),
        Err(e) => Err(error(k, here, format!("{t}, element {j}: {e}"))),
    };
    (0..n / 2)
        .map(|r| {
            let (lo, hi) = (at(first + 2 * r)?, at(first + 2 * r + 1)?);
            let next = hi.sub(&lo).is_ok_and(|d| d.value() == Some(1));
            let even = crate::ir::sym::divisible(&lo, 2, &|_| false).is_ok();
            if !next || !even {
                return Err(error(
                    k,
                    here,
                    format!("{t}: values {} and {} at offsets {lo} and {hi} are not one register (an even offset and the next)", first + 2 * r, first + 2 * r + 1),
                ));
            }
            let half = lo
                .div(&cute_layout::s(2))
                .map_err(|e| error(k, here, format!("{lo} / 2: {e}")))?;
            needs.gcd |= super::needs_gcd(&half);
            let pairs = match needs.viewed.contains(&p.name) {
                true => format!("{}_pairs", p.name),
                false => p.name.clone(),
            };
            Ok(format!("{pairs}[{}]", CInt(&half)))
        })
        .collect()
}

/// The buffer and the offset (a C expression, in elements) of element `j`.
fn elem_off(
    k: &Kernel,
    here: &str,
    t: &Tensor,
    j: i64,
    needs: &mut Needs,
) -> Result<(String, String)> {
    let (name, off, _) = elem_parts(k, here, t, j, needs)?;
    Ok((name, off))
}

/// [`elem_off`], with the split swizzle of a swizzled offset whose base is 0 (what
/// [`smem_window`] moves onto the address).
fn elem_parts(
    k: &Kernel,
    here: &str,
    t: &Tensor,
    j: i64,
    needs: &mut Needs,
) -> Result<(String, String, Option<Swz>)> {
    let Engine::Ptr(p) = t.engine() else {
        return Err(error(
            k,
            here,
            format!("{t}: a coordinate tensor has no elements in memory"),
        ));
    };
    let a = addr(t, j).map_err(|e| error(k, here, format!("{t}, element {j}: {e}")))?;
    Ok(match &a {
        Addr::Lin(o) => {
            needs.gcd |= super::needs_gcd(o);
            (p.name.clone(), CInt(o).to_string(), None)
        }
        Addr::Swz { base, sw, arg } => {
            needs.gcd |= super::needs_gcd(base) || super::needs_gcd(arg);
            let parts = swizzle_parts(k, *sw, arg, needs);
            let swz = parts.offset();
            if base.is_constant(0) {
                (p.name.clone(), swz, Some(parts))
            } else {
                (p.name.clone(), format!("{} + {swz}", CInt(base)), None)
            }
        }
    })
}

/// The 32-bit shared-window byte address of an element of shared tensor `t` at offset `off`
/// (from [`elem_parts`]): `cute_smem_u32(sB) + bytes * off`. For a swizzled offset split as
/// `(d ^ x) + a` ([`swizzle_parts`]) over a buffer whose window address is aligned past every bit of
/// `bytes * x`, the XOR moves onto the address, `((win + bytes * d) ^ bytes * x) + bytes * a`
/// (equal: adding the aligned `win` carries into no bit the XOR touches), so the k-block reads
/// of a fragment share one register and differ by a XOR with a constant and an immediate.
fn smem_window(k: &Kernel, t: &Tensor, name: &str, off: &str, parts: Option<&Swz>) -> String {
    let eb = storage_type(k, t).bits() / 8;
    let win = format!("cute_smem_u32({name})");
    let whole = format!("({win} + {eb}u * ({off}))");
    let Some((parts, x, mask)) = parts.and_then(|p| p.xor.as_ref().map(|(x, m)| (p, x, *m))) else {
        return whole;
    };
    if mask.saturating_mul(u64::from(eb)) >= window_align(k, name) {
        return whole;
    }
    let at = format!("(({win} + {eb}u * ({})) ^ ({eb}u * {x}))", parts.d);
    match &parts.add {
        Some((a, _)) => format!("({at} + {eb}u * {a})"),
        None => at,
    }
}

/// The alignment of a shared buffer's window address, in bytes: its offset in the kernel's
/// dynamic shared memory, whose start is 128-byte aligned (`__align__(128)`).
fn window_align(k: &Kernel, name: &str) -> u64 {
    let (offs, _) = super::smem_layout(k);
    let off = k
        .smem
        .iter()
        .zip(offs)
        .find(|(b, _)| b.name == name)
        .map_or(0, |(_, o)| o);
    let off = u64::try_from(off).unwrap_or(1);
    if off == 0 {
        128
    } else {
        (1u64 << off.trailing_zeros()).min(128)
    }
}

/// `sw(arg)` as C, split (joined by [`Swz::offset`]). A swizzle is XOR-linear: when `arg = D + C`
/// with `C` the terms that are constants once the enclosing loops are unrolled (literals, fully
/// unrolled loop variables) and no bit set in any value of both (`ir::sym::may_bits`), `sw(arg) =
/// sw(D) ^ sw(C)`, and `sw(D)` is `D` when `D` has no bit the swizzle reads; such a `D` may share
/// bits with `C` above the swizzle's ([`carry_free`]). The bits of `sw(C)` below those that `sw(D)`
/// may have are XORed, the others added: `(sw(D) ^ lo) + hi`, so the k-block
/// reads of a fragment share `sw(D)` and differ by a XOR with a constant and an immediate offset
/// (the template's form).
fn swizzle_parts(
    k: &Kernel,
    sw: cute_layout::Swizzle,
    arg: &cute_layout::Int,
    needs: &mut Needs,
) -> Swz {
    let (b, m, s) = sw.params();
    let call = |x: &str, needs: &mut Needs| {
        needs.swizzle = true;
        let text = format!("cute_swizzle<{b},{m},{s}>({x})");
        match &mut needs.hoist {
            Some(h) => h.share(text),
            None => text,
        }
    };
    let threads = k.threads();
    let loops = needs.loops.clone();
    let max = |n: &str| {
        if n == "tid" {
            Some(threads - 1)
        } else {
            loops.iter().find(|l| l.var == n).map(|l| l.max)
        }
    };
    let yyy = ((1u64 << b) - 1) << (i64::from(m) + i64::from(s.max(0)));
    // an argument without a bit the swizzle reads is its own image
    let whole = |needs: &mut Needs| match crate::ir::sym::may_bits(arg, &max) {
        Some(bits) if bits & yyy == 0 => Swz::whole(CInt(arg).to_string()),
        _ => Swz::whole(call(&CInt(arg).to_string(), needs)),
    };
    let Some((d, c)) = split_unrolled(arg, &needs.loops) else {
        return whole(needs);
    };
    let c_bits = unrolled_bits(&c, &needs.loops).or_else(|| crate::ir::sym::may_bits(&c, &max));
    let (Some(md), Some(mc)) = (crate::ir::sym::may_bits(&d, &max), c_bits) else {
        return whole(needs);
    };
    let moved = |x: u64| {
        if s >= 0 {
            (x & yyy) >> s
        } else {
            (x & yyy) << -s
        }
    };
    // a swizzled `D` splits only from a `C` with no bit of its own (XOR-linearity)
    let touched = if md & yyy == 0 {
        yyy | moved(yyy)
    } else {
        u64::MAX
    };
    let Some(low) = carry_free(md, mc, touched) else {
        return whole(needs);
    };
    let (dtext, mdd) = if md & yyy == 0 {
        (CInt(&d).to_string(), md)
    } else {
        (call(&CInt(&d).to_string(), needs), md | moved(md))
    };
    // sw(C): a literal, or the swizzle of the unrolled loops' constants (folded by the compiler)
    let (ctext, mcc) = match c.as_static() {
        Some(v) => match sw.apply(v) {
            Ok(x) => (x.to_string(), u64::try_from(x).unwrap_or(u64::MAX)),
            Err(_) => return whole(needs),
        },
        None if mc & yyy == 0 => (CInt(&c).to_string(), mc),
        None => (call(&CInt(&c).to_string(), needs), mc | moved(mc)),
    };
    // bits the swizzle can reach that `sw(D)` may have are XORed; the rest of `sw(C)` is added
    let xor = mcc & mdd & low;
    let add = mcc & !xor;
    if md & mc != 0 && xor == 0 {
        // a sum over a carry splits only to share `D` between XORs: without one, the whole
        return whole(needs);
    }
    let part = |mask: u64, all: u64| match c.as_static() {
        // a literal sw(C) splits at compile time
        Some(_) => mask.to_string(),
        None if mask == all => ctext.clone(),
        None => format!("({ctext} & {mask})"),
    };
    Swz {
        d: dtext,
        xor: (xor != 0).then(|| (part(xor, mcc), xor)),
        add: (add != 0).then(|| (part(add, mcc), add)),
    }
}

/// The bits below the swizzle's highest (`touched`: the bits it reads and writes), when `D + C`
/// is `D | C` there: no bit of those set in a value of both, so the sum carries nothing into the
/// swizzle's bits and the swizzle sees `D`'s and `C`'s bits side by side. Above them the two may
/// overlap (`1024 * kb0 + 128 * (kb1 + 1)` at `kb1 = 7`): the carry moves only bits the swizzle
/// leaves alone. `None` when they overlap below.
fn carry_free(md: u64, mc: u64, touched: u64) -> Option<u64> {
    let low = match 64 - touched.leading_zeros() {
        64 => u64::MAX,
        h => (1u64 << h) - 1,
    };
    (md & mc & low == 0).then_some(low)
}

/// `sw(arg)` split as `(d ^ xor) + add`: `xor` and `add` the text and the mask of the bits of
/// `sw(C)` XORed into `d` and added; `d` alone when the split does not apply.
#[derive(Debug)]
struct Swz {
    d: String,
    xor: Option<(String, u64)>,
    add: Option<(String, u64)>,
}

impl Swz {
    fn whole(d: String) -> Swz {
        Swz {
            d,
            xor: None,
            add: None,
        }
    }

    /// The element offset `(d ^ xor) + add`.
    fn offset(&self) -> String {
        let x = match &self.xor {
            Some((x, _)) => format!("({} ^ {x})", self.d),
            None => self.d.clone(),
        };
        match &self.add {
            Some((a, _)) => format!("({x} + {a})"),
            None => x,
        }
    }
}

/// Writes a statement (`emit`) whose elements may share a swizzled offset (a fragment's reads
/// and writes of a swizzled tile, `sw(D) ^ c + a` with one `D`): written once to count the
/// offsets, then again with each that occurs more than once declared before it, in a block, so
/// the compiler's front end sees one swizzle per shared offset instead of one per element.
fn hoisted(
    w: &mut Writer,
    needs: &mut Needs,
    mut emit: impl FnMut(&mut Writer, &mut Needs) -> Result<()>,
) -> Result<()> {
    needs.hoist = Some(lower::Hoist::Count(Default::default()));
    let counted = emit(&mut Writer::new(), needs);
    let shared: Vec<String> = match needs.hoist.take() {
        Some(lower::Hoist::Count(uses)) => uses
            .into_iter()
            .filter_map(|(text, n)| (n > 1).then_some(text))
            .collect(),
        _ => Vec::new(),
    };
    counted?;
    if shared.is_empty() {
        return emit(w, needs);
    }
    w.open("");
    for (i, text) in shared.iter().enumerate() {
        w.line(format!("const cute_idx cute_o{i} = {text};"));
    }
    needs.hoist = Some(lower::Hoist::Name(shared));
    let written = emit(w, needs);
    needs.hoist = None;
    w.close("");
    written
}

/// Narrows the largest value of each loop index that `c` bounds by a literal (`kb1 < 7`).
fn narrow(c: &Cond, needs: &mut Needs) {
    let bound = |a: &cute_layout::Int, b: &cute_layout::Int, strict: bool| {
        let v = b.as_static()? - i64::from(strict);
        let name = crate::ir::sym::names(a).into_iter().next()?;
        (*a == cute_layout::Int::index(&name)).then_some((name, v))
    };
    let found = match c {
        Cond::Lt(a, b) => bound(a, b, true),
        Cond::Le(a, b) => bound(a, b, false),
        Cond::And(a, b) => {
            narrow(a, needs);
            narrow(b, needs);
            None
        }
        Cond::NonZero(_) | Cond::Elect => None,
    };
    if let Some((name, v)) = found {
        for l in needs.loops.iter_mut().filter(|l| l.var == name) {
            l.max = l.max.min(v);
        }
    }
}

/// The bits `c` may have set over every value of the fully unrolled loop indices it reads (at
/// most 4096 combinations), exactly; `None` when it reads anything else or there are more.
fn unrolled_bits(c: &cute_layout::Int, loops: &[LoopBound]) -> Option<u64> {
    let names: Vec<(String, i64)> = crate::ir::sym::names(c)
        .into_iter()
        .map(|n| {
            let l = loops.iter().find(|l| l.unrolled && l.var == n)?;
            Some((n, l.max))
        })
        .collect::<Option<_>>()?;
    let count = names
        .iter()
        .try_fold(1i64, |a, (_, max)| a.checked_mul(max + 1))
        .filter(|&n| n <= 4096)?;
    let mut bits = 0u64;
    for i in 0..count {
        let mut rest = i;
        let values: Vec<(&str, i64)> = names
            .iter()
            .map(|(n, max)| {
                let v = rest % (max + 1);
                rest /= max + 1;
                (n.as_str(), v)
            })
            .collect();
        let env = |n: &str| values.iter().find(|x| x.0 == n).map(|x| x.1);
        bits |= u64::try_from(c.evaluate(&env)?).ok()?;
    }
    Some(bits)
}

/// `arg = D + C`: `C` the literal and the terms that read only fully unrolled loop variables.
fn split_unrolled(
    arg: &cute_layout::Int,
    loops: &[LoopBound],
) -> Option<(cute_layout::Int, cute_layout::Int)> {
    use cute_layout::symbolic::SymExpr;
    let cute_layout::Int::Dynamic(dy) = arg else {
        return None;
    };
    let constant = |t: &cute_layout::Int| {
        crate::ir::sym::names(t)
            .iter()
            .all(|n| loops.iter().any(|l| l.unrolled && &l.var == n))
    };
    let mut c = cute_layout::s(0);
    match dy.expr()? {
        SymExpr::Sum(terms, c0) => {
            c = cute_layout::s(*c0);
            for (kk, t) in terms {
                let t = cute_layout::Int::Dynamic(t.clone());
                if constant(&t) {
                    c = c.add(&t.mul(&cute_layout::s(*kk)).ok()?).ok()?;
                }
            }
        }
        _ if constant(arg) => c = arg.clone(),
        _ => {}
    }
    Some((arg.sub(&c).ok()?, c))
}

/// The in-bounds test of element `j` of a predicate.
fn pred_c(k: &Kernel, here: &str, p: &Pred, j: i64, needs: &mut Needs) -> Result<String> {
    let c =
        coord(&p.coord, j).map_err(|e| error(k, here, format!("predicate, element {j}: {e}")))?;
    let terms: Vec<String> = c
        .iter()
        .zip(&p.bounds)
        .map(|(x, b)| {
            needs.gcd |= super::needs_gcd(x) || super::needs_gcd(b);
            format!("{} < {}", CInt(x), CInt(b))
        })
        .collect();
    Ok(terms.join(" && "))
}

/// The bytes a zero-filling vector copy of `vals` elements from element `v` reads: the
/// in-bounds prefix, `min(max(bound - c, 0), vals)` elements along the mode the vector moves
/// along, none when another coordinate is out of bounds.
fn prefix_bytes(
    k: &Kernel,
    here: &str,
    p: &Pred,
    v: i64,
    vals: i64,
    bytes: u32,
    needs: &mut Needs,
) -> Result<String> {
    let mode = crate::passes::prefix_mode(p, v, vals)
        .map_err(|e| error(k, here, format!("predicate, element {v}: {e}")))?
        .ok_or_else(|| {
            error(
                k,
                here,
                format!("the zero-filled vector at element {v} moves along more than one mode"),
            )
        })?;
    let Some(d) = mode else {
        let c = pred_c(k, here, p, v, needs)?;
        return Ok(format!("({c}) ? {bytes} : 0"));
    };
    let c =
        coord(&p.coord, v).map_err(|e| error(k, here, format!("predicate, element {v}: {e}")))?;
    let mut rest = Vec::new();
    for (i, (x, b)) in c.iter().zip(&p.bounds).enumerate() {
        needs.gcd |= super::needs_gcd(x) || super::needs_gcd(b);
        if i != d {
            rest.push(format!("{} < {}", CInt(x), CInt(b)));
        }
    }
    let eb = bytes / u32::try_from(vals).unwrap_or(1).max(1);
    let n = format!(
        // cute_idx operands: min/max of one type under 64-bit indices too
        "min(max({} - {}, cute_idx(0)), cute_idx({vals})) * {eb}",
        CInt(&p.bounds[d]),
        CInt(&c[d])
    );
    Ok(if rest.is_empty() {
        n
    } else {
        format!("({}) ? {n} : 0", rest.join(" && "))
    })
}

/// An element read as `float` for arithmetic, by element type.
fn to_float(x: &str, e: ElemType, needs: &mut Needs) -> String {
    match e {
        ElemType::F32 => x.to_string(),
        ElemType::Tf32 => format!("__uint_as_float({x})"),
        ElemType::F16 => {
            needs.half = true;
            format!("cute_h2f({x})")
        }
        ElemType::Bf16 => {
            needs.bfloat = true;
            format!("cute_bf2f({x})")
        }
        _ => format!("static_cast<float>({x})"),
    }
}

/// A `float` value stored as an element.
fn from_float(x: &str, e: ElemType, needs: &mut Needs) -> String {
    match e {
        ElemType::F32 => x.to_string(),
        ElemType::Tf32 => format!("__float_as_uint({x})"),
        ElemType::F16 => {
            needs.half = true;
            format!("cute_f2h({x})")
        }
        ElemType::Bf16 => {
            needs.bfloat = true;
            format!("cute_f2bf({x})")
        }
        other => format!("static_cast<{}>({x})", super::ctype(other)),
    }
}

fn storage_type(k: &Kernel, t: &Tensor) -> ElemType {
    let Engine::Ptr(p) = t.engine() else {
        return ElemType::F32;
    };
    let from_param = k.param(&p.name).and_then(|q| match q.ty {
        crate::kernel::ParamType::Ptr { elem, .. } => Some(elem),
        _ => None,
    });
    from_param
        .or_else(|| k.smem_buf(&p.name).map(|b| b.elem))
        .or_else(|| k.reg_buf(&p.name).map(|b| b.elem))
        .unwrap_or(ElemType::F32)
}

#[allow(clippy::too_many_arguments)]
fn copy(
    k: &Kernel,
    here: &str,
    op: CopyOp,
    elem: ElemType,
    src: &Tensor,
    dst: &Tensor,
    pred: Option<&Pred>,
    w: &mut Writer,
    needs: &mut Needs,
) -> Result<()> {
    if let Some((name, def)) = lower::ldmatrix::helper(op) {
        needs.fns.insert(name.clone(), def);
        return matrix_copy(k, here, op, elem, &name, src, dst, w, needs);
    }
    if let Some((name, def)) = lower::stmatrix::helper(op) {
        needs.fns.insert(name.clone(), def);
        return matrix_copy(k, here, op, elem, &name, src, dst, w, needs);
    }
    let vals = crate::passes::atom_values(op, elem)
        .ok_or_else(|| error(k, here, format!("{op}: no lowering")))?;
    let n = size(src).unwrap_or(0);
    let helper = lower::cp_async::helper(op);
    if let Some(h) = &helper {
        needs.cp_async.insert(h.clone());
    }
    if helper.is_none() && pred.is_none() && vals == 1 {
        if let Some(st) = elem_loop::all_strided(&[dst, src], n) {
            let i = elem_loop::open(w, n, &st, needs);
            lower::universal::copy(w, op, elem.bits(), &st[1].at(i), &st[0].at(i))
                .ok_or_else(|| error(k, here, format!("{op}: no lowering")))?;
            w.close("");
            return Ok(());
        }
    }
    for v in (0..n).step_by(vals.max(1) as usize) {
        let s = elem_ref(k, here, src, v, needs)?;
        let d = elem_ref(k, here, dst, v, needs)?;
        match &helper {
            Some((name, _)) => {
                let bytes = u32::try_from(vals).unwrap_or(0) * elem.bits() / 8;
                match pred {
                    Some(p) if vals > 1 => {
                        let n = prefix_bytes(k, here, p, v, vals, bytes, needs)?;
                        lower::cp_async::copy_prefix(w, name, &n, &s, &d);
                    }
                    _ => {
                        let p = pred.map(|p| pred_c(k, here, p, v, needs)).transpose()?;
                        lower::cp_async::copy(w, name, bytes, &s, &d, p.as_deref());
                    }
                }
            }
            None => {
                let p = pred.map(|p| pred_c(k, here, p, v, needs)).transpose()?;
                if let Some(p) = &p {
                    w.open(format!("if ({p})"));
                }
                let lanes = usize::try_from(vals).unwrap_or(0);
                let side =
                    |t: &Tensor, needs: &mut Needs| -> Result<Option<lower::universal::Side>> {
                        let Engine::Ptr(ptr) = t.engine() else {
                            return Ok(None);
                        };
                        Ok(Some(match ptr.space {
                            MemSpace::Rmem => lower::universal::Side::Regs(
                                (0..vals)
                                    .map(|e| elem_ref(k, here, t, v + e, needs))
                                    .collect::<Result<_>>()?,
                            ),
                            MemSpace::Smem => {
                                let (name, off, parts) = elem_parts(k, here, t, v, needs)?;
                                let addr = smem_window(k, t, &name, &off, parts.as_ref());
                                lower::universal::Side::Shared { name, off, addr }
                            }
                            MemSpace::Gmem => {
                                lower::universal::Side::Mem(elem_ref(k, here, t, v, needs)?)
                            }
                        }))
                    };
                let float_vec = elem == ElemType::F32 && matches!(lanes, 2 | 4);
                let sides = if float_vec {
                    (side(src, needs)?, side(dst, needs)?)
                } else {
                    (None, None)
                };
                match sides {
                    (Some(a), Some(b)) if a.is_regs() || b.is_regs() => {
                        lower::universal::copy_f32_vector(w, lanes, &a, &b, needs);
                    }
                    _ => {
                        lower::universal::copy(w, op, elem.bits(), &s, &d)
                            .ok_or_else(|| error(k, here, format!("{op}: no lowering")))?;
                    }
                }
                if p.is_some() {
                    w.close("");
                }
            }
        }
    }
    Ok(())
}

/// `ldmatrix` and `stmatrix`: per atom, the shared-window address of the thread's 16-byte row
/// (its first shared value) and the register values it receives or passes (two 16-bit values a
/// register; one float for a TF32 `ldmatrix`).
#[allow(clippy::too_many_arguments)]
fn matrix_copy(
    k: &Kernel,
    here: &str,
    op: CopyOp,
    elem: ElemType,
    name: &str,
    src: &Tensor,
    dst: &Tensor,
    w: &mut Writer,
    needs: &mut Needs,
) -> Result<()> {
    let store = lower::stmatrix::matrices(op).is_some();
    // (shared values, register values) per atom, and which side is which
    let (per_smem, per_reg, smem, regs) = match store {
        true => lower::stmatrix::values(op, elem).map(|(vs, vd)| (vd, vs, dst, src)),
        false => lower::ldmatrix::values(op, elem).map(|(vs, vd)| (vs, vd, src, dst)),
    }
    .ok_or_else(|| {
        error(
            k,
            here,
            format!("{op} of {elem}: 16-bit values (32-bit for an untransposed ldmatrix)"),
        )
    })?;
    let n = size(smem).unwrap_or(0);
    needs.lds = true; // cute_smem_u32
    let per_register = usize::try_from(32 / elem.bits().max(1)).unwrap_or(2);
    for j in 0..n / per_smem {
        let (buf, off, parts) = elem_parts(k, here, smem, j * per_smem, needs)?;
        let addr = smem_window(k, smem, &buf, &off, parts.as_ref());
        // TF32 registers hold their bits (`unsigned`): ldmatrix writes them in place
        if per_register == 1 && !store {
            let r = elem_refs(k, here, regs, j * per_reg, per_reg, needs)?;
            lower::ldmatrix::call_into(w, name, &addr, &r);
            continue;
        }
        if per_register == 2 && paired(regs, needs) {
            let r = pair_refs(k, here, regs, j * per_reg, per_reg, needs)?;
            match store {
                true => lower::stmatrix::call_from(w, name, &addr, &r),
                false => lower::ldmatrix::call_into(w, name, &addr, &r),
            }
            continue;
        }
        let v = elem_refs(k, here, regs, j * per_reg, per_reg, needs)?;
        match store {
            true => {
                needs.pack16 = true;
                lower::stmatrix::call(w, name, &addr, &v);
            }
            false => lower::ldmatrix::call(w, name, &addr, &v, per_register),
        }
    }
    Ok(())
}

/// The order UniversalFMA's `gemm` visits `(m, n, k)`, as CuTe's `gemm` over register
/// fragments does: k outer, then n, then m serpentine (downwards on odd n), so consecutive FMAs
/// share a value of B and each column starts on the value of A the last one ended on. With the
/// flat element index of each operand. Shared with the interpreter.
pub(crate) fn fma_order(a: &Tensor, b: &Tensor) -> Option<Vec<(i64, i64, i64)>> {
    let (m, kk) = crate::ir::index::fma_dims(a)?;
    let (n, _) = crate::ir::index::fma_dims(b)?;
    let mut out = Vec::new();
    for k in 0..kk {
        for j in 0..n {
            for i0 in 0..m {
                let i = if j % 2 == 1 { m - 1 - i0 } else { i0 };
                out.push((i + m * k, j + n * k, i + m * j));
            }
        }
    }
    Some(out)
}

#[allow(clippy::too_many_arguments)]
fn gemm(
    k: &Kernel,
    here: &str,
    op: MmaOp,
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
    w: &mut Writer,
    needs: &mut Needs,
) -> Result<()> {
    if !matches!(op, MmaOp::UniversalFma { .. }) {
        return warp_gemm(k, here, op, a, b, c, w, needs);
    }
    if elem_loop::gemm(a, b, c, w, needs) {
        return Ok(());
    }
    let order = fma_order(a, b).ok_or_else(|| error(k, here, "fragment shapes"))?;
    for (ia, ib, ic) in order {
        let (ea, eb, ec) = (
            elem_ref(k, here, a, ia, needs)?,
            elem_ref(k, here, b, ib, needs)?,
            elem_ref(k, here, c, ic, needs)?,
        );
        lower::universal::fma(w, &ea, &eb, &ec);
    }
    Ok(())
}

/// The 32-bit registers of an MMA's register operand `x` of type `t` (values `first..first +
/// n` in the atom's order): a paired fragment's as they are, else packed from its values.
fn input_registers(
    k: &Kernel,
    here: &str,
    (x, t): (&Tensor, ElemType),
    first: i64,
    n: i64,
    needs: &mut Needs,
) -> Result<Vec<String>> {
    if t.bits() == 16 && paired(x, needs) {
        return pair_refs(k, here, x, first, n, needs);
    }
    needs.pack16 |= t.bits() == 16;
    let vals = elem_refs(k, here, x, first, n, needs)?;
    let regs = lower::mma_sync::registers(n, t).unwrap_or(0);
    (0..regs as usize)
        .map(|r| {
            lower::mma_sync::input_register(&vals, r, t)
                .ok_or_else(|| error(k, here, format!("{x}: an MMA operand of {t}")))
        })
        .collect()
}

/// The registers of a GMMA accumulator's values `first .. first + n`: the values themselves
/// (FP32, S32), or their pairs (FP16: the buffer is declared as pairs,
/// `passes::accumulator_pairs`).
fn accumulator_refs(
    k: &Kernel,
    here: &str,
    (c, t): (&Tensor, ElemType),
    first: i64,
    n: i64,
    needs: &mut Needs,
) -> Result<Vec<String>> {
    match t.bits() {
        16 if paired(c, needs) => pair_refs(k, here, c, first, n, needs),
        16 => Err(error(
            k,
            here,
            format!("{c}: an FP16 wgmma accumulator is an even-sized 16-bit register fragment"),
        )),
        _ => elem_refs(k, here, c, first, n, needs),
    }
}

/// A warp MMA (`mma.sync`) over `(V,MMA_M,MMA_K)`, `(V,MMA_N,MMA_K)` and `(V,MMA_M,MMA_N)`
/// fragments: one call of the atom's helper per `(k, m, n)`, in CuTe's order.
#[allow(clippy::too_many_arguments)]
fn warp_gemm(
    k: &Kernel,
    here: &str,
    op: MmaOp,
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
    w: &mut Writer,
    needs: &mut Needs,
) -> Result<()> {
    let (name, def) =
        lower::mma_sync::helper(op).ok_or_else(|| error(k, here, format!("{op}: no lowering")))?;
    needs.fns.insert(name.clone(), def);
    let [_, ta, tb, tc] = op.types();
    needs.pack16 |= tc.bits() == 16;
    let dims = |t: &Tensor| {
        crate::ir::index::warp_dims(t)
            .ok_or_else(|| error(k, here, format!("{t}: not a (V,X,Y) fragment")))
    };
    let ((va, mm, ka), (vb, nn, _), (vc, _, _)) = (dims(a)?, dims(b)?, dims(c)?);
    for (kk, m, n) in crate::ir::index::mma_order(mm, nn, ka) {
        let ra = input_registers(k, here, (a, ta), va * (m + mm * kk), va, needs)?;
        let rb = input_registers(k, here, (b, tb), vb * (n + nn * kk), vb, needs)?;
        let rc = elem_refs(k, here, c, vc * (m + mm * n), vc, needs)?;
        lower::mma_sync::call(w, &name, &rc, tc, &ra, &rb);
    }
    Ok(())
}

/// A warpgroup MMA (`wgmma`) over shared-memory partitions `(MMA,MMA_M,MMA_K)` of A and
/// `(MMA,MMA_N,MMA_K)` of B and the accumulator `(V,MMA_M,MMA_N)`: per `(k, m, n)` in CuTe's
/// order, the descriptors of A's and B's `(MMA)` tiles and the accumulator's N/2 floats.
fn warpgroup_gemm(
    k: &Kernel,
    here: &str,
    g: &cute_layout::atom::Gmma,
    [a, b, c]: [&Tensor; 3],
    overwrite: Option<&Cond>,
    w: &mut Writer,
    needs: &mut Needs,
) -> Result<()> {
    let (name, def) = lower::wgmma::helper(g)
        .ok_or_else(|| error(k, here, format!("{g}: the wgmma lowering takes FP32, FP16 or S32 accumulators (RS over 16-bit or TF32 A)")))?;
    needs.fns.insert(name.clone(), def);
    needs
        .fns
        .insert("cute_gmma_desc".into(), lower::wgmma::DESC_FN.into());
    needs.lds = true; // cute_smem_u32
    let dims = |t: &Tensor| {
        crate::ir::index::warp_dims(t)
            .ok_or_else(|| error(k, here, format!("{t}: not a (V,X,Y) fragment")))
    };
    let ((va, mm, ka), (vb, nn, _), (vc, _, _)) = (dims(a)?, dims(b)?, dims(c)?);
    if g.a_in_registers {
        return warpgroup_gemm_rs(k, here, (g, &name), [a, b, c], overwrite, w, needs);
    }
    let da = Descriptor::of(k, here, a, g.major_a, g.a)?;
    let db = Descriptor::of(k, here, b, g.major_b, g.b)?;
    // scale-d: 0 (D = A * B) for the first k block where `overwrite` holds, else 1
    let first = overwrite.map_or("1".to_string(), |c| {
        format!("({}) ? 0 : 1", cond_c(c, needs))
    });
    if mm == 1 && nn == 1 && ka > 1 {
        if let Some((xa, xb)) = da
            .strided(k, here, a, va, ka, needs)?
            .zip(db.strided(k, here, b, vb, ka, needs)?)
        {
            // one wgmma per k block, each operand's tile `step` elements on: a loop NVCC unrolls
            // (the front end sees one 128-register call, not one per k block)
            let scale = overwrite.map_or("1".to_string(), |c| {
                format!("(cute_kb == 0 && ({})) ? 0 : 1", cond_c(c, needs))
            });
            let rc = accumulator_refs(k, here, (c, g.d), 0, vc, needs)?;
            w.line("#pragma unroll");
            w.open(format!("for (int cute_kb = 0; cute_kb < {ka}; ++cute_kb)"));
            w.line(format!("{name}({}, {xa}, {xb}, {scale});", rc.join(", ")));
            w.close("");
            return Ok(());
        }
    }
    for (kk, m, n) in crate::ir::index::mma_order(mm, nn, ka) {
        let rc = accumulator_refs(k, here, (c, g.d), vc * (m + mm * n), vc, needs)?;
        let (xa, xb) = (
            da.at(k, here, a, va * (m + mm * kk), needs)?,
            db.at(k, here, b, vb * (n + nn * kk), needs)?,
        );
        let scale = if kk == 0 { first.as_str() } else { "1" };
        w.line(format!("{name}({}, {xa}, {xb}, {scale});", rc.join(", ")));
    }
    Ok(())
}

/// A warpgroup MMA with A in registers (RS): per `(k, m, n)`, A's 4 registers packed from the
/// fragment `(V,MMA_M,MMA_K)`, B's descriptor, the accumulator's N/2 floats.
#[allow(clippy::too_many_arguments)]
fn warpgroup_gemm_rs(
    k: &Kernel,
    here: &str,
    (g, name): (&cute_layout::atom::Gmma, &str),
    [a, b, c]: [&Tensor; 3],
    overwrite: Option<&Cond>,
    w: &mut Writer,
    needs: &mut Needs,
) -> Result<()> {
    let dims = |t: &Tensor| {
        crate::ir::index::warp_dims(t)
            .ok_or_else(|| error(k, here, format!("{t}: not a (V,X,Y) fragment")))
    };
    let ((va, mm, ka), (vb, nn, _), (vc, _, _)) = (dims(a)?, dims(b)?, dims(c)?);
    let db = Descriptor::of(k, here, b, g.major_b, g.b)?;
    let first = overwrite.map_or("1".to_string(), |c| {
        format!("({}) ? 0 : 1", cond_c(c, needs))
    });
    for (kk, m, n) in crate::ir::index::mma_order(mm, nn, ka) {
        let rc = accumulator_refs(k, here, (c, g.d), vc * (m + mm * n), vc, needs)?;
        let ra = input_registers(k, here, (a, g.a), va * (m + mm * kk), va, needs)?;
        let xb = db.at(k, here, b, vb * (n + nn * kk), needs)?;
        let scale = if kk == 0 { first.as_str() } else { "1" };
        w.line(format!(
            "{name}({}, {}, {xb}, {scale});",
            rc.join(", "),
            ra.join(", ")
        ));
    }
    Ok(())
}

/// The descriptor of one operand's `(MMA)` tiles: the fields every tile shares (its layout's
/// LBO, SBO and swizzle, `make_gmma_desc` of the tile with the buffer's swizzle in bytes) and
/// the buffer; each tile adds its start address.
struct Descriptor {
    fields: u64,
    buf: String,
    bytes: i64,
    /// The swizzle's period in elements: a pointer offset outside the swizzle must be a
    /// multiple of it for the hardware's address-based swizzle to agree with the layout's.
    period: i64,
}

impl Descriptor {
    fn of(
        k: &Kernel,
        here: &str,
        t: &Tensor,
        major: cute_layout::atom::GmmaMajor,
        elem: ElemType,
    ) -> Result<Descriptor> {
        let Engine::Ptr(p) = t.engine() else {
            return Err(error(
                k,
                here,
                format!("{t}: a wgmma operand is a shared-memory tensor"),
            ));
        };
        let buf = k.smem_buf(&p.name).ok_or_else(|| {
            error(
                k,
                here,
                format!("{t}: a wgmma operand (SS) is in shared memory"),
            )
        })?;
        let bytes = i64::from(elem.bits()) / 8;
        let tile = t
            .layout()
            .shape_layout()
            .mode(0)
            .map_err(|e| error(k, here, format!("{t}: {e}")))?;
        // the buffer's swizzle (element units) as the hardware applies it, on byte addresses
        let (sw, period) = match &buf.layout {
            cute_layout::AnyLayout::Composed(cl) => {
                // element offsets -> byte addresses: downcast<bytes>
                let sw = cl
                    .layout_a()
                    .downcast(bytes.max(1))
                    .map_err(|e| error(k, here, format!("{}: {e}", buf.name)))?;
                let (b, m, s) = cl.layout_a().params();
                (
                    sw,
                    1i64 << (i64::from(b) + i64::from(m) + i64::from(s)).clamp(0, 62),
                )
            }
            cute_layout::AnyLayout::Plain(_) => (
                cute_layout::Swizzle::new(0, 4, 3).map_err(|e| error(k, here, e.to_string()))?,
                1,
            ),
        };
        let flagged = cute_layout::ComposedLayout::smem_ptr_flag(sw, elem.bits(), tile);
        let d = cute_layout::atom::make_gmma_desc(major, elem.bits(), &flagged, 0)
            .map_err(|e| error(k, here, format!("{t}: {e}")))?;
        Ok(Descriptor {
            fields: d.bits(),
            buf: p.name.clone(),
            bytes,
            period,
        })
    }

    /// `cute_gmma_desc(fields, address)` of the tile starting at element `j` of `t`: its
    /// unswizzled offset (the hardware swizzles the address).
    fn at(&self, k: &Kernel, here: &str, t: &Tensor, j: i64, needs: &mut Needs) -> Result<String> {
        let off = self.offset(k, here, t, j)?;
        needs.gcd |= super::needs_gcd(&off);
        Ok(self.desc(&CInt(&off).to_string()))
    }

    /// The descriptors of the `n` k blocks `j = v * kb` of `t` as one text in `cute_kb`, when
    /// each tile starts a static number of elements after the one before.
    fn strided(
        &self,
        k: &Kernel,
        here: &str,
        t: &Tensor,
        v: i64,
        n: i64,
        needs: &mut Needs,
    ) -> Result<Option<String>> {
        let base = self.offset(k, here, t, 0)?;
        let step = |kb: i64| -> Result<Option<i64>> {
            let off = self.offset(k, here, t, v * kb)?;
            Ok(off.sub(&base).ok().and_then(|d| d.value()))
        };
        let Some(stride) = step(1)? else {
            return Ok(None);
        };
        for kb in 2..n {
            if step(kb)? != stride.checked_mul(kb) {
                return Ok(None);
            }
        }
        needs.gcd |= super::needs_gcd(&base);
        let scaled = format!("{stride} * cute_kb");
        Ok(Some(self.desc(&if base.is_constant(0) {
            scaled
        } else {
            format!("{} + {scaled}", CInt(&base))
        })))
    }

    /// The element offset of the tile starting at element `j` of `t`.
    fn offset(&self, k: &Kernel, here: &str, t: &Tensor, j: i64) -> Result<Int> {
        let Engine::Ptr(p) = t.engine() else {
            return Err(error(k, here, format!("{t}: not a shared-memory tensor")));
        };
        let c = cute_layout::IntTuple::Int(cute_layout::s(j));
        let le = |e: cute_layout::Error| error(k, here, format!("{t}, element {j}: {e}"));
        let inside = match t.layout() {
            cute_layout::AnyLayout::Plain(l) => l.crd2idx(&c).map_err(le)?,
            cute_layout::AnyLayout::Composed(l) => l
                .offset()
                .add(&l.layout_b().crd2idx(&c).map_err(le)?)
                .map_err(le)?,
        };
        if self.period > 1 && crate::ir::sym::divisible(&p.offset, self.period, &|_| false).is_err()
        {
            return Err(error(k, here, format!("{t}: its offset {} is not a multiple of the swizzle's {} elements, so the descriptor's address-based swizzle would not be the layout's", p.offset, self.period)));
        }
        p.offset.add(&inside).map_err(le)
    }

    /// `cute_gmma_desc(fields, cute_smem_u32(buf) + bytes * (off))`.
    fn desc(&self, off: &str) -> String {
        format!(
            "cute_gmma_desc(0x{:016x}ull, cute_smem_u32({}) + {}u * ({off}))",
            self.fields, self.buf, self.bytes,
        )
    }
}

#[allow(clippy::too_many_arguments)]
fn map(
    k: &Kernel,
    here: &str,
    dst: &Tensor,
    srcs: &[Tensor],
    f: &EExpr,
    pred: Option<&Pred>,
    w: &mut Writer,
    needs: &mut Needs,
) -> Result<()> {
    let n = size(dst).unwrap_or(0);
    let de = storage_type(k, dst);
    let value = |refs: Vec<String>, needs: &mut Needs| -> String {
        let args = refs
            .iter()
            .zip(srcs)
            .map(|(r, t)| to_float(r, storage_type(k, t), needs))
            .collect();
        from_float(&CExpr(f, &Args(args)).to_string(), de, needs)
    };
    let all: Vec<&Tensor> = std::iter::once(dst).chain(srcs).collect();
    if let Some(st) = pred
        .is_none()
        .then(|| elem_loop::all_strided(&all, n))
        .flatten()
    {
        let i = elem_loop::open(w, n, &st, needs);
        let v = value(st[1..].iter().map(|t| t.at(i)).collect(), needs);
        w.line(format!("{} = {v};", st[0].at(i)));
        w.close("");
        return Ok(());
    }
    for j in 0..n {
        let refs = srcs
            .iter()
            .map(|t| elem_ref(k, here, t, j, needs))
            .collect::<Result<Vec<_>>>()?;
        let value = value(refs, needs);
        let d = elem_ref(k, here, dst, j, needs)?;
        match pred {
            Some(p) => {
                let p = pred_c(k, here, p, j, needs)?;
                w.line(format!("if ({p}) {d} = {value};"));
            }
            None => {
                w.line(format!("{d} = {value};"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::KernelBuilder;
    use cute_layout::{s, Int, Swizzle};

    fn loop_of(var: &str, max: i64, unrolled: bool) -> LoopBound {
        LoopBound {
            var: var.into(),
            max,
            unrolled,
        }
    }

    fn split(sw: Swizzle, arg: &Int, loops: &[LoopBound]) -> Swz {
        let mut b = KernelBuilder::new("t");
        b.threads(256);
        let k = b.finish().unwrap();
        let mut needs = Needs {
            loops: loops.to_vec(),
            ..Needs::default()
        };
        swizzle_parts(&k, sw, arg, &mut needs)
    }

    /// Checks `sw(arg) == (D ^ (sw(C) & xor)) + (sw(C) & add)` at every value of the loop
    /// variables, of `tid < 256` and of `kt < kt_end` (`D + C = arg` the split
    /// [`swizzle_parts`] made).
    fn split_holds(sw: Swizzle, arg: &Int, loops: &[LoopBound], kt_end: i64) -> Swz {
        let parts = split(sw, arg, loops);
        let (d, c) = split_unrolled(arg, loops).unwrap();
        let mask = |m: &Option<(String, u64)>| m.as_ref().map_or(0, |x| x.1);
        let (xor, add) = (mask(&parts.xor), mask(&parts.add));
        let [l0, l1] = [&loops[0], &loops[1]];
        for (tid, v0, v1, t) in values(l0.max, l1.max, kt_end) {
            let env = |n: &str| match n {
                "tid" => Some(tid),
                "kt" => Some(t),
                n if n == l0.var => Some(v0),
                n if n == l1.var => Some(v1),
                _ => None,
            };
            let (dv, cv) = (d.evaluate(&env).unwrap(), c.evaluate(&env).unwrap());
            let swc = u64::try_from(sw.apply(cv).unwrap()).unwrap();
            let split = (u64::try_from(dv).unwrap() ^ (swc & xor)) + (swc & add);
            let whole = sw.apply(arg.evaluate(&env).unwrap()).unwrap();
            assert_eq!(
                split,
                u64::try_from(whole).unwrap(),
                "{env:?}",
                env = (tid, v0, v1, t)
            );
        }
        parts
    }

    fn values(m0: i64, m1: i64, kt_end: i64) -> Vec<(i64, i64, i64, i64)> {
        let mut v = Vec::new();
        for tid in 0..256 {
            for a in 0..=m0 {
                for b in 0..=m1 {
                    for t in 0..kt_end {
                        v.push((tid, a, b, t));
                    }
                }
            }
        }
        v
    }

    /// sgemm-sm80 NN's B fragment read of k block `8 * kb0 + kb1 + 1` of stage `kt % 3`: at
    /// `kb1 = 7` the constant part (`128 * kb1 + 128 = 1024`) shares bit 10 with `1024 * kb0`,
    /// above the bits `Sw<3,2,5>` reads and writes, so the split still applies.
    #[test]
    fn a_swizzle_splits_over_a_carry_above_its_bits() {
        let sw = Swizzle::new(3, 2, 5).unwrap();
        let idx = Int::index;
        let lane = idx("tid").div(&s(16)).unwrap().rem(&s(16)).unwrap();
        let stage = idx("kt").rem(&s(3)).unwrap().mul(&s(4096)).unwrap();
        let arg = [
            lane.mul(&s(4)).unwrap(),
            idx("kb0").mul(&s(1024)).unwrap(),
            idx("kb1").mul(&s(128)).unwrap(),
            stage,
            s(192),
        ]
        .iter()
        .try_fold(s(0), |a, t| a.add(t))
        .unwrap();
        let loops = [loop_of("kb0", 3, false), loop_of("kb1", 7, true)];
        let parts = split_holds(sw, &arg, &loops, 3);
        assert_eq!(parts.xor.map(|x| x.1), Some(28));
        assert_eq!(parts.add.map(|x| x.1), Some(1984));
    }

    /// A constant part sharing a bit the swizzle reads with the rest is not split.
    #[test]
    fn a_swizzle_does_not_split_over_a_carry_into_its_bits() {
        let sw = Swizzle::new(3, 2, 5).unwrap();
        let arg = Int::index("kb0")
            .mul(&s(128))
            .unwrap()
            .add(&Int::index("kb1").mul(&s(128)).unwrap())
            .unwrap();
        let loops = [loop_of("kb0", 3, false), loop_of("kb1", 3, true)];
        let parts = split(sw, &arg, &loops);
        assert!(parts.xor.is_none() && parts.add.is_none(), "{parts:?}");
        assert!(parts.d.starts_with("cute_swizzle<3,2,5>"), "{}", parts.d);
    }
}
