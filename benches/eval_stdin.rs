//! `cute eval` over 10,000 expressions like those of the oracle, fed on standard input.
//!
//! Measures the whole process (start, parse, evaluate, print) with a wall clock, 1 warm-up and 7
//! timed runs, and reports the median; also times the evaluator alone in this process.
//! Run with `cargo bench --bench eval_stdin`.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const LINES: usize = 10_000;

/// 10,000 expressions cycling through the oracle files.
fn workload() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle");
    let mut exprs = Vec::new();
    for f in ["algebra.tsv", "cute-extra.tsv"] {
        let text = std::fs::read_to_string(dir.join(f)).expect("oracle file");
        exprs.extend(
            text.lines()
                .filter_map(|l| l.split_once('\t'))
                .map(|(e, _)| e.to_string()),
        );
    }
    exprs.iter().cycle().take(LINES).cloned().collect()
}

fn run_cli(input: &str) -> Duration {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cute"))
        .arg("eval")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("cute runs");
    // Feed stdin from a thread: the output pipe would fill while we still write the input.
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    let elapsed = start.elapsed();
    assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), LINES);
    elapsed
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let exprs = workload();
    let input = exprs.join("\n") + "\n";
    run_cli(&input);
    let cli = median((0..7).map(|_| run_cli(&input)).collect());
    let lib = median(
        (0..7)
            .map(|_| {
                let t = Instant::now();
                for e in &exprs {
                    let _ = std::hint::black_box(cute::layout::expr::eval_str(e));
                }
                t.elapsed()
            })
            .collect(),
    );
    println!(
        "cute eval, {LINES} expressions on stdin: median {:.1} ms (process), {:.1} ms (evaluator alone), {:.2} us/expression",
        cli.as_secs_f64() * 1e3,
        lib.as_secs_f64() * 1e3,
        lib.as_secs_f64() * 1e6 / LINES as f64
    );
}
