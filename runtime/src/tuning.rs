//! The tuning cache: which plan `cute tune` timed fastest for a class of shapes on this device,
//! kept beside the compile cache and used by the selector (`cute run sgemm`, `cute bench sgemm`)
//! before its heuristic.
//!
//! One text file, `tuning.txt` in [`cache::dir`], people can read:
//!
//! ```text
//! cute tuning cache
//! format <TAB> 1
//! device <TAB> NVIDIA H200 <TAB> sm_90a <TAB> 13000
//! entry <TAB> f32 <TAB> NN <TAB> 1 <TAB> 4096 <TAB> 4096 <TAB> sgemm-sm80-16x128 <TAB> 13 <TAB> 0.0345 <TAB> 1 <TAB> 4096 <TAB> 4096
//! sha256 <TAB> <hex of every byte above this line>
//! ```
//!
//! An entry is a [`ShapeClass`] (dtype, layout, M, N and K rounded up to powers of two), the
//! winning kernel and its slices of K, its median time and the shape it was timed at. The file is
//! the device's: written for another device name, architecture or driver version it is
//! [`Load::Stale`] and the next tune replaces it. A file whose checksum, format or any line does
//! not hold — or that names a kernel the dtype's selector does not take — is
//! [`Load::Corrupt`]: reported, never trusted, and rewritten by the next tune. A tune writes
//! once, after its last timing, through a temporary file synced and renamed into place, so an
//! interrupted tune leaves the file as it was. Two tunes at once each merge what the file held
//! when they wrote: a class both tuned is the last one's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cute_codegen::gemm::SplitKMode;
use cute_codegen::{select, GemmLayout};
use sha2::{Digest, Sha256};

use crate::cache;
use crate::error::{Result, RuntimeError};
use crate::gpu::Gpu;

/// The version of the file's layout; a file of another version is rebuilt.
pub const FORMAT: u32 = 2;

/// The first line of the file.
const MAGIC: &str = "cute tuning cache";

/// The largest file read (a cache of every class of every layout is a few hundred KiB).
const MAX_BYTES: u64 = 4 << 20;

/// The most slices of K an entry may name.
const MAX_SPLITS: i64 = 4096;

/// What a tuning result is valid for: the device, its architecture and its driver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    /// The device's name (`NVIDIA H200`).
    pub name: String,
    /// `sm_90a`, ...
    pub arch: String,
    /// The driver's version (`cuDriverGetVersion`, 13000 for 13.0).
    pub driver: i32,
}

impl Device {
    /// The open device's identity.
    pub fn of(gpu: &Gpu) -> Result<Device> {
        Ok(Device {
            name: gpu.name.clone(),
            arch: gpu.arch.clone(),
            driver: driver_version()?,
        })
    }

    /// Device 0's identity, read from the driver without opening a context (which costs a
    /// `cute run` that picks its plan from the tuning cache a second context creation): the
    /// same name and architecture [`Gpu::open`] reads. An error when there is no driver or
    /// no GPU.
    pub fn probe() -> Result<Device> {
        use cudarc::driver::result;
        use cudarc::driver::sys::CUdevice_attribute as A;
        crate::gpu::driver_present()?;
        let no_gpu = |e| RuntimeError::NoGpu {
            why: "no usable GPU (device 0 could not be read)".into(),
            source: Some(e),
        };
        result::init().map_err(no_gpu)?;
        let dev = result::device::get(0).map_err(no_gpu)?;
        // SAFETY: `dev` is a valid device handle; each call writes one int.
        let cc = |a| unsafe { result::device::get_attribute(dev, a) };
        let major = cc(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
            .map_err(RuntimeError::driver("compute capability"))?;
        let minor = cc(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
            .map_err(RuntimeError::driver("compute capability"))?;
        Ok(Device {
            name: result::device::get_name(dev).unwrap_or_else(|_| "GPU".into()),
            arch: crate::gpu::arch_of(major, minor),
            driver: driver_version()?,
        })
    }
}

/// The driver's version (`cuDriverGetVersion`).
fn driver_version() -> Result<i32> {
    let mut driver = 0;
    // SAFETY: cuDriverGetVersion writes one int; the driver is loaded (a context is open, or
    // `Device::probe` initialized it).
    let r = unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut driver) };
    r.result()
        .map_err(RuntimeError::driver("cuDriverGetVersion"))?;
    Ok(driver)
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({}, driver {}.{})",
            self.name,
            self.arch,
            self.driver / 1000,
            self.driver % 1000 / 10
        )
    }
}

/// The shapes one tuned plan stands for: a dtype, a layout, and M, N and K each rounded up to a
/// power of two (M = 1000 and 1024 share a class; 1024 and 1025 do not).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ShapeClass {
    /// `f32`, `bf16`, ...
    pub dtype: String,
    /// `NN`, `NT`, `TN`, `TT`.
    pub layout: String,
    pub m: i64,
    pub n: i64,
    pub k: i64,
}

impl ShapeClass {
    /// The class of `(m, n, k)` (sizes below 1 count as 1; past 2^62, 2^62).
    pub fn of(dtype: &str, layout: GemmLayout, (m, n, k): (i64, i64, i64)) -> ShapeClass {
        let up = |x: i64| {
            let x = x.clamp(1, 1 << 62) as u64;
            x.next_power_of_two() as i64
        };
        ShapeClass {
            dtype: dtype.to_string(),
            layout: layout.to_string(),
            m: up(m),
            n: up(n),
            k: up(k),
        }
    }
}

/// The plan a tune found fastest for a class.
#[derive(Debug, Clone, PartialEq)]
pub struct Tuned {
    /// The named kernel.
    pub kernel: String,
    /// Slices of K (1: no split).
    pub splits: i64,
    /// How the slices run (one kernel, parallel or serial split-K, stream-K).
    pub mode: SplitKMode,
    /// Its median time, in milliseconds.
    pub ms: f64,
    /// The shape it was timed at.
    pub at: (i64, i64, i64),
}

/// The tuning results of one device.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub device: Device,
    pub entries: BTreeMap<ShapeClass, Tuned>,
}

impl Table {
    /// An empty table for `device`.
    pub fn new(device: Device) -> Table {
        Table {
            device,
            entries: BTreeMap::new(),
        }
    }

    /// The tuned plan for `(m, n, k)` in `layout`, if its class was tuned.
    pub fn get(&self, dtype: &str, layout: GemmLayout, mnk: (i64, i64, i64)) -> Option<&Tuned> {
        self.entries.get(&ShapeClass::of(dtype, layout, mnk))
    }
}

/// What a selector takes for a shape: the tuned plan of its class when the tuning cache has
/// one, else the heuristic's pick (`codegen::select::pick_in`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selected {
    /// The named kernel.
    pub name: String,
    /// Slices of K (1: no split).
    pub splits: i64,
    /// How the slices run (one kernel, parallel or serial split-K, stream-K).
    pub mode: SplitKMode,
    /// One line per decision.
    pub reasons: Vec<String>,
}

/// The pick of `dtype`'s selector (`f32`, `f16`, `bf16`; `None` for another) for `mnk` in
/// `layout` on `target`: this device's tuned plan of the shape's class first (`tuned`, from
/// [`load`]; an entry naming a kernel the selector does not take is not trusted), else the
/// heuristic's.
pub fn selected(
    dtype: &str,
    target: cute_codegen::Target,
    tuned: Option<&Table>,
    layout: GemmLayout,
    mnk: (i64, i64, i64),
) -> Option<Selected> {
    let c = select::pick_in(dtype, layout, mnk, &target)?;
    // a tuned plan the selector would not take here is not used (an SM90 kernel split serially,
    // or on a target without wgmma; a split for a problem of the class too large to split; a GEMV where
    // the problem's rows or K do not suit it)
    let hit = tuned.and_then(|t| t.get(dtype, layout, mnk)).filter(|e| {
        let plan = (e.kernel.as_str(), e.splits, e.mode);
        select::takes_plan_at(dtype, plan, layout, mnk, &target)
    });
    let Some(e) = hit else {
        return Some(Selected {
            name: c.name.to_string(),
            splits: c.splits,
            mode: c.mode,
            reasons: c.reasons,
        });
    };
    let class = ShapeClass::of(dtype, layout, mnk);
    let mut reasons = vec![format!(
        "tuned on this device for {dtype} {layout} {}x{}x{} (M, N, K rounded up to powers of two): {} ms at {}x{}x{}",
        class.m, class.n, class.k, e.ms, e.at.0, e.at.1, e.at.2
    )];
    reasons.push(format!(
        "the heuristic would take {}, {} slices:",
        c.name, c.splits
    ));
    reasons.extend(c.reasons.iter().map(|r| format!("  {r}")));
    Some(Selected {
        name: e.kernel.clone(),
        splits: e.splits,
        mode: e.mode,
        reasons,
    })
}

/// What reading the cache found.
#[derive(Debug, Clone, PartialEq)]
pub enum Load {
    /// No file yet.
    Missing,
    /// A file written for this device and driver.
    Fresh(Table),
    /// A file written for another device or driver: not used, rebuilt by the next tune.
    Stale { was: Device },
    /// A file that does not hold: why, not used, rebuilt by the next tune.
    Corrupt(String),
}

impl Load {
    /// The table to use: this device's, else none.
    pub fn table(&self) -> Option<&Table> {
        match self {
            Load::Fresh(t) => Some(t),
            _ => None,
        }
    }

    /// What a person should be told about the cache at `path` (one line).
    pub fn describe(&self, path: &Path) -> String {
        let p = path.display();
        match self {
            Load::Missing => format!("no tuning cache yet ({p}; `cute tune` makes it)"),
            Load::Fresh(t) => format!("tuning cache {p}: {} classes tuned", t.entries.len()),
            Load::Stale { was } => {
                format!("tuning cache {p} was tuned on {was}: not used, the next tune rebuilds it")
            }
            Load::Corrupt(why) => {
                format!(
                    "tuning cache {p} is corrupted ({why}): not used, the next tune rebuilds it"
                )
            }
        }
    }
}

/// The cache file.
pub fn path() -> PathBuf {
    cache::dir().join("tuning.txt")
}

/// Reads the cache at `path` for `device`.
pub fn load_from(path: &Path, device: &Device) -> Load {
    use std::io::Read;
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Load::Missing,
        Err(e) => return Load::Corrupt(format!("cannot read it: {e}")),
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Load::Corrupt("not a regular file".into());
    }
    // at most one byte past the limit, whatever the file claims to hold
    let mut bytes = Vec::new();
    if let Err(e) = file.take(MAX_BYTES + 1).read_to_end(&mut bytes) {
        return Load::Corrupt(format!("cannot read it: {e}"));
    }
    if bytes.len() as u64 > MAX_BYTES {
        return Load::Corrupt(format!("more than a cache holds ({MAX_BYTES} bytes)"));
    }
    decode(&bytes, device)
}

/// Reads the cache for `device`.
pub fn load(device: &Device) -> Load {
    load_from(&path(), device)
}

/// Adds `results` to the cache at `path` in one write: this device's entries are kept (a class
/// tuned again is replaced), a stale, corrupted or missing file is replaced by the results alone.
pub fn record_at(path: &Path, device: &Device, results: Vec<(ShapeClass, Tuned)>) -> Result<()> {
    // what would not read back is refused before the file is touched
    for (c, e) in &results {
        let line = encode_entry(c, e);
        if parse_entry(line.trim_end()).is_none_or(|(back, _)| back != *c) {
            return Err(RuntimeError::Problem(format!(
                "tuning cache: the entry {:?} would not read back",
                line.trim_end()
            )));
        }
    }
    let mut table = match load_from(path, device) {
        Load::Fresh(t) => t,
        _ => Table::new(device.clone()),
    };
    table.entries.extend(results);
    write_atomically(path, &encode(&table))
}

/// [`record_at`] the cache's own path.
pub fn record(device: &Device, results: Vec<(ShapeClass, Tuned)>) -> Result<PathBuf> {
    let p = path();
    record_at(&p, device, results)?;
    Ok(p)
}

/// Writes `text` to a temporary file beside `path`, then renames it over `path`: a reader sees
/// the old file or the new one, never half of one.
fn write_atomically(path: &Path, text: &str) -> Result<()> {
    let fail = |what: &str, e: std::io::Error| {
        RuntimeError::Problem(format!("tuning cache: {what} {}: {e}", path.display()))
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| fail("cannot create the folder of", e))?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        use std::io::Write;
        f.write_all(text.as_bytes())?;
        // on disk before the rename makes it the cache
        f.sync_all()
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail("cannot write beside", e));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail("cannot replace", e)
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The file's text for `t`.
pub fn encode(t: &Table) -> String {
    let d = &t.device;
    let mut body = format!(
        "{MAGIC}\nformat\t{FORMAT}\ndevice\t{}\t{}\t{}\n",
        d.name, d.arch, d.driver
    );
    for (c, e) in &t.entries {
        body += &encode_entry(c, e);
    }
    let sum = hex(&Sha256::digest(body.as_bytes()));
    body + "sha256\t" + &sum + "\n"
}

/// An entry's line: the class, the kernel, its slices and their mode (`none` unsplit,
/// `parallel`, `serial`, `stream`: `SplitKMode::word`), the time and the shape timed.
fn encode_entry(c: &ShapeClass, e: &Tuned) -> String {
    format!(
        "entry\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
        c.dtype,
        c.layout,
        c.m,
        c.n,
        c.k,
        e.kernel,
        e.splits,
        e.mode.word(),
        e.ms,
        e.at.0,
        e.at.1,
        e.at.2
    )
}

/// Reads a file's bytes for `device`.
pub fn decode(bytes: &[u8], device: &Device) -> Load {
    match parse(bytes) {
        Ok(t) if t.device == *device => Load::Fresh(t),
        Ok(t) => Load::Stale { was: t.device },
        Err(why) => Load::Corrupt(why),
    }
}

/// The table a file holds, or why it does not hold.
fn parse(bytes: &[u8]) -> std::result::Result<Table, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())?;
    let body_end = text
        .rfind("sha256\t")
        .ok_or("no checksum line".to_string())?;
    let (body, sum) = text.split_at(body_end);
    let sum = sum["sha256\t".len()..].trim_end_matches('\n');
    if sum != hex(&Sha256::digest(body.as_bytes())) {
        return Err("its checksum does not match its contents".into());
    }
    let mut lines = body.lines();
    if lines.next() != Some(MAGIC) {
        return Err(format!("its first line is not `{MAGIC}`"));
    }
    match lines.next() {
        Some(l) if l == format!("format\t{FORMAT}") => {}
        other => return Err(format!("format line {other:?}, this build reads {FORMAT}")),
    }
    let device = lines
        .next()
        .and_then(parse_device)
        .ok_or("no device line")?;
    let mut table = Table::new(device);
    for (i, line) in lines.enumerate() {
        let (c, e) = parse_entry(line).ok_or_else(|| format!("entry {} does not parse", i + 1))?;
        table.entries.insert(c, e);
    }
    Ok(table)
}

fn parse_device(line: &str) -> Option<Device> {
    let f: Vec<&str> = line.split('\t').collect();
    match f.as_slice() {
        ["device", name, arch, driver] => Some(Device {
            name: name.to_string(),
            arch: arch.to_string(),
            driver: driver.parse().ok()?,
        }),
        _ => None,
    }
}

/// An entry line, if every field holds: a known layout, power-of-two class sizes, a kernel the
/// dtype's selector takes in this build in those slices and that mode (`select::takes_plan` on
/// an sm_90a target: the entry is checked against the device when it is used), slices in
/// 1..=[`MAX_SPLITS`], a finite positive time, a shape in its class.
fn parse_entry(line: &str) -> Option<(ShapeClass, Tuned)> {
    let f: Vec<&str> = line.split('\t').collect();
    let ["entry", dtype, layout, m, n, k, kernel, splits, mode, ms, am, an, ak] = f.as_slice()
    else {
        return None;
    };
    let int = |s: &str| s.parse::<i64>().ok().filter(|&x| x >= 1);
    let layout = GemmLayout::parse(layout)?;
    let at = (int(am)?, int(an)?, int(ak)?);
    let class = ShapeClass::of(dtype, layout, at);
    let given = (int(m)?, int(n)?, int(k)?);
    let splits = int(splits)?;
    let mode = SplitKMode::parse(mode)?;
    let ms: f64 = ms.parse().ok()?;
    let target = cute_codegen::Target::default();
    let ok = given == (class.m, class.n, class.k)
        && select::takes_plan(dtype, kernel, splits, mode, &target)
        && splits <= MAX_SPLITS
        && ms.is_finite()
        && ms > 0.0;
    ok.then(|| {
        let tuned = Tuned {
            kernel: kernel.to_string(),
            splits,
            mode,
            ms,
            at,
        };
        (class, tuned)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_reads_what_an_opened_device_reads() {
        match (Device::probe(), Gpu::open()) {
            (Ok(p), Ok(g)) => assert_eq!(p, Device::of(&g).unwrap()),
            // no driver or no GPU here; or a device that can be read but not opened (another
            // process holds it exclusively)
            (Err(_), Err(_)) | (Ok(_), Err(_)) => {}
            (Err(p), Ok(g)) => panic!("the probe failed ({p}) where {} opened", g.name),
        }
    }

    fn device() -> Device {
        Device {
            name: "NVIDIA H200".into(),
            arch: "sm_90a".into(),
            driver: 13000,
        }
    }

    fn layout(s: &str) -> GemmLayout {
        GemmLayout::parse(s).expect("a layout")
    }

    fn result(m: i64, kernel: &str, splits: i64) -> (ShapeClass, Tuned) {
        let at = (m, 4096, 4096);
        let tuned = Tuned {
            kernel: kernel.into(),
            splits,
            mode: SplitKMode::split(splits, splits == 4),
            ms: 0.0345,
            at,
        };
        (ShapeClass::of("f32", layout("NN"), at), tuned)
    }

    fn table() -> Table {
        let mut t = Table::new(device());
        t.entries.extend([
            result(1, "sgemm-sm80-16x128", 13),
            result(100, "sgemm-sm80", 4),
        ]);
        t
    }

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cute-tuning-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d.join("tuning.txt")
    }

    #[test]
    fn classes_round_up_to_powers_of_two() {
        let c = ShapeClass::of("f32", layout("TN"), (1000, 17, 300));
        assert_eq!((c.m, c.n, c.k, c.layout.as_str()), (1024, 32, 512, "TN"));
        assert_eq!(ShapeClass::of("f32", layout("TN"), (1024, 32, 512)), c);
        assert_ne!(ShapeClass::of("f32", layout("TN"), (1025, 32, 512)), c);
        let huge = ShapeClass::of("f32", layout("NN"), (i64::MAX, 0, -5));
        assert_eq!((huge.m, huge.n, huge.k), (1 << 62, 1, 1));
    }

    #[test]
    fn a_table_reads_back_and_answers_its_classes() {
        let t = table();
        let text = encode(&t);
        assert!(text.starts_with("cute tuning cache\nformat\t2\ndevice\tNVIDIA H200\tsm_90a\t13000\nentry\tf32\tNN\t1\t4096\t4096\tsgemm-sm80-16x128\t13\tparallel\t0.0345\t1\t4096\t4096\n"), "{text}");
        assert_eq!(decode(text.as_bytes(), &device()), Load::Fresh(t.clone()));
        let hit = t
            .get("f32", layout("NN"), (128, 3000, 4000))
            .expect("a hit");
        assert_eq!(
            (hit.kernel.as_str(), hit.splits, hit.mode),
            ("sgemm-sm80", 4, SplitKMode::Serial)
        );
        assert!(text.contains("\tsgemm-sm80\t4\tserial\t"), "{text}");
        assert_eq!(t.get("f32", layout("TN"), (128, 3000, 4000)), None);
        assert_eq!(t.get("bf16", layout("NN"), (128, 3000, 4000)), None);
    }

    #[test]
    fn another_device_or_driver_makes_it_stale() {
        let text = encode(&table());
        let newer = Device {
            driver: 13010,
            ..device()
        };
        assert_eq!(
            decode(text.as_bytes(), &newer),
            Load::Stale { was: device() }
        );
        let h100 = Device {
            name: "NVIDIA H100 80GB HBM3".into(),
            ..device()
        };
        assert!(matches!(decode(text.as_bytes(), &h100), Load::Stale { .. }));
    }

    #[test]
    fn every_corruption_is_refused() {
        let good = encode(&table());
        let flipped = good.replacen("0.0345", "0.0344", 1);
        let truncated = &good[..good.len() - 10];
        let no_sum = &good[..good.find("sha256").expect("a sum")];
        for (bytes, why) in [
            (flipped.as_bytes(), "checksum"),
            (truncated.as_bytes(), "checksum"),
            (no_sum.as_bytes(), "no checksum"),
            (&[0xff, 0xfe, 0x00][..], "UTF-8"),
            (b"" as &[u8], "no checksum"),
        ] {
            match decode(bytes, &device()) {
                Load::Corrupt(w) => assert!(w.contains(why), "{w} for {why}"),
                other => panic!("{other:?} for {why}"),
            }
        }
    }

    /// A file whose checksum holds but whose lines do not (written by hand or by another build)
    /// is refused too.
    #[test]
    fn a_checksummed_file_with_bad_entries_is_refused() {
        let resum = |t: &str| {
            let body = &t[..t.find("sha256").expect("a sum")];
            format!("{body}sha256\t{}\n", hex(&Sha256::digest(body.as_bytes())))
        };
        let good = encode(&table());
        for bad in [
            good.replace("sgemm-sm80-16x128", "sgemm-sm99"),
            // a kernel of another dtype's selector
            good.replace("sgemm-sm80-16x128", "bgemm-sm80"),
            good.replace("entry\tf32", "entry\tf64"),
            good.replace("\t13\t", "\t0\t"),
            good.replace("\t13\t", "\t99999\t"),
            good.replace("0.0345", "NaN"),
            good.replace("0.0345", "-1"),
            good.replace("\tNN\t", "\tXY\t"),
            good.replace("entry\tf32\tNN\t1\t", "entry\tf32\tNN\t2\t"),
            good.replace("format\t2", "format\t1"),
            // a mode that disagrees with the slices, or serial past SERIAL_MAX_SPLITS
            good.replace("\t13\tparallel", "\t13\tserial"),
            good.replace("\t13\tparallel", "\t13\tnone"),
            good.replace("\t4\tserial", "\t1\tserial"),
            good.replace("\t4\tserial", "\t4\tstream"),
            good.replace("\tparallel\t", "\tsideways\t"),
            good.replace("cute tuning cache", "cute tuning cash"),
            good.replace("\t13000", "\tthirteen"),
            good.replace("\t0.0345\t1\t4096\t4096", "\t0.0345\t1\t4096"),
        ] {
            assert!(
                matches!(decode(resum(&bad).as_bytes(), &device()), Load::Corrupt(_)),
                "{bad}"
            );
        }
    }

    #[test]
    fn recording_keeps_this_devices_entries_and_replaces_the_rest() {
        let p = temp("record");
        assert_eq!(load_from(&p, &device()), Load::Missing);
        record_at(&p, &device(), vec![result(1, "sgemm-sm80-16x128", 13)]).expect("written");
        record_at(&p, &device(), vec![result(100, "sgemm-sm80", 4)]).expect("written");
        assert_eq!(load_from(&p, &device()), Load::Fresh(table()));
        // a class tuned again is replaced
        record_at(&p, &device(), vec![result(1, "sgemm-sm80", 2)]).expect("written");
        let t = load_from(&p, &device()).table().cloned().expect("fresh");
        assert_eq!(t.entries.len(), 2);
        assert_eq!(
            t.get("f32", layout("NN"), (1, 4096, 4096))
                .map(|e| e.splits),
            Some(2)
        );
        // another driver's tune replaces the file; a corrupted file is replaced too
        let newer = Device {
            driver: 13010,
            ..device()
        };
        record_at(&p, &newer, vec![result(1, "sgemm-sm80", 8)]).expect("written");
        let t = load_from(&p, &newer).table().cloned().expect("fresh");
        assert_eq!(t.entries.len(), 1);
        std::fs::write(&p, "cute tuning cache\ngarbage").expect("written");
        // an entry that would not read back is refused, the file untouched
        let mut bad = result(1, "sgemm-sm80", 8);
        bad.1.ms = f64::NAN;
        assert!(record_at(&p, &newer, vec![bad]).is_err());
        assert_eq!(
            std::fs::read(&p).expect("read"),
            b"cute tuning cache\ngarbage"
        );
        assert!(matches!(load_from(&p, &newer), Load::Corrupt(_)));
        record_at(&p, &newer, vec![result(1, "sgemm-sm80", 8)]).expect("written");
        assert_eq!(
            load_from(&p, &newer).table().map(|t| t.entries.len()),
            Some(1)
        );
        let leftovers = std::fs::read_dir(p.parent().expect("a folder"))
            .expect("listed")
            .count();
        assert_eq!(leftovers, 1, "no temporary file is left");
        let _ = std::fs::remove_dir_all(p.parent().expect("a folder"));
    }

    #[test]
    fn an_oversized_file_is_not_read() {
        let p = temp("big");
        std::fs::create_dir_all(p.parent().expect("a folder")).expect("made");
        std::fs::write(&p, vec![b'x'; MAX_BYTES as usize + 1]).expect("written");
        match load_from(&p, &device()) {
            Load::Corrupt(w) => assert!(w.contains("more than a cache holds"), "{w}"),
            other => panic!("{other:?}"),
        }
        // not a regular file (a folder; a FIFO or /dev/zero would never end a plain read)
        match load_from(p.parent().expect("a folder"), &device()) {
            Load::Corrupt(w) => assert!(w.contains("not a regular file"), "{w}"),
            other => panic!("{other:?}"),
        }
        let _ = std::fs::remove_dir_all(p.parent().expect("a folder"));
    }

    #[test]
    fn the_selector_takes_a_tuned_plan_of_the_class_first() {
        let t = table();
        let target = cute_codegen::Target::default();
        let pick = |t: Option<&Table>, l: &str| {
            selected("f32", target, t, layout(l), (1, 3000, 4096)).expect("an FP32 pick")
        };
        let s = pick(Some(&t), "NN");
        assert_eq!((s.name.as_str(), s.splits), ("sgemm-sm80-16x128", 13));
        assert!(
            s.reasons[0].starts_with("tuned on this device for f32 NN 1x4096x4096"),
            "{s:?}"
        );
        // another class, or no table: the heuristic
        let h = pick(Some(&t), "TN");
        assert_eq!(h, pick(None, "TN"));
        // one row of C, B K-major and under 2^24 values: the GEMV
        assert_eq!((h.name.as_str(), h.splits), ("sgemm-gemv", 1));
        // B N-major (NT, not tuned): the heuristic's, the N-major GEMV
        let nt = pick(Some(&t), "NT");
        assert_eq!(nt, pick(None, "NT"));
        assert_eq!((nt.name.as_str(), nt.splits), ("sgemm-gemv", 1));
        // a tuned kernel the selector does not take is not trusted
        let mut odd = t.clone();
        for e in odd.entries.values_mut() {
            e.kernel = "hgemm-sm80".into();
        }
        let s = pick(Some(&odd), "NN");
        assert_eq!(s, pick(None, "NN"));
        // another dtype's entries are its own; a dtype without a selector has no pick
        let bf16 = selected("bf16", target, Some(&t), layout("NN"), (1, 3000, 4096));
        assert_eq!(bf16.map(|s| s.name), Some("bgemm-sm80-16x128".to_string()));
        assert_eq!(
            selected("tf32", target, Some(&t), layout("NN"), (1, 1, 1)),
            None
        );
        // a split tuned in a class is not taken by a problem of it too large to split
        let mut long = Table::new(device());
        let at = (1, 4096, 300_000);
        let tuned = Tuned {
            kernel: "sgemm-sm80-16x128".into(),
            splits: 12,
            mode: SplitKMode::Parallel,
            ms: 1.0,
            at,
        };
        long.entries
            .insert(ShapeClass::of("f32", layout("NN"), at), tuned);
        let fits = selected("f32", target, Some(&long), layout("NN"), at).expect("a pick");
        assert_eq!(fits.splits, 12);
        let wide = (1, 4096, 1 << 19);
        let s = selected("f32", target, Some(&long), layout("NN"), wide).expect("a pick");
        assert_eq!(s.splits, 1, "{s:?}");
        assert!(s.reasons[1].contains("beyond 2^31 - 1 elements"), "{s:?}");
    }

    #[test]
    fn describe_says_what_was_found() {
        let p = Path::new("/c/tuning.txt");
        assert_eq!(
            Load::Fresh(table()).describe(p),
            "tuning cache /c/tuning.txt: 2 classes tuned"
        );
        assert!(Load::Stale { was: device() }
            .describe(p)
            .contains("was tuned on NVIDIA H200 (sm_90a, driver 13.0)"));
        assert!(Load::Corrupt("x".into())
            .describe(p)
            .contains("corrupted (x)"));
    }
}
