//! The compile cache (memory, disk, and a corrupted disk entry recompiled rather than loaded) and
//! the problem checks that need no GPU. The cache tests need NVRTC (see `cute_runtime::testing`).

use cute_codegen::cuda::IndexWidth;
use cute_codegen::named::plan;
use cute_codegen::{emit, GemmLayout};
use cute_runtime::cache::{self, Source};
use cute_runtime::gemm::Problem;

#[test]
fn second_compile_is_cached_and_a_corrupted_entry_is_recompiled() {
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("cute-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // The only test in this binary that touches the cache directory.
    std::env::set_var("CUTE_CACHE_DIR", &dir);
    let k = emit(&plan("naive-rows", GemmLayout::parse("NN").unwrap()).unwrap()).unwrap();
    let compile = || cache::compile(&k.name, &k.source, "sm_90a").unwrap();

    let (first, src) = compile();
    assert_eq!(src, Source::Compiled);
    assert_eq!(compile().1, Source::Memory);
    cache::forget_memory();
    let (again, src) = compile();
    assert_eq!(src, Source::Disk);
    assert_eq!(again.cubin, first.cubin);

    // Corrupt the cubin on disk: one flipped byte in the image.
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "cubin"))
        .expect("a cached cubin");
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&file, &bytes).unwrap();
    cache::forget_memory();
    let (fixed, src) = compile();
    assert_eq!(src, Source::Compiled, "a corrupted entry is compiled again");
    assert_eq!(fixed.cubin, first.cubin);

    // A truncated file too.
    std::fs::write(&file, &bytes[..10]).unwrap();
    cache::forget_memory();
    assert_eq!(compile().1, Source::Compiled);

    // An intact entry written by another cache format version (bytes 8..12 of the header), or
    // for another key, is not trusted.
    assert_eq!(
        cache::entry_for(&k.name, &k.source, "sm_90a").unwrap(),
        file
    );
    let good = std::fs::read(&file).unwrap();
    for (at, what) in [(8, "format version"), (12, "key")] {
        let mut other = good.clone();
        other[at] ^= 0x01;
        std::fs::write(&file, &other).unwrap();
        cache::forget_memory();
        assert_eq!(compile().1, Source::Compiled, "an entry of another {what}");
        // rewritten in this format for this key: magic, format and key as before (the log,
        // with its compile time, differs)
        let again = std::fs::read(&file).unwrap();
        assert!(
            again.get(..44) == good.get(..44),
            "rewritten by this format"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn problems_with_bad_sizes_are_refused() {
    let nn = GemmLayout::parse("NN").unwrap();
    for (m, n, k, needle) in [
        (0, 4, 4, "M = 0: sizes must be positive"),
        (4, -1, 4, "N = -1: sizes must be positive"),
        (4, 4, 0, "K = 0: sizes must be positive"),
        (1 << 31, 4, 4, "must be below 2^31 (cuBLAS takes int)"),
    ] {
        let e = Problem::new(m, n, k, nn, 1.0, 0.0).unwrap_err().to_string();
        assert!(e.contains(needle), "{m}x{n}x{k}: {e}");
    }
    // beyond 2^31 - 1 elements a problem needs 64-bit indices
    let huge = Problem::new(1 << 20, 1 << 20, 4, nn, 1.0, 0.0).unwrap();
    assert_eq!(huge.index_width(), IndexWidth::I64);
    let p = Problem::new(17, 5, 3, nn, 1.0, 0.0).unwrap();
    assert_eq!(p.index_width(), IndexWidth::I32);
    assert_eq!(
        (p.lda, p.ldb, p.ldc),
        (20, 4, 20),
        "leading dimensions rounded up to 4"
    );
}
