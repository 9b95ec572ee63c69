//! One warpgroup's `wgmma` tile, written as CuTe's Hopper tutorial writes its mainloop body:
//! A (64 x K) and B (N x K) staged in shared memory in GMMA layout atoms
//! (`tile_to_shape(GMMA::Layout_{K,MN}_SW128_Atom<T>, ...)`, or the widest that divides the tile), `fence.proxy.async` and a barrier,
//! then `warpgroup_arrive` (`wgmma.fence`), one `gemm` of the GMMA TiledMMA over the shared
//! partitions (a descriptor per 64 x 16 tile), `warpgroup_commit_batch`, `warpgroup_wait<0>`,
//! and the accumulator stored to C by `partition_C`. It is the smallest kernel that runs a GMMA
//! atom's descriptors on the GPU, and the CPU interpreter runs it too.

use cute_layout::atom::{
    gmma_layout_atom, make_tiled_copy, make_tiled_mma, CopyAtom, CopyOp, GmmaMajor, GmmaSwizzle,
    MmaAtom, MmaOp, Operand,
};
use cute_layout::{s, tile_to_shape, tup, AnyLayout, ElemType, Layout, ModeOrder, Tensor};

use super::layout_err;
use crate::error::{CodegenError, Result};
use crate::ir::{Kernel, KernelBuilder};
use crate::target::Target;

/// The tile kernel of a GMMA atom (spelled as C++ spells it,
/// `SM90_64x64x16_F32F16F16_SS<GMMA::Major::K,GMMA::Major::K>`; an RS atom reads A into each
/// thread's registers from the shared tile first) over `k` of K: parameters
/// `A` (64 x K; K-major: `A[m * K + k]`, MN-major: `A[m + 64 * k]`), `B` (N x K, likewise), `C`
/// (64 x N, column-major, FP32 whatever the accumulator's type), 128 threads, one block.
pub fn wgmma_tile(atom: &str, k: i64) -> Result<Kernel> {
    let e = layout_err("wgmma-tile", "tile");
    let op = gmma_op(atom)?;
    let MmaOp::Sm90(g) = op else {
        return Err(CodegenError::Plan {
            plan: "wgmma-tile".into(),
            part: "atom",
            msg: format!("{op} is not an SM90 GMMA atom"),
        });
    };
    let (m, n, kk) = g.mnk();
    if k < kk || k % kk != 0 {
        return Err(CodegenError::Plan {
            plan: "wgmma-tile".into(),
            part: "K",
            msg: format!("K = {k}: a multiple of the atom's K = {kk}"),
        });
    }
    let elem = g.a;
    let mma = make_tiled_mma(
        MmaAtom::new(op),
        &Layout::col_major(&tup![s(1), s(1), s(1)]).map_err(&e)?,
        &[],
    )
    .map_err(&e)?;
    let mut kb = KernelBuilder::new(&format!(
        "wgmma_tile_{}",
        crate::lower::wgmma::name(&g).trim_start_matches("cute_")
    ));
    kb.target(Target::sm90a()).doc(&format!(
        "one warpgroup's {m}x{n}x{k} tile of {op}: A and B in GMMA layouts in shared memory, C = A * B"
    ));
    let a = kb.param_ptr("A", elem, false);
    let b = kb.param_ptr("B", g.b, false);
    let c = kb.param_ptr("C", ElemType::F32, true);
    kb.threads(128);
    let tid = KernelBuilder::tid();
    // (rows, K) of an operand in memory and in shared memory (a GMMA SW128 atom tiled)
    let operand = |rows: i64, major: GmmaMajor, t: ElemType| -> Result<(Layout, AnyLayout)> {
        let gmem = match major {
            GmmaMajor::K => Layout::new(tup![s(rows), s(k)], tup![s(k), s(1)]),
            GmmaMajor::MN => Layout::new(tup![s(rows), s(k)], tup![s(1), s(rows)]),
        }
        .map_err(&e)?;
        // the widest swizzle whose atom divides the tile (SW128: 128-byte rows along the major)
        let order = ModeOrder::Major(cute_layout::Major::Left);
        let tiled = [
            GmmaSwizzle::Sw128,
            GmmaSwizzle::Sw64,
            GmmaSwizzle::Sw32,
            GmmaSwizzle::Inter,
        ]
        .into_iter()
        .find_map(|sw| {
            let atom = gmma_layout_atom(major, sw, t).ok()?;
            atom.map(|l| tile_to_shape(l, &tup![s(rows), s(k)], &order))
                .ok()
        })
        .ok_or_else(|| CodegenError::Plan {
            plan: "wgmma-tile".into(),
            part: "shared tile",
            msg: format!("no GMMA layout atom of {t} divides ({rows},{k})"),
        })?;
        let AnyLayout::Composed(cl) = &tiled else {
            return Err(CodegenError::Unknown(format!("{tiled}: a GMMA layout")));
        };
        Ok((gmem, cl.in_element_units().map_err(&e)?))
    };
    let (la, sla) = operand(m, g.major_a, elem)?;
    let (lb, slb) = operand(n, g.major_b, g.b)?;
    let ga = Tensor::new(a, la);
    let gb = Tensor::new(b, lb);
    let gc = Tensor::new(c, Layout::col_major(&tup![s(m), s(n)]).map_err(&e)?);
    let sa = kb.smem_aligned("sA", elem, sla, 1024); // (64,K), aligned to SW128's 1024 bytes
    let sb = kb.smem_aligned("sB", g.b, slb, 1024); // (N,K)

    // gmem -> smem: one element per thread per copy, 128 threads over the tile
    for (gt, st, t) in [(&ga, &sa, elem), (&gb, &sb, g.b)] {
        let one = CopyAtom::new(CopyOp::UniversalCopy { bits: t.bits() }, t).map_err(&e)?;
        let rows = gt
            .layout()
            .shape_layout()
            .mode(0)
            .and_then(|r| r.size())
            .map_err(&e)?;
        let tm = rows.as_static().unwrap_or(1).clamp(1, 128);
        let cp = make_tiled_copy(
            &one,
            &Layout::col_major(&tup![s(tm), s(128 / tm)]).map_err(&e)?,
            &Layout::col_major(&tup![s(1), s(1)]).map_err(&e)?,
        )
        .map_err(&e)?;
        let thr = cp.get_slice(&tid).map_err(&e)?;
        kb.copy(
            &one,
            &thr.partition_s(gt).map_err(&e)?,
            &thr.partition_d(st).map_err(&e)?,
        );
    }
    kb.comment("the shared tiles written by this thread are visible to wgmma's async proxy");
    kb.fence_proxy_async();
    kb.sync();
    let thr_mma = mma.get_slice(&tid).map_err(&e)?;
    let t_ca = kb.bind("tCsA", thr_mma.partition(Operand::A, &sa).map_err(&e)?); // (MMA,MMA_M,MMA_K)

    // RS: A goes through the thread's registers (its fragment of the atom's ALayout), copied
    // from the shared tile one value at a time
    let t_ca = match g.a_in_registers {
        false => t_ca,
        true => {
            let shape = t_ca.layout().shape_layout().shape().clone();
            let t_cr = kb.regs("tCrA", elem, Layout::col_major(&shape).map_err(&e)?)?; // (V,MMA_M,MMA_K)
            let n = t_ca.layout().shape_layout().size().map_err(&e)?;
            let flat = Layout::new(tup![s(1), n], tup![s(0), s(1)]).map_err(&e)?; // (1,V*M*K)
            let one =
                CopyAtom::new(CopyOp::UniversalCopy { bits: elem.bits() }, elem).map_err(&e)?;
            let view = |t: &Tensor| t.map_layout(|l| cute_layout::composition(l, &flat));
            kb.copy(&one, &view(&t_ca).map_err(&e)?, &view(&t_cr).map_err(&e)?);
            t_cr
        }
    };
    let t_cb = kb.bind("tCsB", thr_mma.partition(Operand::B, &sb).map_err(&e)?); // (MMA,MMA_N,MMA_K)
    let t_cc = thr_mma.partition(Operand::C, &gc).map_err(&e)?; // (MMA,MMA_M,MMA_N)

    // the accumulator in the atom's type (FP16: two values a register, S32: integers)
    let acc = kb.regs(
        "acc",
        g.d,
        Layout::col_major(t_cc.layout().shape_layout().shape()).map_err(&e)?,
    )?;
    kb.fill(&acc, 0.0);
    kb.wgmma_fence();
    kb.gemm(&MmaAtom::new(op), &t_ca, &t_cb, &acc);
    kb.wgmma_commit();
    kb.wgmma_wait(0);
    match g.d {
        ElemType::F32 => {
            let store =
                CopyAtom::new(CopyOp::UniversalCopy { bits: 32 }, ElemType::F32).map_err(&e)?;
            kb.copy(&store, &acc, &t_cc)
        }
        _ => kb.map(&t_cc, &[&acc], crate::ir::EExpr::arg(0), None), // converted to FP32
    };
    kb.finish()
}

/// The MMA operation spelled `atom` (C++'s spelling, template arguments included).
fn gmma_op(atom: &str) -> Result<MmaOp> {
    match cute_layout::expr::eval(&format!("MMA_Atom<{atom}>")) {
        Ok(cute_layout::expr::Value::MmaAtom(a)) => Ok(a.op()),
        Ok(v) => Err(CodegenError::Unknown(format!(
            "{atom}: {v} is not an MMA atom"
        ))),
        Err(err) => Err(CodegenError::Plan {
            plan: "wgmma-tile".into(),
            part: "atom",
            msg: err.to_string(),
        }),
    }
}
