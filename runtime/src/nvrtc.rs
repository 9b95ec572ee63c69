//! NVRTC: CUDA C++ -> cubin for a given architecture, with ptxas's report.
//!
//! libnvrtc is looked for where CUDA and PyPI put it (`/usr/local/cuda`, `$CUDA_HOME`,
//! `$LD_LIBRARY_PATH`, the `nvidia-cuda-nvrtc` wheel's `nvidia/cu13/lib`, or `$CUTE_NVRTC_LIB`);
//! a missing library is an error naming where it looked, never a panic.

use std::ffi::{c_char, CString};
use std::path::PathBuf;
use std::sync::OnceLock;

use cudarc::nvrtc::{result, sys};

use crate::error::{Result, RuntimeError};

/// A compiled kernel image and what ptxas said about it.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The cubin.
    pub cubin: Vec<u8>,
    /// The target architecture (`sm_90a`).
    pub arch: String,
    /// NVRTC's log (ptxas's `-v` report).
    pub log: String,
    /// Registers per thread, from the report.
    pub registers: Option<u32>,
    /// Spill stores + spill loads in bytes, from the report.
    pub spill_bytes: Option<u32>,
}

/// The loaded libnvrtc (kept open so cudarc's lookup by name finds it), or where we looked.
fn library() -> &'static std::result::Result<(), String> {
    static LIB: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    LIB.get_or_init(|| {
        // SAFETY: loading libnvrtc runs only its initializers; it stays loaded for the process.
        if unsafe { sys::is_culib_present() } {
            return Ok(());
        }
        let dirs = candidate_dirs();
        for dir in &dirs {
            for name in ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"] {
                let path = dir.join(name);
                if path.exists() {
                    preload_builtins(dir);
                    // SAFETY: as above; the handle is leaked on purpose so the library stays loaded.
                    if let Ok(lib) = unsafe { libloading::Library::new(&path) } {
                        std::mem::forget(lib);
                        // SAFETY: as above.
                        if unsafe { sys::is_culib_present() } {
                            return Ok(());
                        }
                    }
                }
            }
        }
        let looked: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        Err(format!(
            "no libnvrtc.so in the loader path or in {}",
            looked.join(", ")
        ))
    })
}

/// libnvrtc opens `libnvrtc-builtins.so.X.Y` by name when it compiles: load it from the same
/// folder first so that lookup finds it even when the folder is not on the loader path.
fn preload_builtins(dir: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("libnvrtc-builtins.so") {
            // SAFETY: loading runs only the library's initializers; it stays loaded on purpose.
            if let Ok(lib) = unsafe { libloading::Library::new(e.path()) } {
                std::mem::forget(lib);
            }
        }
    }
}

/// Folders that may hold libnvrtc.
fn candidate_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for var in ["CUTE_NVRTC_LIB", "CUDA_HOME", "CUDA_PATH"] {
        if let Ok(v) = std::env::var(var) {
            dirs.push(PathBuf::from(&v));
            dirs.push(PathBuf::from(&v).join("lib64"));
        }
    }
    if let Ok(v) = std::env::var("LD_LIBRARY_PATH") {
        dirs.extend(v.split(':').filter(|s| !s.is_empty()).map(PathBuf::from));
    }
    dirs.push(PathBuf::from("/usr/local/cuda/lib64"));
    dirs.push(PathBuf::from("/usr/local/cuda/targets/x86_64-linux/lib"));
    // PyPI wheels: .../site-packages/nvidia/cu13/lib
    let home = std::env::var("HOME").unwrap_or_default();
    let mut roots = vec![
        format!("{home}/.local/lib"),
        "/usr/local/lib".into(),
        "/usr/lib".into(),
        format!("{home}/.pyenv/versions"),
    ];
    // an active virtual environment or conda environment: `$VIRTUAL_ENV/lib/python3.X/...`
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Ok(v) = std::env::var(var) {
            roots.push(format!("{v}/lib"));
        }
    }
    for root in roots {
        dirs.extend(site_packages(&PathBuf::from(root)));
    }
    dirs
}

/// `nvidia/cu13/lib` under the Python installations in `root` (two levels deep at most).
fn site_packages(root: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(root) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        // pip's `site-packages`, Debian's `dist-packages`, and one `lib/` level below for pyenv
        for sub in [
            p.join("site-packages"),
            p.join("dist-packages"),
            p.join("lib"),
        ] {
            let candidates = if sub.ends_with("lib") {
                std::fs::read_dir(&sub)
                    .map(|r| {
                        r.flatten()
                            .flat_map(|x| {
                                [
                                    x.path().join("site-packages"),
                                    x.path().join("dist-packages"),
                                ]
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            } else {
                vec![sub]
            };
            for sp in candidates {
                for cu in ["cu13", "cu12"] {
                    let lib = sp.join("nvidia").join(cu).join("lib");
                    if lib.exists() {
                        out.push(lib);
                    }
                }
                let lib = sp.join("nvidia").join("cuda_nvrtc").join("lib");
                if lib.exists() {
                    out.push(lib);
                }
            }
        }
    }
    out
}

/// Whether NVRTC can be loaded (and, if not, why).
pub fn available() -> Result<()> {
    library()
        .clone()
        .map_err(|searched| RuntimeError::NvrtcMissing { searched })
}

/// NVRTC's version, `(major, minor)`.
pub fn version() -> Result<(i32, i32)> {
    available()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: plain out-parameters.
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(RuntimeError::nvrtc("nvrtcVersion"))?;
    Ok((major, minor))
}

/// The NVRTC options besides the architecture.
pub const OPTIONS: &[&str] = &["--std=c++17", "--ptxas-options=-v", "-default-device"];

/// Registers per thread in a ptxas report.
pub fn parse_registers(log: &str) -> Option<u32> {
    parse_report(log, "Used ", " registers")
}

/// Spill bytes in a ptxas report.
pub fn parse_spills(log: &str) -> Option<u32> {
    spills(log)
}

/// An NVRTC program, destroyed when dropped (on every path, failed compiles included), with the
/// source and name it may point into (cudarc: they must outlive the program).
struct Program {
    prog: sys::nvrtcProgram,
    _src: CString,
    _name: CString,
}

impl Program {
    /// `nvrtcCreateProgram` of a source named `{kernel}.cu`.
    fn create(kernel: &str, source: &str) -> Result<Program> {
        let src = CString::new(source).map_err(|_| {
            RuntimeError::NvrtcInput(format!("the source of {kernel} contains a NUL byte"))
        })?;
        let name = CString::new(format!("{kernel}.cu")).map_err(|_| {
            RuntimeError::NvrtcInput(format!(
                "the kernel name '{}' contains a NUL byte",
                kernel.escape_debug()
            ))
        })?;
        let prog = result::create_program(&src, Some(&name))
            .map_err(RuntimeError::nvrtc("nvrtcCreateProgram"))?;
        Ok(Program {
            prog,
            _src: src,
            _name: name,
        })
    }

    /// Compiles with `options`: whether NVRTC accepted the source, and its log.
    fn compile(&self, options: &[String]) -> (bool, String) {
        // SAFETY: `self.prog` is a live program; the options outlive the call.
        let compiled = unsafe { result::compile_program(self.prog, options) };
        // SAFETY: as above.
        let log = unsafe { result::get_program_log(self.prog) }
            .map(|v| c_chars(&v))
            .unwrap_or_default();
        (compiled.is_ok(), log)
    }

    /// The cubin of a program that compiled.
    fn cubin(&self) -> Result<Vec<u8>> {
        let mut size = 0usize;
        // SAFETY: `self.prog` compiled successfully; `size` is an out-parameter.
        unsafe { sys::nvrtcGetCUBINSize(self.prog, &mut size) }
            .result()
            .map_err(RuntimeError::nvrtc("nvrtcGetCUBINSize"))?;
        let mut buf = vec![0u8; size];
        // SAFETY: `buf` has the size NVRTC reported.
        unsafe { sys::nvrtcGetCUBIN(self.prog, buf.as_mut_ptr() as *mut c_char) }
            .result()
            .map_err(RuntimeError::nvrtc("nvrtcGetCUBIN"))?;
        Ok(buf)
    }
}

/// Programs destroyed so far (for the test that no path leaks one).
#[cfg(test)]
static DESTROYED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl Drop for Program {
    fn drop(&mut self) {
        #[cfg(test)]
        DESTROYED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        // SAFETY: the program is live and destroyed exactly once, here. A failure cannot be
        // reported from `drop` and leaves nothing to clean up.
        let _ = unsafe { result::destroy_program(self.prog) };
    }
}

/// Compiles `source` to a cubin for `arch` (`sm_90a`, `sm_80`), with ptxas's report.
pub fn compile(kernel: &str, source: &str, arch: &str) -> Result<Compiled> {
    available()?;
    check_arch(arch)?;
    let prog = Program::create(kernel, source)?;
    let mut opts = vec![format!("--gpu-architecture={arch}")];
    opts.extend(OPTIONS.iter().map(|o| o.to_string()));
    let (ok, log) = prog.compile(&opts);
    if !ok || slow_warning(&log).is_some() {
        let log = match slow_warning(&log) {
            Some(w) if ok => format!("{w}: ptxas compiled a silently slow kernel, refused\n{log}"),
            _ => log,
        };
        return Err(RuntimeError::Compile {
            kernel: kernel.to_string(),
            arch: arch.to_string(),
            log,
            numbered: numbered(source),
        });
    }
    Ok(Compiled {
        cubin: prog.cubin()?,
        registers: parse_registers(&log),
        spill_bytes: spills(&log),
        arch: arch.to_string(),
        log,
    })
}

/// ptxas's warnings that mean a kernel runs silently slow: wgmma serialized (C7510, C7511,
/// C7515: a wgmma waits for the one before, for registers the compiler could not keep in
/// place) and `setmaxnreg` ignored (C7508). The first in the log, with its meaning.
pub fn slow_warning(log: &str) -> Option<&'static str> {
    const SLOW: [(&str, &str); 4] = [
        ("C7508", "C7508 (setmaxnreg ignored)"),
        ("C7510", "C7510 (wgmma serialized)"),
        ("C7511", "C7511 (wgmma serialized)"),
        ("C7515", "C7515 (wgmma serialized)"),
    ];
    SLOW.iter()
        .find(|(code, _)| log.contains(code))
        .map(|(_, w)| *w)
}

fn c_chars(v: &[c_char]) -> String {
    let bytes: Vec<u8> = v
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The number between `before` and `after` on a report line.
fn parse_report(log: &str, before: &str, after: &str) -> Option<u32> {
    log.lines().find_map(|l| {
        let start = l.find(before)? + before.len();
        let end = l[start..].find(after)? + start;
        l[start..end].trim().parse().ok()
    })
}

/// An architecture is `sm_NN` or `compute_NN`, optionally with an `a` or `f` suffix (it is
/// also part of a cache file's name).
pub fn check_arch(arch: &str) -> Result<()> {
    let digits = arch
        .strip_prefix("sm_")
        .or_else(|| arch.strip_prefix("compute_"))
        .map(|r| r.strip_suffix(['a', 'f']).unwrap_or(r));
    if digits.is_some_and(|d| (2..=4).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit())) {
        return Ok(());
    }
    Err(RuntimeError::NvrtcInput(format!(
        "'{}' is not a GPU architecture (sm_90a, sm_80, compute_90, ...)",
        arch.escape_debug()
    )))
}

/// Spill stores + loads from `N bytes spill stores, M bytes spill loads`.
fn spills(log: &str) -> Option<u32> {
    let stores = parse_report(log, "stack frame, ", " bytes spill stores")?;
    let loads = parse_report(log, "spill stores, ", " bytes spill loads")?;
    Some(stores.saturating_add(loads))
}

/// The source with line numbers, for error messages.
pub fn numbered(source: &str) -> String {
    source
        .lines()
        .enumerate()
        .map(|(i, l)| format!("{:>4} | {l}\n", i + 1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    /// A failed compile destroys its program, as a successful one does.
    #[test]
    fn every_program_is_destroyed() {
        if !crate::nvrtc_or_skip!() {
            return;
        }
        let before = DESTROYED.load(Ordering::SeqCst);
        let broken = compile(
            "broken",
            "extern \"C\" __global__ void broken() { x; }",
            "sm_80",
        );
        assert!(
            matches!(broken, Err(RuntimeError::Compile { .. })),
            "{broken:?}"
        );
        let fine = compile("fine", "extern \"C\" __global__ void fine() {}", "sm_80");
        assert!(fine.is_ok(), "{fine:?}");
        assert_eq!(DESTROYED.load(Ordering::SeqCst) - before, 2);
    }

    #[test]
    fn bad_input_is_refused_before_a_program_exists() {
        for (src, arch) in [("a\0b", "sm_80"), ("", "sm_80\0"), ("", "sm80")] {
            match compile("k", src, arch) {
                Err(RuntimeError::NvrtcInput(_) | RuntimeError::NvrtcMissing { .. }) => {}
                other => panic!("{src:?} for {arch:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn the_report_is_parsed() {
        let log = "ptxas info    : Used 127 registers, 0 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads";
        assert_eq!(parse_registers(log), Some(127));
        assert_eq!(parse_spills(log), Some(12));
    }
}
