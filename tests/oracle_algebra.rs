//! Every case of `tests/oracle/algebra.tsv` (C++ CuTe's own output, copied verbatim from
//! `shared/oracle`) evaluates to exactly the expected string.

use std::path::Path;

use cute::layout::expr::eval_str;

/// Reads `EXPR<TAB>EXPECTED` lines.
fn cases(file: &str) -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (e, x) = l.split_once('\t').unwrap_or_else(|| panic!("bad oracle line: {l}"));
            (e.to_string(), x.to_string())
        })
        .collect()
}

/// Runs the cases, skipping those whose expression starts with one of `later`.
fn check(file: &str, later: &[&str]) {
    let all = cases(file);
    let mut failures = Vec::new();
    let mut run = 0;
    for (expr, expected) in &all {
        if later.iter().any(|p| expr.contains(p)) {
            continue;
        }
        run += 1;
        match eval_str(expr) {
            Ok(got) if &got == expected => {}
            Ok(got) => failures.push(format!("{expr}\n   expected {expected}\n   got      {got}")),
            Err(e) => failures.push(format!("{expr}\n   expected {expected}\n   error    {e}")),
        }
    }
    assert!(run > 0, "no cases ran from {file}");
    assert!(
        failures.is_empty(),
        "{} of {run} cases of {file} differ from C++ CuTe:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn algebra_tsv_matches_cpp_cute() {
    // Swizzle compositions belong to the swizzle issue.
    check("algebra.tsv", &["Swizzle<"]);
}
