//! The `cute` command line.
//!
//! - `cute eval EXPR...` prints each expression's value exactly as C++ CuTe's `print` would; with
//!   no EXPR it reads expressions from standard input, one per line.
//! - `cute print-layout EXPR...` prints C++ CuTe's `print_layout` table of each rank-2 layout.
//! - `cute draw [--banks] [--bits N] EXPR` writes an SVG picture of a rank-2 layout.

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use cute::layout::atom::draw::{draw_tiled_copy, draw_tiled_mma};
use cute::layout::expr::{eval, eval_str, Value};
use cute::layout::svg::{draw_layout, Shading};
use cute::layout::{print_layout, AnyLayout, Error};

const USAGE: &str = "\
usage: cute <command> [args]

  cute eval EXPR...          print the value of each CuTe expression, one line each
  cute eval                  read expressions from standard input, one per line
                             (blank lines and lines starting with '#' are skipped)
  cute print-layout EXPR...  print C++ CuTe's print_layout table of each rank-2 layout
  cute print EXPR...         print each value as C++ CuTe's print() does (multi-line for
                             Copy_Atom, TiledCopy, MMA_Atom and TiledMMA)
  cute draw [--banks] [--bits N] EXPR
                             write an SVG picture to standard output: for a rank-2 layout
                             the offset in each cell, or with --banks (the default for a
                             swizzled layout) the shared-memory bank of N-bit elements
                             (N = 32 unless given); for a TiledCopy its source and
                             destination tiles, for a TiledMMA its A, B and C tiles, each
                             cell labelled with the thread and value that own it

A failing expression prints one line 'error: ...'; the exit status is 1 if any failed.
Expressions use CuTe's C++ spelling, e.g. 'composition((_6,_2):(_8,_2), (_4,_3):(_3,_1))'.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("eval") => eval_command(&args[1..]),
        Some("print-layout") => print_layout_command(&args[1..]),
        Some("print") => print_command(&args[1..]),
        Some("draw") => draw_command(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => usage_error(&format!("unknown command '{other}'")),
        None => usage_error("a command is required"),
    }
}

fn usage_error(msg: &str) -> ExitCode {
    eprintln!("error: {msg}\n\n{USAGE}");
    ExitCode::from(2)
}

fn status(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Evaluates the arguments, or standard input when there are none.
fn eval_command(exprs: &[String]) -> ExitCode {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut ok = true;
    if exprs.is_empty() {
        for line in io::stdin().lock().lines() {
            let Ok(line) = line else {
                let _ = writeln!(out, "error: standard input is not valid UTF-8");
                ok = false;
                break;
            };
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            ok &= eval_line(&mut out, line);
        }
    } else {
        for e in exprs {
            ok &= eval_line(&mut out, e);
        }
    }
    status(out.flush().is_ok() && ok)
}

/// Prints one expression's value or one `error:` line; returns whether it evaluated.
fn eval_line(out: &mut impl Write, expr: &str) -> bool {
    let (text, ok) = match eval_str(expr) {
        Ok(v) => (v, true),
        Err(e) => (format!("error: {e}"), false),
    };
    writeln!(out, "{text}").is_ok() && ok
}

/// Evaluates `expr` to a layout (plain or composed).
fn layout_of(expr: &str) -> Result<AnyLayout, Error> {
    match eval(expr)? {
        Value::Layout(l) => Ok(l),
        other => Err(Error::Eval(format!(
            "expected a layout, got {} {other}",
            other.kind()
        ))),
    }
}

fn print_layout_command(exprs: &[String]) -> ExitCode {
    if exprs.is_empty() {
        return usage_error("print-layout needs an expression");
    }
    let mut ok = true;
    for e in exprs {
        match layout_of(e).and_then(|l| print_layout(&l)) {
            Ok(table) => print!("{table}"),
            Err(err) => {
                println!("error: {err}");
                ok = false;
            }
        }
    }
    status(ok)
}

/// `cute print EXPR...`: C++ CuTe's `print` of each value.
fn print_command(exprs: &[String]) -> ExitCode {
    if exprs.is_empty() {
        return usage_error("print needs an expression");
    }
    let mut ok = true;
    for e in exprs {
        match eval(e).and_then(|v| v.print()) {
            Ok(text) => print!("{text}"),
            Err(err) => {
                println!("error: {err}");
                ok = false;
            }
        }
    }
    status(ok)
}

fn draw_command(args: &[String]) -> ExitCode {
    let mut banks = false;
    let mut bits = 32;
    let mut exprs = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--banks" => banks = true,
            "--bits" => match it.next().and_then(|v| v.parse().ok()) {
                Some(b) => {
                    bits = b;
                    banks = true;
                }
                None => return usage_error("--bits needs a number (8, 16, 32, 64 or 128)"),
            },
            _ => exprs.push(a),
        }
    }
    let [expr] = exprs.as_slice() else {
        return usage_error("draw needs exactly one expression");
    };
    let picture = eval(expr).and_then(|v| match v {
        Value::TiledCopy(tc) => draw_tiled_copy(&tc),
        Value::TiledMma(mma) => draw_tiled_mma(&mma),
        Value::Layout(l) => {
            let shading = if banks || matches!(l, AnyLayout::Composed(_)) {
                Shading::Banks { bits }
            } else {
                Shading::Offsets
            };
            draw_layout(&l, shading)
        }
        other => Err(Error::Eval(format!(
            "draw: expected a layout, a TiledCopy or a TiledMMA, got {} {other}",
            other.kind()
        ))),
    });
    match picture {
        Ok(svg) => {
            print!("{svg}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            println!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
