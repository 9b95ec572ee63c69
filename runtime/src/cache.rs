//! The compile cache: in memory and on disk, keyed by a hash of the source, the options and the
//! NVRTC version, so a second run compiles nothing. A corrupted entry is recompiled.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use crate::error::Result;
use crate::nvrtc::{self, Compiled};

fn memory() -> &'static Mutex<HashMap<u64, Compiled>> {
    static M: OnceLock<Mutex<HashMap<u64, Compiled>>> = OnceLock::new();
    M.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Where cubins are kept: `$CUTE_CACHE_DIR`, else `$XDG_CACHE_HOME/cute`, else `~/.cache/cute`.
pub fn dir() -> PathBuf {
    if let Ok(d) = std::env::var("CUTE_CACHE_DIR") {
        return PathBuf::from(d);
    }
    let base = std::env::var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").unwrap_or_else(|_| ".".into())).join(".cache")
        });
    base.join("cute")
}

/// FNV-1a: stable across runs and Rust versions (unlike `DefaultHasher`).
struct Fnv(u64);
impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x100000001b3);
        }
    }
}

fn key(kernel: &str, source: &str, arch: &str) -> Result<u64> {
    let mut h = Fnv(0xcbf29ce484222325);
    (kernel, source, arch, nvrtc::OPTIONS, nvrtc::version()?).hash(&mut h);
    Ok(h.finish())
}

/// Whether a compile came from the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Compiled now.
    Compiled,
    /// Found in memory.
    Memory,
    /// Found on disk.
    Disk,
}

/// Empties the in-memory cache (the disk cache stays): for long-running processes and tests.
pub fn forget_memory() {
    if let Ok(mut m) = memory().lock() {
        m.clear();
    }
}

/// Compiles through the cache.
pub fn compile(kernel: &str, source: &str, arch: &str) -> Result<(Compiled, Source)> {
    nvrtc::check_arch(arch)?;
    let k = key(kernel, source, arch)?;
    if let Some(c) = memory().lock().ok().and_then(|m| m.get(&k).cloned()) {
        return Ok((c, Source::Memory));
    }
    let path = dir().join(format!("{k:016x}-{arch}.cubin"));
    if let Some(c) = read(&path, arch) {
        if let Ok(mut m) = memory().lock() {
            m.insert(k, c.clone());
        }
        return Ok((c, Source::Disk));
    }
    let c = nvrtc::compile(kernel, source, arch)?;
    let _ = std::fs::create_dir_all(dir());
    let _ = std::fs::write(&path, framed(&c.cubin));
    let _ = std::fs::write(path.with_extension("log"), &c.log);
    if let Ok(mut m) = memory().lock() {
        m.insert(k, c.clone());
    }
    Ok((c, Source::Compiled))
}

/// A cubin with a length and checksum header, so a truncated or corrupted file is detected.
fn framed(cubin: &[u8]) -> Vec<u8> {
    let mut h = Fnv(0xcbf29ce484222325);
    h.write(cubin);
    let mut out = Vec::with_capacity(cubin.len() + 16);
    out.extend_from_slice(&(cubin.len() as u64).to_le_bytes());
    out.extend_from_slice(&h.finish().to_le_bytes());
    out.extend_from_slice(cubin);
    out
}

fn read(path: &std::path::Path, arch: &str) -> Option<Compiled> {
    let bytes = std::fs::read(path).ok()?;
    let len = u64::from_le_bytes(bytes.get(0..8)?.try_into().ok()?) as usize;
    let sum = u64::from_le_bytes(bytes.get(8..16)?.try_into().ok()?);
    let cubin = bytes.get(16..)?;
    let mut h = Fnv(0xcbf29ce484222325);
    h.write(cubin);
    if cubin.len() != len || h.finish() != sum {
        return None;
    }
    let log = std::fs::read_to_string(path.with_extension("log")).unwrap_or_default();
    Some(Compiled {
        cubin: cubin.to_vec(),
        arch: arch.to_string(),
        registers: nvrtc::parse_registers(&log),
        spill_bytes: nvrtc::parse_spills(&log),
        log,
    })
}
