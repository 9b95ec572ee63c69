//! The layout-algebra commands: `eval`, `print-layout`, `print`, `bank-conflicts`, `coalescing`
//! and `draw`. A failing expression prints one `error: ...` line (control characters escaped) and
//! the exit status is 1.

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use cute::layout::atom::draw::{draw_tiled_copy, draw_tiled_mma};
use cute::layout::expr::{eval, eval_str, Value};
use cute::layout::svg::{draw_access, draw_layout, Shading};
use cute::layout::{bank_conflicts, coalescing, BankReport, CoalescingReport};
use cute::layout::{print_layout, AnyLayout, Error};

use super::args::{AccessArgs, DrawArgs};
use super::text::error_line;

pub fn status(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `cute eval`: the arguments, or standard input when there are none.
pub fn eval_command(exprs: &[String]) -> ExitCode {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut ok = true;
    if exprs.is_empty() {
        ok = eval_lines(io::stdin().lock(), &mut out);
    }
    for e in exprs {
        // every expression is evaluated, whether or not one before it failed
        ok &= eval_line(&mut out, e);
    }
    status(out.flush().is_ok() && ok)
}

/// One output line per input line that is not blank or a `#` comment; a line that is not UTF-8
/// is an `error: line N is not valid UTF-8` line, and the run goes on. Whether every line
/// evaluated.
pub fn eval_lines(mut input: impl BufRead, out: &mut impl Write) -> bool {
    let mut ok = true;
    let mut buf = Vec::new();
    for number in 1.. {
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                let _ = writeln!(out, "{}", error_line(format!("reading line {number}: {e}")));
                return false;
            }
        }
        // blank lines and `#` comments are skipped whatever their encoding
        let bytes = buf.trim_ascii();
        if bytes.is_empty() || bytes.starts_with(b"#") {
            continue;
        }
        let Ok(line) = std::str::from_utf8(bytes) else {
            ok = false;
            if writeln!(out, "error: line {number} is not valid UTF-8").is_err() {
                return false;
            }
            continue;
        };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        ok &= eval_line(out, line);
    }
    ok
}

/// Prints one expression's value or one `error:` line; whether it evaluated.
fn eval_line(out: &mut impl Write, expr: &str) -> bool {
    let (text, ok) = match eval_str(expr) {
        Ok(v) => (v, true),
        Err(e) => (error_line(e), false),
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

/// Prints `f` of each expression, or its `error:` line.
fn each(exprs: &[String], f: impl Fn(&str) -> Result<String, Error>) -> ExitCode {
    let mut ok = true;
    for e in exprs {
        match f(e) {
            Ok(text) => print!("{text}"),
            Err(err) => {
                println!("{}", error_line(err));
                ok = false;
            }
        }
    }
    status(ok)
}

/// `cute print-layout EXPR...`.
pub fn print_layout_command(exprs: &[String]) -> ExitCode {
    each(exprs, |e| layout_of(e).and_then(|l| print_layout(&l)))
}

/// `cute print EXPR...`: C++ CuTe's `print` of each value.
pub fn print_command(exprs: &[String]) -> ExitCode {
    each(exprs, |e| eval(e).and_then(|v| v.print()))
}

/// `cute bank-conflicts` (`banks`) / `cute coalescing`.
pub fn access_command(a: &AccessArgs, banks: bool) -> ExitCode {
    each(std::slice::from_ref(&a.expr), |e| {
        let l = layout_of(e)?;
        if banks {
            bank_conflicts(&l, a.bits).map(|r| bank_text(&r))
        } else {
            coalescing(&l, a.bits).map(|r| coalescing_text(&r))
        }
    })
}

/// Table rows shown before "... N more".
const ROWS: usize = 32;

fn bank_text(r: &BankReport) -> String {
    let (waves, ideal) = r.totals();
    let mut s = format!(
        "max_ways={} wavefronts={waves} ideal={ideal} ({}-bit accesses, {} warp requests)\n",
        r.max_ways(),
        r.bits,
        r.warps.len()
    );
    if let Some(w) = r
        .warps
        .iter()
        .filter(|w| w.worst.is_some())
        .rev()
        .max_by_key(|w| w.ways)
    {
        if let Some((bank, threads)) = &w.worst {
            let ts: Vec<String> = threads.iter().map(i64::to_string).collect();
            s += &format!(
                "worst: instruction {}, warp {}: bank {bank} holds {} distinct words, read by threads {}\n",
                w.instruction,
                w.warp,
                w.ways,
                ts.join(", ")
            );
        }
    }
    s += "instruction  warp  wavefronts  ideal  ways\n";
    for w in r.warps.iter().take(ROWS) {
        s += &format!(
            "{:>11}  {:>4}  {:>10}  {:>5}  {:>4}\n",
            w.instruction, w.warp, w.wavefronts, w.ideal, w.ways
        );
    }
    if r.warps.len() > ROWS {
        s += &format!("... {} more\n", r.warps.len() - ROWS);
    }
    s
}

fn coalescing_text(r: &CoalescingReport) -> String {
    let mut s = format!(
        "sectors_per_request={:.2} ideal={:.2} ({}-bit accesses, {} warp requests)\n",
        r.sectors_per_request(),
        r.ideal_per_request(),
        r.bits,
        r.warps.len()
    );
    s += "instruction  warp  sectors  ideal\n";
    for w in r.warps.iter().take(ROWS) {
        s += &format!(
            "{:>11}  {:>4}  {:>7}  {:>5}\n",
            w.instruction, w.warp, w.sectors, w.ideal
        );
    }
    if r.warps.len() > ROWS {
        s += &format!("... {} more\n", r.warps.len() - ROWS);
    }
    s
}

/// `cute draw [--banks | --access] [--bits N] EXPR`.
pub fn draw_command(a: &DrawArgs) -> ExitCode {
    let banks = a.banks || a.bits.is_some();
    let bits = a.bits.unwrap_or(32);
    each(std::slice::from_ref(&a.expr), |e| match eval(e)? {
        Value::TiledCopy(tc) => draw_tiled_copy(&tc),
        Value::TiledMma(mma) => draw_tiled_mma(&mma),
        Value::Layout(l) if a.access => draw_access(&l, bits, 0),
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &[u8]) -> (String, bool) {
        let mut out = Vec::new();
        let ok = eval_lines(input, &mut out);
        (String::from_utf8(out).unwrap(), ok)
    }

    #[test]
    fn a_line_that_is_not_utf8_is_one_error_line_and_the_run_goes_on() {
        let (out, ok) = run(b"rank(_8:_1)\n\xff\xfe\n# c\xff\n\nsize(_4:_1)\r\n\xc3");
        assert_eq!(
            out,
            "_1\nerror: line 2 is not valid UTF-8\n_4\nerror: line 6 is not valid UTF-8\n"
        );
        assert!(!ok);
    }

    #[test]
    fn every_line_evaluated_is_success() {
        assert_eq!(run(b"_4:_1\n\n# x\n"), ("_4:_1\n".to_string(), true));
        assert_eq!(run(b""), (String::new(), true));
    }
}
