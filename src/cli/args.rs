//! The command line's grammar (clap derive): every subcommand, its options, and the examples its
//! `--help` prints. Options shared by the kernel commands (`emit`, `run`, `check`, `bench`) are
//! parsed once, into [`PlanOpts`] and [`SizeOpts`].

use std::path::PathBuf;

use clap::builder::PossibleValuesParser;
use clap::error::ErrorKind;
use clap::{value_parser, Args, Parser, Subcommand, ValueEnum};
use cute::codegen::cuda::IndexWidth;
use cute::codegen::gemm::{self, emit_by, emit_with, KMajorTile};
use cute::codegen::named::{plan_unrolled, GEMV_NAMES, NAMES, TENSOR_CORE_NAMES};
use cute::codegen::recipes;
use cute::codegen::{CodegenError, GemmLayout, GemmPlan, Kernel, Target};

const TOP_EXAMPLES: &str = "\
Examples:
  cute eval 'composition((_6,_2):(_8,_2), (_4,_3):(_3,_1))'
  cute print-layout 'composition(Swizzle<2,0,3>, (_4,_4):(_4,_1))'
  cute emit sgemm-sm80 --layout NN > sgemm.cu
  cute run sgemm-sm80
  cute <COMMAND> --help      the examples of one command";

const EVAL_EXAMPLES: &str = "\
Examples:
  $ cute eval 'composition((_6,_2):(_8,_2), (_4,_3):(_3,_1))' 'complement(4:1, 24)'
  ((_2,_2),_3):((_24,_2),_8)
  (1,6):(_1,4)
  $ cute eval 'logical_divide((M,K):(_1,M), (_128,_32))'
  ((_128,(M+127)/128),(_32,(K+31)/32)):((_1,_128),(M,32*M))
  $ cute eval 'composition(Swizzle<3,4,3>, (_8,_64):(_64,_1))'
  Sw<3,4,3> o _0 o (_8,_64):(_64,_1)
  $ cute eval 'local_tile(make_identity_tensor((M,K)), (_128,_128,_8), (bx,by,_), Step<_1,X,_1>)'
  ArithTuple(bx*128,_0) o (_128,_8,(K+7)/8):(_1@0,_1@1,_8@1)
  $ printf 'size((_2,(_3,_4)):(_1,(_2,_6)))\\nlogical_product(_4:_2, _3:_1)\\n' | cute eval
  _24
  error: logical_product: _3:_1 cannot be repeated over the complement of _4:_2: ...";

const PRINT_LAYOUT_EXAMPLES: &str = "\
Examples:
  $ cute print-layout 'composition(Swizzle<2,0,3>, (_4,_4):(_4,_1))'
  Sw<2,0,3> o _0 o (_4,_4):(_4,_1)
         0    1    2    3
      +----+----+----+----+
   0  |  0 |  1 |  2 |  3 |
  ...";

const PRINT_EXAMPLES: &str = "\
Examples:
  cute print 'make_tiled_mma(MMA_Atom<SM80_16x8x8_F32TF32TF32F32_TN>)'
  cute print 'make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>, (_32,_8):(_1,_32), (_4,_1):(_1,_0))'";

const EMIT_EXAMPLES: &str = "\
Examples:
  cute emit --list
  cute emit sgemm-sm80 --layout NN > sgemm.cu
  cute emit sgemm-sm80 --k-block-unroll 32 > sgemm-full-k-tile.cu";

const RUN_EXAMPLES: &str = "\
Examples:
  cute run sgemm-sm80
  cute run sgemm-sm80 --m 17 --n 33 --k 9 --layout TN
  cute run sgemm-sm80 --m 1 --n 4096 --k 4096 --split-k auto
  cute run sgemm --m 16 --n 8192 --k 8192 --explain
  cargo run --release --bin cute -- run sgemm-sm80

Each step that cannot run says so and why, and the run still exits 0: without NVRTC
(pip install nvidia-cuda-nvrtc==13.0.88) it stops after emission; without a GPU, after the
compile.";

const CHECK_EXAMPLES: &str = "\
Examples:
  cute check
  cute check sgemm-sm80 sgemm-sm80-bias-relu --k-block-unroll 32
  cute check --m 300 --n 17 --k 1000 --report check.txt

Every kernel x layout x size 1, 17, 127, 1000, 1024, 4096, 300x17x1000 and 64x1000x127,
beta 0 and 0.5, against a float64 cuBLAS DGEMM reference. Without a GPU it says so and exits 0.";

const BENCH_EXAMPLES: &str = "\
Examples:
  cute bench sgemm-sm80
  cute bench sgemm-sm80 --layout NN --layout NT
  cute bench sgemm-sm80 --m 4096 --n 4096 --k 4096
  cute bench sgemm-sm80 --m 16 --n 8192 --k 8192 --split-k auto
  cute bench sgemm --m 1 --n 4096 --k 4096
  cute bench sgemm bgemm-sm90 --suite --chart suite.svg

The kernel and cuBLAS SGEMM (CUBLAS_PEDANTIC_MATH, pure FP32) in the same process: CUDA
events, warm-up of 3 runs and 10 ms, median of 20; at 1024^3 .. 8192^3 and 8192x2048x4096 unless --m/--n/--k.";

const TUNE_EXAMPLES: &str = "\
Examples:
  cute tune sgemm --m 16 --n 8192 --k 8192
  cute tune sgemm --suite --layout NN --layout TN
  cute run sgemm --m 16 --n 8192 --k 8192 --explain     # now takes the tuned plan

Without a GPU it says so, leaves the cache as it was and exits 0.";

const BANK_EXAMPLES: &str = "\
Examples:
  $ cute bank-conflicts '((_16,_16),(_8,_32)):((_0,_32),(_512,_1))'
  max_ways=2 wavefronts=4096 ideal=2048 (32-bit accesses, 2048 warp requests)
  $ cute bank-conflicts 'composition(Swizzle<1,2,3>, ((_16,_16),(_8,_32)):((_0,_32),(_512,_1)))'
  max_ways=1 wavefronts=2048 ideal=2048 (32-bit accesses, 2048 warp requests)";

const COALESCING_EXAMPLES: &str = "\
Examples:
  $ cute coalescing '(_32,_8):(_4096,_1)'
  sectors_per_request=32.00 ideal=4.00 (32-bit accesses, 8 warp requests)";

const DRAW_EXAMPLES: &str = "\
Examples:
  cute draw 'composition(Swizzle<1,2,3>, (_16,_32):(_32,_1))' > sB.svg
  cute draw --banks --bits 64 '(_8,_16):(_16,_1)' > banks.svg
  cute draw --access 'composition(Swizzle<1,2,3>, ((_16,_16),(_8,_32)):((_0,_32),(_512,_1)))' > b.svg
  cute draw 'make_tiled_mma(MMA_Atom<SM80_16x8x8_F32TF32TF32F32_TN>)' > mma.svg";

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  cute completions bash > ~/.local/share/bash-completion/completions/cute
  cute completions zsh > ~/.zfunc/_cute          # with fpath+=(~/.zfunc) before compinit
  cute completions fish > ~/.config/fish/completions/cute.fish";

/// CuTe's layout algebra, and GEMM kernels generated from it: CUDA, NVRTC, GPU checks and timing
#[derive(Parser, Debug)]
#[command(
    name = "cute",
    version,
    arg_required_else_help = true,
    after_help = TOP_EXAMPLES
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the value of each CuTe expression (standard input when none)
    ///
    /// Prints the value of each CuTe expression exactly as C++ CuTe's print() would, one line
    /// each. With no EXPR, reads expressions from standard input, one per line: blank lines and
    /// lines starting with '#' are skipped, every other line prints exactly one line. A failing
    /// expression (or a line that is not UTF-8) prints one line 'error: ...' and the run goes
    /// on; the exit status is 1 if any failed.
    #[command(after_help = EVAL_EXAMPLES)]
    Eval(EvalArgs),
    /// Print C++ CuTe's print_layout table of each rank-2 layout
    #[command(after_help = PRINT_LAYOUT_EXAMPLES)]
    PrintLayout(ExprsArgs),
    /// Print each value as C++ CuTe's print() does (multi-line)
    ///
    /// Prints each value as C++ CuTe's print() does: multi-line for Copy_Atom, TiledCopy,
    /// MMA_Atom and TiledMMA, where `cute eval` keeps one line per expression.
    #[command(after_help = PRINT_EXAMPLES)]
    Print(ExprsArgs),
    /// Write the CUDA C++ of a named GEMM kernel
    ///
    /// Writes the CUDA C++ of a named GEMM kernel to standard output (an error goes to standard
    /// error). The kernel is verified and written for --arch: its launch bounds (and so the
    /// CTAs per SM and registers per thread it is built for) are what fits that GPU.
    #[command(after_help = EMIT_EXAMPLES)]
    Emit(EmitArgs),
    /// Emit, compile, launch, verify and time a named kernel against cuBLAS
    ///
    /// Plans and emits a named kernel, compiles it with NVRTC for --arch (through the compile
    /// cache), launches it on M x N x K (4096^3 unless given), checks it against a float64
    /// cuBLAS DGEMM reference with beta 0 and 0.5, and times it beside cuBLAS SGEMM.
    #[command(after_help = RUN_EXAMPLES)]
    Run(RunArgs),
    /// Check kernels against a float64 reference on the GPU
    #[command(after_help = CHECK_EXAMPLES)]
    Check(CheckArgs),
    /// Time named kernels against cuBLAS SGEMM on the GPU
    #[command(after_help = BENCH_EXAMPLES)]
    Bench(BenchArgs),
    /// Time a selector's candidate plans on the GPU and keep the fastest in the tuning cache
    ///
    /// For each shape (and layout), times every candidate plan of the selector (sgemm: the SIMT
    /// tiles; hgemm, bgemm: the SM90 GEMM and the SM80 one; each unsplit and split K ways)
    /// beside cuBLAS of its dtype, prints them, and says how far the heuristic's pick is from the
    /// fastest. The winners go to the tuning cache (tuning.txt beside the compile cache, for
    /// this device and driver) in one write after the last timing: `cute run sgemm|hgemm|bgemm`,
    /// `cute bench ... --suite` and `AutoGemm` use them thereafter. An interrupted tune leaves
    /// the cache as it was.
    #[command(after_help = TUNE_EXAMPLES)]
    Tune(TuneArgs),
    /// Shared-memory bank conflicts of an access pattern
    ///
    /// Counts, per instruction and warp, the shared-memory wavefronts of an access pattern (mode
    /// 0: the thread index; other modes: access instructions; offsets in N-bit units): a line
    /// 'max_ways=K ...' (1: conflict-free), the worst conflict, and a table.
    #[command(after_help = BANK_EXAMPLES)]
    BankConflicts(AccessArgs),
    /// Global-memory sectors per warp request of an access pattern
    ///
    /// Counts the 32-byte global-memory sectors per warp request of an access pattern (mode 0:
    /// the thread index; other modes: access instructions): a line 'sectors_per_request=X
    /// ideal=Y ...', then a table.
    #[command(after_help = COALESCING_EXAMPLES)]
    Coalescing(AccessArgs),
    /// Write an SVG picture of a layout, a TiledCopy or a TiledMMA
    ///
    /// Writes an SVG picture to standard output: for a rank-2 layout the offset in each cell, or
    /// with --banks (the default for a swizzled layout) the shared-memory bank of N-bit
    /// elements; for a TiledCopy its source and destination tiles, for a TiledMMA its A, B and
    /// C tiles, each cell labelled with the thread and value that own it; with --access, an
    /// access pattern's warp 0 (instructions x threads) by bank, conflicts outlined in red.
    #[command(after_help = DRAW_EXAMPLES)]
    Draw(DrawArgs),
    /// Print a shell completion script
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions(CompletionsArgs),
}

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// CuTe expressions in C++ spelling, e.g. 'complement((_2,_2):(_1,_6), _24)'
    #[arg(value_name = "EXPR", allow_hyphen_values = true)]
    pub exprs: Vec<String>,
}

#[derive(Args, Debug)]
pub struct ExprsArgs {
    /// CuTe expressions in C++ spelling
    #[arg(value_name = "EXPR", required = true, allow_hyphen_values = true)]
    pub exprs: Vec<String>,
}

/// A named kernel (`cute emit --list`).
fn kernel_name() -> PossibleValuesParser {
    PossibleValuesParser::new(
        NAMES
            .iter()
            .chain(TENSOR_CORE_NAMES)
            .chain(GEMV_NAMES)
            .chain(recipes::NAMES),
    )
}

/// The name of `run` and `bench` that asks the selector (`codegen::select`) for the FP32
/// GEMM of the shape; `hgemm` and `bgemm` ask it for the FP16 and BF16 ones
/// (`select::SELECTORS`).
pub const SELECTOR: &str = "sgemm";

/// The selectors' names.
fn selectors() -> impl Iterator<Item = &'static str> {
    cute::codegen::select::SELECTORS.iter().map(|&(n, _)| n)
}

/// A named kernel, or a selector.
fn kernel_or_selector() -> PossibleValuesParser {
    PossibleValuesParser::new(
        selectors()
            .chain(NAMES.iter().copied())
            .chain(TENSOR_CORE_NAMES.iter().copied())
            .chain(GEMV_NAMES.iter().copied())
            .chain(recipes::NAMES.iter().copied()),
    )
}

#[derive(Args, Debug)]
pub struct EmitArgs {
    /// The kernel
    #[arg(
        value_name = "NAME",
        value_parser = kernel_name(),
        required_unless_present = "list",
        conflicts_with = "list"
    )]
    pub name: Option<String>,
    /// Print the kernel names, one per line
    #[arg(long)]
    pub list: bool,
    #[command(flatten)]
    pub plan: PlanOpts,
}

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// The kernel, or a selector: sgemm, the FP32 GEMM it picks for the shape (a tile of the
    /// SIMT family, split-K where its tiles leave SMs idle); hgemm / bgemm, the FP16 / BF16 one
    /// (the SM90 GEMM, unsplit or split K ways, or the SM80 one split K ways); a tuned plan of
    /// the tuning cache first
    #[arg(value_name = "NAME", value_parser = kernel_or_selector())]
    pub name: String,
    /// Say which kernel and split the selector picked, and why
    #[arg(long)]
    pub explain: bool,
    #[command(flatten)]
    pub plan: PlanOpts,
    #[command(flatten)]
    pub size: SizeOpts,
    #[command(flatten)]
    pub split: SplitOpts,
}

/// Split-K of `run` and `bench`.
#[derive(Args, Debug, Clone)]
pub struct SplitOpts {
    /// Split K over S slices (the GEMMs with a k-tile pipeline: SIMT, SM80 and SM90): each CTA's
    /// partial product into an FP32 workspace, then a reduction that applies the epilogue
    /// (parallel split-K); `auto` picks S from the shape: enough CTAs to fill the SMs, at least
    /// 2 k-tiles a slice
    #[arg(long, value_name = "S|auto", value_parser = parse_split)]
    pub split_k: Option<Split>,
    /// With --split-k: serial split-K instead, one kernel whose slices add into C in turn,
    /// ordered by a semaphore per output tile (no workspace, no second launch; C in FP32; not
    /// the SM90 GEMMs)
    #[arg(long, requires = "split_k")]
    pub serial: bool,
    /// Stream-K instead (the SIMT GEMMs): one persistent CTA a CTA slot of the GPU, the k-tiles
    /// of every output tile shared evenly among them, each tile's partials then reduced through
    /// the epilogue
    #[arg(long, conflicts_with = "split_k")]
    pub stream_k: bool,
}

/// `--split-k`'s value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    Auto,
    Slices(i64),
}

fn parse_split(s: &str) -> Result<Split, String> {
    if s == "auto" {
        return Ok(Split::Auto);
    }
    match s.parse::<i64>() {
        Ok(n) if (1..=65535).contains(&n) => Ok(Split::Slices(n)),
        _ => Err(format!(
            "'{s}': a number of slices from 1 to 65535 (the grid's z), or auto"
        )),
    }
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The kernels (default: every one; with --k-block-unroll or --k-major-tile, every one with a
    /// k-block loop)
    #[arg(value_name = "NAME", value_parser = kernel_name())]
    pub names: Vec<String>,
    /// Run the kernels' IR in the CPU interpreter (every thread of every block, barriers and
    /// cp.async groups honoured, races and out-of-bounds accesses reported) instead of on the
    /// GPU, at its own small sizes (a GEMM at 1, 17, 127 and 130x67x33; --m/--n/--k refused)
    #[arg(long)]
    pub cpu: bool,
    #[command(flatten)]
    pub plan: PlanOpts,
    #[command(flatten)]
    pub size: SizeOpts,
    /// Also write the results to FILE
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The kernels (sgemm: the selector's pick at each size; hgemm, bgemm: with --suite)
    #[arg(value_name = "NAME", value_parser = kernel_or_selector(), required = true)]
    pub names: Vec<String>,
    #[command(flatten)]
    pub plan: PlanOpts,
    #[command(flatten)]
    pub size: SizeOpts,
    #[command(flatten)]
    pub split: SplitOpts,
    /// Time the suite's shapes (squares 256..8192, M = 1..128 against 4096^2 and 8192^2, short
    /// and long K, ragged shapes) instead of the default sizes, and draw % of cuBLAS by shape
    #[arg(long, conflicts_with_all = ["m", "n", "k"])]
    pub suite: bool,
    /// With --suite, write the SVG chart to FILE
    #[arg(
        long,
        value_name = "FILE",
        requires = "suite",
        default_value = "suite.svg"
    )]
    pub chart: PathBuf,
}

#[derive(Args, Debug)]
pub struct TuneArgs {
    /// What to tune: sgemm, hgemm or bgemm, the FP32, FP16 or BF16 selector's plans
    #[arg(value_name = "NAME", value_parser = PossibleValuesParser::new(selectors()))]
    pub name: String,
    /// Tune the suite's shapes (those of `cute bench --suite`) instead of one --m --n --k (all
    /// three)
    #[arg(long, conflicts_with_all = ["m", "n", "k"], required_unless_present_all = ["m", "n", "k"])]
    pub suite: bool,
    #[command(flatten)]
    pub plan: PlanOpts,
    #[command(flatten)]
    pub size: SizeOpts,
}

#[derive(Args, Debug)]
pub struct AccessArgs {
    /// The access pattern: a layout (thread, instruction...) -> offset in N-bit units
    #[arg(value_name = "EXPR", allow_hyphen_values = true)]
    pub expr: String,
    /// The access width N in bits: 32, 64 or 128
    #[arg(
        long,
        value_name = "N",
        default_value_t = 32,
        allow_negative_numbers = true
    )]
    pub bits: i64,
}

#[derive(Args, Debug)]
pub struct DrawArgs {
    /// A rank-2 layout, a TiledCopy or a TiledMMA
    #[arg(value_name = "EXPR", allow_hyphen_values = true)]
    pub expr: String,
    /// Shade each cell by the shared-memory bank of its N-bit element (the default for a
    /// swizzled layout)
    #[arg(long)]
    pub banks: bool,
    /// Draw an access pattern's warp 0 (instructions x threads) by bank, bank conflicts outlined
    /// in red
    #[arg(long)]
    pub access: bool,
    /// The element width N in bits for banks (8, 16, 32, 64 or 128; default 32; implies --banks)
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub bits: Option<i64>,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// How A and B are stored (BLAS, column-major): `NN` is an M-major A and a K-major B.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutArg {
    #[value(name = "NN")]
    Nn,
    #[value(name = "NT")]
    Nt,
    #[value(name = "TN")]
    Tn,
    #[value(name = "TT")]
    Tt,
}

impl LayoutArg {
    pub fn gemm(self) -> GemmLayout {
        GemmLayout::all()[self as usize]
    }
}

/// The target architecture: what the plan is verified and written for, and NVRTC's
/// `--gpu-architecture`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    /// A100
    #[value(name = "sm_80")]
    Sm80,
    /// A10, A40, RTX 30xx
    #[value(name = "sm_86")]
    Sm86,
    /// L4, L40, RTX 40xx
    #[value(name = "sm_89")]
    Sm89,
    /// H100, H200 (architecture-specific: runs on sm_90 only)
    #[value(name = "sm_90a")]
    Sm90a,
}

impl Arch {
    /// The code generator's target of this architecture.
    pub fn target(self) -> Target {
        use cute::codegen::Arch as A;
        Target::of(match self {
            Arch::Sm80 => A::Sm80,
            Arch::Sm86 => A::Sm86,
            Arch::Sm89 => A::Sm89,
            Arch::Sm90a => A::Sm90a,
        })
    }
}

/// The element type of A, B and C.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    /// FP32 (the SIMT GEMMs: UniversalFMA)
    F32,
    /// FP16 in, FP32 accumulate (hgemm-sm80: mma.sync)
    F16,
    /// BF16 in, FP32 accumulate (bgemm-sm80: mma.sync)
    Bf16,
    /// TF32 in (FP32 values the tensor cores read as TF32), FP32 accumulate (tf32gemm-sm80)
    Tf32,
}

impl Dtype {
    /// The named GEMMs whose A and B are of this type.
    pub fn gemms(self) -> &'static [&'static str] {
        match self {
            Dtype::F32 => NAMES,
            Dtype::F16 => &["hgemm-sm80", "hgemm-sm80-bias-relu"],
            Dtype::Bf16 => &["bgemm-sm80"],
            Dtype::Tf32 => &["tf32gemm-sm80"],
        }
    }

    fn name(self) -> String {
        self.to_possible_value()
            .map_or_else(String::new, |v| v.get_name().to_string())
    }
}

/// The element type of C.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutDtype {
    /// FP32
    F32,
    /// FP16, rounded to nearest from the FP32 accumulators (the tensor-core GEMMs)
    F16,
    /// BF16, rounded to nearest from the FP32 accumulators (the tensor-core GEMMs)
    Bf16,
}

impl OutDtype {
    fn elem(self) -> cute::layout::ElemType {
        match self {
            OutDtype::F32 => cute::layout::ElemType::F32,
            OutDtype::F16 => cute::layout::ElemType::F16,
            OutDtype::Bf16 => cute::layout::ElemType::Bf16,
        }
    }
}

/// The form of a K-major operand's shared tile (`GemmPlan::with_k_major_tile`).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum KMajorTileArg {
    /// Columns of rows + 4 values, as CuTe's SIMT sgemm_sm80 pads them: the MMA's reads need no
    /// XOR, for 16 bytes a k row more shared memory
    Padded,
    /// Unpadded, swizzled (Swizzle<B,2,S>) where the bank analysis finds that conflicts less
    Swizzled,
}

impl KMajorTileArg {
    fn form(self) -> KMajorTile {
        match self {
            KMajorTileArg::Padded => KMajorTile::Padded,
            KMajorTileArg::Swizzled => KMajorTile::Swizzled,
        }
    }
}

/// Which emitter writes a GEMM plan's CUDA.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emitter {
    /// The kernel IR (recipes built with the builder, one CUDA writer)
    Ir,
    /// The template emitter the IR replaced, kept as the reference it is measured against
    Template,
}

/// Options of every kernel command.
#[derive(Args, Debug, Clone)]
pub struct PlanOpts {
    /// Majors of A and B, BLAS style: NN is an M-major A and a K-major B [default: NN; check:
    /// all four]; check and bench take several
    #[arg(long, value_enum, value_name = "LAYOUT", ignore_case = true)]
    pub layout: Vec<LayoutArg>,
    /// K blocks per trip of the mainloop's k-block loop (even, dividing BK, a multiple of the
    /// swizzle's phases): 32 unrolls the whole k-tile, a slower NVRTC compile for a faster kernel
    #[arg(long, value_name = "N", value_parser = value_parser!(i64).range(1..))]
    pub k_block_unroll: Option<i64>,
    /// The K-major operands' shared tiles of the SIMT pipelined plans (sgemm-sm80 and its
    /// tiles, simt-hier; the FP32 selector's picks among them) [default: as named: padded
    /// where that fits as many CTAs per SM, else swizzled]; other plans are built as named
    #[arg(long, value_enum, value_name = "FORM")]
    pub k_major_tile: Option<KMajorTileArg>,
    /// The target GPU architecture: the kernel is verified and written for it (shared memory,
    /// registers, CTAs per SM) and compiled for it by NVRTC
    #[arg(long, value_enum, value_name = "ARCH", default_value_t = Arch::Sm90a)]
    pub arch: Arch,
    /// The element type of A and B: the GEMMs of that type (check: every one of them when no
    /// kernel is named); a kernel of another type is refused [default: the kernel's own]
    #[arg(long, value_enum, value_name = "DTYPE")]
    pub dtype: Option<Dtype>,
    /// The element type of C: f16 and bf16 for the tensor-core GEMMs (FP32 accumulate, rounded
    /// to nearest as C is stored; C read as that type when beta != 0) [default: f32]
    #[arg(long, value_enum, value_name = "DTYPE")]
    pub out_dtype: Option<OutDtype>,
    /// Which emitter writes the GEMM's CUDA [default: the IR (the template only for a plan with
    /// C++ epilogue functors); a problem beyond 32-bit offsets always the IR, with 64-bit
    /// indices]
    #[arg(long, value_enum, value_name = "EMITTER")]
    pub emitter: Option<Emitter>,
}

/// The problem size of `run`, `check` and `bench`.
#[derive(Args, Debug, Clone)]
pub struct SizeOpts {
    /// M, the rows of C [run: default 4096; check, bench: one size instead of their list, a
    /// missing --m/--n/--k then 1]
    #[arg(long, value_name = "M", value_parser = value_parser!(i64).range(1..), allow_negative_numbers = true)]
    pub m: Option<i64>,
    /// N, the columns of C
    #[arg(long, value_name = "N", value_parser = value_parser!(i64).range(1..), allow_negative_numbers = true)]
    pub n: Option<i64>,
    /// K, the reduction extent
    #[arg(long, value_name = "K", value_parser = value_parser!(i64).range(1..), allow_negative_numbers = true)]
    pub k: Option<i64>,
}

impl SizeOpts {
    /// The one size asked for, if any (a missing extent is `missing`).
    pub fn one(&self, missing: i64) -> Option<(i64, i64, i64)> {
        let any = self.m.is_some() || self.n.is_some() || self.k.is_some();
        any.then(|| {
            (
                self.m.unwrap_or(missing),
                self.n.unwrap_or(missing),
                self.k.unwrap_or(missing),
            )
        })
    }
}

/// A usage error of subcommand `sub`, in clap's words and with its usage line (exit status 2).
pub fn usage_error(sub: &str, kind: ErrorKind, msg: impl std::fmt::Display) -> clap::Error {
    let mut cmd = super::plain_command();
    cmd.build();
    match cmd.find_subcommand_mut(sub) {
        Some(s) => s.error(kind, msg),
        None => cmd.error(kind, msg),
    }
}

impl PlanOpts {
    /// Refuses what the options name but nothing implements yet, and a kernel whose element
    /// type is not --dtype's.
    pub fn check(&self, sub: &str, names: &[&str]) -> Result<(), clap::Error> {
        let Some(d) = self.dtype else {
            return Ok(());
        };
        let bad = |msg: String| Err(usage_error(sub, ErrorKind::ValueValidation, msg));
        let name = d.name();
        for n in names {
            if recipes::NAMES.contains(n) {
                if d != Dtype::F32 {
                    return bad(format!(
                        "--dtype {name}: the recipes name their element type (transpose, transpose-f16, row-softmax)"
                    ));
                }
            } else if !d.gemms().contains(n) {
                return bad(format!(
                    "--dtype {name}: {n} is not a GEMM of {name} operands; those are {}",
                    d.gemms().join(", ")
                ));
            }
        }
        Ok(())
    }

    /// The target of --arch.
    pub fn target(&self) -> Target {
        self.arch.target()
    }

    /// The named plan `name` in `layout` for --arch, with --k-block-unroll's trips and
    /// --k-major-tile's tiles.
    pub fn plan(&self, name: &str, layout: GemmLayout) -> Result<GemmPlan, CodegenError> {
        let plan = plan_unrolled(name, layout, &self.target(), self.k_block_unroll)?;
        let pipelined = matches!(plan.policy, gemm::Policy::Pipelined(_));
        let plan = match self.k_major_tile.filter(|_| pipelined) {
            Some(form) => plan.with_k_major_tile(form.form())?,
            None => plan,
        };
        match self.out_dtype {
            Some(o) => plan.with_output(o.elem()),
            None => Ok(plan),
        }
    }

    /// The plan's kernel with `width`-bit index arithmetic, written by the emitter asked for
    /// (the plan's default one when none was).
    pub fn emit(&self, plan: &GemmPlan, width: IndexWidth) -> Result<Kernel, CodegenError> {
        match (self.emitter, width) {
            (Some(Emitter::Ir), IndexWidth::I32) => emit_by(plan, gemm::Emitter::Ir, width),
            (Some(Emitter::Template), IndexWidth::I32) => {
                emit_by(plan, gemm::Emitter::Template, width)
            }
            // the plan's own choice, and every 64-bit build (the IR's)
            _ => emit_with(plan, width),
        }
    }

    /// The layouts asked for, or `default` when none.
    pub fn layouts(&self, default: &[GemmLayout]) -> Vec<GemmLayout> {
        if self.layout.is_empty() {
            default.to_vec()
        } else {
            self.layout.iter().map(|l| l.gemm()).collect()
        }
    }

    /// The one layout of `emit` and `run` (NN when none).
    pub fn one_layout(&self, sub: &str) -> Result<GemmLayout, clap::Error> {
        match self.layout.as_slice() {
            [] => Ok(LayoutArg::Nn.gemm()),
            [one] => Ok(one.gemm()),
            _ => Err(usage_error(
                sub,
                ErrorKind::ArgumentConflict,
                format!("the argument '--layout <LAYOUT>' cannot be used multiple times ({sub} takes one layout)"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_grammar_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn layouts_map_to_their_gemm_layouts() {
        for l in LayoutArg::value_variants() {
            let name = l.to_possible_value().map(|v| v.get_name().to_string());
            assert_eq!(Some(l.gemm().to_string()), name);
        }
    }

    #[test]
    fn arch_names_are_the_value_names() {
        for a in Arch::value_variants() {
            let name = a.to_possible_value().map(|v| v.get_name().to_string());
            assert_eq!(Some(a.target().name().to_string()), name);
        }
    }
}
