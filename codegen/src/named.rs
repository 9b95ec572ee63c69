//! The named plans of the seed kernels, reachable by name (`cute emit NAME`).

use cute_layout::atom::{
    gmma_layout_atom, make_tiled_copy, make_tiled_mma, CopyAtom, CopyOp, GmmaMajor, GmmaSwizzle,
    MmaAtom, MmaOp, Operand, TiledMma,
};
use cute_layout::{
    compose_swizzle, s, tile_to_shape, tup, AnyLayout, ElemType, Layout, ModeOrder, Swizzle, Tiler,
};

use crate::error::{CodegenError, Result};
use crate::gemm::k_major::{best_tile, compact_tile};
use crate::gemm::{
    Bias, Epilogue, GemmLayout, GemmPlan, KMajorTile, Major, Pipelined, Policy, TensorCore,
    K_MAJOR_PAD,
};
use crate::target::Target;

/// The names, in the order `cute emit --list` prints them.
pub const NAMES: &[&str] = &[
    "naive-rows",
    "naive-cols",
    "tiled-16",
    "tiled-32",
    "sgemm-sm80",
    "sgemm-sm80-bias-relu",
    "sgemm-sm80-16x128",
    "sgemm-sm80-64x128",
    "sgemm-sm80-8x256",
    "sgemm-sm80-256x128",
    "sgemm-sm80-128x256",
    "sgemm-sm80-128x32",
    "simt-hier",
];

/// The tensor-core plans (`hgemm-sm80`, `bgemm-sm80`, `tf32gemm-sm80`, and `hgemm-sm80-bias-relu`:
/// hgemm-sm80 with the CuTe article's per-row bias and ReLU fused into its epilogue; the SM90
/// `hgemm-sm90`, `bgemm-sm90`, `tf32gemm-sm90`, warp-specialized over TMA, and
/// `hgemm-sm90-tma` (a CTA per tile instead of the persistent grid) and `hgemm-sm90-cpasync`
/// (the wgmma mainloop fed by every thread's cp.async), the earlier steps of that recipe): reachable
/// by name like the others, not yet in [`NAMES`] (the FP32 kernels `cute check` and `cute bench`
/// run by default).
pub const TENSOR_CORE_NAMES: &[&str] = &[
    "hgemm-sm80",
    "bgemm-sm80",
    "tf32gemm-sm80",
    "hgemm-sm80-bias-relu",
    "hgemm-sm80-128x128",
    "bgemm-sm80-128x128",
    "hgemm-sm80-64x128",
    "bgemm-sm80-64x128",
    "hgemm-sm80-16x128",
    "bgemm-sm80-16x128",
    "hgemm-sm80-128x32",
    "bgemm-sm80-128x32",
    "hgemm-sm90",
    "bgemm-sm90",
    "hgemm-sm90-128x128",
    "bgemm-sm90-128x128",
    "tf32gemm-sm90",
    "hgemm-sm90-tma",
    "hgemm-sm90-cpasync",
    "fp8gemm-sm90",
    "hgemm-sm90-cluster",
    "bgemm-sm90-cluster",
    "fp8gemm-sm90-cluster",
];

/// The few-row GEMMs (`sgemm-gemv`, `hgemm-gemv`, `bgemm-gemv`: a warp per column of C, B
/// streamed along K, where B is K-major (NN, TN); 32 columns a CTA, the warps splitting K,
/// where it is N-major (NT, TT)), reachable by name; the FP32 selector takes the K-major form
/// for C of at most [`GEMV_ROWS`] rows, and `cute tune` times both.
pub const GEMV_NAMES: &[&str] = &["sgemm-gemv", "hgemm-gemv", "bgemm-gemv"];

/// The rows of C a GEMV warp computes.
pub const GEMV_ROWS: i64 = 4;

/// The warps of a GEMV CTA of a K-major B (a column of C each).
const GEMV_WARPS: i64 = 4;

/// The warps of a GEMV CTA of an N-major B, splitting K over the CTA's 32 columns: a
/// 4096-column C is 128 CTAs, 2048 warps each with its vectors of B in flight.
const GEMV_N_MAJOR_WARPS: i64 = 16;

/// The vectors of B a GEMV lane has in flight. Every warp of a GEMV is resident at once (a
/// 4096-column C is 1024 CTAs of 4 warps), so nothing hides a step's memory latency but the
/// warp's own loads in flight: one vector a step took a DRAM round trip per 32 x 16 bytes of a
/// column, 1.5-1.65 TB/s at one row against 4096 x 4096 and 8192 x 8192 on an H100 (the first
/// build, 2026-12-07); four make a round trip every 2 KiB of a column.
const GEMV_IN_FLIGHT: i64 = 4;

/// The persistent SM90 GEMMs' raster group (M-blocks per group): 16 of the 128-row tiles with
/// the 8 or so 256-column tiles of a 132-CTA wave read about as many bytes of A as of B. On
/// the H200 (2026-12-05) hgemm-sm90 TN at 8192^3 ran 728.6 TFLOP/s with it, 698.2 walking M
/// over all of C; at 4096^3 1 to 2% faster or the same.
const SM90_RASTER_GROUP: i64 = 16;

/// How an SM90 plan feeds its wgmmas: the steps of the recipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sm90Mainloop {
    /// Every thread's `cp.async`, a CTA per output tile.
    CpAsync,
    /// A TMA producer warpgroup, a CTA per output tile.
    Tma,
    /// A TMA producer warpgroup, one CTA per SM looping over the tiles.
    Persistent,
    /// Persistent, in clusters of 2 CTAs along M that multicast B's k-tiles to each other.
    Cluster,
}

/// The CTA tile of an SM90 GEMM: 128 rows (two consumer warpgroups of 64), `n` columns (the
/// GMMA atom's N), and its shared stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sm90Tile {
    pub n: i64,
    pub stages: i64,
}

impl Sm90Tile {
    /// The rows of every SM90 tile: two consumer warpgroups of 64.
    pub const M: i64 = 128;

    /// 128x256 in 4 stages (`hgemm-sm90`, `bgemm-sm90`, ...): 48 KiB a stage of 16-bit A and B.
    pub const WIDE: Sm90Tile = Sm90Tile { n: 256, stages: 4 };
    /// 128x128 in 6 stages (`hgemm-`/`bgemm-sm90-128x128`): twice the tiles of the wide one,
    /// for problems whose 128x256 tiles leave SMs idle (32 KiB a stage).
    pub const SQUARE: Sm90Tile = Sm90Tile { n: 128, stages: 6 };

    /// The CTA tile `(BLK_M, BLK_N, BLK_K)` for operands of `elem`: BLK_K is 128 bytes of K,
    /// one SW128 row (64 16-bit values).
    pub fn cta(self, elem: ElemType) -> (i64, i64, i64) {
        (Sm90Tile::M, self.n, 1024 / i64::from(elem.bits()))
    }

    /// The output tiles of an `m x n` C (a negative size: none), saturating.
    pub fn tiles(self, m: i64, n: i64) -> i64 {
        use crate::target::ceil_div;
        ceil_div(m, Sm90Tile::M).saturating_mul(ceil_div(n, self.n))
    }
}

/// The plan called `name` for a layout, for the default target (`sm_90a`, the H100/H200).
pub fn plan(name: &str, layout: GemmLayout) -> Result<GemmPlan> {
    plan_for(name, layout, &Target::default())
}

/// The plan called `name` for a layout and a target: the recipe asks for what fits the target
/// (`sgemm-sm80` is built for two CTAs per SM where two fit, one elsewhere).
pub fn plan_for(name: &str, layout: GemmLayout, target: &Target) -> Result<GemmPlan> {
    let err = |source| CodegenError::Layout {
        plan: name.to_string(),
        part: "plan",
        source,
    };
    let lay = |sh: (i64, i64), st: (i64, i64)| {
        Layout::new(tup![s(sh.0), s(sh.1)], tup![s(st.0), s(st.1)]).map_err(err)
    };
    let tensor_core = |elem, tile| -> Result<Policy> {
        Ok(Policy::TensorCore(Box::new(tensor_core_sm80(
            name, layout, target, elem, tile,
        )?)))
    };
    let warpgroup_tile = |elem, mainloop, tile| -> Result<Policy> {
        Ok(Policy::TensorCore(Box::new(tensor_core_sm90(
            name, layout, target, elem, mainloop, tile,
        )?)))
    };
    let warpgroup = |elem, mainloop| warpgroup_tile(elem, mainloop, Sm90Tile::WIDE);
    use Sm90Mainloop::{Cluster, CpAsync, Persistent, Tma};
    let gemv = |elem| {
        Policy::Gemv(crate::gemm::Gemv {
            elem,
            rows: GEMV_ROWS,
            warps: match layout.b {
                crate::gemm::Major::K => GEMV_WARPS,
                crate::gemm::Major::MN => GEMV_N_MAJOR_WARPS,
            },
            in_flight: GEMV_IN_FLIGHT,
        })
    };
    let simt = SIMT_TILES.iter().find(|(n, _)| *n == name).map(|&(_, t)| t);
    let (policy, epilogue) = if let Some((elem, tile)) = sm80_tile_of(name) {
        (tensor_core(elem, tile)?, Epilogue::linear())
    } else if let Some(t) = simt {
        (
            Policy::Pipelined(Box::new(simt_tile(name, layout, target, t)?)),
            Epilogue::linear(),
        )
    } else {
        match name {
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
            "sgemm-sm80-bias-relu" => (
                Policy::Pipelined(Box::new(sgemm_sm80(name, layout, target)?)),
                Epilogue::bias_relu(Bias::PerRow),
            ),
            "simt-hier" => (
                Policy::Pipelined(Box::new(simt_hier(name, layout)?)),
                Epilogue::linear(),
            ),
            "sgemm-gemv" => (gemv(ElemType::F32), Epilogue::linear()),
            "hgemm-gemv" => (gemv(ElemType::F16), Epilogue::linear()),
            "bgemm-gemv" => (gemv(ElemType::Bf16), Epilogue::linear()),
            "hgemm-sm80-bias-relu" => (
                tensor_core(ElemType::F16, Sm80Tile::Fit)?,
                Epilogue::bias_relu(Bias::PerRow),
            ),
            "hgemm-sm90" => (warpgroup(ElemType::F16, Persistent)?, Epilogue::linear()),
            "bgemm-sm90" => (warpgroup(ElemType::Bf16, Persistent)?, Epilogue::linear()),
            "hgemm-sm90-128x128" => (
                warpgroup_tile(ElemType::F16, Persistent, Sm90Tile::SQUARE)?,
                Epilogue::linear(),
            ),
            "bgemm-sm90-128x128" => (
                warpgroup_tile(ElemType::Bf16, Persistent, Sm90Tile::SQUARE)?,
                Epilogue::linear(),
            ),
            "tf32gemm-sm90" => (warpgroup(ElemType::Tf32, Persistent)?, Epilogue::linear()),
            // E4M3 A and B, FP32 accumulate, a BF16 C; the per-tensor scales are alpha
            "fp8gemm-sm90" => (warpgroup(ElemType::E4M3, Persistent)?, Epilogue::linear()),
            // the previous steps of the recipe (the A/B baselines): a CTA per tile with TMA, and
            // every thread copying with cp.async
            "hgemm-sm90-tma" => (warpgroup(ElemType::F16, Tma)?, Epilogue::linear()),
            "hgemm-sm90-cpasync" => (warpgroup(ElemType::F16, CpAsync)?, Epilogue::linear()),
            // the next step: 2-CTA clusters along M, B's k-tiles multicast
            "hgemm-sm90-cluster" => (warpgroup(ElemType::F16, Cluster)?, Epilogue::linear()),
            "bgemm-sm90-cluster" => (warpgroup(ElemType::Bf16, Cluster)?, Epilogue::linear()),
            "fp8gemm-sm90-cluster" => (warpgroup(ElemType::E4M3, Cluster)?, Epilogue::linear()),
            _ => return Err(CodegenError::Unknown(name.to_string())),
        }
    };
    Ok(GemmPlan {
        name: name.to_string(),
        layout,
        policy,
        epilogue,
        target: *target,
        split_k: crate::gemm::SplitKMode::None,
    })
}

/// [`plan_for`] with `n` k blocks per trip of its k-block loop when `unroll` is given (`cute ...
/// --k-block-unroll N`; [`GemmPlan::with_k_block_unroll`]).
pub fn plan_unrolled(
    name: &str,
    layout: GemmLayout,
    target: &Target,
    unroll: Option<i64>,
) -> Result<GemmPlan> {
    let p = plan_for(name, layout, target)?;
    match unroll {
        Some(n) => p.with_k_block_unroll(n),
        None => Ok(p),
    }
}

fn lerr<'a>(plan: &'a str, part: &'static str) -> impl Fn(cute_layout::Error) -> CodegenError + 'a {
    move |source| CodegenError::Layout {
        plan: plan.to_string(),
        part,
        source,
    }
}

/// The CTAs per SM a recipe builds for: `want`, or as many CTAs of its threads, `registers`
/// registers per thread and its shared memory as fit an SM of the target (at least one).
fn ctas_that_fit(target: &Target, p: &Pipelined, want: i64, registers: i64) -> i64 {
    let threads = p
        .mma
        .num_threads()
        .ok()
        .and_then(|t| t.as_static())
        .unwrap_or(0);
    let smem_bytes = 4 * crate::gemm::smem_offsets(p).1;
    want.min(target.ctas_per_sm(threads, registers, smem_bytes))
        .max(1)
}

/// The CuTe-ly SM80 SGEMM: 128x128x32 tile, 256 threads, 3 stages of 128-bit `cp.async.cg`,
/// UniversalFMA 16x16 with the M permutation `(16,4,2):(4,1,64)`, padded K-major shared tiles.
fn sgemm_sm80(name: &str, layout: GemmLayout, target: &Target) -> Result<Pipelined> {
    // 128 registers, two CTAs per SM in every layout: in trips of 8 k blocks each layout's
    // kernel fits 128 registers without spilling (left unbounded, TN's took 150 and one CTA per
    // SM: 74% of cuBLAS on the H200 instead of 85%). Two CTAs of 96 to 99 KiB fit the 228 KiB
    // of an sm_90a SM, not the 164 KiB of an sm_80 one or the 100 KiB of sm_86/sm_89: there the
    // recipe asks for what fits.
    simt_tile(name, layout, target, SimtTile::SQUARE)
}

/// The SIMT GEMMs built by `simt_tile` alone, and their tiles: the square tile first (the
/// FP32 selector's family, `select::FAMILY`).
pub const SIMT_TILES: [(&str, SimtTile); 7] = [
    ("sgemm-sm80", SimtTile::SQUARE),
    ("sgemm-sm80-16x128", SimtTile::WIDE),
    ("sgemm-sm80-64x128", SimtTile::MID),
    ("sgemm-sm80-8x256", SimtTile::NARROW),
    ("sgemm-sm80-128x32", SimtTile::TALL),
    ("sgemm-sm80-256x128", SimtTile::LARGE_M),
    ("sgemm-sm80-128x256", SimtTile::LARGE_N),
];

/// The tile family of the SM80 SIMT GEMMs: a CTA tile, the thread layout over its (M, N) and
/// the CTAs per SM it is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimtTile {
    /// (BLK_M, BLK_N, BLK_K).
    pub cta: (i64, i64, i64),
    /// The threads along M and along N (each thread takes BLK_M / tm rows, BLK_N / tn
    /// columns, in runs of 4).
    pub threads: (i64, i64),
    /// The CTAs per SM asked for (at [`Self::REGISTERS`] a thread), if they fit.
    pub ctas_per_sm: i64,
}

impl SimtTile {
    /// The shared-memory stages of every tile of the family, where a block of the target holds
    /// them.
    pub const STAGES: i64 = 3;

    /// The registers a thread the CTAs per SM are counted at (the launch bounds' budget).
    pub const REGISTERS: i64 = 128;

    /// The bytes of `stages` shared stages of the tile's A and B (FP32).
    pub fn smem_bytes(&self, stages: i64) -> i64 {
        self.bytes(stages, (0, 0))
    }

    /// The bytes of `stages` stages of A and B (FP32) whose columns are `(pad_a, pad_b)`
    /// values longer than their rows.
    fn bytes(&self, stages: i64, (pad_a, pad_b): (i64, i64)) -> i64 {
        let (bm, bn, bk) = self.cta;
        4 * (bm + pad_a + bn + pad_b) * bk * stages
    }

    /// Whether the tile's K-major operands in `layout` may take padded shared tiles
    /// ([`KMajorTile::Padded`]) at `stages` on `target`: where the padded A and B fit a block
    /// and leave as many CTAs per SM (at [`Self::REGISTERS`]) as unpadded ones.
    pub fn pads_k_major(&self, layout: GemmLayout, stages: i64, target: &Target) -> bool {
        let pad = |major| if major == Major::K { K_MAJOR_PAD } else { 0 };
        let padded = self.bytes(stages, (pad(layout.a), pad(layout.b)));
        let threads = self.threads.0 * self.threads.1;
        let ctas = |bytes| {
            self.ctas_per_sm
                .min(target.ctas_per_sm(threads, Self::REGISTERS, bytes))
        };
        padded <= target.smem_per_block && ctas(padded) >= ctas(self.smem_bytes(stages))
    }

    /// [`Self::STAGES`], or two where a block of `target` can't hold three stages of the tile
    /// (the large tiles' 144 KiB on sm_86/sm_89, whose blocks have 99 KiB).
    pub fn stages_on(&self, target: &Target) -> i64 {
        (2..=Self::STAGES)
            .rev()
            .find(|&s| self.smem_bytes(s) <= target.smem_per_block)
            .unwrap_or(2)
    }

    /// `sgemm-sm80`'s 128x128x32 over 16x16 threads, two CTAs per SM.
    pub const SQUARE: SimtTile = SimtTile {
        cta: (128, 128, 32),
        threads: (16, 16),
        ctas_per_sm: 2,
    };
    /// `sgemm-sm80-256x128`'s 256x128x32 over 16x16 threads (16x8 values each: 6 128-bit
    /// fragment loads a k block for 128 FMAs, where the square tile's 8x8 take 4 for 64), one
    /// CTA per SM (228-240 registers, no spills): for large problems with an M-major A, whose
    /// 128-bit copies take the longer tile. On an H100 (2026-12-07,
    /// `reports/2026-12-07-h100-issue17-large-tiles.txt`) NN at 4096³ and 8192³ 95.6% and
    /// 95.9% of cuBLAS against the square tile's 90.2% and 91.4%, NT 101.5% and 98.7% against
    /// 98.5% and 96.2%; slower where A is K-major (TN, TT), and at 1024³ (32 CTAs for 132
    /// SMs) a third of the square tile's speed.
    pub const LARGE_M: SimtTile = SimtTile {
        cta: (256, 128, 32),
        threads: (16, 16),
        ctas_per_sm: 1,
    };
    /// `sgemm-sm80-128x256`'s 128x256x32 over 16x16 threads (8x16 values each), one CTA per
    /// SM: the 256x128 tile's transpose, for an N-major B and a K-major A (TT: on the same
    /// H100, 96.6% and 93.3% of cuBLAS at 4096³ and 8192³ against the square tile's 95.0%
    /// and 92.2%).
    pub const LARGE_N: SimtTile = SimtTile {
        cta: (128, 256, 32),
        threads: (16, 16),
        ctas_per_sm: 1,
    };
    /// `sgemm-sm80-16x128`'s 16x128x32 over 4x32 threads, three CTAs per SM: for a few rows of
    /// C (a decode step's M = 1 to 16), where a 128-row tile computes 8 to 128 times the work.
    pub const WIDE: SimtTile = SimtTile {
        cta: (16, 128, 32),
        threads: (4, 32),
        ctas_per_sm: 3,
    };
    /// `sgemm-sm80-8x256`'s 8x256x32 over 2x64 threads (4x4 values each, as the 16x128
    /// tile's), three CTAs per SM: for one to eight rows of C (a GEMV's single row), where the
    /// 16x128 tile computes twice the rows the 8-row one does for the same B.
    pub const NARROW: SimtTile = SimtTile {
        cta: (8, 256, 32),
        threads: (2, 64),
        ctas_per_sm: 3,
    };
    /// `sgemm-sm80-128x32`'s 128x32x32 over 16x8 threads (8x4 values each), three CTAs per SM:
    /// for a few columns of C (`1000 x 17`), where a 128-column tile computes up to 128 times
    /// the columns on a handful of SMs.
    pub const TALL: SimtTile = SimtTile {
        cta: (128, 32, 32),
        threads: (16, 8),
        ctas_per_sm: 3,
    };
    /// `sgemm-sm80-64x128`'s 64x128x32 over 8x16 threads (8x8 values each, as the square
    /// tile's), three CTAs per SM: for tens of rows of C, where the 128-row tile computes up to
    /// twice the rows and the 16-row tile reads B four times over.
    pub const MID: SimtTile = SimtTile {
        cta: (64, 128, 32),
        threads: (8, 16),
        ctas_per_sm: 3,
    };
}

/// A SIMT SGEMM of tile `t`: 3 stages of `cp.async` (128-bit along M-/N-major operands),
/// UniversalFMA over `t.threads` with M and N permuted so each thread's rows and columns are
/// runs of 4 (its fragments load as 128-bit vectors from the M-/N-major shared tiles), k blocks
/// in trips of 8. K-major operands take padded shared tiles where those fit as many CTAs per
/// SM (`SimtTile::pads_k_major`) and conflict no more than a swizzle, swizzled ones elsewhere:
/// on an H100 (2026-12-07, `reports/2026-12-07-h100-padded-k-major.txt`, alternating) padded
/// 256x128 TN / TT / NN ran 89.0 / 95.5 / 98.0% of cuBLAS at 4096³ against swizzled 81.7 /
/// 89.5 / 95.6%, 128x256 TT 98.4 against 96.8, the square tile within half a point; none slower.
fn simt_tile(name: &str, layout: GemmLayout, target: &Target, t: SimtTile) -> Result<Pipelined> {
    let e = lerr(name, "plan");
    let ((bm, bn, bk), (tm, tn)) = (t.cta, t.threads);
    if tm <= 0 || tn <= 0 || bm % (4 * tm) != 0 || bn % (4 * tn) != 0 {
        return Err(CodegenError::Plan {
            plan: name.to_string(),
            part: "tile",
            msg: format!("{bm}x{bn} over {tm}x{tn} threads: runs of 4 rows and columns a thread"),
        });
    }
    // thread i's values v along M at 4 i + v (+ 4 tm for the next run of 4)
    let perm = |rows: i64, thr: i64| {
        Layout::new(
            tup![s(thr), s(4), s(rows / (4 * thr))],
            tup![s(4), s(1), s(4 * thr)],
        )
    };
    let fma = MmaOp::universal_fma(ElemType::F32, ElemType::F32, ElemType::F32, ElemType::F32);
    let mma = make_tiled_mma(
        MmaAtom::new(fma),
        &Layout::new(tup![s(tm), s(tn)], tup![s(1), s(tm)]).map_err(&e)?,
        &[
            Tiler::Layout(perm(bm, tm).map_err(&e)?),
            Tiler::Layout(perm(bn, tn).map_err(&e)?),
            Tiler::Int(s(bk)),
        ],
    )
    .map_err(&e)?;
    let threads = tm * tn;
    let stages = t.stages_on(target);
    let k_major: &[KMajorTile] = match t.pads_k_major(layout, stages, target) {
        true => &[KMajorTile::Padded, KMajorTile::Swizzled],
        false => &[KMajorTile::Swizzled],
    };
    let tile = |major, rows, which| {
        operand(
            name,
            major,
            (rows, bk, stages, threads),
            &mma,
            which,
            k_major,
        )
    };
    let (copy_a, smem_a) = tile(layout.a, bm, Operand::A)?;
    let (copy_b, smem_b) = tile(layout.b, bn, Operand::B)?;
    let mut p = Pipelined {
        cta: t.cta,
        smem_a,
        smem_b,
        copy_a,
        copy_b,
        mma,
        stages,
        predicated: true,
        // set below, from the target
        min_blocks_per_sm: 1,
        // 8 of the 32 k blocks per trip of a rolled loop: NVRTC compiles it in 140 to 190 ms
        // instead of 350 to 430 with the whole k-tile unrolled (`--k-block-unroll 32`), which on
        // the H200 runs 3 points faster in NN and TT, the same in NT, 6 slower in TN (README)
        k_block_unroll: Some(8),
    };
    p.min_blocks_per_sm = ctas_that_fit(target, &p, t.ctas_per_sm, SimtTile::REGISTERS);
    Ok(p)
}

/// A CUTLASS-style hierarchical SIMT tiling for tall-skinny problems: a 128x32x8 block tile of 128
/// threads, each owning an 8x4 thread tile (4+4 contiguous rows, 4 columns), double-buffered.
fn simt_hier(name: &str, layout: GemmLayout) -> Result<Pipelined> {
    let e = lerr(name, "plan");
    let perm_m = Layout::new(tup![s(16), s(4), s(2)], tup![s(4), s(1), s(64)]).map_err(&e)?;
    let perm_n = Layout::new(tup![s(8), s(4)], tup![s(4), s(1)]).map_err(&e)?;
    let fma = MmaOp::universal_fma(ElemType::F32, ElemType::F32, ElemType::F32, ElemType::F32);
    let mma = make_tiled_mma(
        MmaAtom::new(fma),
        &Layout::new(tup![s(16), s(8)], tup![s(1), s(16)]).map_err(&e)?,
        &[
            Tiler::Layout(perm_m),
            Tiler::Layout(perm_n),
            Tiler::Int(s(8)),
        ],
    )
    .map_err(&e)?;
    // swizzled: padded, NVRTC spills its NN kernel (4 bytes)
    let tile = |major, rows, which| {
        operand(
            name,
            major,
            (rows, 8, 2, 128),
            &mma,
            which,
            &[KMajorTile::Swizzled],
        )
    };
    let (copy_a, smem_a) = tile(layout.a, 128, Operand::A)?;
    let (copy_b, smem_b) = tile(layout.b, 32, Operand::B)?;
    Ok(Pipelined {
        cta: (128, 32, 8),
        smem_a,
        smem_b,
        copy_a,
        copy_b,
        mma,
        stages: 2,
        predicated: true,
        min_blocks_per_sm: 1,
        k_block_unroll: None,
    })
}

/// The gmem -> smem copy and the shared layout of one operand (`rows x bk x stages`). The shared
/// tile is always M-/N-major, so the MMA reads 128-bit vectors. An M-/N-major operand is copied
/// with 128-bit `cp.async.cg` (as wide as the tile allows); a K-major one with 32-bit `cp.async.ca`,
/// 8 consecutive threads walking K (one full 32-byte sector per row), transposing into the
/// shared tile, whose padding or swizzle the bank-conflict analysis picks. `shape` is (rows,
/// BK, stages, threads).
fn operand(
    name: &str,
    major: Major,
    (rows, bk, stages, threads): (i64, i64, i64, i64),
    mma: &TiledMma,
    which: Operand,
    k_major: &[KMajorTile],
) -> Result<(cute_layout::atom::TiledCopy, AnyLayout)> {
    let e = lerr(
        name,
        if which == Operand::A {
            "operand A"
        } else {
            "operand B"
        },
    );
    match major {
        Major::MN => {
            // vectors of 4 (or 2) along the contiguous mode
            let vec = if (rows / 4) * bk >= threads && (rows / 4) > 0 && threads % (rows / 4) == 0 {
                4
            } else {
                2
            };
            let op = if vec == 4 {
                CopyOp::CpAsyncCacheGlobal { bits: 128 }
            } else {
                CopyOp::CpAsyncCacheAlways { bits: 64 }
            };
            let atom = CopyAtom::new(op, ElemType::F32).map_err(&e)?;
            let tr = rows / vec;
            let tk = threads / tr;
            let thr = Layout::new(tup![s(tr), s(tk)], tup![s(1), s(tr)]).map_err(&e)?;
            let val = Layout::new(tup![s(vec), s(1)], tup![s(1), s(0)]).map_err(&e)?;
            let smem = compact_tile(rows, bk, stages).map_err(&e)?;
            Ok((
                make_tiled_copy(&atom, &thr, &val).map_err(&e)?,
                AnyLayout::Plain(smem),
            ))
        }
        Major::K => {
            let atom = CopyAtom::new(CopyOp::CpAsyncCacheAlways { bits: 32 }, ElemType::F32)
                .map_err(&e)?;
            // 8 threads along K cover one 32-byte sector per row; a warp spans 4 rows x 8 K,
            // which a `Swizzle<3,2,S>` spreads over all 32 banks. A tile of fewer rows than
            // threads / 8 takes more threads along K (8 rows of 128 threads: 16).
            let tk = (threads / rows.max(1)).max(8).min(bk).min(threads);
            let tr = threads / tk;
            let thr = Layout::new(tup![s(tr), s(tk)], tup![s(tk), s(1)]).map_err(&e)?;
            let val = Layout::new(tup![s(1), s(1)], tup![s(0), s(0)]).map_err(&e)?;
            let copy = make_tiled_copy(&atom, &thr, &val).map_err(&e)?;
            let smem = best_tile(mma, which, &copy, (rows, bk, stages), k_major).map_err(&e)?;
            Ok((copy, smem))
        }
    }
}

/// The SM80 tensor-core GEMM of `elem` (FP16, BF16, or TF32 with BLK_K 32; FP32 accumulate): a 128x256x64 CTA tile of 8
/// warps (2x4, each 64x64 of C; the TiledMMA tile 32x64x16, N permuted as CuTe's tutorial
/// does so a warp's B fragment loads with one `ldmatrix.x4` per 16 columns), 3 stages of K-major
/// shared tiles swizzled for `ldmatrix` (`Sw<3,3,3>`), 128-bit `cp.async.cg` along K; on
/// targets of 100 KiB per block (sm_86, sm_89) a 128x128x64 tile of 4 warps. On the H200 at
/// 4096^3 (TN, before the copies moved after k block 0's MMAs) the tiles measured 422-425
/// TFLOP/s for 128x256x64 (3 or 4 stages), 420 for 128x128x64, 424 for 256x128x64, 386 for
/// 128x256x32 with 6 stages (`reports/2026-12-02-h200-issue15-tc-sweep.txt`); after it, 3 and 4
/// stages of 128x256x64 both 452-458 (`reports/2026-12-02-h200-issue15-tc-gpu.txt`). A K-major
/// operand is read by `ldmatrix` from 8-row atoms of BLK_K values; an M- or N-major one from
/// atoms of 128 contiguous bytes along M or N by 8 of K, copied by threads along M or N (CuTe's
/// MN-major SM80 layouts): by `ldmatrix.trans` from 64 x 8 atoms of 16-bit values, by 32-bit
/// loads from `Sw<3,2,3>` 32 x 8 atoms of TF32 ones (ldmatrix transposes 16-bit halves only).
/// The SM80 tensor-core GEMMs of a linear epilogue by name: their A/B type and CTA tile.
const SM80_TILES: &[(&str, ElemType, Sm80Tile)] = {
    use ElemType::{Bf16, Tf32, F16};
    use Sm80Tile::{Fit, Narrow, Small};
    &[
        ("hgemm-sm80", F16, Fit),
        ("bgemm-sm80", Bf16, Fit),
        ("tf32gemm-sm80", Tf32, Fit),
        ("hgemm-sm80-128x128", F16, Small),
        ("bgemm-sm80-128x128", Bf16, Small),
        ("hgemm-sm80-64x128", F16, Narrow(64, 128)),
        ("bgemm-sm80-64x128", Bf16, Narrow(64, 128)),
        ("hgemm-sm80-16x128", F16, Narrow(16, 128)),
        ("bgemm-sm80-16x128", Bf16, Narrow(16, 128)),
        ("hgemm-sm80-128x32", F16, Narrow(128, 32)),
        ("bgemm-sm80-128x32", Bf16, Narrow(128, 32)),
    ]
};

impl Sm80Tile {
    /// `(BLK_M, BLK_N)`, the stages and the warps along M and N on `target`.
    fn shape(self, target: &Target) -> ((i64, i64), i64, (i64, i64)) {
        match self {
            Sm80Tile::Narrow(bm, bn) => {
                let wm = (bm / 32).clamp(1, 4);
                ((bm, bn), 4, (wm, 4 / wm))
            }
            // the H200's and the A100's SMs hold three stages of a 128x256x64 tile (144 KiB,
            // and its staged 128x256 accumulator); sm_86/sm_89's 100 KiB hold a 128x128x64 one
            Sm80Tile::Fit if target.smem_per_block >= 148 * 1024 => ((128, 256), 3, (2, 4)),
            _ => ((128, 128), 3, (2, 2)),
        }
    }
}

/// The CTA tile `(BLK_M, BLK_N, BLK_K)` of the SM80 tensor-core GEMM `name` on `target` (BLK_K
/// 128 bytes of its A and B type), from its table entry alone (no plan built): what the
/// selectors reckon with.
pub fn sm80_cta(name: &str, target: &Target) -> Option<(i64, i64, i64)> {
    let (elem, tile) = sm80_tile_of(name)?;
    let ((bm, bn), _, _) = tile.shape(target);
    Some((bm, bn, 1024 / i64::from(elem.bits())))
}

fn sm80_tile_of(name: &str) -> Option<(ElemType, Sm80Tile)> {
    SM80_TILES
        .iter()
        .find(|(n, ..)| *n == name)
        .map(|&(_, elem, tile)| (elem, tile))
}

/// The CTA tile of an SM80 tensor-core GEMM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sm80Tile {
    /// 128x256 where three stages of it fit a CTA's shared memory, else 128x128.
    Fit,
    /// 128x128 over 2x2 warps, two CTAs an SM where they fit: twice the CTAs of 128x256 for
    /// the shapes whose tiles leave SMs idle (split-K's finer grain).
    Small,
    /// `(BLK_M, BLK_N)` of 16x128, 64x128 or 128x32 over 4 warps (1x4: 16x32 each, 2x2: 32x64
    /// each, 4x1: 32x32 each), 4 stages, as many CTAs an SM as fit: the few-row shapes (LLM
    /// decoding against a square weight), where a 128-row tile's MMAs are mostly on rows C
    /// does not have and the time is B's bytes, and (128x32) the few-column ones.
    Narrow(i64, i64),
}

fn tensor_core_sm80(
    name: &str,
    layout: GemmLayout,
    target: &Target,
    elem: ElemType,
    tile: Sm80Tile,
) -> Result<TensorCore> {
    let e = lerr(name, "plan");
    let op = match elem {
        ElemType::F16 => "SM80_16x8x16_F32F16F16F32_TN",
        ElemType::Tf32 => "SM80_16x8x8_F32TF32TF32F32_TN",
        _ => "SM80_16x8x16_F32BF16BF16F32_TN",
    };
    let op = MmaOp::from_name(op).ok_or_else(|| CodegenError::Unknown(op.to_string()))?;
    // BLK_K of 128 bytes per row: 64 16-bit values or 32 TF32 ones
    let bk = 1024 / i64::from(elem.bits());
    let ((bm, bn), stages, (wm, wn)) = tile.shape(target);
    let threads = 32 * wm * wn;
    let mma = make_tiled_mma(
        MmaAtom::new(op),
        &Layout::col_major(&tup![s(wm), s(wn), s(1)]).map_err(&e)?,
        &[
            Tiler::Int(s(16 * wm)),
            Tiler::Int(s(16 * wn)),
            Tiler::Int(s(256 / i64::from(elem.bits()))),
        ],
    )
    .map_err(&e)?;
    let v = 128 / i64::from(elem.bits()); // values per 16-byte vector
    let atom = CopyAtom::new(CopyOp::CpAsyncCacheGlobal { bits: 128 }, elem).map_err(&e)?;
    // the swizzle XORs the 8-row index into the 16-byte chunk index of a 128-byte row, so
    // ldmatrix's 8 rows and a warp's cp.async vectors hit distinct banks
    let chunks = (bk * i64::from(elem.bits()) / 128).trailing_zeros() as i64;
    let operand = |rows: i64,
                   major: Major|
     -> Result<(cute_layout::atom::TiledCopy, AnyLayout, CopyOp)> {
        let copy = vector_copy(&atom, major, (rows, bk), v, threads).map_err(&e)?;
        let (block, sw, s2r) = match major {
            Major::K => {
                // 8 K-major rows of BLK_K values
                (
                    Layout::new(tup![s(8), s(bk)], tup![s(bk), s(1)]),
                    Swizzle::new(chunks.min(3), v.trailing_zeros() as i64, 3),
                    CopyOp::LdsmN { matrices: 4 },
                )
            }
            Major::MN => {
                // 128 bytes of M- (or N-) contiguous values by 8 of K (64 x 8 16-bit, 32 x 8
                // TF32), swizzled in 16-byte chunks; threads along M/N, one vector each.
                // ldmatrix.trans reads each thread's 8 contiguous 16-bit values as a column;
                // it cannot transpose 32-bit values, so TF32 fragments are read one 32-bit
                // value at a time (`UniversalCopy<tfloat32_t>`), as CUTLASS's SM80 TF32
                // GEMMs read an MN-major tile
                let atom_rows = (1024 / i64::from(elem.bits())).min(rows);
                let s2r = match elem.bits() {
                    16 => CopyOp::LdsmT { matrices: 4 },
                    _ => CopyOp::UniversalCopy { bits: 32 },
                };
                (
                    Layout::new(tup![s(atom_rows), s(8)], tup![s(1), s(atom_rows)]),
                    Swizzle::new(3, v.trailing_zeros() as i64, 3),
                    s2r,
                )
            }
        };
        let smem = tile_to_shape(
            &block.map_err(&e)?,
            &tup![s(rows), s(bk), s(stages)],
            &ModeOrder::Major(cute_layout::Major::Left),
        )
        .map_err(&e)?;
        let s2r_atom = CopyAtom::new(s2r, elem).map_err(&e)?;
        let which = if rows == bm { Operand::A } else { Operand::B };
        let smem = tensor_core_swizzle(&mma, which, &copy, &s2r_atom, &smem, sw.map_err(&e)?, elem)
            .map_err(&e)?;
        Ok((copy, smem, s2r))
    };
    let (copy_a, smem_a, s2r_a) = operand(bm, layout.a)?;
    let (copy_b, smem_b, s2r_b) = operand(bn, layout.b)?;
    let ldsm = |op| CopyAtom::new(op, elem).map_err(&e);
    // the small tile asks for two CTAs an SM where their stages and 255 registers a thread fit,
    // a narrow one for as many as their stages fit
    let smem = stages * (bm + bn) * bk * i64::from(elem.bits()) / 8;
    let min_blocks_per_sm = match tile {
        Sm80Tile::Small => target.ctas_per_sm(threads, 255, smem).clamp(1, 2),
        // (under 128 registers a thread: NVRTC 13.0 gives them 64 to 140)
        Sm80Tile::Narrow(..) => target.ctas_per_sm(threads, 128, smem).clamp(1, 4),
        Sm80Tile::Fit => 1,
    };
    Ok(TensorCore {
        elem,
        cta: (bm, bn, bk),
        smem_a,
        smem_b,
        copy_a,
        copy_b,
        s2r_a: Some(ldsm(s2r_a)?),
        s2r_b: Some(ldsm(s2r_b)?),
        mma,
        stages,
        min_blocks_per_sm,
        out: ElemType::F32,
        tma: false,
        persistent: false,
        raster_group: 1,
        cluster: (1, 1),
    })
}

/// The global -> shared copy of a tensor-core operand's `(rows, BLK_K)` tile: `threads` threads,
/// one `v`-value vector each, along the operand's contiguous mode (K for a K-major operand, M or
/// N for an MN-major one), as CuTe's SM80 and SM90 configurations tile it.
fn vector_copy(
    atom: &CopyAtom,
    major: Major,
    (rows, bk): (i64, i64),
    v: i64,
    threads: i64,
) -> cute_layout::Result<cute_layout::atom::TiledCopy> {
    let (thr, val) = match major {
        Major::K => {
            let tk = bk / v;
            (
                Layout::new(tup![s(threads / tk), s(tk)], tup![s(tk), s(1)])?,
                Layout::new(tup![s(1), s(v)], tup![s(0), s(1)])?,
            )
        }
        Major::MN => {
            let tm = (rows / v).min(threads);
            (
                Layout::new(tup![s(tm), s(threads / tm)], tup![s(1), s(tm)])?,
                Layout::new(tup![s(v), s(1)], tup![s(1), s(0)])?,
            )
        }
    };
    make_tiled_copy(atom, &thr, &val)
}

/// The SM90 tensor-core GEMM of `elem` (FP16, BF16; TF32 in TN): a 128x256xBLK_K CTA tile
/// (BLK_K 128 bytes of K) of two warpgroups along M, each issuing
/// `SM90_64x256xK_F32{T}{T}_SS` over its 64 rows; 4 stages of `GMMA::Layout_{K,MN}_SW128_Atom<T>`
/// tiles (192 KiB) filled by 128-bit `cp.async` along the operand's major; C staged through
/// shared memory as the SM80 kernels stage it. M- or N-major 16-bit operands are read by the
/// descriptor's transpose (`GMMA::Major::MN`); TF32 is K-major only (GMMA has `_SS_TN` only).
fn tensor_core_sm90(
    name: &str,
    layout: GemmLayout,
    target: &Target,
    elem: ElemType,
    mainloop: Sm90Mainloop,
    tile: Sm90Tile,
) -> Result<TensorCore> {
    let tma = mainloop != Sm90Mainloop::CpAsync;
    let e = lerr(name, "plan");
    let refuse = |part, msg: String| CodegenError::Plan {
        plan: name.to_string(),
        part,
        msg,
    };
    if !target.has(crate::target::Feature::Wgmma) {
        return Err(refuse(
            "target",
            format!("{target} has no wgmma: the SM90 GEMMs are built for sm_90a"),
        ));
    }
    if elem.bits() != 16 && (layout.a != Major::K || layout.b != Major::K) {
        return Err(refuse(
            "layout",
            format!(
                "{layout}: {elem} GMMA operands are K-major only (SM90_64xNx{}_F32..._SS_TN): TN",
                256 / elem.bits()
            ),
        ));
    }
    let gmajor = |m: Major| match m {
        Major::K => GmmaMajor::K,
        Major::MN => GmmaMajor::MN,
    };
    let ((bm, bn, bk), stages, threads) = (tile.cta(elem), tile.stages, 256);
    // the atom's name and its template arguments, as C++ spells them
    let (op_name, majors) = match elem {
        ElemType::Tf32 => (format!("SM90_64x{bn}x8_F32TF32TF32_SS_TN"), vec![]),
        ElemType::E4M3 => (format!("SM90_64x{bn}x32_F32E4M3E4M3_SS_TN"), vec![]),
        _ => (
            format!(
                "SM90_64x{bn}x16_F32{t}{t}_SS",
                t = if elem == ElemType::F16 { "F16" } else { "BF16" }
            ),
            vec![gmajor(layout.a).to_string(), gmajor(layout.b).to_string()],
        ),
    };
    let majors: Vec<&str> = majors.iter().map(String::as_str).collect();
    let op = MmaOp::from_name_args(&op_name, &majors)
        .ok_or_else(|| CodegenError::Unknown(op_name.clone()))?
        .map_err(&e)?;
    let mma = make_tiled_mma(
        MmaAtom::new(op),
        &Layout::col_major(&tup![s(2), s(1), s(1)]).map_err(&e)?,
        &[],
    )
    .map_err(&e)?;
    let v = 128 / i64::from(elem.bits()); // values per 16-byte vector
    let atom = CopyAtom::new(CopyOp::CpAsyncCacheGlobal { bits: 128 }, elem).map_err(&e)?;
    let operand = |rows: i64, major: Major| -> Result<(cute_layout::atom::TiledCopy, AnyLayout)> {
        let copy = vector_copy(&atom, major, (rows, bk), v, threads).map_err(&e)?;
        let gmma_atom = gmma_layout_atom(gmajor(major), GmmaSwizzle::Sw128, elem).map_err(&e)?;
        // CUTLASS's SM90 mainloops tile an MN-major atom along K first (`Step<_2,_1,_3>`), so
        // a stage's (64,BLK_K) columns are whole TMA boxes; the cp.async kernel keeps M first
        let order = match (major, tma) {
            (Major::MN, true) => ModeOrder::Order(tup![s(2), s(1), s(3)]),
            _ => ModeOrder::Major(cute_layout::Major::Left),
        };
        let tiled = gmma_atom
            .map(|l| tile_to_shape(l, &tup![s(rows), s(bk), s(stages)], &order))
            .map_err(&e)?;
        let smem = match &tiled {
            AnyLayout::Composed(c) => c.in_element_units().map_err(&e)?,
            plain => plain.clone(),
        };
        Ok((copy, smem))
    };
    let (copy_a, smem_a) = operand(bm, layout.a)?;
    let (copy_b, smem_b) = operand(bn, layout.b)?;
    Ok(TensorCore {
        elem,
        cta: (bm, bn, bk),
        smem_a,
        smem_b,
        copy_a,
        copy_b,
        s2r_a: None,
        s2r_b: None,
        mma,
        stages,
        min_blocks_per_sm: 1,
        // FP8 GEMMs write BF16 (as torch._scaled_mm and cuBLASLt's FP8 GEMMs usually do)
        out: if elem.bits() == 8 {
            ElemType::Bf16
        } else {
            ElemType::F32
        },
        tma,
        persistent: matches!(mainloop, Sm90Mainloop::Persistent | Sm90Mainloop::Cluster),
        raster_group: SM90_RASTER_GROUP,
        cluster: match mainloop {
            Sm90Mainloop::Cluster => (2, 1),
            _ => (1, 1),
        },
    })
}

/// The swizzle of a tensor-core operand's shared tile `(rows, BLK_K, PIPE)`: CuTe's `first`
/// (`Sw<3,log2(V),3>` over 128-byte rows) unless another `Swizzle<B,M,S>` that keeps 16-byte
/// vectors whole (`M >= log2(V)`) and XORs the 8-row index into the row has fewer bank
/// conflicts (the copy's writes plus four times the fragment reads, `banks::tensor_core_operand`);
/// the search stops at conflict-free writes and reads, and keeps the earlier on a tie.
fn tensor_core_swizzle(
    mma: &TiledMma,
    which: Operand,
    copy: &cute_layout::atom::TiledCopy,
    s2r: &CopyAtom,
    smem: &Layout,
    first: Swizzle,
    elem: ElemType,
) -> cute_layout::Result<AnyLayout> {
    let bits = i64::from(elem.bits());
    let (v, row) = (
        (128 / bits).trailing_zeros() as i64,
        (1024 / bits).trailing_zeros() as i64,
    );
    let mut candidates = vec![first];
    for m in v..row {
        for b in (1..=(row - m).min(3)).rev() {
            candidates.extend(Swizzle::new(b, m, row - m).ok().filter(|c| *c != first));
        }
    }
    let mut best: Option<(i64, AnyLayout)> = None;
    for sw in candidates {
        let l = compose_swizzle(sw, smem);
        let banks = crate::gemm::banks::tensor_core_operand(mma, which, copy, s2r, &l, bits)?;
        if best.as_ref().is_none_or(|(c, _)| banks.cost() < *c) {
            best = Some((banks.cost(), l));
        }
        if banks.reads == 1 && banks.writes == 1 {
            break;
        }
    }
    Ok(best.map_or_else(|| AnyLayout::Plain(smem.clone()), |(_, l)| l))
}
