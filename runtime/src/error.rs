//! The runtime crate's error type. A variant that wraps a CUDA library's error keeps it as its
//! `source`, and its message names the call and the library's own words for the failure (cudarc's
//! errors print their `Debug` form, so the text is asked of the library instead).

use std::ffi::{c_char, CStr};

use cudarc::cublas::result::CublasError;
use cudarc::driver::DriverError;
use cudarc::nvrtc::result::NvrtcError;
use thiserror::Error;

/// How to install NVRTC, for messages that say it is missing.
pub const NVRTC_INSTALL: &str = "pip install nvidia-cuda-nvrtc==13.0.88";

/// What went wrong compiling or running a kernel.
#[derive(Debug, Clone, Error)]
pub enum RuntimeError {
    /// NVRTC (libnvrtc) could not be found: `searched` says where it was looked for.
    #[error(
        "NVRTC not found: {searched} (install it with `{NVRTC_INSTALL}`, or set CUTE_NVRTC_LIB to its folder)"
    )]
    NvrtcMissing { searched: String },
    /// NVRTC refused the source: its log, and the source with line numbers.
    #[error("NVRTC failed to compile {kernel} for {arch}:\n{log}\n--- source ---\n{numbered}")]
    Compile {
        kernel: String,
        arch: String,
        log: String,
        numbered: String,
    },
    /// An NVRTC call failed.
    #[error("NVRTC: {call} failed: {}", nvrtc_text(.source))]
    Nvrtc {
        call: &'static str,
        #[source]
        source: NvrtcError,
    },
    /// Something NVRTC cannot be given: a NUL byte in the source or the kernel name, an
    /// architecture that is no architecture.
    #[error("NVRTC input: {0}")]
    NvrtcInput(String),
    /// No GPU or no driver.
    #[error("no GPU: {why}")]
    NoGpu {
        why: String,
        #[source]
        source: Option<DriverError>,
    },
    /// A driver call (load, launch, copy) failed.
    #[error("CUDA driver: {what}: {}", driver_text(.source))]
    Driver {
        what: String,
        #[source]
        source: DriverError,
    },
    /// A cubin compiled for one architecture cannot be loaded on a device of another.
    #[error(
        "{kernel} was compiled for {arch}, which does not run on {device} ({device_arch}): pass --arch {device_arch}"
    )]
    WrongArch {
        kernel: String,
        arch: String,
        device: String,
        device_arch: String,
    },
    /// cuBLAS failed.
    #[error("cuBLAS: {what}: {}", cublas_text(.source))]
    Cublas {
        what: String,
        #[source]
        source: CublasError,
    },
    /// A problem the kernel cannot run (sizes, buffers, a requirement of its fast path).
    #[error("{0}")]
    Problem(String),
    /// Code generation failed.
    #[error(transparent)]
    Codegen(#[from] cute_codegen::CodegenError),
}

impl RuntimeError {
    /// A failed driver call `what`, keeping the driver's error as the source.
    pub fn driver(what: impl Into<String>) -> impl FnOnce(DriverError) -> RuntimeError {
        let what = what.into();
        move |source| RuntimeError::Driver { what, source }
    }

    /// A failed cuBLAS call `what`, keeping cuBLAS's error as the source.
    pub fn cublas(what: impl Into<String>) -> impl FnOnce(CublasError) -> RuntimeError {
        let what = what.into();
        move |source| RuntimeError::Cublas { what, source }
    }

    /// A failed NVRTC call, keeping NVRTC's error as the source.
    pub fn nvrtc(call: &'static str) -> impl FnOnce(NvrtcError) -> RuntimeError {
        move |source| RuntimeError::Nvrtc { call, source }
    }
}

/// A static C string from a CUDA library, if there is one.
fn c_text(p: *const c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the libraries return pointers to static, NUL-terminated strings.
    Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// NVRTC's name of a result (`NVRTC_ERROR_INVALID_OPTION`), or its number.
fn nvrtc_text(e: &NvrtcError) -> String {
    let named = crate::nvrtc::available()
        .ok()
        // SAFETY: NVRTC is loaded; nvrtcGetErrorString takes any result value.
        .and_then(|()| c_text(unsafe { cudarc::nvrtc::sys::nvrtcGetErrorString(e.0) }));
    named.unwrap_or_else(|| format!("nvrtcResult {}", e.0 as i32))
}

/// The driver's name and description of an error (`CUDA_ERROR_INVALID_VALUE: invalid argument`).
fn driver_text(e: &DriverError) -> String {
    // SAFETY: probing for libcuda runs only its initializers.
    let loaded = unsafe { cudarc::driver::sys::is_culib_present() };
    let name = loaded.then(|| e.error_name().ok()).flatten();
    let what = loaded.then(|| e.error_string().ok()).flatten();
    match (name, what) {
        (Some(n), Some(w)) => format!("{}: {}", n.to_string_lossy(), w.to_string_lossy()),
        (Some(n), None) => n.to_string_lossy().into_owned(),
        _ => format!("CUresult {}", e.0 as i32),
    }
}

/// cuBLAS's name and description of a status (`CUBLAS_STATUS_INVALID_VALUE: ...`).
fn cublas_text(e: &CublasError) -> String {
    use cudarc::cublas::sys;
    // SAFETY: probing for libcublas runs only its initializers.
    if !unsafe { sys::is_culib_present() } {
        return format!("cublasStatus {}", e.0 as i32);
    }
    // SAFETY: cuBLAS is loaded; both calls take any status value.
    let name = c_text(unsafe { sys::cublasGetStatusName(e.0) });
    // SAFETY: as above.
    let what = c_text(unsafe { sys::cublasGetStatusString(e.0) });
    match (name, what) {
        (Some(n), Some(w)) => format!("{n}: {w}"),
        (Some(n), None) => n,
        _ => format!("cublasStatus {}", e.0 as i32),
    }
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, RuntimeError>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn a_wrapped_library_error_is_the_source_and_display_names_the_call() {
        let e = RuntimeError::nvrtc("nvrtcVersion")(NvrtcError(
            cudarc::nvrtc::sys::nvrtcResult::NVRTC_ERROR_OUT_OF_MEMORY,
        ));
        assert!(e.source().is_some());
        let text = e.to_string();
        assert!(text.starts_with("NVRTC: nvrtcVersion failed: "), "{text}");
        assert!(
            !text.contains("NvrtcError("),
            "Display must not print Debug: {text}"
        );
    }

    #[test]
    fn missing_nvrtc_says_how_to_install_it() {
        let e = RuntimeError::NvrtcMissing {
            searched: "no libnvrtc.so in /x".into(),
        };
        assert!(e.to_string().contains(NVRTC_INSTALL), "{e}");
    }
}
