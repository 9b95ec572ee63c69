//! The named plans of the seed kernels, reachable by name (`cute emit NAME`).

use cute_layout::atom::{
    make_tiled_copy, make_tiled_mma, CopyAtom, CopyOp, MmaAtom, MmaOp, TiledMma,
};
use cute_layout::{compose_swizzle, s, tup, AnyLayout, ElemType, Layout, MemSpace, Swizzle, Tiler};

use crate::error::{CodegenError, Result};
use crate::gemm::{Bias, Epilogue, GemmLayout, GemmPlan, Major, Pipelined, Policy};

/// The names, in the order `cute emit --list` prints them.
pub const NAMES: &[&str] = &[
    "naive-rows",
    "naive-cols",
    "tiled-16",
    "tiled-32",
    "sgemm-sm80",
    "sgemm-sm80-bias-relu",
    "simt-hier",
];

/// The plan called `name` for a layout.
pub fn plan(name: &str, layout: GemmLayout) -> Result<GemmPlan> {
    let err = |source| CodegenError::Layout {
        plan: name.to_string(),
        part: "plan",
        source,
    };
    let lay = |sh: (i64, i64), st: (i64, i64)| {
        Layout::new(tup![s(sh.0), s(sh.1)], tup![s(st.0), s(st.1)]).map_err(err)
    };
    let (policy, epilogue) = match name {
        // Consecutive threads take consecutive columns (n): C stores are strided.
        "naive-rows" => (
            Policy::Naive {
                tile: (8, 32),
                thr: lay((8, 32), (32, 1))?,
            },
            Epilogue::linear(),
        ),
        // Consecutive threads take consecutive rows (m): C (column-major) stores coalesce.
        "naive-cols" => (
            Policy::Naive {
                tile: (32, 8),
                thr: lay((32, 8), (1, 32))?,
            },
            Epilogue::linear(),
        ),
        "tiled-16" => (Policy::SmemTiled { tile: 16 }, Epilogue::linear()),
        "tiled-32" => (Policy::SmemTiled { tile: 32 }, Epilogue::linear()),
        "sgemm-sm80" => (
            Policy::Pipelined(Box::new(sgemm_sm80(name, layout)?)),
            Epilogue::linear(),
        ),
        "sgemm-sm80-bias-relu" => (
            Policy::Pipelined(Box::new(sgemm_sm80(name, layout)?)),
            Epilogue::bias_relu(Bias::PerRow),
        ),
        "simt-hier" => (
            Policy::Pipelined(Box::new(simt_hier(name, layout)?)),
            Epilogue::linear(),
        ),
        _ => return Err(CodegenError::Unknown(name.to_string())),
    };
    Ok(GemmPlan {
        name: name.to_string(),
        layout,
        policy,
        epilogue,
    })
}

fn lerr<'a>(plan: &'a str, part: &'static str) -> impl Fn(cute_layout::Error) -> CodegenError + 'a {
    move |source| CodegenError::Layout {
        plan: plan.to_string(),
        part,
        source,
    }
}

/// The CuTe-ly SM80 SGEMM: 128x128x32 tile, 256 threads, 3 stages of 128-bit `cp.async.cg`,
/// UniversalFMA 16x16 with the M permutation `(16,4,2):(4,1,64)`, swizzled K-major shared tiles.
fn sgemm_sm80(name: &str, layout: GemmLayout) -> Result<Pipelined> {
    let e = lerr(name, "plan");
    let atom =
        CopyAtom::new(CopyOp::CpAsyncCacheGlobal { bits: 128 }, ElemType::F32).map_err(&e)?;
    let perm_m = Layout::new(tup![s(16), s(4), s(2)], tup![s(4), s(1), s(64)]).map_err(&e)?;
    let mma = make_tiled_mma(
        MmaAtom::new(MmaOp::universal_fma(
            ElemType::F32,
            ElemType::F32,
            ElemType::F32,
            ElemType::F32,
        )),
        &Layout::new(tup![s(16), s(16)], tup![s(1), s(16)]).map_err(&e)?,
        &[Tiler::Layout(perm_m), Tiler::Int(s(128)), Tiler::Int(s(32))],
    )
    .map_err(&e)?;
    let (copy_a, smem_a) = operand(name, layout.a, 128, 32, 3, &atom, 256, &mma, 'A')?;
    let (copy_b, smem_b) = operand(name, layout.b, 128, 32, 3, &atom, 256, &mma, 'B')?;
    Ok(Pipelined {
        cta: (128, 128, 32),
        smem_a,
        smem_b,
        copy_a,
        copy_b,
        mma,
        stages: 3,
        predicated: true,
    })
}

/// A CUTLASS-style hierarchical SIMT tiling for tall-skinny problems: a 128x32x8 block tile of 128
/// threads, each owning an 8x4 thread tile (4+4 contiguous rows, 4 columns), double-buffered.
fn simt_hier(name: &str, layout: GemmLayout) -> Result<Pipelined> {
    let e = lerr(name, "plan");
    let perm_m = Layout::new(tup![s(16), s(4), s(2)], tup![s(4), s(1), s(64)]).map_err(&e)?;
    let mma = make_tiled_mma(
        MmaAtom::new(MmaOp::universal_fma(
            ElemType::F32,
            ElemType::F32,
            ElemType::F32,
            ElemType::F32,
        )),
        &Layout::new(tup![s(16), s(8)], tup![s(1), s(16)]).map_err(&e)?,
        &[Tiler::Layout(perm_m), Tiler::Int(s(32)), Tiler::Int(s(8))],
    )
    .map_err(&e)?;
    let a16 = CopyAtom::new(CopyOp::CpAsyncCacheGlobal { bits: 128 }, ElemType::F32).map_err(&e)?;
    let a8 = CopyAtom::new(CopyOp::CpAsyncCacheAlways { bits: 64 }, ElemType::F32).map_err(&e)?;
    let (copy_a, smem_a) = operand(name, layout.a, 128, 8, 2, &a16, 128, &mma, 'A')?;
    let (copy_b, smem_b) = operand(name, layout.b, 32, 8, 2, &a8, 128, &mma, 'B')?;
    Ok(Pipelined {
        cta: (128, 32, 8),
        smem_a,
        smem_b,
        copy_a,
        copy_b,
        mma,
        stages: 2,
        predicated: true,
    })
}

/// The gmem -> smem copy and the shared layout of one operand (`rows x bk x stages`): vectors
/// along the operand's contiguous mode; a K-major shared tile gets the swizzle that makes the
/// MMA's reads of it conflict-free (chosen by the bank-conflict analysis).
#[allow(clippy::too_many_arguments)]
fn operand(
    name: &str,
    major: Major,
    rows: i64,
    bk: i64,
    stages: i64,
    atom: &CopyAtom,
    threads: i64,
    mma: &TiledMma,
    which: char,
) -> Result<(cute_layout::atom::TiledCopy, AnyLayout)> {
    let e = lerr(
        name,
        if which == 'A' {
            "operand A"
        } else {
            "operand B"
        },
    );
    let vec = atom
        .val_layout_src()
        .map_err(&e)?
        .mode(1)
        .map_err(&e)?
        .size()
        .map_err(&e)?
        .as_static()
        .unwrap_or(1);
    let (thr, val, smem) = match major {
        Major::MN => {
            let tr = rows / vec;
            let tk = threads / tr;
            (
                Layout::new(tup![s(tr), s(tk)], tup![s(1), s(tr)]).map_err(&e)?,
                Layout::new(tup![s(vec), s(1)], tup![s(1), s(0)]).map_err(&e)?,
                Layout::new(
                    tup![s(rows), s(bk), s(stages)],
                    tup![s(1), s(rows), s(rows * bk)],
                )
                .map_err(&e)?,
            )
        }
        Major::K => {
            let tk = bk / vec;
            let tr = threads / tk;
            (
                Layout::new(tup![s(tr), s(tk)], tup![s(tk), s(1)]).map_err(&e)?,
                Layout::new(tup![s(1), s(vec)], tup![s(0), s(1)]).map_err(&e)?,
                Layout::new(
                    tup![s(rows), s(bk), s(stages)],
                    tup![s(bk), s(1), s(rows * bk)],
                )
                .map_err(&e)?,
            )
        }
    };
    let copy = make_tiled_copy(atom, &thr, &val).map_err(&e)?;
    let smem = if major == Major::K {
        best_swizzle(mma, which, &smem, bk).map_err(&e)?
    } else {
        AnyLayout::Plain(smem)
    };
    Ok((copy, smem))
}

/// The swizzle (none, or `Swizzle<B,2,S>` keeping 16-byte vectors whole) with the fewest bank
/// conflicts for the MMA's reads of a K-major shared tile; the smallest on ties.
fn best_swizzle(
    mma: &TiledMma,
    which: char,
    smem: &Layout,
    bk: i64,
) -> cute_layout::Result<AnyLayout> {
    let row_bits = bk.trailing_zeros() as i64; // log2 of the row length in elements
    let mut best = (i64::MAX, AnyLayout::Plain(smem.clone()));
    let mut candidates = vec![None];
    for b in 1..=3 {
        // XOR row bits (above the row length) into the 16-byte-group bits of the column.
        if let Ok(sw) = Swizzle::new(b, 2, row_bits - 2) {
            candidates.push(Some(sw));
        }
    }
    for sw in candidates {
        let l = match sw {
            Some(sw) => compose_swizzle(sw, smem),
            None => AnyLayout::Plain(smem.clone()),
        };
        let (t, swz) = crate::gemm::frag_tensor(&format!("s{which}"), MemSpace::Smem, &l);
        let thr = mma.get_slice(&cute_layout::Int::symbol("tid"))?;
        let f = crate::gemm::frag_mma(&thr, which, &t, swz)?;
        let mask = f.swizzle.map(|sw| (sw.yyy_mask(), sw.params().2));
        let ways = crate::gemm::bank_ways(&f, f.mode_size(1), bk, 32, mask).unwrap_or(i64::MAX);
        if ways < best.0 {
            best = (ways, l);
        }
    }
    Ok(best.1)
}
