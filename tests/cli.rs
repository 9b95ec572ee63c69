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

#[test]
fn unknown_command_and_no_command_are_usage_errors() {
    let o = cute(&["frobnicate"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown command"));
    assert_eq!(cute(&[], "").status.code(), Some(2));
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
    assert_eq!(stdout(&o), "_1\nerror: standard input is not valid UTF-8\n");
    assert_eq!(o.status.code(), Some(1));
}
