//! The runtime's bad-input contract ("clear errors, nothing written out of bounds, no panics on
//! user input"), as far as it can be shown without a GPU. The tests come from a review: each
//! comment says what the runtime did before its check existed; the `fine_*` tests pin down
//! suspicions that turned out to hold.

use cute_codegen::cuda::IndexWidth;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use cute_codegen::named::{plan, NAMES};
use cute_codegen::{emit, GemmLayout};
use cute_runtime::cache::{self, Source};
use cute_runtime::gemm::{check_buffers, launch_dims, BufferLens, Problem};
use cute_runtime::{gpu::Gpu, nvrtc, RuntimeError};

/// `CUTE_CACHE_DIR` is process-wide: the tests that set it take turns.
static ENV: Mutex<()> = Mutex::new(());

/// Runs `f`, turning a panic into `Err(message)`.
fn no_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".into())
    })
}

fn layouts() -> [GemmLayout; 4] {
    ["NN", "NT", "TN", "TT"].map(|l| GemmLayout::parse(l).unwrap())
}

// ---------------------------------------------------------------------------------------------
// Problem::new / buffer_sizes
// ---------------------------------------------------------------------------------------------

/// gemm.rs:47 computes `m * k`, `n * k`, `m * n` in plain i64: sizes whose products overflow i64
/// panic in debug builds ("attempt to multiply with overflow"); in release they wrap, and
/// M = N = K = 2^32 wraps every product to 0 and is *accepted* (lda = ldb = ldc = 2^32,
/// buffer_sizes() wraps to (0, 0, 0), M/N/K reach the kernel as `0i32`).
#[test]
fn huge_sizes_are_refused_without_overflow() {
    let nn = GemmLayout::parse("NN").unwrap();
    for (m, n, k) in [
        (1i64 << 32, 1i64 << 32, 1i64 << 32),
        (1 << 40, 1, 1 << 40),
        (i64::MAX, 2, 1),
    ] {
        match no_panic(|| Problem::new(m, n, k, nn, 1.0, 0.0)) {
            Err(panic) => panic!("Problem::new({m}, {n}, {k}) panicked: {panic}"),
            Ok(Ok(p)) => panic!("Problem::new({m}, {n}, {k}) was accepted: {p:?}"),
            Ok(Err(e)) => assert!(
                e.to_string().contains("exceeds") || e.to_string().contains("below 2^31"),
                "{e}"
            ),
        }
    }
}

/// The buffers are padded to leading dimensions rounded up to 4: with a dimension of 1 the
/// padded matrix is 4x the packed one (NN, M = 1, N = 2^31 - 1, K = 1 stores B as
/// (N, K):(ldB = 4, 1), 4 * (2^31 - 1) elements), where 32-bit `int` offsets once overflowed.
/// Every accepted problem whose buffers need offsets beyond 32 bits asks for 64-bit indices.
#[test]
fn no_accepted_buffer_needs_offsets_beyond_its_index_width() {
    let max = i32::MAX as i64;
    let mut bad = Vec::new();
    for l in layouts() {
        for (m, n, k) in [(1, max, 1), (1, 1, max), (max, 1, 1), (3, max / 3, 1)] {
            let Ok(p) = Problem::new(m, n, k, l, 1.0, 0.0) else {
                continue;
            };
            let (sa, sb, sc) = p.buffer_sizes();
            for (what, s) in [("A", sa), ("B", sb), ("C", sc)] {
                // The largest offset a kernel forms is s - 1; it must fit the kernel's `int`.
                if s as u64 > 1u64 << 31 && p.index_width() != IndexWidth::I64 {
                    bad.push(format!("{l} {m}x{n}x{k}: {what} has {s} elements"));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "accepted problems whose buffers need >32-bit offsets, with 32-bit indices:\n{}",
        bad.join("\n")
    );
}

/// Leading dimensions are rounded up to 4 after the size check, so M = 2^31 - 1 (N = K = 1) gives
/// ldA = ldC = 2^31: `launch` passes it as `p.symbol(..) as i32` (gemm.rs:204) = -2^31 to the
/// kernel (after `check_requirements` checked `ldA % 4 == 0` on the i64 value), and the cuBLAS
/// reference gets `lda as i32` (gemm.rs:259, 277) too.
#[test]
fn no_accepted_leading_dimension_overflows_i32() {
    let max = i32::MAX as i64;
    let mut bad = Vec::new();
    for l in layouts() {
        for (m, n, k) in [(max, 1, 1), (1, max, 1), (1, 1, max)] {
            let Ok(p) = Problem::new(m, n, k, l, 1.0, 0.0) else {
                continue;
            };
            for (what, ld) in [("ldA", p.lda), ("ldB", p.ldb), ("ldC", p.ldc)] {
                if i32::try_from(ld).is_err() {
                    bad.push(format!(
                        "{l} {m}x{n}x{k}: {what} = {ld} reaches the kernel as {}",
                        ld as i32
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// `Problem`'s fields are public and nothing re-validates them: a leading dimension below the
/// rows (here ldC = 1 < M = 8) makes buffer_sizes() -- the only thing `Buffers::upload` checks
/// the slices against -- smaller than what the kernel addresses (C[m + n*ldC] up to
/// (M-1) + (N-1)*ldC), so a "size-checked" upload is written out of bounds.
#[test]
fn buffer_sizes_cover_what_the_kernels_address() {
    let nn = GemmLayout::parse("NN").unwrap();
    let mut p = Problem::new(8, 5, 4, nn, 1.0, 0.0).unwrap();
    p.ldc = 1;
    p.lda = 1;
    let (sa, _, sc) = p.buffer_sizes();
    let extent_c = (p.m - 1 + (p.n - 1) * p.ldc + 1) as usize;
    let extent_a = (p.m - 1 + (p.k - 1) * p.lda + 1) as usize;
    assert!(
        sc >= extent_c && sa >= extent_a,
        "ldC = {} < M = {} accepted: C buffer of {sc} elements, kernel addresses {extent_c}; \
         A buffer of {sa}, kernel addresses {extent_a}",
        p.ldc,
        p.m
    );
}

/// buffer_sizes() (gemm.rs:78-90) multiplies public i64 fields unchecked and casts with `as usize`:
/// a huge leading dimension panics (debug) / wraps (release), a negative one becomes ~2^64.
#[test]
fn buffer_sizes_saturate_on_out_of_range_fields() {
    let nn = GemmLayout::parse("NN").unwrap();
    let base = Problem::new(8, 8, 8, nn, 1.0, 0.0).unwrap();
    let huge = Problem {
        ldc: i64::MAX,
        ..base
    };
    let r = no_panic(|| huge.buffer_sizes());
    assert!(
        r.is_ok(),
        "buffer_sizes() with ldC = i64::MAX panicked: {r:?}"
    );
    let neg = Problem { lda: -8, ..base };
    let (sa, _, _) = neg.buffer_sizes();
    assert!(
        sa < isize::MAX as usize,
        "buffer_sizes() with ldA = -8 says A has {sa} elements"
    );
}

/// `launch` only checked that each grid size fits a u32; CUDA caps gridDim.y/z at 65535.
/// `Problem::new` accepts N up to 2^31 - 1 (with M small), so e.g. 1 x 2^24 x 1 reached the
/// driver, which refused it with a bare CUDA_ERROR_INVALID_VALUE. `launch_dims` (called by every
/// launch) now names the axis and the limit.
#[test]
fn a_grid_beyond_cuda_limits_is_refused_before_the_launch() {
    let nn = GemmLayout::parse("NN").unwrap();
    let p = Problem::new(1, 1 << 24, 1, nn, 1.0, 0.0).unwrap();
    for name in NAMES {
        let k = emit(&plan(name, nn).unwrap()).unwrap();
        let err = launch_dims(&k, &p).unwrap_err().to_string();
        assert!(
            err.contains("gridDim.y") && err.contains("65535"),
            "{name}: {err}"
        );
        let small = Problem::new(300, 17, 1000, nn, 1.0, 0.0).unwrap();
        assert!(launch_dims(&k, &small).is_ok(), "{name}");
    }
}

/// A fused bias is one value per row or per column; a shorter buffer, or one of the wrong
/// matrices, is refused before any launch (the kernel would read past it).
#[test]
fn buffers_are_checked_against_the_problem_and_the_kernel() {
    let nn = GemmLayout::parse("NN").unwrap();
    let k = emit(&plan("sgemm-sm80-bias-relu", nn).unwrap()).unwrap();
    let p = Problem::new(100, 300, 8, nn, 1.0, 0.0).unwrap();
    let (a, b, c) = p.buffer_sizes();
    let ok = BufferLens { a, b, c, bias: 300 };
    assert!(check_buffers(&k, &p, ok).is_ok());
    let per_row = k
        .launch
        .requirements
        .iter()
        .any(|r| r.to_string() == "bias holds M values");
    let need = if per_row { 100 } else { 300 };
    let short = BufferLens {
        bias: need - 1,
        ..ok
    };
    let err = check_buffers(&k, &p, short).unwrap_err().to_string();
    assert!(
        err.contains("bias holds") && err.contains(&format!("bias has {}", need - 1)),
        "{err}"
    );
    let small_c = BufferLens { c: c - 1, ..ok };
    let err = check_buffers(&k, &p, small_c).unwrap_err().to_string();
    assert!(err.contains("C has"), "{err}");
    // a kernel without a bias takes any bias placeholder
    let plain = emit(&plan("sgemm-sm80", nn).unwrap()).unwrap();
    assert!(check_buffers(&plain, &p, BufferLens { bias: 1, ..ok }).is_ok());
}

// ---------------------------------------------------------------------------------------------
// NVRTC and the compile cache
// ---------------------------------------------------------------------------------------------

/// nvrtc.rs:184-187 passes `--gpu-architecture={arch}` to cudarc's `compile_program`, which does
/// `CString::new(o).unwrap()`: an arch with a NUL byte panics inside cudarc (and the program is
/// leaked) instead of giving `RuntimeError::Nvrtc` like a NUL in the source or the name does.
/// Reachable through `nvrtc::compile` and `cache::compile` (both public, arch a plain &str).
#[test]
fn an_arch_that_is_no_architecture_is_an_error() {
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    let src = "extern \"C\" __global__ void k() {}";
    match no_panic(|| nvrtc::compile("k", src, "sm_80\0")) {
        Err(panic) => panic!("nvrtc::compile with arch \"sm_80\\0\" panicked: {panic}"),
        Ok(r) => assert!(r.is_err(), "compiled for a bad arch?"),
    }
}

/// The `.log` beside a cached cubin is outside the checksum (cache.rs:111-116) and is parsed on
/// every disk hit; `nvrtc::spills` adds the two numbers as u32 (nvrtc.rs:250). A corrupted log
/// with big numbers makes `cache::compile` panic ("attempt to add with overflow") instead of
/// recompiling.
#[test]
fn a_corrupted_cache_log_does_not_crash() {
    let line = "ptxas info    : Used 40 registers, 0 bytes stack frame, \
                4294967295 bytes spill stores, 1 bytes spill loads";
    let r = no_panic(|| nvrtc::parse_spills(line));
    let pure = format!("parse_spills on a corrupted report: {r:?}");

    if !cute_runtime::nvrtc_or_skip!() {
        assert!(r.is_ok(), "{pure}");
        return;
    }
    let _g = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let dir = std::env::temp_dir().join(format!("cute-review-log-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("CUTE_CACHE_DIR", &dir);
    let k = emit(&plan("naive-rows", GemmLayout::parse("NN").unwrap()).unwrap()).unwrap();
    let (_, src) = cache::compile(&k.name, &k.source, "sm_80").unwrap();
    assert_eq!(src, Source::Compiled);
    let log = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "log"))
        .expect("a cached log");
    std::fs::write(&log, line).unwrap();
    cache::forget_memory();
    let again = no_panic(|| cache::compile(&k.name, &k.source, "sm_80").map(|(_, s)| s));
    std::env::remove_var("CUTE_CACHE_DIR");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        matches!(again, Ok(Ok(_))),
        "cache::compile with a corrupted .log: {again:?}; {pure}"
    );
}

/// CUTE_CACHE_DIR naming a file: nothing can be cached, every compile recompiles, no crash.
#[test]
fn fine_cache_dir_that_is_a_file_recompiles() {
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    let _g = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let file = std::env::temp_dir().join(format!("cute-review-file-{}", std::process::id()));
    std::fs::write(&file, b"not a directory").unwrap();
    std::env::set_var("CUTE_CACHE_DIR", &file);
    let k = emit(&plan("naive-cols", GemmLayout::parse("TT").unwrap()).unwrap()).unwrap();
    cache::forget_memory();
    let first = no_panic(|| cache::compile(&k.name, &k.source, "sm_80").map(|(_, s)| s));
    cache::forget_memory();
    let second = no_panic(|| cache::compile(&k.name, &k.source, "sm_80").map(|(_, s)| s));
    std::env::remove_var("CUTE_CACHE_DIR");
    let _ = std::fs::remove_file(&file);
    assert!(matches!(first, Ok(Ok(Source::Compiled))), "{first:?}");
    assert!(matches!(second, Ok(Ok(Source::Compiled))), "{second:?}");
}

/// A cache entry that is a directory, or has a header claiming a huge length: recompiled.
#[test]
fn fine_cache_entry_that_is_a_directory_or_lies_about_its_length_recompiles() {
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    let _g = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let dir = std::env::temp_dir().join(format!("cute-review-entry-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("CUTE_CACHE_DIR", &dir);
    let k = emit(&plan("tiled-16", GemmLayout::parse("NT").unwrap()).unwrap()).unwrap();
    cache::forget_memory();
    let (first, _) = cache::compile(&k.name, &k.source, "sm_80").unwrap();
    let cubin = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "cubin"))
        .unwrap();
    // Header: length u64::MAX, checksum 0.
    let mut lie = u64::MAX.to_le_bytes().to_vec();
    lie.extend_from_slice(&[0; 8]);
    lie.extend_from_slice(&first.cubin);
    std::fs::write(&cubin, &lie).unwrap();
    cache::forget_memory();
    let r1 = no_panic(|| cache::compile(&k.name, &k.source, "sm_80").map(|(_, s)| s));
    std::fs::remove_file(&cubin).unwrap();
    std::fs::create_dir(&cubin).unwrap();
    cache::forget_memory();
    let r2 = no_panic(|| cache::compile(&k.name, &k.source, "sm_80").map(|(_, s)| s));
    std::env::remove_var("CUTE_CACHE_DIR");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(matches!(r1, Ok(Ok(Source::Compiled))), "{r1:?}");
    assert!(matches!(r2, Ok(Ok(Source::Compiled))), "{r2:?}");
}

/// No driver on this machine: `Gpu::open` is a `NoGpu` error, not a panic.
#[test]
fn fine_no_gpu_is_an_error() {
    match no_panic(Gpu::open) {
        Err(p) => panic!("Gpu::open panicked: {p}"),
        Ok(Ok(_)) => eprintln!("a GPU is present: nothing to check"),
        Ok(Err(e)) => assert!(matches!(e, RuntimeError::NoGpu { .. }), "{e}"),
    }
}

/// NVRTC refusing the source is a `Compile` error with the log and numbered source.
#[test]
fn fine_nvrtc_failure_is_a_clear_error() {
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    let e = nvrtc::compile(
        "bad",
        "extern \"C\" __global__ void bad() { nope; }",
        "sm_80",
    )
    .unwrap_err();
    assert!(matches!(e, RuntimeError::Compile { .. }), "{e}");
    assert!(e.to_string().contains("nope"), "{e}");
}

/// Serial split-K's kernel needs `Kc % 4 == 0` for its 128-bit copies of A (NN): the check
/// before a launch reads `Kc` from the split, not from the problem (where it is no symbol: the
/// first GPU run of serial split-K refused every NN launch: `Kc` unknown, "Kc = ?").
#[test]
fn serial_split_k_checks_its_kc_before_the_launch() {
    use cute_codegen::recipes::{emit_serial_split_k, k_chunk};
    use cute_runtime::gemm::check_buffers_with;
    let p = plan("sgemm-sm80-16x128", GemmLayout::parse("NN").unwrap()).unwrap();
    let k = emit_serial_split_k(&p).unwrap();
    let q = Problem::new(3, 64, 65536, p.layout, 1.0, 0.0).unwrap();
    let (sa, sb, sc) = q.buffer_sizes();
    let lens = BufferLens {
        a: sa,
        b: sb,
        c: sc,
        bias: 1,
    };
    let e = check_buffers(&k, &q, lens).unwrap_err().to_string();
    assert!(e.contains("Kc = ?"), "{e}");
    let (kc, _) = k_chunk(&p, q.k, 8).unwrap();
    check_buffers_with(&k, &q, lens, &[("Kc", kc)]).unwrap();
    let e = check_buffers_with(&k, &q, lens, &[("Kc", 30)])
        .unwrap_err()
        .to_string();
    assert!(e.contains("Kc = 30"), "{e}");
}
