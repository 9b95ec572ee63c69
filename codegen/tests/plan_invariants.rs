//! Plans that are well formed as CuTe values but that the emitter cannot lower as written (found
//! by review): each is refused with a plan error naming the part. Each test's comment says what
//! the kernel did before the check existed (computed something else, faulted, or did not
//! compile); two holes were fixed in the emitter instead and are tested as such.

use cute_codegen::gemm::{KMajorTile, Pipelined, Policy};
use cute_codegen::{emit, named, CodegenError, GemmLayout, GemmPlan};
use cute_layout::atom::{make_tiled_copy, make_tiled_mma, CopyAtom, CopyOp, MmaAtom, MmaOp};
use cute_layout::{compose_swizzle, s, tup, AnyLayout, ElemType, Layout, Swizzle, Tiler};

fn plan(name: &str, layout: &str) -> GemmPlan {
    named::plan(name, GemmLayout::parse(layout).unwrap()).unwrap()
}

/// The named plan with its K-major shared tiles swizzled, not padded.
fn swizzled(name: &str, layout: &str) -> GemmPlan {
    plan(name, layout)
        .with_k_major_tile(KMajorTile::Swizzled)
        .unwrap()
}

fn pipelined(plan: &mut GemmPlan) -> &mut Pipelined {
    match &mut plan.policy {
        Policy::Pipelined(p) => p,
        _ => unreachable!("pipelined"),
    }
}

/// The plan must be refused with a `CodegenError::Plan` naming `part`.
fn refused(plan: &GemmPlan, part: &str) {
    match emit(plan) {
        Err(CodegenError::Plan { part: p, msg, .. }) => assert_eq!(p, part, "{msg}"),
        Err(e) => panic!("refused, but not with a plan error: {e}"),
        Ok(k) => panic!("accepted and emitted {}", k.name),
    }
}

fn lay3(sh: (i64, i64, i64), st: (i64, i64, i64)) -> Layout {
    Layout::new(
        tup![s(sh.0), s(sh.1), s(sh.2)],
        tup![s(st.0), s(st.1), s(st.2)],
    )
    .unwrap()
}

fn lay2(sh: (i64, i64), st: (i64, i64)) -> Layout {
    Layout::new(tup![s(sh.0), s(sh.1)], tup![s(st.0), s(st.1)]).unwrap()
}

fn renamed(mut p: GemmPlan, name: &str) -> GemmPlan {
    p.name = name.to_string();
    p
}

/// One shared stage: the prologue loads nothing, `cp_async_wait<-1>`, and the mainloop's
/// `load_tile(.., pipe_write)` overwrites the stage being read (pipe_write == pipe_read == 0).
#[test]
fn one_stage_is_refused() {
    let mut plan = renamed(plan("sgemm-sm80", "NT"), "stages1");
    let p = pipelined(&mut plan);
    p.stages = 1;
    p.smem_a = AnyLayout::Plain(lay3((128, 32, 1), (1, 128, 4096)));
    p.smem_b = AnyLayout::Plain(lay3((128, 32, 1), (1, 128, 4096)));
    refused(&plan, "stages");
}

/// Stages that overlap in shared memory (stage stride 2048 < the 4096 elements of a stage): the
/// copy of k-tile kt+2 overwrites half of the stage the MMA is reading.
#[test]
fn overlapping_stages_are_refused() {
    let mut plan = renamed(plan("sgemm-sm80", "NT"), "overlap");
    pipelined(&mut plan).smem_a = AnyLayout::Plain(lay3((128, 32, 3), (1, 128, 2048)));
    refused(&plan, "shared A");
}

/// A shared tile that is not injective inside a stage (K stride 64 < BM = 128): two k columns
/// share storage.
#[test]
fn non_injective_shared_tile_is_refused() {
    let mut plan = renamed(plan("sgemm-sm80", "NT"), "noninj");
    pipelined(&mut plan).smem_a = AnyLayout::Plain(lay3((128, 32, 3), (1, 64, 4096)));
    refused(&plan, "shared A");
}

/// A stage mode written hierarchically, `(3,1):(4096,0)`: the shape check takes `product_each`
/// (3), but `stage_stride` reads a non-integer stride as 0, so every `pipe * stage` term is
/// `pipe * 0`: all stages alias.
#[test]
fn hierarchical_stage_mode_is_refused() {
    let mut plan = renamed(plan("sgemm-sm80", "NT"), "hierstage");
    let l = Layout::new(
        tup![s(128), s(32), tup![s(3), s(1)]],
        tup![s(1), s(128), tup![s(4096), s(0)]],
    )
    .unwrap();
    pipelined(&mut plan).smem_a = AnyLayout::Plain(l);
    refused(&plan, "shared A");
}

/// `Swizzle<2,2,-2>` (a negative shift: CuTe moves the YYY bits *up*): the helper shifts left,
/// as CuTe does (it used to write `>> -2`, undefined in C++).
#[test]
fn a_negative_swizzle_shift_moves_bits_up() {
    let mut plan = renamed(plan("sgemm-sm80", "NN"), "negshift");
    let sw = Swizzle::new(2, 2, -2).unwrap();
    pipelined(&mut plan).smem_b = compose_swizzle(sw, &lay3((128, 32, 3), (1, 128, 4096)));
    // the IR's helper moves the bits up too (cute_swizzle, `<< -S` for S < 0)
    let ir = emit(&plan).unwrap();
    assert!(ir.source.contains("cute_swizzle<2,2,-2>"), "{}", ir.source);
    assert!(ir.source.contains("(o & yyy) << -S"), "{}", ir.source);
    let k = cute_codegen::gemm::emit_template(&plan).unwrap();
    assert!(
        k.source.contains("return o ^ ((o & 12) << 2);"),
        "{}",
        k.source
    );
    assert!(k.source.contains("(XOR bits [2,4) into bits [4,6))"));
}

/// A swizzled shared tile whose swizzled image leaves the inner layout's cosize (the stage stride
/// 4228 is not a multiple of the swizzle's 32-element block): `smem_bytes` and `sB = smem +
/// cosize(A)` come from the unswizzled cosize, so stage 2 of sA writes into sB.
#[test]
fn swizzle_image_outside_the_allocation_is_refused() {
    let mut plan = renamed(swizzled("sgemm-sm80", "TT"), "swzoob");
    let p = pipelined(&mut plan);
    let AnyLayout::Composed(c) = &p.smem_a else {
        panic!("TT's A is K-major and swizzled")
    };
    let sw = c.layout_a();
    let inner = lay3((128, 32, 3), (1, 128, 4228));
    let cosize = 2 * 4228 + 127 + 31 * 128 + 1;
    let max = (0..3)
        .flat_map(|pp| (0..32).flat_map(move |k| (0..128).map(move |m| m + 128 * k + 4228 * pp)))
        .map(|o| sw.apply(o).unwrap())
        .max()
        .unwrap();
    assert!(max >= cosize, "{sw}: max {max} < cosize {cosize}");
    p.smem_a = compose_swizzle(sw, &inner);
    refused(&plan, "shared A");
}

/// A 128-bit copy whose 4 values run along K of an M-major A (`val = (1,4)`): `cp.async` copies
/// 16 contiguous bytes of gmem (4 rows of one column), the tile expects 4 k columns of one row.
#[test]
fn copy_vector_strided_in_global_memory_is_refused() {
    let mut plan = renamed(plan("sgemm-sm80", "NT"), "vecgmem");
    let atom = CopyAtom::new(CopyOp::CpAsyncCacheGlobal { bits: 128 }, ElemType::F32).unwrap();
    let thr = lay2((128, 2), (1, 128));
    let val = lay2((1, 4), (0, 1));
    pipelined(&mut plan).copy_a = make_tiled_copy(&atom, &thr, &val).unwrap();
    refused(&plan, "TiledCopy A");
}

/// A 128-bit copy along K of a K-major A (contiguous in gmem) into the M-major shared tile: the
/// 4 values are 128 elements apart in smem, `cp.async` writes them contiguously.
#[test]
fn copy_vector_strided_in_shared_memory_is_refused() {
    let mut plan = renamed(plan("sgemm-sm80", "TN"), "vecsmem");
    let atom = CopyAtom::new(CopyOp::CpAsyncCacheGlobal { bits: 128 }, ElemType::F32).unwrap();
    let thr = lay2((32, 8), (8, 1));
    let val = lay2((1, 4), (0, 1));
    let p = pipelined(&mut plan);
    p.copy_a = make_tiled_copy(&atom, &thr, &val).unwrap();
    p.smem_a = AnyLayout::Plain(lay3((128, 32, 3), (1, 128, 4096)));
    p.k_block_unroll = None;
    refused(&plan, "TiledCopy A");
}

/// A `UniversalCopy` (plain vector loads, which `Policy::Pipelined` documents): the emitter still
/// writes `cp_async_16(...)`, `cp_async_fence()`, `cp_async_wait<N>()`, and defines none of them.
#[test]
fn non_cp_async_copy_is_refused() {
    let mut plan = renamed(plan("sgemm-sm80", "NT"), "universal");
    let atom = CopyAtom::new(CopyOp::UniversalCopy { bits: 128 }, ElemType::F32).unwrap();
    let thr = lay2((32, 8), (1, 32));
    let val = lay2((4, 1), (1, 0));
    let p = pipelined(&mut plan);
    p.copy_a = make_tiled_copy(&atom, &thr, &val).unwrap();
    p.copy_b = make_tiled_copy(&atom, &thr, &val).unwrap();
    refused(&plan, "TiledCopy A");
}

/// A as `cp.async.cg` 16 bytes, B as `cp.async.ca` 16 bytes: two helpers both named
/// `cp_async_16` (a redefinition: the source does not compile).
#[test]
fn two_copy_ops_of_one_width_are_refused() {
    let mut plan = renamed(plan("sgemm-sm80", "NT"), "dupcp");
    let atom = CopyAtom::new(CopyOp::CpAsyncCacheAlways { bits: 128 }, ElemType::F32).unwrap();
    let thr = lay2((32, 8), (1, 32));
    let val = lay2((4, 1), (1, 0));
    pipelined(&mut plan).copy_b = make_tiled_copy(&atom, &thr, &val).unwrap();
    refused(&plan, "TiledCopy B");
}

fn fma_mma(thr: &Layout, perm: &[Tiler]) -> cute_layout::atom::TiledMma {
    let fma = MmaOp::universal_fma(ElemType::F32, ElemType::F32, ElemType::F32, ElemType::F32);
    make_tiled_mma(MmaAtom::new(fma), thr, perm).unwrap()
}

/// A TiledMMA with two threads along K (`(16,8,2)`, 256 threads): each thread sums half of K and
/// both threads of a pair store their partial sums to the same C elements (no reduction).
#[test]
fn mma_threads_along_k_are_refused() {
    let mut plan = renamed(plan("sgemm-sm80", "NT"), "mmak");
    let perm_m = Layout::new(tup![s(16), s(4), s(2)], tup![s(4), s(1), s(64)]).unwrap();
    let perm_n = Layout::new(tup![s(8), s(4), s(4)], tup![s(4), s(1), s(32)]).unwrap();
    let thr = lay3((16, 8, 2), (1, 16, 128));
    pipelined(&mut plan).mma = fma_mma(
        &thr,
        &[
            Tiler::Layout(perm_m),
            Tiler::Layout(perm_n),
            Tiler::Int(s(32)),
        ],
    );
    refused(&plan, "TiledMMA");
}

/// An M permutation that is injective but not onto the 128 rows of the tile (`(16,4,2):(4,1,128)`
/// reaches rows 0..63 and 128..191): rows 64..127 of every CTA tile are never computed, and the
/// CTA computes and stores rows 128..191, which belong to the next CTA.
#[test]
fn mma_permutation_leaving_the_tile_is_refused() {
    let mut plan = renamed(plan("sgemm-sm80", "NT"), "permoob");
    let perm_m = Layout::new(tup![s(16), s(4), s(2)], tup![s(4), s(1), s(128)]).unwrap();
    let perm_n = Layout::new(tup![s(16), s(4), s(2)], tup![s(4), s(1), s(64)]).unwrap();
    pipelined(&mut plan).mma = fma_mma(
        &lay2((16, 16), (1, 16)),
        &[
            Tiler::Layout(perm_m),
            Tiler::Layout(perm_n),
            Tiler::Int(s(32)),
        ],
    );
    refused(&plan, "TiledMMA");
}

/// BK = 1: the k-block loop has one iteration, where `kb == BK-1` (advance `pipe_read`, wait,
/// read the next stage) runs *before* `kb == 0` (issue the next k-tile and commit), so
/// `cp_async_wait<stages-2>` counts one group too few (with 2 stages the kernel reads stage 1
/// before any copy into it is issued); and as `kb` is always 0 the MMA always multiplies
/// `rA[0]`/`rB[0]`, loaded once in the prologue (k-tile 0), while every later load goes to `[1]`.
#[test]
fn bk_of_one_is_refused() {
    let plan = simt_with_bk("bk1", 1);
    refused(&plan, "CTA tile");
}

/// A padded shared tile (K stride 130, a common bank-conflict fix): the 16-byte `cp.async` of
/// k column 1 lands at element 130 (byte 520, not 16-byte aligned): a misaligned-address fault.
#[test]
fn copy_destination_not_vector_aligned_is_refused() {
    let mut plan = renamed(plan("sgemm-sm80", "NT"), "padded");
    pipelined(&mut plan).smem_a = AnyLayout::Plain(lay3((128, 32, 3), (1, 130, 4160)));
    refused(&plan, "TiledCopy A");
}

/// sB used to start at `smem + cosize(sA)`: with an odd cosize (stage stride 4097 of a
/// scalar-copied sA) it was 8-byte aligned while its MMA reads are `float4`. It now starts at the
/// next multiple of 128 bytes.
#[test]
fn shared_b_starts_128_byte_aligned() {
    let mut plan = renamed(swizzled("sgemm-sm80", "TN"), "sbalign");
    let p = pipelined(&mut plan);
    p.smem_a = AnyLayout::Plain(lay3((128, 32, 3), (1, 128, 4097)));
    p.k_block_unroll = None;
    let k = cute_codegen::gemm::emit_template(&plan).unwrap();
    // cosize(sA) = 2*4097 + 31*128 + 127 + 1 = 12290, rounded up to 12320
    let ir = emit(&plan).unwrap();
    assert_eq!(
        ir.launch.dynamic_smem_bytes,
        4 * (12320 + 12288),
        "the IR's layout"
    );
    // stage 1 of sA starts off 16-byte alignment: the fragments are read one float at a time
    assert!(!ir.source.contains("cute_lds128"), "{}", ir.source);
    let kernel = cute_codegen::recipes::gemm(&plan).unwrap();
    let mut case = cute_codegen::recipes::gemm_case(&plan, (130, 67, 33), 0.5, 3).unwrap();
    cute_codegen::interp::run(&kernel, &mut case.args).unwrap();
    assert!(case.check(case.output()).ok());
    assert!(
        k.source.contains("float* sB = smem + 12320;"),
        "{}",
        k.source
    );
    assert_eq!(k.launch.dynamic_smem_bytes, 4 * (12320 + 12288));
}

/// The epilogue functors are pasted verbatim: an unbalanced one closes the kernel's scopes and
/// the source does not compile (or, balanced differently, escapes its `{ }` and the edge guard).
#[test]
fn unbalanced_epilogue_functor_is_refused() {
    let mut plan = renamed(plan("sgemm-sm80", "NT"), "functor");
    plan.epilogue.functors.push("x = x * 2.0f; }".to_string());
    refused(&plan, "epilogue");
}

/// The plan name becomes the C++ kernel name with only `-` replaced: `extern "C" __global__ void
/// my gemm.v2_NT(...)` does not compile.
#[test]
fn plan_name_that_is_no_identifier_is_refused() {
    let plan = renamed(plan("sgemm-sm80", "NT"), "my gemm.v2");
    refused(&plan, "name");
}

/// BK = 0 passes every divisibility check (`0 % t == 0`): the kernel computes
/// `k_tiles = (K + -1) / 0`.
#[test]
fn empty_cta_k_tile_is_refused() {
    let mut plan = renamed(plan("sgemm-sm80", "NT"), "bk0");
    let p = pipelined(&mut plan);
    p.cta = (128, 128, 0);
    p.smem_a = AnyLayout::Plain(lay3((128, 0, 3), (1, 128, 4096)));
    p.smem_b = AnyLayout::Plain(lay3((128, 0, 3), (1, 128, 4096)));
    refused(&plan, "CTA tile");
}

/// 32-bit `cp.async` atoms with 4 values per thread (`val = (4,1)`): the loaders call
/// `cp_async_16` (the width of the partition's value mode) while only `cp_async_4` (the atom's
/// width) is defined.
#[test]
fn copy_vector_wider_than_its_atom_is_refused() {
    let mut plan = renamed(plan("sgemm-sm80", "NT"), "atom32x4");
    let atom = CopyAtom::new(CopyOp::CpAsyncCacheAlways { bits: 32 }, ElemType::F32).unwrap();
    let c = make_tiled_copy(&atom, &lay2((32, 8), (1, 32)), &lay2((4, 1), (1, 0))).unwrap();
    let p = pipelined(&mut plan);
    p.copy_a = c.clone();
    p.copy_b = c;
    refused(&plan, "TiledCopy A");
}

/// 2048 threads per CTA (a `(64,32)` TiledMMA with matching copies): the naive policy refuses
/// more than 1024, the pipelined one emits `__launch_bounds__(2048)` and a launch that fails.
#[test]
fn more_than_1024_threads_is_refused() {
    let mut plan = renamed(plan("sgemm-sm80", "NT"), "t2048");
    let atom = CopyAtom::new(CopyOp::CpAsyncCacheAlways { bits: 64 }, ElemType::F32).unwrap();
    let c = make_tiled_copy(&atom, &lay2((64, 32), (1, 64)), &lay2((2, 1), (1, 0))).unwrap();
    let p = pipelined(&mut plan);
    p.mma = fma_mma(&lay2((64, 32), (1, 64)), &[]);
    p.copy_a = c.clone();
    p.copy_b = c;
    p.min_blocks_per_sm = 1;
    refused(&plan, "TiledMMA");
}

/// The naive policy checks the thread layout's size only: `(8,32):(0,1)` (not a bijection onto
/// the threads) emits `const int m = bm*8+tid/0%8;` (a division by zero).
#[test]
fn naive_thread_layout_not_a_bijection_is_refused() {
    let mut plan = renamed(plan("naive-rows", "NN"), "naive_dup");
    plan.policy = Policy::Naive {
        tile: (8, 32),
        thr: lay2((8, 32), (0, 1)),
    };
    refused(&plan, "thread layout");
}

/// BK = 3 (odd; every check divides): the register double buffer is indexed by `kb & 1` with `kb`
/// restarting at 0 each k-tile. At `kb = 2` the next tile's k block 0 is loaded into
/// `r[(2+1)&1] = r[1]`, but `kb = 0` of the next tile multiplies `r[0]` (this tile's k block 2
/// again), and `kb = 0` then overwrites `r[1]`: k block 0 of every k-tile after the first is
/// dropped and k block 2 of the previous one counted twice.
#[test]
fn odd_bk_is_refused() {
    let plan = simt_with_bk("bk3", 3);
    refused(&plan, "CTA tile");
}

/// `simt-hier` NT rebuilt for a `128 x 128 x bk` tile: scalar copies, the MMA's K permutation 1.
fn simt_with_bk(name: &str, bk: i64) -> GemmPlan {
    let mut plan = renamed(plan("simt-hier", "NT"), name);
    let perm_m = Layout::new(tup![s(16), s(4), s(2)], tup![s(4), s(1), s(64)]).unwrap();
    let perm_n = Layout::new(tup![s(8), s(4)], tup![s(4), s(1)]).unwrap();
    let atom = CopyAtom::new(CopyOp::CpAsyncCacheAlways { bits: 32 }, ElemType::F32).unwrap();
    let copy = || make_tiled_copy(&atom, &lay2((128, 1), (1, 128)), &lay2((1, 1), (0, 0))).unwrap();
    let p = pipelined(&mut plan);
    p.mma = fma_mma(
        &lay2((16, 8), (1, 16)),
        &[
            Tiler::Layout(perm_m),
            Tiler::Layout(perm_n),
            Tiler::Int(s(1)),
        ],
    );
    p.cta = (128, 128, bk);
    p.copy_a = copy();
    p.copy_b = copy();
    p.smem_a = AnyLayout::Plain(lay3((128, bk, 2), (1, 128, 128 * bk)));
    p.smem_b = AnyLayout::Plain(lay3((128, bk, 2), (1, 128, 128 * bk)));
    plan
}
