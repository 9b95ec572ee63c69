//! The compile cache: in memory and on disk, so a second run compiles nothing.
//!
//! An entry is keyed by SHA-256 over an explicit byte encoding of the cache format version, the
//! kernel name, the source, the NVRTC options, the architecture and NVRTC's version (see
//! [`key`]), so the key does not depend on how Rust hashes a tuple. The file holds a header (a
//! magic, the format version, the key it was written for, the lengths) and the ptxas log and the
//! cubin, checksummed: an entry that is corrupted, truncated, or written by another format or for
//! another key is compiled again, never loaded.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::error::Result;
use crate::nvrtc::{self, Compiled};

/// The version of the key encoding and of the file layout. Bump it when either changes: entries
/// of another version are then recompiled.
pub const FORMAT: u32 = 2;

/// The first bytes of a cache file.
const MAGIC: &[u8; 8] = b"CUTECUBN";

/// A cache key: SHA-256 of [`key`]'s encoding.
pub type Key = [u8; 32];

fn memory() -> &'static Mutex<HashMap<Key, Compiled>> {
    static M: OnceLock<Mutex<HashMap<Key, Compiled>>> = OnceLock::new();
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

/// What a compile depends on.
#[derive(Debug, Clone, Copy)]
pub struct KeyParts<'a> {
    pub kernel: &'a str,
    pub source: &'a str,
    pub options: &'a [&'a str],
    pub arch: &'a str,
    /// NVRTC's `(major, minor)`.
    pub nvrtc: (i32, i32),
}

/// Appends a length-prefixed field: the length as a little-endian u64, then the bytes.
fn field(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

/// The key of a compile: SHA-256 over `"cute-runtime compile cache"`, [`FORMAT`] (u32 LE), then
/// the kernel name, the source, the number of options and each option, and the architecture,
/// each length-prefixed, then NVRTC's major and minor version (i32 LE).
pub fn key(p: &KeyParts) -> Key {
    let mut h = Sha256::new();
    field(&mut h, b"cute-runtime compile cache");
    h.update(FORMAT.to_le_bytes());
    field(&mut h, p.kernel.as_bytes());
    field(&mut h, p.source.as_bytes());
    h.update((p.options.len() as u64).to_le_bytes());
    for o in p.options {
        field(&mut h, o.as_bytes());
    }
    field(&mut h, p.arch.as_bytes());
    h.update(p.nvrtc.0.to_le_bytes());
    h.update(p.nvrtc.1.to_le_bytes());
    h.finalize().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Where a compile came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Compiled now.
    Compiled,
    /// Found in memory.
    Memory,
    /// Found on disk.
    Disk,
}

/// Where a cubin came from, as a person should be told: compiled now (and how long it took), or
/// found in the memory or the disk cache. One value is made per compile and carried with the
/// cubin, so every line that reports it says the same.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Provenance {
    pub source: Source,
    /// The time NVRTC took (zero for a cache hit).
    pub compile: Duration,
}

impl Provenance {
    /// The provenance of a compile that took `elapsed` and came from `source`.
    pub fn new(source: Source, elapsed: Duration) -> Provenance {
        let compile = if source == Source::Compiled {
            elapsed
        } else {
            Duration::ZERO
        };
        Provenance { source, compile }
    }

    /// Milliseconds NVRTC took (0 for a cache hit).
    pub fn compile_ms(&self) -> f64 {
        self.compile.as_secs_f64() * 1e3
    }
}

impl std::fmt::Display for Provenance {
    /// `compiled in 170 ms`, `from the memory cache`, `from the disk cache`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.source {
            Source::Compiled => write!(f, "compiled in {:.0} ms", self.compile_ms()),
            Source::Memory => f.write_str("from the memory cache"),
            Source::Disk => f.write_str("from the disk cache"),
        }
    }
}

/// Empties the in-memory cache (the disk cache stays): for long-running processes and tests.
pub fn forget_memory() {
    if let Ok(mut m) = memory().lock() {
        m.clear();
    }
}

/// The file of an entry.
fn entry_path(k: &Key, arch: &str) -> PathBuf {
    dir().join(format!("{}-{arch}.cubin", hex(&k[..16])))
}

/// Compiles through the cache.
pub fn compile(kernel: &str, source: &str, arch: &str) -> Result<(Compiled, Source)> {
    compile_timed(kernel, source, arch).map(|(c, p)| (c, p.source))
}

/// Compiles through the cache, and says where the cubin came from and how long NVRTC took.
pub fn compile_timed(kernel: &str, source: &str, arch: &str) -> Result<(Compiled, Provenance)> {
    let t = Instant::now();
    nvrtc::check_arch(arch)?;
    let k = key_of(kernel, source, arch)?;
    let (c, src) = lookup(&k, arch).map_or_else(
        || nvrtc::compile(kernel, source, arch).map(|c| (c, Source::Compiled)),
        Ok,
    )?;
    if src == Source::Compiled {
        store(&k, &c);
    }
    if src != Source::Memory {
        if let Ok(mut m) = memory().lock() {
            m.insert(k, c.clone());
        }
    }
    Ok((c, Provenance::new(src, t.elapsed())))
}

/// An entry in memory, else on disk.
fn lookup(k: &Key, arch: &str) -> Option<(Compiled, Source)> {
    if let Some(c) = memory().lock().ok().and_then(|m| m.get(k).cloned()) {
        return Some((c, Source::Memory));
    }
    let bytes = std::fs::read(entry_path(k, arch)).ok()?;
    decode(&bytes, k, arch).map(|c| (c, Source::Disk))
}

/// Writes an entry (and the log beside it, for people to read), through a temporary file so a
/// reader never sees half of it. A cache that cannot be written is not an error: the next run
/// compiles again.
fn store(k: &Key, c: &Compiled) {
    let path = entry_path(k, &c.arch);
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let _ = std::fs::create_dir_all(dir());
    if std::fs::write(&tmp, encode(k, c)).is_ok() && std::fs::rename(&tmp, &path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    let _ = std::fs::write(path.with_extension("log"), &c.log);
}

/// Header: magic (8) | format u32 | key (32) | log length u64 | cubin length u64 |
/// SHA-256 of log and cubin (32); then the log and the cubin.
const HEADER: usize = 8 + 4 + 32 + 8 + 8 + 32;

fn checksum(log: &[u8], cubin: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    field(&mut h, log);
    field(&mut h, cubin);
    h.finalize().into()
}

/// The bytes of an entry for `k`.
pub fn encode(k: &Key, c: &Compiled) -> Vec<u8> {
    let (log, cubin) = (c.log.as_bytes(), c.cubin.as_slice());
    let mut out = Vec::with_capacity(HEADER + log.len() + cubin.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(k);
    out.extend_from_slice(&(log.len() as u64).to_le_bytes());
    out.extend_from_slice(&(cubin.len() as u64).to_le_bytes());
    out.extend_from_slice(&checksum(log, cubin));
    out.extend_from_slice(log);
    out.extend_from_slice(cubin);
    out
}

/// The compile an entry holds, if it is an intact entry of this [`FORMAT`] written for `k`.
pub fn decode(bytes: &[u8], k: &Key, arch: &str) -> Option<Compiled> {
    let mut r = Reader(bytes);
    if r.take(8)? != MAGIC || r.u32()? != FORMAT || r.take(32)? != k {
        return None;
    }
    let log_len = usize::try_from(r.u64()?).ok()?;
    let cubin_len = usize::try_from(r.u64()?).ok()?;
    let sum = r.take(32)?;
    let log = r.take(log_len)?;
    let cubin = r.take(cubin_len)?;
    if !r.0.is_empty() || checksum(log, cubin) != sum {
        return None;
    }
    let log = std::str::from_utf8(log).ok()?.to_string();
    Some(Compiled {
        cubin: cubin.to_vec(),
        arch: arch.to_string(),
        registers: nvrtc::parse_registers(&log),
        spill_bytes: nvrtc::parse_spills(&log),
        log,
    })
}

/// Reads the fields of an entry front to back; `None` past the end.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

/// The path of the entry a compile would use (for tests and tools that inspect the cache).
pub fn entry_for(kernel: &str, source: &str, arch: &str) -> Result<PathBuf> {
    Ok(entry_path(&key_of(kernel, source, arch)?, arch))
}

/// The key of a compile with this NVRTC and its options.
fn key_of(kernel: &str, source: &str, arch: &str) -> Result<Key> {
    Ok(key(&KeyParts {
        kernel,
        source,
        options: nvrtc::OPTIONS,
        arch,
        nvrtc: nvrtc::version()?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts() -> KeyParts<'static> {
        KeyParts {
            kernel: "k",
            source: "extern \"C\" __global__ void k() {}",
            options: &["--std=c++17"],
            arch: "sm_90a",
            nvrtc: (13, 0),
        }
    }

    fn compiled() -> Compiled {
        Compiled {
            cubin: vec![1, 2, 3, 4, 5],
            arch: "sm_90a".into(),
            log: "ptxas info    : Used 40 registers, 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads".into(),
            registers: Some(40),
            spill_bytes: Some(0),
        }
    }

    /// The key is a fixed function of its inputs, across runs, platforms and Rust versions (the
    /// expected value was computed from the documented encoding with Python's hashlib).
    #[test]
    fn the_key_is_stable() {
        assert_eq!(
            hex(&key(&parts())),
            "1d61f325066a6b0daa0cbc97629e22545a9e007c965f2cfac2776984a85127a9"
        );
    }

    #[test]
    fn every_part_changes_the_key() {
        let base = key(&parts());
        let changed = [
            KeyParts {
                kernel: "k2",
                ..parts()
            },
            KeyParts {
                source: "x",
                ..parts()
            },
            KeyParts {
                options: &[],
                ..parts()
            },
            KeyParts {
                options: &["--std=c++1", "7"],
                ..parts()
            },
            KeyParts {
                arch: "sm_80",
                ..parts()
            },
            KeyParts {
                nvrtc: (13, 1),
                ..parts()
            },
            KeyParts {
                nvrtc: (12, 0),
                ..parts()
            },
        ];
        for p in changed {
            assert_ne!(key(&p), base, "{p:?}");
        }
        // fields are length-prefixed: moving a byte from one field to the next is another key
        let a = KeyParts {
            kernel: "ab",
            source: "c",
            ..parts()
        };
        let b = KeyParts {
            kernel: "a",
            source: "bc",
            ..parts()
        };
        assert_ne!(key(&a), key(&b));
    }

    #[test]
    fn an_entry_reads_back() {
        let k = key(&parts());
        let c = decode(&encode(&k, &compiled()), &k, "sm_90a").expect("an intact entry");
        assert_eq!(c.cubin, compiled().cubin);
        assert_eq!((c.registers, c.spill_bytes), (Some(40), Some(0)));
    }

    /// An entry written by another format version (or for another key: an older key encoding
    /// whose file name collides) is not trusted.
    #[test]
    fn an_entry_of_another_format_or_key_is_refused() {
        let k = key(&parts());
        let bytes = encode(&k, &compiled());
        let mut other_format = bytes.clone();
        other_format[8..12].copy_from_slice(&(FORMAT + 1).to_le_bytes());
        assert!(decode(&other_format, &k, "sm_90a").is_none());
        let other = key(&KeyParts {
            nvrtc: (12, 9),
            ..parts()
        });
        assert!(decode(&bytes, &other, "sm_90a").is_none());
        // the version 1 layout: cubin length u64, FNV-1a u64, cubin
        let mut v1 = 5u64.to_le_bytes().to_vec();
        v1.extend_from_slice(&0u64.to_le_bytes());
        v1.extend_from_slice(&[1, 2, 3, 4, 5]);
        assert!(decode(&v1, &k, "sm_90a").is_none());
    }

    #[test]
    fn a_corrupted_or_truncated_entry_is_refused() {
        let k = key(&parts());
        let bytes = encode(&k, &compiled());
        for i in [0, 9, 20, HEADER - 1, HEADER + 3, bytes.len() - 1] {
            let mut b = bytes.clone();
            b[i] ^= 0x40;
            assert!(decode(&b, &k, "sm_90a").is_none(), "byte {i} flipped");
        }
        for n in [0, 10, HEADER, bytes.len() - 1] {
            assert!(decode(&bytes[..n], &k, "sm_90a").is_none(), "cut at {n}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer, &k, "sm_90a").is_none(), "trailing bytes");
        // a header claiming huge lengths
        let mut lie = bytes.clone();
        lie[44..52].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(decode(&lie, &k, "sm_90a").is_none());
    }

    #[test]
    fn provenance_says_compiled_with_the_time_or_which_cache() {
        let ms = Duration::from_millis(170);
        assert_eq!(
            Provenance::new(Source::Compiled, ms).to_string(),
            "compiled in 170 ms"
        );
        let mem = Provenance::new(Source::Memory, ms);
        assert_eq!(mem.to_string(), "from the memory cache");
        assert_eq!(mem.compile_ms(), 0.0, "a cache hit spent no time compiling");
        assert_eq!(
            Provenance::new(Source::Disk, ms).to_string(),
            "from the disk cache"
        );
    }
}
