//! The contract of `cute emit`, `cute run`, `cute check` and `cute bench` on a machine without a
//! GPU (CI): emission works, the GPU steps say what they skipped and why and exit 0, bad input
//! exits non-zero with an error line.

use std::process::{Command, Output};

fn cute(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cute"))
        .args(args)
        .env(
            "CUTE_CACHE_DIR",
            std::env::temp_dir().join("cute-cli-gpu-test"),
        )
        .output()
        .expect("cute runs")
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
}

fn has_gpu() -> bool {
    cute_runtime::gpu::Gpu::open().is_ok()
}

#[test]
fn emit_list_prints_the_names_only() {
    let o = cute(&["emit", "--list"]);
    assert_eq!(o.status.code(), Some(0));
    let names: Vec<String> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let expected: Vec<&str> = cute_codegen::named::NAMES
        .iter()
        .chain(cute_codegen::named::TENSOR_CORE_NAMES)
        .chain(cute_codegen::named::GEMV_NAMES)
        .chain(cute_codegen::recipes::NAMES)
        .copied()
        .collect();
    assert_eq!(names, expected);
}

#[test]
fn emit_writes_the_kernel() {
    let o = cute(&["emit", "sgemm-sm80", "--layout", "TN"]);
    assert_eq!(o.status.code(), Some(0));
    let src = String::from_utf8(o.stdout).unwrap();
    assert!(src.contains("extern \"C\" __global__ void __launch_bounds__(256, 2)"));
    assert!(src.contains("sgemm_sm80_TN("));
    assert!(!src.contains("#include"));
}

/// The tensor-core GEMMs emit TN by default (the one every tensor-core GEMM has), the M-/N-major
/// layouts through ldmatrix.trans, and `cute run` says what it skipped without a GPU.
#[test]
fn the_tensor_core_gemms_emit_and_run_without_a_gpu() {
    let o = cute(&["emit", "hgemm-sm80"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let src = String::from_utf8(o.stdout).unwrap();
    assert!(
        src.contains("hgemm_sm80_TN(")
            && src.contains("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
    );
    let o = cute(&["emit", "bgemm-sm80", "--layout", "NN"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("ldmatrix.sync.aligned.x4.trans.m8n8.shared.b16"));
    if !has_gpu() {
        let o = cute(&[
            "run",
            "hgemm-sm80",
            "--m",
            "256",
            "--n",
            "256",
            "--k",
            "256",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        assert!(text(&o).contains("skipped"), "{}", text(&o));
    }
}

/// `--arch` is the target the kernel is written for: two CTAs per SM of sgemm-sm80 fit an
/// sm_90a SM (the default), one an sm_80 SM (164 KiB for 97.5 KiB per CTA).
#[test]
fn emit_writes_the_kernel_for_the_arch_asked_for() {
    let src = |args: &[&str]| {
        let o = cute(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o));
        String::from_utf8(o.stdout).unwrap()
    };
    let h200 = src(&["emit", "sgemm-sm80"]);
    assert_eq!(h200, src(&["emit", "sgemm-sm80", "--arch", "sm_90a"]));
    assert!(h200.contains("__launch_bounds__(256, 2)"));
    assert!(h200.contains("within the H100/H200's 233472"));
    for arch in ["sm_80", "sm_86", "sm_89"] {
        let other = src(&["emit", "sgemm-sm80", "--arch", arch]);
        assert!(other.contains("__launch_bounds__(256) "), "{arch}");
        assert!(!other.contains("// occupancy:"), "{arch}");
    }
}

#[test]
fn emit_refuses_unknown_kernels_and_layouts() {
    for args in [
        &["emit", "no-such-kernel"][..],
        &["emit", "sgemm-sm80", "--layout", "XY"],
    ] {
        let o = cute(args);
        assert_ne!(o.status.code(), Some(0), "{args:?}");
        assert!(text(&o).contains("error"), "{args:?}: {}", text(&o));
    }
}

/// The K-major operands' shared tiles: padded to 132-value columns as named (both in TN, B in
/// NN, none in NT), the reads' addresses without XOR; `--k-major-tile swizzled` swizzles them;
/// other plans are built as named whatever the flag.
#[test]
fn emit_takes_the_k_major_tile_form_asked_for() {
    let emit = |args: &[&str]| {
        let o = cute(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o));
        text(&o)
    };
    let padded = "(_128,_32,_3):(_1,_132,_4224)";
    let tn = emit(&["emit", "sgemm-sm80", "--layout", "TN"]);
    assert!(tn.contains(&format!("// sA: {padded}")), "{tn}");
    assert!(tn.contains(&format!("// sB: {padded}")), "{tn}");
    assert!(!tn.contains("cute_swizzle<"), "{tn}");
    assert!(tn.contains("101360 bytes"), "{tn}");
    assert_eq!(
        tn,
        emit(&[
            "emit",
            "sgemm-sm80",
            "--layout",
            "TN",
            "--k-major-tile",
            "padded"
        ])
    );
    let nn = emit(&["emit", "sgemm-sm80", "--layout", "NN"]);
    assert!(nn.contains("// sA: (_128,_32,_3):(_1,_128,_4096)"), "{nn}");
    assert!(nn.contains(&format!("// sB: {padded}")), "{nn}");
    let swizzled = emit(&[
        "emit",
        "sgemm-sm80",
        "--layout",
        "TN",
        "--k-major-tile",
        "swizzled",
    ]);
    assert!(
        swizzled.contains("// sA: Sw<3,2,5> o _0 o (_128,_32,_3)"),
        "{swizzled}"
    );
    let nt = ["emit", "sgemm-sm80", "--layout", "NT"];
    let tc = ["emit", "hgemm-sm80"];
    for form in ["padded", "swizzled"] {
        let with = |args: &[&str]| emit(&[args, &["--k-major-tile", form]].concat());
        assert_eq!(emit(&nt), with(&nt));
        assert_eq!(emit(&tc), with(&tc));
    }
    // the tuning cache keeps plans as named: a tune of other tiles is refused before any GPU
    let o = cute(&[
        "tune",
        "sgemm",
        "--k-major-tile",
        "swizzled",
        "--m",
        "64",
        "--n",
        "64",
        "--k",
        "64",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--k-major-tile: the tuning cache keeps the plans as named"));
}

#[test]
fn emit_takes_a_k_block_unroll_and_refuses_one_that_does_not_fit() {
    // the whole k-tile unrolled, and the named kernel's 8 k blocks per trip
    let o = cute(&["emit", "sgemm-sm80", "--k-block-unroll", "32"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("#pragma unroll\n      for (cute_idx kb1 = 0; kb1 < 32; ++kb1)"));
    let o = cute(&["emit", "sgemm-sm80", "--k-block-unroll", "8"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("#pragma unroll 1\n    for (cute_idx kb0 = 0; kb0 < 4; ++kb0)"));
    assert!(text(&o).contains("#pragma unroll\n      for (cute_idx kb1 = 0; kb1 < 8; ++kb1)"));
    for (args, why) in [
        (
            &[
                "emit",
                "sgemm-sm80",
                "--k-block-unroll",
                "4",
                "--k-major-tile",
                "swizzled",
            ][..],
            "4 is not a multiple of the 8 swizzle phases of shared B",
        ),
        (
            &["emit", "naive-rows", "--k-block-unroll", "8"],
            "only a pipelined plan",
        ),
        (
            &["run", "sgemm-sm80", "--k-block-unroll", "3"],
            "3 must be even and divide BK = 32",
        ),
        // clap's words (the hand-written parser said "needs an integer")
        (
            &["emit", "sgemm-sm80", "--k-block-unroll", "x"],
            "invalid value 'x' for '--k-block-unroll <N>'",
        ),
        // planned before the GPU is looked for: refused on any machine
        (
            &["bench", "sgemm-sm80", "--k-block-unroll", "3"],
            "3 must be even and divide BK = 32",
        ),
        (
            &[
                "check",
                "--k-block-unroll",
                "4",
                "--k-major-tile",
                "swizzled",
            ],
            "4 is not a multiple of the 8 swizzle phases",
        ),
    ] {
        let o = cute(args);
        assert_ne!(o.status.code(), Some(0), "{args:?}");
        assert!(text(&o).contains(why), "{args:?}: {}", text(&o));
    }
}

/// With NVRTC the compile line says where the cubin came from; without it the run says it
/// skipped the compile (and in CI, where NVRTC is installed, a missing one fails the test).
#[test]
fn run_does_every_step_it_can() {
    let o = cute(&["run", "sgemm-sm80", "--m", "17", "--n", "33", "--k", "9"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("plan + emit:"), "{out}");
    if cute_runtime::nvrtc_or_skip!() {
        assert!(out.contains("NVRTC sm_90a:"), "{out}");
        assert!(
            out.contains("compiled in") || out.contains("from the disk cache"),
            "{out}"
        );
    } else {
        assert!(out.contains("skipped compile: NVRTC not found"), "{out}");
    }
    if !has_gpu() {
        assert!(
            out.contains("skipped launch, verification and timing: no GPU"),
            "{out}"
        );
    }
}

/// `--split-k`: both kernels planned, emitted and compiled; on a GPU both checked and timed;
/// what has no split-K path, or no slices, is a usage error.
#[test]
fn run_splits_k_and_refuses_what_it_cannot_split() {
    let o = cute(&[
        "run",
        "sgemm-sm80-16x128",
        "--m",
        "3",
        "--n",
        "300",
        "--k",
        "1000",
        "--split-k",
        "4",
    ]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("(sgemm_sm80_16x128_NN_splitk and sgemm_sm80_16x128_NN_splitk_reduce)"),
        "{out}"
    );
    if cute_runtime::nvrtc_or_skip!() {
        assert_eq!(out.matches("NVRTC sm_90a:").count(), 2, "{out}");
    }
    if has_gpu() {
        assert!(out.contains("4 slices of K = 1000"), "{out}");
        assert_eq!(out.matches(": pass").count(), 2, "{out}");
    }
    // an SM80 tensor-core GEMM splits too
    let o = cute(&[
        "run",
        "hgemm-sm80",
        "--m",
        "20",
        "--n",
        "40",
        "--k",
        "333",
        "--split-k",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    if cute_runtime::nvrtc_or_skip!() {
        assert_eq!(text(&o).matches("NVRTC sm_90a:").count(), 2, "{}", text(&o));
    }
    if has_gpu() {
        assert_eq!(
            text(&o).matches(": pass at 20x40x333").count(),
            2,
            "{}",
            text(&o)
        );
    }
    // an SM90 (TMA) GEMM splits in parallel, a CTA a tile and slice; serially it says why not
    let o = cute(&["run", "bgemm-sm90", "--m", "64", "--split-k", "3"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    if cute_runtime::nvrtc_or_skip!() {
        assert_eq!(text(&o).matches("NVRTC sm_90a:").count(), 2, "{}", text(&o));
    }
    let o = cute(&[
        "run",
        "bgemm-sm90",
        "--m",
        "64",
        "--split-k",
        "3",
        "--serial",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("loads by TMA"), "{}", text(&o));
    for (args, why) in [
        (["transpose", "--split-k", "2"], "transpose is not one"),
        (
            ["sgemm-sm80", "--split-k", "0"],
            "a number of slices from 1 to 65535",
        ),
        (["sgemm-sm80", "--split-k", "many"], "or auto"),
    ] {
        let o = cute(&[&["run"], &args[..]].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(text(&o).contains(why), "{args:?}: {}", text(&o));
    }
}

/// `--stream-k` and `--serial`: the kernels planned, emitted and compiled (on a GPU checked and
/// timed); what is no SIMT GEMM, and `--stream-k` beside `--split-k`, are usage errors.
#[test]
fn stream_k_and_serial_split_k_run_and_refuse_what_they_do_not_take() {
    let o = cute(&[
        "run",
        "sgemm-sm80-16x128",
        "--m",
        "20",
        "--n",
        "300",
        "--k",
        "500",
        "--stream-k",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("_streamk_reduce"), "{}", text(&o));
    if cute_runtime::nvrtc_or_skip!() {
        assert_eq!(text(&o).matches("NVRTC sm_90a:").count(), 2, "{}", text(&o));
    }
    let o = cute(&[
        "run",
        "sgemm-sm80",
        "--m",
        "20",
        "--n",
        "300",
        "--k",
        "500",
        "--split-k",
        "3",
        "--serial",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("_splitk_serial"), "{}", text(&o));
    for (args, why) in [
        (
            vec!["run", "hgemm-sm80", "--stream-k"],
            "hgemm-sm80 is not one",
        ),
        (vec!["run", "sgemm", "--stream-k"], "sgemm is not one"),
        (
            vec!["bench", "transpose", "--stream-k"],
            "transpose is not one",
        ),
        (
            vec!["run", "sgemm-sm80", "--stream-k", "--split-k", "2"],
            "cannot be used with",
        ),
        (vec!["run", "sgemm-sm80", "--serial"], "--split-k"),
    ] {
        let o = cute(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(why), "{args:?}: {}", text(&o));
    }
}

/// `cute run sgemm`: the selector's pick for the shape, with its reasons under `--explain`;
/// `cute bench sgemm` takes no other kernel beside it.
#[test]
fn the_selector_says_what_it_picked_and_why() {
    let o = cute(&[
        "run",
        "sgemm",
        "--m",
        "1",
        "--n",
        "4096",
        "--k",
        "4096",
        "--explain",
    ]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("selected:      sgemm-gemv, K not split"),
        "{out}"
    );
    assert!(
        out.contains(
            "M = 1 <= 4, B (NN) of 4096 x 4096 <= 2^26 values, its contiguous dimension % 8 == 0: \
             the GEMV (B K-major: a warp a column of C, one launch)"
        ),
        "{out}"
    );
    // B N-major (NT): the GEMV whose CTA owns 32 columns of C
    let o = cute(&[
        "run",
        "sgemm",
        "--m",
        "1",
        "--n",
        "4096",
        "--k",
        "4096",
        "--layout",
        "NT",
        "--explain",
    ]);
    assert!(
        text(&o).contains("the GEMV (B N-major: 32 columns of C a CTA, one launch)"),
        "{}",
        text(&o)
    );
    // against 8192² in TT (past the GEMV's cap there), and at M = 8, the 16x128 tile split
    for (m, size, layout, why) in [
        ("1", "8192", "TT", "64 output tiles for 396 CTA slots (132 SMs x 3): K split 6 ways, 384 CTAs in one wave"),
        ("8", "4096", "NT", "32 output tiles for 396 CTA slots (132 SMs x 3): K split 12 ways, 384 CTAs in one wave"),
    ] {
        let o = cute(&[
            "run", "sgemm", "--m", m, "--n", size, "--k", size, "--layout", layout, "--explain",
        ]);
        let out = text(&o);
        assert!(out.contains("selected:      sgemm-sm80-16x128"), "{out}");
        assert!(out.contains(&format!("M = {m} <= 16: the 16x128 tile")), "{out}");
        assert!(out.contains(why), "{out}");
    }
    // 4096³: the 256x128 tile where A is M-major, the square tile in TN
    let o = cute(&[
        "run",
        "sgemm",
        "--m",
        "4096",
        "--n",
        "4096",
        "--k",
        "4096",
        "--explain",
    ]);
    assert!(text(&o).contains("selected:      sgemm-sm80-256x128, K not split"));
    assert!(
        text(&o).contains("512 CTAs of 256x128 for 132 SMs"),
        "{}",
        text(&o)
    );
    assert!(text(&o).contains("plan + emit:"));
    let o = cute(&[
        "run", "sgemm", "--m", "4096", "--n", "4096", "--k", "4096", "--layout", "TN",
    ]);
    assert!(
        text(&o).contains("selected:      sgemm-sm80, K not split"),
        "{}",
        text(&o)
    );
    let o = cute(&["bench", "sgemm", "sgemm-sm80"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("benched alone"), "{}", text(&o));
    // the 16-bit selectors: the SM80 kernel split K ways where SM90 tiles leave SMs idle
    let o = cute(&[
        "run",
        "bgemm",
        "--m",
        "1",
        "--n",
        "4096",
        "--k",
        "4096",
        "--explain",
    ]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("selected:      bgemm-sm80-16x128, K split 4 ways"),
        "{out}"
    );
    assert!(
        out.contains("16 output tiles of 128x256, under 1/2 of the 132 SMs: the SM80 kernel, its 16x128 tile (M = 1)"),
        "{out}"
    );
    assert!(
        out.contains("bgemm-sm80-16x128 TN M=1 N=4096 K=4096"),
        "{out}"
    );
    let o = cute(&["run", "hgemm", "--m", "4096", "--n", "4096", "--k", "4096"]);
    assert!(
        text(&o).contains("selected:      hgemm-sm90, K not split"),
        "{}",
        text(&o)
    );
    let o = cute(&["bench", "bgemm"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("benched over the suite"), "{}", text(&o));
}

/// `cute tune` and `cute bench --suite` without a GPU: they say so, exit 0 and leave the
/// tuning cache as it was; their bad input is a usage error.
#[test]
fn tune_and_the_suite_skip_without_a_gpu_and_refuse_bad_input() {
    if has_gpu() {
        return;
    }
    let cache = std::env::temp_dir()
        .join("cute-cli-gpu-test")
        .join("tuning.txt");
    let before = std::fs::read(&cache).ok();
    let o = cute(&["tune", "sgemm", "--m", "16", "--n", "8192", "--k", "8192"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("skipped: no GPU"), "{out}");
    assert!(out.contains("tuning.txt is unchanged"), "{out}");
    assert_eq!(std::fs::read(&cache).ok(), before);
    let o = cute(&["bench", "sgemm", "bgemm-sm90", "--suite"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("skipped: no GPU"), "{}", text(&o));
    let o = cute(&["run", "sgemm", "--m", "8", "--explain"]);
    assert!(
        text(&o).contains("no GPU: the tuning cache is not read"),
        "{}",
        text(&o)
    );
    for (args, says) in [
        (&["tune", "sgemm"][..], "--suite"),
        // one size is all three extents
        (&["tune", "sgemm", "--m", "16"], "--suite"),
        (
            &["tune", "sgemm", "--suite", "--m", "3"],
            "cannot be used with",
        ),
        (&["tune", "sgemm-sm80", "--suite"], "possible values: sgemm"),
        (&["bench", "sgemm", "--chart", "x.svg"], "--suite"),
        (&["bench", "transpose", "--suite"], "transpose is a recipe"),
        (
            &["bench", "sgemm", "--suite", "--m", "4"],
            "cannot be used with",
        ),
        (
            &["bench", "sgemm-sm80", "--suite", "--split-k", "2"],
            "takes each kernel as it is",
        ),
    ] {
        let o = cute(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(says), "{args:?}: {}", text(&o));
    }
}

#[test]
fn run_refuses_bad_sizes() {
    for size in ["0", "-5", "x"] {
        let o = cute(&["run", "sgemm-sm80", "--m", size]);
        assert_ne!(o.status.code(), Some(0), "--m {size}");
        assert!(text(&o).contains("error"), "--m {size}: {}", text(&o));
    }
}

/// `--arch` is the target of run (and check and bench): planned for it, compiled by NVRTC for it.
#[test]
fn run_compiles_for_the_arch_asked_for() {
    if !cute_runtime::nvrtc_or_skip!() {
        return;
    }
    let o = cute(&[
        "run", "tiled-16", "--m", "17", "--n", "9", "--k", "5", "--arch", "sm_86",
    ]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("NVRTC sm_86:"), "{out}");
    let o = cute(&[
        "run",
        "sgemm-sm80",
        "--m",
        "17",
        "--n",
        "9",
        "--k",
        "5",
        "--arch",
        "sm_80",
    ]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("NVRTC sm_80:"), "{out}");
}

/// `check --report` into a path that cannot be written is an error naming the path, before
/// anything runs (on any machine); a writable one gets what was printed.
#[test]
fn check_report_into_an_unwritable_path_fails_naming_it() {
    let missing = std::env::temp_dir().join("cute-no-such-dir/sub/report.txt");
    for path in [missing.to_str().unwrap(), "/proc/self/nope/report"] {
        let o = cute(&["check", "naive-rows", "--report", path]);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(1), "{path}: {out}");
        assert!(
            out.contains(&format!("error: cannot write the report {path}:")),
            "{path}: {out}"
        );
    }
    assert_eq!(
        cute(&["check", "--report", ""]).status.code(),
        Some(2),
        "an empty path"
    );
    let dir = std::env::temp_dir();
    let o = cute(&["check", "naive-rows", "--report", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "a folder: {}", text(&o));
    let file = dir.join(format!("cute-check-report-{}.txt", std::process::id()));
    let o = cute(&["check", "naive-rows", "--report", file.to_str().unwrap()]);
    let report = std::fs::read_to_string(&file).unwrap_or_default();
    let _ = std::fs::remove_file(&file);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let first = String::from_utf8_lossy(&o.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    assert!(
        report.starts_with(&first),
        "the report holds what was printed: {report:?}"
    );
}

#[test]
fn check_and_bench_skip_without_a_gpu() {
    if has_gpu() {
        return;
    }
    for args in [&["check", "naive-rows"][..], &["bench", "naive-rows"]] {
        let o = cute(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(
            text(&o).contains("skipped: no GPU"),
            "{args:?}: {}",
            text(&o)
        );
    }
}
