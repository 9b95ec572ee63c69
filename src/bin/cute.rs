//! The `cute` command line: `cute eval EXPR...` prints each expression's value exactly as C++
//! CuTe's `print` would; with no EXPR it reads expressions from standard input, one per line.

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use cute::layout::expr::eval_str;

const USAGE: &str = "\
usage: cute eval [EXPR...]

  cute eval EXPR...    print the value of each CuTe expression, one line each
  cute eval            read expressions from standard input, one per line
                       (blank lines and lines starting with '#' are skipped)

Each failing expression prints one line 'error: ...'; the exit status is 1 if any failed.
Expressions use CuTe's C++ spelling, e.g. 'composition((_6,_2):(_8,_2), (_4,_3):(_3,_1))'.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("eval") => eval_command(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("error: unknown command '{other}'\n\n{USAGE}");
            ExitCode::from(2)
        }
        None => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
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
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Prints one expression's value or one `error:` line; returns whether it evaluated.
fn eval_line(out: &mut impl Write, expr: &str) -> bool {
    let (text, ok) = match eval_str(expr) {
        Ok(v) => (v, true),
        Err(e) => (format!("error: {e}"), false),
    };
    writeln!(out, "{text}").is_ok() && ok
}
