//! The GEMM plan: `C = alpha * A * B + beta * C` (+ epilogue functors), built from CuTe values.
//!
//! Conventions are CuTe's: A is an (M,K) tensor, B an (N,K) tensor, C an (M,N) column-major
//! tensor. The BLAS layout letters say which mode of A and B is contiguous: `N` for A is M-major
//! (`(M,K):(1,ldA)`), `T` is K-major (`(M,K):(ldA,1)`); `N` for B is K-major (`(N,K):(ldB,1)`, a
//! column-major K x N matrix), `T` is N-major (`(N,K):(1,ldB)`).

use std::fmt;

use cute_layout::atom::Operand;
use cute_layout::{s, tup, AnyLayout, Int, Layout};

use super::k_major::{best_tile, KMajorTile};
use crate::error::CodegenError;
use crate::target::Target;

/// The plans with a k-tile pipeline of SIMT copies (`Policy::Pipelined`), as errors name them.
const SIMT_PIPELINED: &str =
    "the SIMT ones: sgemm-sm80 and its tiles, sgemm-sm80-bias-relu, simt-hier";

/// Which mode of an operand is contiguous.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Major {
    /// The M (for A) or N (for B) mode has stride 1.
    MN,
    /// The K mode has stride 1.
    K,
}

/// The BLAS layout of A and B: `NN`, `NT`, `TN` or `TT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmLayout {
    /// A's contiguous mode.
    pub a: Major,
    /// B's contiguous mode.
    pub b: Major,
}

impl GemmLayout {
    /// From `NN`, `NT`, `TN`, `TT`.
    pub fn parse(s: &str) -> Option<GemmLayout> {
        let a = match s.as_bytes().first()? {
            b'N' | b'n' => Major::MN,
            b'T' | b't' => Major::K,
            _ => return None,
        };
        let b = match s.as_bytes().get(1)? {
            b'N' | b'n' => Major::K,
            b'T' | b't' => Major::MN,
            _ => return None,
        };
        (s.len() == 2).then_some(GemmLayout { a, b })
    }

    /// All four.
    pub fn all() -> [GemmLayout; 4] {
        ["NN", "NT", "TN", "TT"].map(|s| {
            GemmLayout::parse(s).unwrap_or(GemmLayout {
                a: Major::MN,
                b: Major::K,
            })
        })
    }

    /// A as an (M,K) layout over the problem symbols.
    pub fn a_layout(&self) -> Layout {
        operand("M", "ldA", self.a)
    }

    /// B as an (N,K) layout.
    pub fn b_layout(&self) -> Layout {
        operand("N", "ldB", self.b)
    }

    /// C as an (M,N) column-major layout.
    pub fn c_layout(&self) -> Layout {
        operand("M", "ldC", Major::MN).with_second_mode("N")
    }
}

fn operand(rows: &str, ld: &str, major: Major) -> Layout {
    let (r, k, ld) = (Int::symbol(rows), Int::symbol("K"), Int::symbol(ld));
    let stride = match major {
        Major::MN => tup![s(1), ld],
        Major::K => tup![ld, s(1)],
    };
    Layout::new(tup![r, k], stride).unwrap_or_else(|_| unreachable!("rank-2 by construction"))
}

/// Replaces the K of an operand layout by another symbol (C is (M,N)).
trait SecondMode {
    fn with_second_mode(self, name: &str) -> Layout;
}

impl SecondMode for Layout {
    fn with_second_mode(self, name: &str) -> Layout {
        let sh = tup![self.shape().modes()[0].clone(), Int::symbol(name)];
        Layout::new(sh, self.stride().clone())
            .unwrap_or_else(|_| unreachable!("rank-2 by construction"))
    }
}

impl fmt::Display for GemmLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = if self.a == Major::MN { 'N' } else { 'T' };
        let b = if self.b == Major::K { 'N' } else { 'T' };
        write!(f, "{a}{b}")
    }
}

/// A per-row or per-column bias added in the epilogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bias {
    /// `bias[m]`.
    PerRow,
    /// `bias[n]`.
    PerCol,
}

/// What the epilogue computes from the accumulator: `x = alpha*acc + beta*C`, then the bias,
/// the ReLU and any user functors, in that order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Epilogue {
    /// An optional bias.
    pub bias: Option<Bias>,
    /// `x = max(x, 0)`.
    pub relu: bool,
    /// User-supplied element-wise functors: C++ statements reading and writing `x`, with the
    /// element's coordinates in `m_` and `n_`.
    pub functors: Vec<String>,
}

impl Epilogue {
    /// `alpha*acc + beta*C`.
    pub fn linear() -> Epilogue {
        Epilogue::default()
    }

    /// Whether anything follows `alpha*acc + beta*C` (bias, ReLU, functors).
    pub fn has_transform(&self) -> bool {
        self.bias.is_some() || self.relu || !self.functors.is_empty()
    }

    /// The CuTe article's bias + ReLU.
    pub fn bias_relu(bias: Bias) -> Epilogue {
        Epilogue {
            bias: Some(bias),
            relu: true,
            functors: Vec::new(),
        }
    }
}

/// The mainloop policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Policy {
    /// One thread per output; `thr` maps a `(tile_m, tile_n)` block tile to thread indices.
    Naive { tile: (i64, i64), thr: Layout },
    /// A `tile x tile` shared-memory tile of A and B per K step, one output per thread.
    SmemTiled { tile: i64 },
    /// A pipelined mainloop: gmem -> smem by a `cp.async` TiledCopy per operand (CACHEALWAYS or
    /// CACHEGLOBAL, 32 to 128 bits) over `stages` shared-memory buffers, smem -> registers
    /// double-buffered over K blocks, a UniversalFMA TiledMMA over FP32.
    Pipelined(Box<Pipelined>),
    /// Tensor cores on the SM80 path: `cp.async` stages, `ldmatrix`, `mma.sync`.
    TensorCore(Box<TensorCore>),
    /// A warp per column of C over a few rows, B streamed along K (`recipes::gemv`).
    Gemv(Gemv),
}

/// The few-row GEMM's plan (`sgemm-gemv`, `hgemm-gemv`, `bgemm-gemv`): each warp computes
/// `rows` rows of one column of C, its lanes reading 128 bits of B's (K-major) column a step;
/// FP32 accumulators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gemv {
    /// The type of A and B (C is FP32).
    pub elem: cute_layout::ElemType,
    /// The rows of C a warp computes (the grid's second dimension covers M in blocks of them).
    pub rows: i64,
    /// Warps per CTA: a column of C each where B is K-major; where B is N-major, splitting K
    /// over the CTA's 32 columns.
    pub warps: i64,
    /// B's 128-bit vectors each lane has in flight: a trip of the K loop loads this many steps
    /// of B before its FMAs read the first, so a warp waits on memory once a trip, not once a
    /// step (1 to [`Gemv::MAX_IN_FLIGHT`]).
    pub in_flight: i64,
}

impl Gemv {
    /// The most vectors of B a lane holds in flight (registers: `in_flight` x 4 for FP32,
    /// x 8 for 16-bit types).
    pub const MAX_IN_FLIGHT: i64 = 8;
}

/// A tensor-core plan on the SM80 path (`hgemm-sm80`, `bgemm-sm80`, `tf32gemm-sm80`): A and B
/// of `elem` (FP16, BF16 or TF32)
/// through `stages` shared stages filled by 128-bit `cp.async`, read into the MMA's fragments by
/// `ldmatrix` TiledCopies built as CuTe's `make_tiled_copy_A/B(s2r, mma)` builds them, and a
/// TiledMMA of `mma.sync` atoms accumulating in FP32; C is FP32, FP16 or BF16 (`out`, the
/// accumulators converted as the epilogue stores them, [`GemmPlan::with_output`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorCore {
    /// The type of A and B.
    pub elem: cute_layout::ElemType,
    /// (BLK_M, BLK_N, BLK_K).
    pub cta: (i64, i64, i64),
    /// `(BLK_M,BLK_K,PIPE)` and `(BLK_N,BLK_K,PIPE)`, swizzled.
    pub smem_a: AnyLayout,
    pub smem_b: AnyLayout,
    /// gmem -> smem.
    pub copy_a: cute_layout::atom::TiledCopy,
    pub copy_b: cute_layout::atom::TiledCopy,
    /// smem -> registers (`ldmatrix`, or 32-bit loads); `None` where the MMA reads the operand
    /// from shared memory itself (a GMMA atom's `SS` operands, through descriptors).
    pub s2r_a: Option<cute_layout::atom::CopyAtom>,
    pub s2r_b: Option<cute_layout::atom::CopyAtom>,
    pub mma: cute_layout::atom::TiledMma,
    pub stages: i64,
    pub min_blocks_per_sm: i64,
    /// The type of C (read for `beta != 0` and written): FP32, FP16 or BF16.
    pub out: cute_layout::ElemType,
    /// A and B are loaded by TMA from a producer warpgroup into mbarrier-ordered stages
    /// (warp specialization, SM90) instead of by every thread's `cp.async` (`copy_a`, `copy_b`).
    pub tma: bool,
    /// One CTA per SM loops over the output tiles (a persistent grid of `Target::sms` CTAs,
    /// M-blocks fastest), the producer loading the next tile while the consumers store this
    /// one's C from registers. TMA plans only.
    pub persistent: bool,
    /// A persistent grid's raster: this many consecutive M-blocks walk every N-block before
    /// the next group (a group at least as tall as C: M-blocks fastest over all of C).
    pub raster_group: i64,
    /// A persistent TMA plan's thread-block cluster `(CTAs along M, CTAs along N)`, one of
    /// them 1: the CTAs of a cluster take neighbouring tiles that share an operand's k-tiles
    /// (B's along M, A's along N), each loading its share of them once for all
    /// (`SM90_TMA_LOAD_MULTICAST`). `(1, 1)`: no cluster.
    pub cluster: (i64, i64),
}

/// The pieces of a pipelined mainloop, all CuTe values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipelined {
    /// The CTA tile (BM, BN, BK).
    pub cta: (i64, i64, i64),
    /// Shared-memory layouts of A `(BM,BK,PIPE)` and B `(BN,BK,PIPE)`, plain or swizzled.
    pub smem_a: AnyLayout,
    /// See `smem_a`.
    pub smem_b: AnyLayout,
    /// gmem -> smem copies.
    pub copy_a: cute_layout::atom::TiledCopy,
    /// See `copy_a`.
    pub copy_b: cute_layout::atom::TiledCopy,
    /// The MMA.
    pub mma: cute_layout::atom::TiledMma,
    /// Shared-memory stages.
    pub stages: i64,
    /// Whether the kernel predicates for any M, N, K (otherwise it is the divisible-only fast
    /// path, whose sizes the runtime checks before launch).
    pub predicated: bool,
    /// The CTAs per SM the kernel is built for (`__launch_bounds__`'s second argument): 2 caps
    /// a 256-thread kernel at 128 registers per thread, so two CTAs share an SM. Verification
    /// refuses a count that the plan's target cannot hold (`Target::occupancy`).
    pub min_blocks_per_sm: i64,
    /// How many k blocks of a k-tile run per trip of the k-block loop: `None` (or BK) unrolls the
    /// whole k-tile (the longest NVRTC compile); `n < BK` runs trips of `n` unrolled k blocks in a
    /// rolled loop, reading fragments at immediate offsets from one byte address per operand
    /// where that is proved, else through `#pragma unroll n`. A factor must divide BK and keep the
    /// register-buffer and swizzle-phase indices static (a multiple of 2 and of the phases).
    pub k_block_unroll: Option<i64>,
}

/// A GEMM plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GemmPlan {
    /// The kernel name.
    pub name: String,
    /// The layouts of A and B.
    pub layout: GemmLayout,
    /// The mainloop.
    pub policy: Policy,
    /// The epilogue.
    pub epilogue: Epilogue,
    /// The GPU it is built for: verification checks the plan against its limits and
    /// instructions, and the kernel's launch bounds and header are written for it (`sm_90a`
    /// unless the recipe was given another, `named::plan_for`).
    pub target: Target,
    /// Whether CTAs split K: the partial products of a parallel split-K
    /// ([`GemmPlan::with_split_k`]) or the slices of a serial one
    /// ([`GemmPlan::with_serial_split_k`]).
    pub split_k: SplitKMode,
}

/// How a plan's CTAs share K (CUTLASS's split-K modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SplitKMode {
    /// One CTA per output tile walks all of K.
    #[default]
    None,
    /// CTA `z` stores its slice's product to a workspace; a second kernel sums the slices
    /// (`GemmSplitKParallel`).
    Parallel,
    /// CTA `z` adds its slice's product into C in turn, after slice `z - 1` of the tile, a
    /// global semaphore per tile ordering them (CUTLASS's serial split-K): one launch, no
    /// workspace.
    Serial,
    /// Stream-K's partials: `G` persistent CTAs share the k-tiles of all output tiles evenly,
    /// each walking its range across tile boundaries and storing each tile's partial product
    /// to a workspace slot; a second kernel sums every tile's slots through the epilogue.
    Stream,
}

impl SplitKMode {
    /// Split-K: serial, else parallel.
    pub fn split_k(serial: bool) -> SplitKMode {
        match serial {
            true => SplitKMode::Serial,
            false => SplitKMode::Parallel,
        }
    }

    /// `splits` slices of K: one kernel (1), else serial or parallel split-K.
    pub fn split(splits: i64, serial: bool) -> SplitKMode {
        match splits {
            ..=1 => SplitKMode::None,
            _ => SplitKMode::split_k(serial),
        }
    }

    /// Its word in the tuning cache and the tables: `none`, `parallel`, `serial`, `stream`.
    pub fn word(self) -> &'static str {
        match self {
            SplitKMode::None => "none",
            SplitKMode::Parallel => "parallel",
            SplitKMode::Serial => "serial",
            SplitKMode::Stream => "stream",
        }
    }

    /// The mode a word names.
    pub fn parse(word: &str) -> Option<SplitKMode> {
        [
            SplitKMode::None,
            SplitKMode::Parallel,
            SplitKMode::Serial,
            SplitKMode::Stream,
        ]
        .into_iter()
        .find(|m| m.word() == word)
    }

    /// How a plan run this way is marked after its slices in a table: nothing, ` serial`,
    /// ` stream-K`.
    pub fn mark(self) -> &'static str {
        match self {
            SplitKMode::Serial => " serial",
            SplitKMode::Stream => " stream-K",
            _ => "",
        }
    }
}

impl GemmPlan {
    /// A plan error naming this plan and the part.
    pub fn error(&self, part: &'static str, msg: impl Into<String>) -> CodegenError {
        CodegenError::Plan {
            plan: self.name.clone(),
            part,
            msg: msg.into(),
        }
    }

    /// Wraps a layout-algebra error with the plan part.
    pub fn layout_error(
        &self,
        part: &'static str,
    ) -> impl Fn(cute_layout::Error) -> CodegenError + '_ {
        move |source| CodegenError::Layout {
            plan: self.name.clone(),
            part,
            source,
        }
    }

    /// The plan with `n` k blocks unrolled per trip of the k-block loop (`Pipelined::k_block_unroll`;
    /// `cute ... --k-block-unroll N`): a shorter NVRTC compile for a slower mainloop. Whether `n`
    /// suits the plan (even, divides BK, a multiple of the swizzle phases) is checked at emission.
    pub fn with_k_block_unroll(mut self, n: i64) -> Result<GemmPlan, CodegenError> {
        match &mut self.policy {
            Policy::Pipelined(p) => {
                p.k_block_unroll = Some(n);
                Ok(self)
            }
            _ => Err(self.error(
                "k-block unroll",
                format!("only a pipelined plan ({SIMT_PIPELINED}) has a k-block loop"),
            )),
        }
    }

    /// The plan with each K-major operand's shared tile `(rows, BK, stages)` in the form `form`
    /// (`cute ... --k-major-tile`), where the named SIMT plans take the padded one wherever it
    /// fits as many CTAs per SM (and conflicts no more), the swizzled one elsewhere (see
    /// [`KMajorTile`]). An M-/N-major operand (both in NT) keeps its tile; a plan with no
    /// k-tile pipeline of SIMT copies is refused.
    pub fn with_k_major_tile(mut self, form: KMajorTile) -> Result<GemmPlan, CodegenError> {
        let (a, b, name) = (self.layout.a, self.layout.b, self.name.clone());
        let Policy::Pipelined(p) = &mut self.policy else {
            return Err(self.error(
                "K-major tile",
                format!("only a SIMT pipelined plan ({SIMT_PIPELINED}) transposes a K-major operand into shared memory"),
            ));
        };
        let stages = p.stages;
        let err = |msg: String| CodegenError::Plan {
            plan: name.clone(),
            part: "K-major tile",
            msg,
        };
        let operands = [
            (a, Operand::A, &p.copy_a, p.cta.0, &mut p.smem_a),
            (b, Operand::B, &p.copy_b, p.cta.1, &mut p.smem_b),
        ];
        for (major, which, copy, rows, tile) in operands {
            if major == Major::K {
                let shape = (rows, p.cta.2, stages);
                *tile = best_tile(&p.mma, which, copy, shape, &[form])
                    .map_err(|e| err(format!("{which}: {e}")))?;
            }
        }
        Ok(self)
    }

    /// The type of A and B: the tensor-core plan's 16-bit type, FP32 otherwise.
    pub fn input_type(&self) -> cute_layout::ElemType {
        match &self.policy {
            Policy::TensorCore(p) => p.elem,
            Policy::Gemv(g) => g.elem,
            _ => cute_layout::ElemType::F32,
        }
    }

    /// The type of C: a tensor-core plan's `out`, FP32 otherwise.
    pub fn output_type(&self) -> cute_layout::ElemType {
        match &self.policy {
            Policy::TensorCore(p) => p.out,
            _ => cute_layout::ElemType::F32,
        }
    }

    /// The plan with C of type `out` (`cute ... --out-dtype f16`): FP32, FP16 or BF16, for a
    /// tensor-core plan (the SIMT plans' C is FP32). The accumulators stay FP32 and are rounded
    /// to nearest as the epilogue stores them; a C read for `beta != 0` is widened first.
    pub fn with_output(mut self, out: cute_layout::ElemType) -> Result<GemmPlan, CodegenError> {
        use cute_layout::ElemType::{Bf16, F16, F32};
        if !matches!(out, F32 | F16 | Bf16) {
            return Err(self.error(
                "output type",
                format!("C of {out}: a GEMM writes C in float, half_t or bfloat16_t"),
            ));
        }
        match &mut self.policy {
            Policy::TensorCore(p) => {
                p.out = out;
                Ok(self)
            }
            _ if out == F32 => Ok(self),
            _ => Err(self.error(
                "output type",
                format!(
                    "C of {out}: only the tensor-core plans ({}) write a 16-bit C; this one writes float",
                    crate::named::TENSOR_CORE_NAMES.join(", ")
                ),
            )),
        }
    }

    /// The kernel's C++ name: `<plan>_<layout>` with `-` as `_`, then `_f16out` or `_bf16out`
    /// for a 16-bit C.
    pub fn kernel_name(&self) -> String {
        let out = match self.output_type() {
            cute_layout::ElemType::F16 => "_f16out",
            cute_layout::ElemType::Bf16 => "_bf16out",
            _ => "",
        };
        let split = match self.split_k {
            SplitKMode::None => "",
            SplitKMode::Parallel => "_splitk",
            SplitKMode::Serial => "_splitk_serial",
            SplitKMode::Stream => "_streamk",
        };
        format!(
            "{}_{}{out}{split}",
            self.name.replace('-', "_"),
            self.layout
        )
    }

    /// The CTA tile `(BLK_M, BLK_N, BLK_K)` and CTAs per SM of a plan whose every thread loads
    /// its k-tiles by `cp.async` (the SIMT and SM80 tensor-core pipelines): the plans that split
    /// K serially and by stream-K (`None` for the others; parallel split-K takes the SM90 TMA
    /// plans too, [`GemmPlan::split_k_pipeline`]).
    pub fn cp_async_pipeline(&self) -> Option<((i64, i64, i64), i64)> {
        match &self.policy {
            Policy::Pipelined(p) => Some((p.cta, p.min_blocks_per_sm)),
            Policy::TensorCore(p) if !p.tma => Some((p.cta, p.min_blocks_per_sm)),
            _ => None,
        }
    }

    /// The CTA tile `(BLK_M, BLK_N, BLK_K)` and CTAs per SM of a plan that parallel split-K
    /// cuts along K: the `cp.async` pipelines ([`GemmPlan::cp_async_pipeline`]) and the SM90
    /// TMA ones (whose split moves the TMA boxes' K coordinate instead of a pointer). `None`
    /// for the others.
    pub fn split_k_pipeline(&self) -> Option<((i64, i64, i64), i64)> {
        match &self.policy {
            Policy::TensorCore(p) if p.tma => Some((p.cta, p.min_blocks_per_sm)),
            _ => self.cp_async_pipeline(),
        }
    }

    /// The partial-products kernel of a parallel split-K (CUTLASS's `GemmSplitKParallel`): CTA
    /// `z` of the grid's third dimension takes the k range `[z Kc, min(z Kc + Kc, K))` (`Kc`, a
    /// multiple of BLK_K, is the kernel's last parameter; the grid has `ceil(K / Kc)` of them)
    /// and stores its product unscaled, in FP32, to the workspace slice `C + z ldC N` (alpha 1,
    /// beta 0, no bias); `recipes::split_k_reduce` of the plan before this sums the slices into
    /// C through its epilogue. For the plans whose every thread loads by `cp.async` (the SIMT
    /// and SM80 tensor-core ones) and the SM90 TMA ones: there CTA `z`'s boxes start at
    /// `k = z Kc` of the whole tensor map (the last slice's boxes past K read TMA's zero fill),
    /// and the grid is a CTA per tile and slice — the partials of a persistent plan are built
    /// without its persistence and cluster (each CTA stages its tile's FP32 product through
    /// shared memory and stores it to its slice, where the persistent epilogue's TMA store
    /// would need a map per slice).
    pub fn with_split_k(mut self) -> Result<GemmPlan, CodegenError> {
        if self.split_k_pipeline().is_none() {
            return Err(self.error(
                "split-K",
                "parallel split-K takes a plan with a k-tile pipeline (SIMT, SM80 or SM90 tensor cores)",
            ));
        }
        if let Policy::TensorCore(p) = &mut self.policy {
            p.out = cute_layout::ElemType::F32;
            if p.tma {
                p.persistent = false;
                p.cluster = (1, 1);
            }
        }
        self.split_k = SplitKMode::Parallel;
        self.epilogue = Epilogue::linear();
        Ok(self)
    }

    /// The partial-products kernel of stream-K (CUTLASS's `GemmUniversalMode::kGemm` with the
    /// stream-K tile scheduler, its partials reduced by a separate kernel): the iteration space
    /// is every output tile's k-tiles, tile-major (`I = tiles * ceil(K / BLK_K)`); CTA `c` of
    /// the `G` CTAs of the grid (the parameter `G`, at most `I`) takes the iterations
    /// `[c I / G, (c+1) I / G)` and walks them a tile at a time — unit `u` of its range is one
    /// output tile's consecutive k-tiles — storing each unit's FP32 product unscaled to
    /// workspace slot `c J + u` (`J`, a parameter, bounds the units of a CTA), a `(BLK_M,BLK_N)`
    /// column-major tile in the `C` parameter. `recipes::stream_k_reduce` of the plan before
    /// this sums each tile's slots in order of `c` and applies the epilogue. Parameters: the
    /// plan's, then `G` and `J`. For the plans whose every thread loads by `cp.async`.
    pub fn with_stream_k(mut self) -> Result<GemmPlan, CodegenError> {
        let Policy::Pipelined(p) = &mut self.policy else {
            return Err(self.error(
                "stream-K",
                "stream-K takes a pipelined SIMT plan (the tensor-core and TMA plans split K instead)",
            ));
        };
        // the unit loop's indices do not fit beside 64 accumulators a thread at the tile's
        // register budget (NVRTC 13.0: 160 to 384 bytes spilled by the 128x128 tile in NN, TN, TT
        // at 128 registers, and by the 64x128 one in TN at 168): one CTA an SM fewer
        let (bm, bn, _) = p.cta;
        let threads = p
            .mma
            .num_threads()
            .ok()
            .and_then(|t| t.as_static())
            .unwrap_or(1);
        if bm * bn / threads.max(1) >= 64 {
            p.min_blocks_per_sm = (p.min_blocks_per_sm - 1).max(1);
        }
        self.split_k = SplitKMode::Stream;
        self.epilogue = Epilogue::linear();
        Ok(self)
    }

    /// The kernel of a serial split-K (CUTLASS's `GemmUniversal` with `split_k_slices > 1`
    /// in its default mode): CTA `z` of the grid's third dimension takes the k range of
    /// [`GemmPlan::with_split_k`], then waits until the tile's semaphore (`Sem`, one `int` per
    /// output tile, zero before the launch) holds `z`, adds its product into C — slice 0 as the
    /// plan's epilogue reads C (`beta`) and adds the bias, a later slice onto what the one
    /// before wrote (`beta` 1, no bias); the ReLU in the last slice alone — and releases the
    /// semaphore with `z + 1`, the last slice with 0 (so the next launch finds zeros). The
    /// parameters are the plan's, then `Kc` and `Sem`. One launch and no workspace, the
    /// slices' epilogues in turn; the order of the sum is fixed (slice 0 first), so the result
    /// does not depend on the schedule.
    pub fn with_serial_split_k(mut self) -> Result<GemmPlan, CodegenError> {
        if self.cp_async_pipeline().is_none() {
            return Err(self.error(
                "split-K",
                "serial split-K takes a pipelined cp.async plan (SIMT or SM80 tensor cores); this one loads by TMA or has no k-tile pipeline",
            ));
        }
        if self.output_type() != cute_layout::ElemType::F32 {
            return Err(self.error(
                "split-K",
                "serial split-K adds each slice into C, which must then hold FP32 (a 16-bit C would round every partial sum): use parallel split-K",
            ));
        }
        self.split_k = SplitKMode::Serial;
        Ok(self)
    }
}
