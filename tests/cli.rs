//! The `cute eval` contract of shared/cute-expr.md: arguments or standard input, one output line
//! per expression, `error: ...` lines, exit status 0 only when every line evaluated.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn cute(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cute"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cute runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn eval_arguments_prints_one_line_each() {
    let o = cute(
        &[
            "eval",
            "complement((_2,_2):(_1,_6), _24)",
            "make_layout((4,3), LayoutRight)",
        ],
        "",
    );
    assert_eq!(stdout(&o), "(_3,_2):(_2,_12)\n(4,3):(3,_1)\n");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn eval_stdin_skips_blanks_and_comments_and_keeps_going_after_errors() {
    let input = "# a comment\n\nsize((_2,(_3,_4)):(_1,(_2,_6)))\nlogical_product(_4:_2, _3:_1)\n  \n(_4,_3\nrank(_8:_1)\n";
    let o = cute(&["eval"], input);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[0], "_24");
    assert!(lines[1].starts_with("error: logical_product"), "{out}");
    assert!(lines[2].starts_with("error: parse error"), "{out}");
    assert_eq!(lines[3], "_1");
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn output_can_be_pasted_back_as_input() {
    let first = stdout(&cute(
        &["eval", "logical_divide((4096,1024):(_1,4096), (_128,_32))"],
        "",
    ));
    let again = stdout(&cute(&["eval", first.trim()], ""));
    assert_eq!(first, again);
}

/// clap's usage errors (the hand-written parser said "unknown command"; clap says
/// "unrecognized subcommand"), exit status 2.
#[test]
fn unknown_command_and_no_command_are_usage_errors() {
    let o = cute(&["frobnicate"], "");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("error: unrecognized subcommand 'frobnicate'"),
        "{err}"
    );
    let o = cute(&[], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("Usage: cute <COMMAND>"));
}

#[test]
fn invalid_utf8_on_stdin_is_an_error_line() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cute"))
        .arg("eval")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"rank(_8:_1)\n\xff\xfe\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(stdout(&o), "_1\nerror: line 2 is not valid UTF-8\n");
    assert_eq!(o.status.code(), Some(1));
}

/// The contract holds past a line that is not UTF-8: one output line per input line, in order,
/// and the run goes on.
#[test]
fn the_run_goes_on_after_a_line_that_is_not_utf8() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cute"))
        .arg("eval")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"\xff\n# a comment in Latin-1: caf\xe9\n\nsize(_4:_1)\r\n\xc3\x28\nrank(_8:_1)")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    // line 2 is a comment, whatever its encoding; line 3 is blank
    assert_eq!(
        stdout(&o),
        "error: line 1 is not valid UTF-8\n_4\nerror: line 5 is not valid UTF-8\n_1\n"
    );
    assert_eq!(o.status.code(), Some(1));
}

/// An error line that echoes user input never carries a control character to the terminal.
#[test]
fn control_characters_in_echoed_input_are_escaped() {
    let o = cute(&["eval", "foo\u{1b}[31m(\u{7}"], "");
    let out = stdout(&o);
    assert!(out.starts_with("error: "), "{out}");
    assert!(out.contains("\\u{1b}"), "{out}");
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    assert_eq!(o.status.code(), Some(1));
    // an expression argument holding a newline is still one error line
    let o = cute(&["eval", "(_4,\n\u{1b}"], "");
    assert_eq!(stdout(&o).lines().count(), 1, "{}", stdout(&o));
    // from standard input
    let o = cute(&["eval"], "size(\u{1b}]0;title\u{7})\n");
    assert!(!stdout(&o).contains('\u{1b}'), "{:?}", stdout(&o));
    // in clap's usage errors, on standard error
    for args in [
        &["run", "sgemm-sm80", "--m", "\u{1b}[2J"][..],
        &["\u{1b}]0;x\u{7}"],
        &["emit", "\u{9b}31m"],
        &["draw", "--bits", "\u{1b}[1m", "_4:_1"],
    ] {
        let o = cute(args, "");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("\\u{"), "{args:?}: {err}");
        assert!(
            !err.chars().any(|c| c.is_control() && c != '\n'),
            "{args:?}: {err:?}"
        );
    }
    // in the other commands' error lines
    for cmd in [
        "print",
        "print-layout",
        "bank-conflicts",
        "coalescing",
        "draw",
    ] {
        let o = cute(&[cmd, "\u{1b}[2J"], "");
        let out = stdout(&o);
        assert!(out.starts_with("error: "), "{cmd}: {out}");
        assert!(!out.contains('\u{1b}'), "{cmd}: {out:?}");
    }
}

const COMMANDS: &[&str] = &[
    "eval",
    "print-layout",
    "print",
    "emit",
    "run",
    "check",
    "bench",
    "bank-conflicts",
    "coalescing",
    "draw",
    "completions",
];

/// `cute <command> --help`: usage and examples, exit status 0.
#[test]
fn every_command_has_help_with_examples() {
    for cmd in COMMANDS {
        for flag in ["--help", "-h"] {
            let o = cute(&[cmd, flag], "");
            let out = stdout(&o);
            assert_eq!(o.status.code(), Some(0), "{cmd} {flag}: {out}");
            assert!(out.contains(&format!("Usage: cute {cmd}")), "{cmd}: {out}");
            assert!(out.contains("Examples:"), "{cmd} {flag}: {out}");
            assert!(out.contains(&format!("cute {cmd}")), "{cmd}: {out}");
        }
        let o = cute(&["help", cmd], "");
        assert_eq!(o.status.code(), Some(0), "help {cmd}");
        assert!(stdout(&o).contains("Usage"), "help {cmd}");
    }
    let o = cute(&["--help"], "");
    assert_eq!(o.status.code(), Some(0));
    for cmd in COMMANDS {
        assert!(stdout(&o).contains(cmd), "cute --help lists {cmd}");
    }
}

#[test]
fn completions_for_bash_zsh_and_fish() {
    for (shell, marker) in [
        ("bash", "complete -F _cute"),
        ("zsh", "#compdef cute"),
        ("fish", "complete -c cute"),
    ] {
        let o = cute(&["completions", shell], "");
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        assert!(
            out.contains(marker),
            "{shell}: {}",
            &out[..out.len().min(300)]
        );
        for word in [
            "print-layout",
            "bank-conflicts",
            "k-block-unroll",
            "sm_90a",
            "TN",
        ] {
            assert!(out.contains(word), "{shell} completes {word}");
        }
        // clap_complete's fish script completes options, not positional values
        if shell != "fish" {
            assert!(out.contains("sgemm-sm80"), "{shell} completes kernel names");
        }
    }
    let o = cute(&["completions", "tcsh"], "");
    assert_eq!(o.status.code(), Some(2));
}

/// Malformed flags are clap's usage errors: exit status 2, the flag named.
#[test]
fn malformed_flags_are_usage_errors() {
    for (args, needle) in [
        (
            &["emit", "sgemm-sm80", "--layout", "XY"][..],
            "invalid value 'XY' for '--layout",
        ),
        (
            &["run", "sgemm-sm80", "--m", "0"],
            "invalid value '0' for '--m <M>'",
        ),
        (
            &["run", "sgemm-sm80", "--n", "-5"],
            "invalid value '-5' for '--n <N>'",
        ),
        (
            &["run", "sgemm-sm80", "--arch", "sm_70"],
            "invalid value 'sm_70' for '--arch",
        ),
        (
            &["run", "sgemm-sm80", "--frob"],
            "unexpected argument '--frob'",
        ),
        (&["run"], "required"),
        (&["bench"], "required"),
        (
            &["emit", "no-such-kernel"],
            "invalid value 'no-such-kernel'",
        ),
        (
            &["bank-conflicts", "_4:_1", "--bits", "x"],
            "invalid value 'x' for '--bits",
        ),
        (&["draw"], "required"),
        (&["print-layout"], "required"),
        (
            &["emit", "sgemm-sm80", "--layout", "NN", "--layout", "NT"],
            "cannot be used multiple times",
        ),
    ] {
        let o = cute(args, "");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(
            err.contains("Usage: cute") || err.contains("--help"),
            "{args:?}: {err}"
        );
    }
}

/// --dtype names the operands' type: a kernel of another type is refused naming the ones of that
/// type; f16, bf16 and tf32 pick the tensor-core GEMMs.
#[test]
fn dtypes_pick_their_gemms_and_refuse_the_others() {
    for cmd in [
        &["emit", "sgemm-sm80"][..],
        &["run", "sgemm-sm80"],
        &["bench", "sgemm-sm80"],
        &["check", "sgemm-sm80"],
    ] {
        for (dtype, names) in [
            ("f16", "hgemm-sm80, hgemm-sm80-bias-relu"),
            ("bf16", "bgemm-sm80"),
            ("tf32", "tf32gemm-sm80"),
        ] {
            let mut args = cmd.to_vec();
            args.extend(["--dtype", dtype]);
            let o = cute(&args, "");
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{args:?}");
            assert!(err.contains(&format!("--dtype {dtype}: sgemm-sm80 is not a GEMM of {dtype} operands; those are {names}")), "{err}");
        }
    }
    let o = cute(&["emit", "sgemm-sm80", "--dtype", "f32"], "");
    assert_eq!(o.status.code(), Some(0));
    let o = cute(&["emit", "hgemm-sm80", "--dtype", "f16"], "");
    assert_eq!(o.status.code(), Some(0));
    let o = cute(&["check", "--cpu", "--dtype", "bf16", "--layout", "TN"], "");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("bgemm-sm80 TN") && !out.contains("hgemm-sm80"),
        "{out}"
    );
}

/// `--out-dtype f16|bf16` gives a tensor-core GEMM a 16-bit C (its kernel named for it); a SIMT
/// GEMM refuses it, naming the plans that write one.
#[test]
fn out_dtype_gives_a_tensor_core_gemm_a_16_bit_c() {
    let o = cute(&["emit", "hgemm-sm80", "--out-dtype", "f16"], "");
    let src = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        src.contains("hgemm_sm80_TN_f16out(") && src.contains("cute_f2h("),
        "{src}"
    );
    assert!(
        src.contains("unsigned short* __restrict__ C, int ldC"),
        "{src}"
    );
    let o = cute(
        &[
            "emit",
            "bgemm-sm80",
            "--layout",
            "NT",
            "--out-dtype",
            "bf16",
        ],
        "",
    );
    let src = String::from_utf8_lossy(&o.stdout);
    assert!(
        src.contains("bgemm_sm80_NT_bf16out(") && src.contains("cute_f2bf("),
        "{src}"
    );
    let o = cute(&["emit", "sgemm-sm80", "--out-dtype", "bf16"], "");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let names = cute::codegen::named::TENSOR_CORE_NAMES.join(", ");
    assert!(err.contains(&format!("plan sgemm-sm80: output type: C of bfloat16_t: only the tensor-core plans ({names}) write a 16-bit C")), "{err}");
    assert!(
        names.starts_with("hgemm-sm80, bgemm-sm80, tf32gemm-sm80"),
        "{names}"
    );
}

/// `check --cpu` runs the interpreter at its own small sizes: a size meant for the GPU check is
/// refused, not silently ignored (nor run in the interpreter at GPU scale).
#[test]
fn check_cpu_refuses_a_problem_size() {
    for size in [&["--m", "17"][..], &["--n", "4096", "--k", "64"]] {
        let mut args = vec!["check", "--cpu", "sgemm-sm80"];
        args.extend(size);
        let o = cute(&args, "");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            err.contains("--cpu runs the interpreter at its own small sizes"),
            "{err}"
        );
        assert!(err.contains("--m/--n/--k size the GPU check"), "{err}");
    }
}

/// The README's `make_tma_copy` examples: `cute print` of a multicast TMA TiledCopy as C++ CuTe
/// prints it, and `cute eval` of a tile TMA cannot move is an error saying why.
#[test]
fn the_readme_tma_copy_examples_hold() {
    let g = "make_tensor(make_gmem_ptr<half_t>(A), (M,K):(K,_1))";
    let s = "tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_128,_128))";
    let o = cute(
        &[
            "print",
            &format!("make_tma_copy(SM90_TMA_LOAD_MULTICAST, {g}, {s}, _2)"),
        ],
        "",
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("  TiledLayout_TV: (_2,(((_64,_128),_2))):(_64,(((_128,_1),_8192)))\n")
            && out.contains("  ValLayoutSrc: (_1,_8192):(_0,_1)\n"),
        "{out}"
    );
    let m = "make_tensor(make_gmem_ptr<half_t>(A), (M,K):(_1,M))";
    let s = "tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>, (_128,_64))";
    let o = cute(
        &["eval", &format!("make_tma_copy(SM90_TMA_LOAD, {m}, {s})")],
        "",
    );
    // eval writes each expression's value or error in order on stdout
    let err = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("error: make_tma_copy: (M,K):(_1,M): the box's innermost dimension (mode 1) has global stride M; TMA's is contiguous"), "{err}");
}

/// `check --cpu` of a GEMV runs the matrix's sizes rounded up to the multiples its vectors need
/// (K for a K-major B, N for an N-major one), in every layout, and passes.
#[test]
fn check_cpu_rounds_a_gemv_to_the_sizes_its_vectors_take() {
    let o = cute(
        &[
            "check",
            "--cpu",
            "sgemm-gemv",
            "--layout",
            "NN",
            "--layout",
            "TT",
        ],
        "",
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    for line in [
        "sgemm-gemv NN 1x1x4 beta=0: pass",
        "sgemm-gemv NN 17x17x20 beta=-0.75: pass",
        "sgemm-gemv TT 1x4x1 beta=0: pass",
        "sgemm-gemv TT 130x68x33 beta=-0.75: pass",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    assert!(!out.contains("FAIL"), "{out}");
}

/// A size the kernel's vectors cannot take is refused after the emit, before the compile and
/// with or without a GPU, naming the requirement and the value.
#[test]
fn run_refuses_a_size_the_kernel_cannot_take_before_compiling() {
    let o = cute(
        &[
            "run",
            "sgemm-gemv",
            "--layout",
            "NT",
            "--m",
            "1",
            "--n",
            "4098",
            "--k",
            "64",
        ],
        "",
    );
    // the run's report (the error its last line) and stderr
    let out = String::from_utf8_lossy(&o.stdout) + String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("sgemm_gemv_NT needs N % 4 == 0") && out.contains("N = 4098"),
        "{out}"
    );
    assert!(!out.contains("NVRTC"), "{out}");
    let o = cute(
        &[
            "run",
            "bgemm-gemv",
            "--layout",
            "TN",
            "--m",
            "2",
            "--n",
            "64",
            "--k",
            "100",
        ],
        "",
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("% 8 == 0"), "{err}");
    // the typed path pads its operands' leading dimensions to their vectors: a ragged size of
    // a tensor-core GEMM is no refusal
    let o = cute(
        &["run", "bgemm-sm80", "--m", "17", "--n", "17", "--k", "17"],
        "",
    );
    let out = String::from_utf8_lossy(&o.stdout) + String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{out}");
}
