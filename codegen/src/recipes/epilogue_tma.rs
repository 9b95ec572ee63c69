//! The TMA-store epilogue of the persistent SM90 GEMMs (CUTLASS's `SM90_TMA_STORE` epilogue):
//! the consumers write their accumulators, `alpha * acc (+ beta * C) (+ bias)` in C's type,
//! into a swizzled shared tile `sC` of `EPI_N` columns at a time and one thread stores it into
//! C by TMA, which drops the rows and columns outside C (no predicates). A pass writes the
//! tile once the previous pass's store has read it (`cp.async.bulk.wait_group.read`); with
//! `BUFFERS` tiles alternating, the wait is for the store `BUFFERS` passes back. With
//! `beta != 0` the pass first loads C's columns into the tile by TMA (completing on
//! `cfull[b]`) and each thread reads its values from there. `sC` has its own shared memory,
//! so the producer warpgroup loads the next tile's stages meanwhile.
//!
//! `sC` is `GMMA::Layout_MN_SW128_Atom<T>` tiled to `(BLK_M,EPI_N,BUFFERS)`: C is M-major, and
//! the 128-byte swizzle keeps a warp's writes of the wgmma accumulator (8 rows of 4 column
//! pairs) on distinct banks. Each pass's values are the accumulator's fragment sliced to the
//! pass's column blocks: the GMMA C fragment `((2,2,N/8),MMA_M,MMA_N)` holds 8-column blocks in
//! its third mode, in order. A 16-bit C goes through registers instead: each pass's values are
//! computed into `rC` and written into `sC` by `stmatrix.trans` (`SM90_U16x8_STSM_T`, 8 values
//! of a thread per instruction, transposed into C's M-major rows), as CUTLASS's epilogue does;
//! with beta != 0 the consumers meet at a barrier between reading C from `sC` and the
//! `stmatrix`es, which write rows other lanes read.

use cute_layout::atom::{
    gmma_layout_atom, make_tiled_copy_C, make_tiled_mma, CopyAtom, CopyOp, GmmaMajor, GmmaSwizzle,
    MmaAtom, MmaOp, Operand, ThrCopy, ThrMma, TiledMma, TmaBox,
};
use cute_layout::{
    logical_divide, s, tile_to_shape, tup, AnyLayout, Coord, ElemType, Int, Layout, ModeOrder,
    Tensor, Tiler, X,
};

use super::gemm::LayoutErr;
use super::gemm_ws::offset_by;
use crate::error::Result;
use crate::gemm::GemmPlan;
use crate::ir::{Cond, KernelBuilder};

/// Columns of C per pass, and the shared tiles that alternate: one tile of 64 columns (32 KiB
/// of FP32 beside the stages' 192) rather than two of 32. On an H100 (2026-12-05, one call)
/// hgemm-sm90 TN ran 712.9 against 688.1 TFLOP/s at 4096^3 and the same at 8192^3 (750.8,
/// 749.5), and NVRTC compiles it in 424 ms instead of 525: four passes, not eight.
const EPI_N: i64 = 64;
const BUFFERS: i64 = 1;
/// The mbarriers of the passes' loads of C (`beta != 0`), one per tile.
const C_FULL: &str = "cfull";

/// The epilogue's shared tiles and C's tensor map, declared once per kernel.
pub(super) struct TmaStore {
    /// `(BLK_M,EPI_N,BUFFERS)`.
    s_c: Tensor,
    /// The box of one tile.
    tma: TmaBox,
    tile: (i64, i64),
    /// A 16-bit C's `stmatrix.trans` of a pass's values (`None`: each value stored alone).
    stsm: Option<(CopyAtom, ThrCopy)>,
}

/// One output tile: its `(m_blk, n_blk)`, the tile loop's trip `ti`, the TiledMMA's slice,
/// the accumulator and C's coordinates and the bias, as the consumers partition them.
pub(super) struct TileC<'a> {
    pub plan: &'a GemmPlan,
    pub thr_mma: &'a ThrMma,
    /// `(BLK_M,BLK_N)` identity coordinates of the tile (predicates for the bias).
    pub c_c: &'a Tensor,
    pub g_bias: Option<&'a Tensor>,
    pub mn: [&'a Int; 2],
    pub origin: [Int; 2],
    pub trip: Int,
}

impl TmaStore {
    /// Declares `sC` (1024-byte aligned, for the 128-byte swizzle), C's tensor map and the
    /// `cfull` barriers, with the header's note.
    pub(super) fn declare(
        k: &mut KernelBuilder,
        plan: &GemmPlan,
        mma: &TiledMma,
        (bm, bn): (i64, i64),
        out: ElemType,
        e: &LayoutErr<'_>,
    ) -> Result<TmaStore> {
        if bn % (EPI_N * BUFFERS) != 0 {
            return Err(plan.error(
                "epilogue",
                format!(
                    "BLK_N = {bn}: a multiple of {} ({BUFFERS} tiles of {EPI_N} columns)",
                    EPI_N * BUFFERS
                ),
            ));
        }
        // the atom tiled along N first (CUTLASS's `Step<_2,_1,_3>`): a tile's columns of one
        // 128-byte row of M are whole TMA boxes
        let atom = gmma_layout_atom(GmmaMajor::MN, GmmaSwizzle::Sw128, out).map_err(e)?;
        let shape = tup![s(bm), s(EPI_N), s(BUFFERS)];
        let order = ModeOrder::Order(tup![s(2), s(1), s(3)]);
        let bufs = atom.map(|l| tile_to_shape(l, &shape, &order)).map_err(e)?;
        let bufs = match &bufs {
            AnyLayout::Composed(c) => c.in_element_units().map_err(e)?,
            plain => plain.clone(),
        };
        let s_c = k.smem_aligned("sC", out, bufs, 1024); // (BLK_M,EPI_N,BUFFERS)
        let first = s_c
            .slice(&Coord::Tuple(vec![X, X, s(0).into()]))
            .map_err(e)?; // (BLK_M,EPI_N)
        let tma = cute_layout::atom::make_tma_box(&plan.layout.c_layout(), first.layout(), out)
            .map_err(e)?;
        k.note(&format!(
            "sC: {EPI_N} columns of C per pass in {BUFFERS} alternating tiles, stored by TMA, {tma}"
        ));
        k.tensor_map("C", tma.clone());
        k.mbarriers(C_FULL, BUFFERS, 1);
        let stsm = match out.bits() {
            16 => Some(pass_copy(mma, out, bm, e)?),
            _ => None,
        };
        Ok(TmaStore {
            s_c,
            tma,
            tile: (bm, bn),
            stsm,
        })
    }

    /// Tile `b` of `sC`, `(BLK_M,EPI_N)`.
    fn tile_at(&self, b: i64, e: &LayoutErr<'_>) -> Result<Tensor> {
        self.s_c
            .slice(&Coord::Tuple(vec![X, X, s(b).into()]))
            .map_err(e)
    }

    /// Tile `b` of `sC` viewed as the whole `(BLK_M,BLK_N)` tile, `(BLK_M,(EPI_N,PASSES))`
    /// with the passes on stride 0: each pass's columns land on the tile.
    fn view(&self, b: i64, e: &LayoutErr<'_>) -> Result<Tensor> {
        let passes = self.tile.1 / EPI_N;
        let t = self.tile_at(b, e)?;
        let layout = t
            .layout()
            .map(|l| {
                Ok(Layout::from_modes(vec![
                    l.mode(0)?,
                    Layout::from_modes(vec![l.mode(1)?, Layout::new(s(passes), s(0))?]),
                ]))
            })
            .map_err(e)?;
        Ok(t.with_layout(layout))
    }

    /// The passes of one output tile, after the consumers' mainloop (under their barrier).
    pub(super) fn store(
        &self,
        k: &mut KernelBuilder,
        d: &TileC<'_>,
        acc: &Tensor,
        e: &LayoutErr<'_>,
    ) -> Result<()> {
        let passes = self.tile.1 / EPI_N;
        let blocks = pass_blocks(acc, passes, d.plan)?;
        let part = |t: &Tensor| d.thr_mma.partition(Operand::C, t).map_err(e);
        // a 16-bit C's pass values in registers, for stmatrix: ((2,2,blocks),_1,_1)
        let r_c = match &self.stsm {
            Some(_) => {
                let shape = tup![tup![s(2), s(2), s(blocks)], s(1), s(1)];
                let l = Layout::col_major(&shape).map_err(e)?;
                Some(k.regs("rC", d.plan.output_type(), l)?)
            }
            None => None,
        };
        let frags = Frags {
            acc: acc.clone(),
            c_c: part(d.c_c)?,
            bias: d.g_bias.map(part).transpose()?,
            blocks,
            r_c,
        };
        k.comment(&format!(
            "the epilogue: {EPI_N} columns at a time through sC, stored by TMA while the producer loads the next tile"
        ));
        for p in 0..passes {
            self.pass(k, d, &frags, p, e)?;
        }
        Ok(())
    }

    /// Pass `p`: wait until its tile is free, (load C's columns,) write the values, store.
    fn pass(
        &self,
        k: &mut KernelBuilder,
        d: &TileC<'_>,
        f: &Frags,
        p: i64,
        e: &LayoutErr<'_>,
    ) -> Result<()> {
        let passes = self.tile.1 / EPI_N;
        // BUFFERS is a tuning constant: 1 measured fastest on the H100/H200, 2 is correct too.
        #[allow(clippy::modulo_one)]
        let b = p % BUFFERS;
        let tile = self.tile_at(b, e)?; // (BLK_M,EPI_N)
        let at = |t: &Tensor| slice_pass(t, f.blocks, p, e);
        let t_cs = at(&d
            .thr_mma
            .partition(Operand::C, &self.view(b, e)?)
            .map_err(e)?)?; // (2,2,blocks)
        let frag = at(&f.acc)?; // (2,2,blocks)
        let coords = |c: &[i64]| -> Result<Vec<Int>> {
            let col = d.origin[1].add(&s(p * EPI_N)).map_err(e)?;
            let origin = [d.origin[0].clone(), col];
            self.tma
                .dims
                .iter()
                .map(|dim| {
                    let off = c.get(dim.mode).copied().unwrap_or(0);
                    origin[dim.mode.min(1)].add(&s(off)).map_err(e)
                })
                .collect()
        };
        let one = || Cond::Lt(KernelBuilder::tid(), s(1));
        k.comment(&format!(
            "pass {p}: columns {} to {} in tile {b}",
            p * EPI_N,
            (p + 1) * EPI_N - 1
        ));
        k.if_(
            one(),
            |k| {
                k.bulk_wait_read(BUFFERS - 1);
                Ok(())
            },
            |_| Ok(()),
        )?;
        k.sync();
        // the values go to sC, or to registers that stmatrix stores after
        let dst = match &f.r_c {
            Some(r) => r
                .map_layout(|l| l.mode(0).and_then(|m| Layout::col_major(m.shape())))
                .map_err(e)?, // (2,2,blocks)
            None => t_cs.clone(),
        };
        let values = |k: &mut KernelBuilder, with_c: bool| -> Result<()> {
            let mut srcs = vec![frag.clone()];
            if with_c {
                srcs.push(t_cs.clone());
            }
            let mut pred = None;
            if let Some(bias) = &f.bias {
                srcs.push(at(bias)?);
                // the bias is read where the tile lies inside C (the store drops the rest)
                pred = Some(crate::ir::Pred {
                    coord: at(&f.c_c)?,
                    bounds: vec![d.mn[0].clone(), d.mn[1].clone()],
                });
            }
            let srcs: Vec<&Tensor> = srcs.iter().collect();
            k.map(&dst, &srcs, super::gemm::value(d.plan, with_c), pred);
            Ok(())
        };
        k.if_(
            super::gemm::reads_c(d.plan),
            |k| {
                // tile b's loads so far: two per tile before this one, and this tile's earlier
                let uses = d
                    .trip
                    .mul(&s(passes / BUFFERS))
                    .and_then(|x| x.add(&s(p / BUFFERS)))
                    .and_then(|x| x.rem(&s(2)))
                    .map_err(e)?;
                let bar = s(b);
                k.if_(
                    one(),
                    |k| {
                        k.mbarrier_arrive_expect_tx(C_FULL, &bar, self.tma.tile_bytes());
                        for issue in &self.tma.issues {
                            let dst = offset_by(&tile, &s(issue.smem_offset), e)?;
                            k.tma_load("C", coords(&issue.coord)?, &dst, (C_FULL, &bar));
                        }
                        Ok(())
                    },
                    |_| Ok(()),
                )?;
                k.mbarrier_wait(C_FULL, &bar, uses);
                values(k, true)?;
                if f.r_c.is_some() {
                    // stmatrix writes a warp's values from its lanes' registers to rows other
                    // lanes read C from: every read done first
                    k.sync();
                }
                Ok(())
            },
            |k| values(k, false),
        )?;
        if let (Some((atom, thr)), Some(r)) = (&self.stsm, &f.r_c) {
            let src = thr.retile(r).map_err(e)?; // (CPY,CPY_M,CPY_N)
            let dst = thr.partition_d(&tile).map_err(e)?; // (CPY,CPY_M,CPY_N)
            k.copy(atom, &src, &dst);
        }
        k.fence_proxy_async();
        k.sync();
        k.if_(
            one(),
            |k| {
                for issue in &self.tma.issues {
                    let src = offset_by(&tile, &s(issue.smem_offset), e)?;
                    k.tma_store("C", coords(&issue.coord)?, &src);
                }
                k.bulk_commit();
                Ok(())
            },
            |_| Ok(()),
        )?;
        Ok(())
    }
}

/// A 16-bit C's copy of one pass into `sC`: `make_tiled_copy_C` of
/// `Copy_Atom<SM90_U16x8_STSM_T, T>` over the TiledMMA with the pass's N (`EPI_N`), whose C
/// fragment `((2,2,EPI_N/8),_1,_1)` is a pass's slice of the whole tile's; each thread stores 8
/// values (four 8x8 matrices, transposed: C is M-major) per `stmatrix`. Its thread's slice.
fn pass_copy(
    mma: &TiledMma,
    out: ElemType,
    bm: i64,
    e: &LayoutErr<'_>,
) -> Result<(CopyAtom, ThrCopy)> {
    let MmaOp::Sm90(mut g) = mma.atom().op() else {
        return Err(crate::CodegenError::Unknown(format!(
            "{}: the TMA-store epilogue's stmatrix needs a GMMA",
            mma.atom()
        )));
    };
    g.n = EPI_N;
    let per_pass = make_tiled_mma(
        MmaAtom::new(MmaOp::Sm90(g)),
        &Layout::col_major(&tup![s(bm / 64), s(1), s(1)]).map_err(e)?,
        &[],
    )
    .map_err(e)?;
    let atom = CopyAtom::new(CopyOp::StsmT { matrices: 4 }, out).map_err(e)?;
    let tiled = make_tiled_copy_C(&atom, &per_pass).map_err(e)?;
    let thr = tiled.get_slice(&KernelBuilder::tid()).map_err(e)?;
    Ok((atom, thr))
}

/// A tile's C fragments `((2,2,N/8),_1,_1)`, with the column blocks of a pass.
struct Frags {
    acc: Tensor,
    /// C's coordinates.
    c_c: Tensor,
    bias: Option<Tensor>,
    blocks: i64,
    /// A 16-bit C's values of a pass, `((2,2,blocks),_1,_1)` (stored by `stmatrix`).
    r_c: Option<Tensor>,
}

/// The 8-column blocks of the accumulator per pass: its fragment must be the GMMA C
/// fragment `((2,2,BLOCKS),_1,_1)` (one MMA along M and N per thread).
fn pass_blocks(acc: &Tensor, passes: i64, plan: &GemmPlan) -> Result<i64> {
    let l = acc.layout().shape_layout();
    let shape = l.shape();
    let bad = || {
        plan.error(
            "epilogue",
            format!("the accumulator {l}: a GMMA C fragment ((2,2,N/8),_1,_1) whose N/8 column blocks divide into the {passes} passes"),
        )
    };
    let leaf = |t: Option<&cute_layout::IntTuple>| t.and_then(|t| t.as_int()?.as_static());
    let rest_ones = (1..shape.rank()).all(|i| leaf(shape.get(i)) == Some(1));
    match shape.get(0) {
        Some(v) if v.rank() == 3 && rest_ones => match leaf(v.get(2)) {
            Some(n) if n % passes == 0 => Ok(n / passes),
            _ => Err(bad()),
        },
        _ => Err(bad()),
    }
}

/// Pass `p`'s values of a C fragment `((2,2,N/8),_1,_1)`: `(2,2,blocks)`.
fn slice_pass(t: &Tensor, blocks: i64, p: i64, e: &LayoutErr<'_>) -> Result<Tensor> {
    let tiler = Tiler::Tuple(vec![
        Tiler::Tuple(vec![Tiler::Under, Tiler::Under, Tiler::Int(s(blocks))]),
        Tiler::Under,
        Tiler::Under,
    ]);
    t.map_layout(|l| logical_divide(l, &tiler))
        .and_then(|t| {
            t.slice(&Coord::Tuple(vec![
                Coord::Tuple(vec![X, X, Coord::Tuple(vec![X, s(p).into()])]),
                s(0).into(),
                s(0).into(),
            ]))
        })
        .map_err(e)
}
