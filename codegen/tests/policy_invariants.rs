//! The non-pipelined policies (`Naive`, `SmemTiled`) and the epilogue code every policy shares,
//! from a review: each plan the emitter cannot lower as written is refused with a plan error
//! naming the part. Each comment says what the emitter wrote before the check existed (the
//! functor cases were confirmed by compiling the emitted source with NVRTC 13.0 for sm_90a); the
//! last tests pin down what was found correct.

use cute_codegen::gemm::{Bias, Epilogue, Policy};
use cute_codegen::interp::run;
use cute_codegen::recipes::{gemm, gemm_case};
use cute_codegen::{emit, named, CodegenError, GemmLayout, GemmPlan};
use cute_layout::{s, tup, Layout};

fn plan(name: &str, layout: &str) -> GemmPlan {
    named::plan(name, GemmLayout::parse(layout).unwrap()).unwrap()
}

fn lay2(sh: (i64, i64), st: (i64, i64)) -> Layout {
    Layout::new(tup![s(sh.0), s(sh.1)], tup![s(st.0), s(st.1)]).unwrap()
}

/// The kernel lines that are not comments (for failure messages).
fn body(source: &str) -> String {
    source
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The plan must be refused with a `CodegenError::Plan` naming one of `parts`, without panicking.
fn refused(plan: &GemmPlan, parts: &[&str]) {
    let r = std::panic::catch_unwind(|| emit(plan));
    match r {
        Err(_) => panic!("emit panicked instead of refusing the plan"),
        Ok(Err(CodegenError::Plan { part, msg, .. })) => {
            assert!(parts.contains(&part), "refused under part {part:?}: {msg}")
        }
        Ok(Err(e)) => panic!("refused, but not with a plan error: {e:?}"),
        Ok(Ok(k)) => panic!("accepted and emitted {}:\n{}", k.name, body(&k.source)),
    }
}

fn naive(tile: (i64, i64), thr: Layout) -> GemmPlan {
    let mut p = plan("naive-cols", "NN");
    p.name = "review".into();
    p.policy = Policy::Naive { tile, thr };
    p
}

fn with_functor(name: &str, layout: &str, f: &str) -> GemmPlan {
    let mut p = plan(name, layout);
    p.epilogue = Epilogue {
        bias: None,
        relu: false,
        functors: vec![f.to_string()],
    };
    p
}

// ---------------------------------------------------------------------------------------------
// Naive: the thread layout's shape is never compared with the tile
// ---------------------------------------------------------------------------------------------

/// tile (32,8) with the bijection thr = (8,32):(32,1) (256 threads, so size and bijection checks
/// pass). `local_partition` divides the (32,8) tile by the shape (8,32), each thread gets a 4x1
/// sub-tile, and only its (0,0) element is emitted:
///   `const int m = bm*32+tid/32%8;`   (rows 8..31 of every tile are never computed)
///   `const int n = bn*8+tid%32;`      (columns run into the next 3 tiles: duplicate stores)
/// The thread layout's shape must be the tile (`product_each(shape(thr)) == tile`).
#[test]
fn naive_thread_layout_transposed_against_tile_is_refused() {
    let plan = naive((32, 8), lay2((8, 32), (32, 1)));
    let k = emit(&plan);
    if let Ok(k) = &k {
        // concretely: the emitted coordinates leave the tile
        assert!(
            !k.source.contains("const int n = bn*8+tid%32;"),
            "n = bn*8 + (0..32) leaves the 8-wide tile:\n{}",
            body(&k.source)
        );
    }
    refused(&plan, &["thread layout"]);
}

/// tile (16,16) with thr = (256,1):(1,0): `m = bm*16+tid%256; n = bn*16;` -- 256 rows of a
/// 16-row tile (overlapping 15 neighbouring blocks) and only column 0 of every 16.
#[test]
fn naive_thread_layout_of_other_shape_is_refused() {
    refused(&naive((16, 16), lay2((256, 1), (1, 0))), &["thread layout"]);
}

/// A rank-1 thread layout (256):(1) over the (16,16) tile: the same `m = bm*16+tid%256;
/// n = bn*16;` as above.
#[test]
fn naive_rank1_thread_layout_is_refused() {
    let thr = Layout::new(tup![s(256)], tup![s(1)]).unwrap();
    refused(&naive((16, 16), thr), &["thread layout"]);
}

/// (Minor: refused today, but as `CodegenError::Layout { part: "thread coordinates" }` from the
/// algebra's `logical_divide`, not as a plan error naming the thread layout.) A rank-3 thread
/// layout over the rank-2 tile.
#[test]
fn naive_rank3_thread_layout_is_a_plan_error() {
    let thr = Layout::new(tup![s(16), s(4), s(4)], tup![s(1), s(16), s(64)]).unwrap();
    refused(&naive((16, 16), thr), &["thread layout"]);
}

// ---------------------------------------------------------------------------------------------
// Naive: tile sizes
// ---------------------------------------------------------------------------------------------

/// tile (-16,-16): `threads != tile.0 * tile.1` is 256 == 256, so it is accepted and emits
/// `const int m = bm*(-16)+tid%16;` with grid `((M+(-17))/(-16), (N+(-17))/(-16))`: negative
/// rows and a grid of zero or negative size.
#[test]
fn naive_negative_tile_is_refused() {
    refused(
        &naive((-16, -16), lay2((16, 16), (1, 16))),
        &["tile", "thread layout"],
    );
}

/// tile (-1,-256) with thr (1,256):(0,1): `m = bm*(-1);`, grid.x `(M+(-2))/(-1)`.
#[test]
fn naive_negative_tile_with_matching_thread_count_is_refused() {
    refused(
        &naive((-1, -256), lay2((1, 256), (0, 1))),
        &["tile", "thread layout"],
    );
}

/// tile (2^62 + 64, 4): `tile.0 * tile.1` overflows. In a debug build `naive::emit` panics
/// ("attempt to multiply with overflow", naive.rs:21); in release it wraps to exactly 256 and
/// the 256-thread check passes for a tile taller than any matrix.
#[test]
fn naive_tile_product_overflow_is_refused_without_panic() {
    refused(
        &naive(((1 << 62) + 64, 4), lay2((16, 16), (1, 16))),
        &["tile", "thread layout"],
    );
    refused(
        &naive((i64::MAX, 2), lay2((16, 16), (1, 16))),
        &["tile", "thread layout"],
    );
}

// ---------------------------------------------------------------------------------------------
// Epilogue functors (shared by every policy): `balanced` is the only check, and it does not
// model the C++ lexer / preprocessor, so a "balanced" functor can still escape its `{ }`.
// ---------------------------------------------------------------------------------------------

/// A functor ending in a line comment with a trailing backslash: `x = x; // note \`. The
/// backslash-newline splices the functor scope's closing `}` into the comment:
///       x = x; // note \
///     }
///     C[m+n*ldC] = x;
/// NVRTC: "At end of source: error: expected a "}"".
#[test]
fn functor_line_continuation_is_refused() {
    let mut p = with_functor("tiled-16", "TN", "x = x; // note \\");
    p.epilogue.bias = Some(Bias::PerCol);
    p.epilogue.relu = true;
    refused(&p, &["epilogue"]);
}

/// A functor using a C++14 digit separator (`1'0`): `balanced` reads `'0; } } ... 1'` as one
/// character literal and skips the braces inside it. The C++ closes the functor scope AND the
/// store's `if (m < M && n < N)` guard, then opens two new scopes with a new `x`:
///   if (m < M && n < N) {
///     ...
///     { ...; x += 1'0; } } { float x = 0.0f; { x += 1'0;
///     }
///     C[m+n*ldC] = x;      <- now unguarded: every thread of an edge tile stores out of bounds
///   }
/// This compiles (NVRTC rc 0) and writes 10.0f to C at every (m, n) of the grid, in or out of
/// range.
#[test]
fn functor_digit_separator_escaping_the_guard_is_refused() {
    let p = with_functor(
        "tiled-16",
        "NN",
        "x += 1'0; } } { float x = 0.0f; { x += 1'0;",
    );
    refused(&p, &["epilogue"]);
}

/// A preprocessor directive as a functor: `#define x 0.0f` is not scoped by `{ }` and rewrites
/// the store that follows, `C[m+n*ldC] = x;` -> `C[m+n*ldC] = 0.0f;` (and any later functor and
/// epilogue). Compiles (NVRTC rc 0) and stores zeros. `#if 0` likewise swallows the rest of the
/// kernel ("the #endif for this directive is missing").
#[test]
fn functor_preprocessor_directive_is_refused() {
    refused(
        &with_functor("tiled-16", "NN", "#define x 0.0f"),
        &["epilogue"],
    );
    refused(&with_functor("naive-cols", "NN", "#if 0"), &["epilogue"]);
}

// ---------------------------------------------------------------------------------------------
// What was checked and is fine (these pass today; they pin the behaviour)
// ---------------------------------------------------------------------------------------------

/// Runs the plan's IR kernel in the CPU interpreter on a ragged problem, with and without
/// `beta`, against the float64 reference.
fn interprets(p: &GemmPlan, size: (i64, i64, i64)) {
    let k = gemm(p).unwrap();
    for beta in [0.0, 0.5] {
        let mut case = gemm_case(p, size, beta, 7).unwrap();
        run(&k, &mut case.args).unwrap_or_else(|e| panic!("{}: {e}", k.name));
        let v = case.check(case.output());
        assert!(v.ok(), "{} {size:?} beta={beta}: {v:?}", k.name);
    }
}

/// Tiled: tile 0, negative and > 32 are refused under "tile"; 1 and odd tiles give a kernel of
/// `T*T` threads and two `(T,T):(1,T+1)` shared tiles, correct on a ragged problem.
#[test]
fn tiled_tile_sizes() {
    for t in [0, -1, -32, 33, 1 << 40] {
        let mut p = plan("tiled-16", "NN");
        p.policy = Policy::SmemTiled { tile: t };
        refused(&p, &["tile"]);
    }
    for layout in ["NN", "NT", "TN", "TT"] {
        for t in [1, 3, 16, 32] {
            let mut p = plan("tiled-16", layout);
            p.policy = Policy::SmemTiled { tile: t };
            let k = emit(&p).unwrap();
            assert_eq!(k.launch.block, [t * t, 1, 1]);
            // two (T,T):(1,T+1) tiles of floats, the second 128-byte aligned
            let cosize = 4 * (t * t + t - 1);
            assert_eq!(
                k.launch.dynamic_smem_bytes,
                (cosize + 127) / 128 * 128 + cosize
            );
            assert!(k.launch.requirements.is_empty());
            interprets(&p, (2 * t + 1, t + 2, 2 * t + 3));
        }
    }
}

/// Naive: a hierarchical bijection whose shape is the tile gives every thread its own output.
#[test]
fn naive_hierarchical_thread_layout_is_inverted() {
    let thr = Layout::new(
        tup![tup![s(2), s(2)], tup![s(2), s(2)]],
        tup![tup![s(1), s(4)], tup![s(2), s(8)]],
    )
    .unwrap();
    interprets(&naive((4, 4), thr), (9, 7, 5));
}

/// The epilogue: C is read only when `beta != 0` (the interpreter's C is NaN when `beta == 0`),
/// the bias is indexed by row or column and its length is a launch requirement.
#[test]
fn epilogue_bias_and_beta() {
    for (bias, sym) in [(Bias::PerRow, "M"), (Bias::PerCol, "N")] {
        for name in ["naive-rows", "tiled-32"] {
            let mut p = plan(name, "NT");
            p.epilogue = Epilogue::bias_relu(bias);
            let k = emit(&p).unwrap();
            assert_eq!(
                k.launch.requirements,
                vec![cute_codegen::Requirement::Length {
                    buffer: "bias".to_string(),
                    symbol: sym.to_string()
                }]
            );
            interprets(&p, (37, 33, 9));
        }
    }
}
