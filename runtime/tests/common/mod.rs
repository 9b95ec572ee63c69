//! Shared by the runtime's integration tests.

use cute_runtime::nvrtc;

/// Whether NVRTC is here: tests that need it fail without it (CI installs it from PyPI), unless
/// `CUTE_ALLOW_NO_NVRTC` is set, when they skip.
pub fn nvrtc_or_skip() -> bool {
    match nvrtc::available() {
        Ok(()) => true,
        Err(e) if std::env::var("CUTE_ALLOW_NO_NVRTC").is_ok() => {
            eprintln!("skipped: {e}");
            false
        }
        Err(e) => panic!("{e}"),
    }
}
