//! The `cute` command line.
//!
//! - `cute eval EXPR...` prints each expression's value exactly as C++ CuTe's `print` would; with
//!   no EXPR it reads expressions from standard input, one per line.
//! - `cute print-layout EXPR...` prints C++ CuTe's `print_layout` table of each rank-2 layout.
//! - `cute draw [--banks] [--bits N] EXPR` writes an SVG picture of a rank-2 layout.

#[path = "../cli/gpu.rs"]
mod gpu_cmds;

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use cute::layout::atom::draw::{draw_tiled_copy, draw_tiled_mma};
use cute::layout::expr::{eval, eval_str, Value};
use cute::layout::svg::{draw_access, draw_layout, Shading};
use cute::layout::{bank_conflicts, coalescing, BankReport, CoalescingReport};
use cute::layout::{print_layout, AnyLayout, Error};

const USAGE: &str = "\
usage: cute <command> [args]

  cute eval EXPR...          print the value of each CuTe expression, one line each
  cute eval                  read expressions from standard input, one per line
                             (blank lines and lines starting with '#' are skipped)
  cute print-layout EXPR...  print C++ CuTe's print_layout table of each rank-2 layout
  cute print EXPR...         print each value as C++ CuTe's print() does (multi-line for
                             Copy_Atom, TiledCopy, MMA_Atom and TiledMMA)
  cute emit NAME [--layout NN|NT|TN|TT] [--k-block-unroll N]
                             write the CUDA C++ of a named GEMM kernel (default layout NN;
                             --k-block-unroll: N k blocks per trip of the mainloop's k-block
                             loop instead of the whole k-tile, a shorter NVRTC compile for a
                             slower kernel; also taken by run, check and bench)
  cute emit --list           the kernel names, one per line
  cute run NAME [--m M --n N --k K] [--layout L]
                             emit, compile, launch, verify against a float64 reference and
                             time against cuBLAS (default 4096^3, NN); without a GPU or NVRTC
                             the steps that cannot run are reported as skipped
  cute check [NAME...] [--layout L] [--m M --n N --k K] [--report FILE]
                             correctness of every kernel x layout x size on the GPU
  cute bench NAME... [--layout L]
                             TFLOP/s and % of cuBLAS SGEMM at 1024..8192 and 8192x2048x4096
  cute bank-conflicts EXPR [--bits N]
                             shared-memory wavefronts of an access pattern (mode 0: threads,
                             other modes: instructions; offsets in N-bit units, N = 32, 64 or
                             128, default 32): a line 'max_ways=K ...' (1: conflict-free),
                             the worst conflict, and a table per instruction and warp
  cute coalescing EXPR [--bits N]
                             32-byte sectors per warp request in global memory: a line
                             'sectors_per_request=X ideal=Y ...', then a table
  cute draw [--banks | --access] [--bits N] EXPR
                             write an SVG picture to standard output: for a rank-2 layout
                             the offset in each cell, or with --banks (the default for a
                             swizzled layout) the shared-memory bank of N-bit elements
                             (N = 32 unless given); for a TiledCopy its source and
                             destination tiles, for a TiledMMA its A, B and C tiles, each
                             cell labelled with the thread and value that own it; with
                             --access, an access pattern's warp 0 (instructions x threads)
                             by bank, bank conflicts outlined in red

A failing expression prints one line 'error: ...'; the exit status is 1 if any failed.
Expressions use CuTe's C++ spelling, e.g. 'composition((_6,_2):(_8,_2), (_4,_3):(_3,_1))'.";

fn main() -> ExitCode {
    // A closed pipe (`cute emit ... | head`) ends the process quietly, as for any Unix filter,
    // instead of a panic in `println!`.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("eval") => eval_command(&args[1..]),
        Some("print-layout") => print_layout_command(&args[1..]),
        Some("print") => print_command(&args[1..]),
        Some("emit") => emit_command(&args[1..]),
        Some("run") => gpu_cmds::run(&args[1..]),
        Some("check") => gpu_cmds::check_all(&args[1..]),
        Some("bench") => gpu_cmds::bench_all(&args[1..]),
        Some("bank-conflicts") => access_command(&args[1..], true),
        Some("coalescing") => access_command(&args[1..], false),
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

/// `cute emit NAME [--layout L]` / `cute emit --list`.
fn emit_command(args: &[String]) -> ExitCode {
    if args.first().map(String::as_str) == Some("--list") {
        for n in cute::codegen::named::NAMES {
            println!("{n}");
        }
        return ExitCode::SUCCESS;
    }
    let (mut name, mut layout, mut unroll) = (None, "NN".to_string(), None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--layout" => match it.next() {
                Some(l) => layout = l.clone(),
                None => return usage_error("--layout needs NN, NT, TN or TT"),
            },
            "--k-block-unroll" => match it.next().and_then(|n| n.parse::<i64>().ok()) {
                Some(n) => unroll = Some(n),
                None => return usage_error("--k-block-unroll needs an integer"),
            },
            _ if name.is_none() => name = Some(a.clone()),
            _ => return usage_error("emit takes one kernel name"),
        }
    }
    let Some(name) = name else {
        return usage_error("emit needs a kernel name (cute emit --list)");
    };
    let Some(layout) = cute::codegen::GemmLayout::parse(&layout) else {
        return usage_error(&format!("unknown layout '{layout}' (NN, NT, TN or TT)"));
    };
    match cute::codegen::named::plan_unrolled(&name, layout, unroll)
        .and_then(|p| cute::codegen::emit(&p))
    {
        Ok(k) => {
            print!("{}", k.source);
            ExitCode::SUCCESS
        }
        Err(e) => {
            // on standard error: `cute emit ... > kernel.cu` must not write it into the file
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
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

/// Splits `EXPR [--bits N]`.
fn expr_and_bits(args: &[String]) -> Result<(&String, i64), String> {
    let mut bits = 32;
    let mut exprs = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--bits" {
            bits = it
                .next()
                .and_then(|v| v.parse().ok())
                .ok_or("--bits needs a number (32, 64 or 128)")?;
        } else {
            exprs.push(a);
        }
    }
    match exprs.as_slice() {
        [e] => Ok((e, bits)),
        _ => Err("expected exactly one expression".into()),
    }
}

/// `cute bank-conflicts` / `cute coalescing`.
fn access_command(args: &[String], banks: bool) -> ExitCode {
    let (expr, bits) = match expr_and_bits(args) {
        Ok(x) => x,
        Err(msg) => return usage_error(&msg),
    };
    let report = layout_of(expr).and_then(|l| {
        if banks {
            bank_conflicts(&l, bits).map(|r| bank_text(&r))
        } else {
            coalescing(&l, bits).map(|r| coalescing_text(&r))
        }
    });
    match report {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("error: {e}");
            ExitCode::FAILURE
        }
    }
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

fn draw_command(args: &[String]) -> ExitCode {
    let mut banks = false;
    let mut access = false;
    let mut bits = 32;
    let mut exprs = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--banks" => banks = true,
            "--access" => access = true,
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
        Value::Layout(l) if access => draw_access(&l, bits, 0),
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
