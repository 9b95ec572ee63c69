//! What a test that needs NVRTC does on a machine without it, decided in one place for every
//! test of the workspace:
//!
//! - NVRTC found: the test runs.
//! - not found, `CI` unset (a developer's fresh machine): the test prints
//!   `skipped: <test>: NVRTC not found (<where it looked>); install it with: pip install ...`
//!   on standard error (past the test harness's capture) and passes;
//! - not found, `CI` set to anything but empty, `false` or `0`: the test fails, saying why (CI
//!   installs NVRTC, so a missing one is a broken CI).
//!
//! ```no_run
//! #[test]
//! fn compiles() {
//!     if !cute_runtime::nvrtc_or_skip!() {
//!         return;
//!     }
//!     // ... nvrtc::compile(...)
//! }
//! ```

use std::io::Write;

use crate::error::{RuntimeError, NVRTC_INSTALL};
use crate::nvrtc;

/// What a test that needs NVRTC does here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NeedsNvrtc {
    /// NVRTC is here: run.
    Run,
    /// Not here and not in CI: skip, printing this line.
    Skip(String),
    /// Not here in CI: fail with this message.
    Fail(String),
}

/// Whether the value of the `CI` variable means "this is CI": set, and not empty, `false` or `0`.
pub fn is_ci(value: Option<&str>) -> bool {
    value.is_some_and(|v| {
        let v = v.trim();
        !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false")
    })
}

/// The decision for `test`, given whether NVRTC loaded and the value of `CI`.
pub fn decide(test: &str, nvrtc: &Result<(), RuntimeError>, ci: Option<&str>) -> NeedsNvrtc {
    let why = match nvrtc {
        Ok(()) => return NeedsNvrtc::Run,
        Err(RuntimeError::NvrtcMissing { searched }) => searched.clone(),
        Err(e) => e.to_string(),
    };
    if is_ci(ci) {
        NeedsNvrtc::Fail(format!(
            "{test}: NVRTC not found ({why}), and CI is set ({}): CI must install NVRTC \
             ({NVRTC_INSTALL}, as .ci/run does); unset CI to skip the tests that need it",
            ci.unwrap_or_default()
        ))
    } else {
        NeedsNvrtc::Skip(format!(
            "skipped: {test}: NVRTC not found ({why}); install it with: {NVRTC_INSTALL}"
        ))
    }
}

/// The decision for `test` on this machine.
pub fn needs_nvrtc(test: &str) -> NeedsNvrtc {
    decide(
        test,
        &nvrtc::available(),
        std::env::var("CI").ok().as_deref(),
    )
}

/// `true` when NVRTC is here. Without it, prints the skip line and gives `false`, or, in CI,
/// gives the failure message as `Err` (the [`nvrtc_or_skip!`](crate::nvrtc_or_skip) macro panics
/// with it, failing the test).
pub fn nvrtc_for_test(test: &str) -> Result<bool, String> {
    match needs_nvrtc(test) {
        NeedsNvrtc::Run => Ok(true),
        NeedsNvrtc::Skip(line) => {
            // straight to the stream, not through `eprintln!`, which the test harness captures
            let _ = writeln!(std::io::stderr(), "{line}");
            Ok(false)
        }
        NeedsNvrtc::Fail(msg) => Err(msg),
    }
}

/// The running test's name: `crate::path::to::test` (the harness names each test's thread after
/// the test), or `crate` alone where the thread has no name.
pub fn current_test(krate: &str) -> String {
    match std::thread::current().name() {
        Some(name) if name != "main" => format!("{krate}::{name}"),
        _ => krate.to_string(),
    }
}

/// In a test that needs NVRTC: `true` when NVRTC is here; otherwise `false` after printing
/// `skipped: ...` (CI unset), or a panic that fails the test (CI set). See [`crate::testing`].
#[macro_export]
macro_rules! nvrtc_or_skip {
    () => {
        match $crate::testing::nvrtc_for_test(&$crate::testing::current_test(env!(
            "CARGO_CRATE_NAME"
        ))) {
            Ok(found) => found,
            Err(why) => panic!("{why}"),
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missing() -> Result<(), RuntimeError> {
        Err(RuntimeError::NvrtcMissing {
            searched: "no libnvrtc.so in /usr/local/cuda/lib64".into(),
        })
    }

    #[test]
    fn ci_is_any_value_but_empty_false_or_0() {
        for v in ["true", "1", "yes", "TRUE", "github"] {
            assert!(is_ci(Some(v)), "{v}");
        }
        for v in [
            None,
            Some(""),
            Some("false"),
            Some("False"),
            Some("0"),
            Some(" "),
        ] {
            assert!(!is_ci(v), "{v:?}");
        }
    }

    #[test]
    fn found_runs_everywhere() {
        for ci in [None, Some("true")] {
            assert_eq!(decide("t", &Ok(()), ci), NeedsNvrtc::Run);
        }
    }

    #[test]
    fn missing_skips_with_the_reason_and_the_install_command() {
        let NeedsNvrtc::Skip(line) = decide("compile_named::k", &missing(), None) else {
            panic!("a skip without CI");
        };
        assert_eq!(
            line,
            "skipped: compile_named::k: NVRTC not found (no libnvrtc.so in /usr/local/cuda/lib64); \
             install it with: pip install nvidia-cuda-nvrtc==13.0.88"
        );
        assert!(matches!(
            decide("t", &missing(), Some("false")),
            NeedsNvrtc::Skip(_)
        ));
    }

    #[test]
    fn missing_fails_in_ci_saying_why() {
        let NeedsNvrtc::Fail(msg) = decide("t", &missing(), Some("true")) else {
            panic!("a failure in CI");
        };
        assert!(msg.contains("NVRTC not found (no libnvrtc.so"), "{msg}");
        assert!(msg.contains("CI is set (true)"), "{msg}");
    }

    #[test]
    fn the_test_name_is_the_harness_thread_name() {
        let name = current_test("runtime");
        assert!(
            name == "runtime" || name.ends_with("the_test_name_is_the_harness_thread_name"),
            "{name}"
        );
    }
}
