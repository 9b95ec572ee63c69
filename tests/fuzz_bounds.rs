//! The bound on the work of one expression: random and mutated expressions each evaluate (to a
//! value or an error) within 1 s and 1 GiB, without a panic or a stack overflow.
//!
//! The cases are random calls of every function and method over hostile values (static, dynamic,
//! symbolic, huge, negative; swizzled layouts, tensors, atoms, tiled copies and MMAs), nested a few
//! levels, and mutations of the oracle expressions (a value replaced by a hostile one, a function
//! renamed, a subexpression repeated or wrapped). Each case runs on a thread with the main
//! thread's 8 MiB stack; a counting allocator records the peak memory of each case.
//!
//! CI runs `FUZZ_BOUNDS_CASES` cases (20,000 by default); the bar is a run of 1,000,000 by hand:
//! `FUZZ_BOUNDS_CASES=1000000 cargo test --release --test fuzz_bounds -- --nocapture`
//! (`FUZZ_BOUNDS_SEED` picks another sequence). A failure prints the expression.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use cute::layout::expr::{eval, FUNCTIONS};

/// Counts live bytes and the peak since the last reset.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Allocations beyond this fail (so a runaway case is a reported failure, not a dead machine).
const HARD_LIMIT: usize = 4 << 30;
const MEMORY_BAR: usize = 1 << 30;
const TIME_BAR: Duration = Duration::from_secs(1);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        if now > HARD_LIMIT {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            return std::ptr::null_mut();
        }
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: the caller's layout is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

mod common;
use common::Rng;

const HOSTILE: &[&str] = &[
    "_0",
    "_1",
    "_2",
    "_3",
    "_4",
    "_8",
    "_16",
    "_32",
    "_-1",
    "_-4",
    "0",
    "1",
    "2",
    "3",
    "4",
    "7",
    "8",
    "-1",
    "-8",
    "M",
    "N",
    "K",
    "ldA",
    "tid",
    "M+1",
    "2*N",
    "(M+127)/128",
    "_65536",
    "_4611686018427387904",
    "_9223372036854775807",
    "9223372036854775807",
    "_-9223372036854775808",
    "1099511627776",
    "_1024",
    "65536",
];

const ATOMS: &[&str] = &[
    "Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>",
    "Copy_Atom<UniversalCopy<uint32_t>, float>",
    "Copy_Atom<UniversalCopy<uint128_t>, half_t>",
    "Copy_Atom<SM75_U32x4_LDSM_N, half_t>",
    "Copy_Atom<SM75_U16x8_LDSM_T, half_t>",
    "Copy_Atom<DefaultCopy, float>",
    "MMA_Atom<UniversalFMA<float>>",
    "MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>",
    "MMA_Atom<SM80_16x8x8_F32TF32TF32F32_TN>",
    "MMA_Atom<SM80_16x8x32_S32S8S8S32_TN>",
    "MMA_Atom<SM75_16x8x8_F32F16F16F32_TN>",
];

const METHODS: &[&str] = &[
    "tidfrg_S",
    "tidfrg_D",
    "get_layoutS_TV",
    "get_layoutD_TV",
    "get_layoutS_MN",
    "retile",
    "thrfrg_A",
    "thrfrg_B",
    "thrfrg_C",
    "get_layoutA_TV",
    "get_layoutB_TV",
    "get_layoutC_TV",
    "get_slice",
    "partition_S",
    "partition_D",
    "partition_A",
    "partition_B",
    "partition_C",
    "partition_fragment_A",
    "partition_fragment_B",
    "partition_fragment_C",
    "retile_S",
    "retile_D",
];

fn int(r: &mut Rng) -> String {
    r.pick(HOSTILE).to_string()
}

fn tuple(r: &mut Rng, depth: usize) -> (String, String) {
    if depth == 0 || r.chance(3) {
        return (int(r), int(r));
    }
    let n = r.below(5);
    let (a, b): (Vec<_>, Vec<_>) = (0..n).map(|_| tuple(r, depth - 1)).unzip();
    (format!("({})", a.join(",")), format!("({})", b.join(",")))
}

fn layout(r: &mut Rng) -> String {
    let (s, d) = tuple(r, 3);
    format!("{s}:{d}")
}

fn value(r: &mut Rng, depth: usize) -> String {
    match r.below(if depth == 0 { 8 } else { 12 }) {
        0..=2 => layout(r),
        3 => tuple(r, 3).0,
        4 => int(r),
        5 => format!(
            "composition(Swizzle<{},{},{}>, {})",
            r.below(4),
            r.below(5),
            r.pick(&["3", "4", "-3", "2", "5"]),
            layout(r)
        ),
        6 => format!(
            "make_tensor(make_{}_ptr<float>(A), {})",
            r.pick(&["gmem", "smem"]),
            layout(r)
        ),
        7 => r.pick(ATOMS).to_string(),
        8 => format!("make_tiled_mma({}, {})", r.pick(ATOMS), value(r, depth - 1)),
        9 => format!(
            "make_tiled_copy({}, {}, {})",
            r.pick(ATOMS),
            value(r, depth - 1),
            value(r, depth - 1)
        ),
        10 => format!("make_identity_tensor({})", tuple(r, 2).0),
        _ => call(r, depth - 1),
    }
}

fn call(r: &mut Rng, depth: usize) -> String {
    if r.chance(4) {
        let target = value(r, depth);
        let args: Vec<String> = (0..r.below(3)).map(|_| value(r, depth)).collect();
        return format!("({target}).{}({})", r.pick(METHODS), args.join(", "));
    }
    let name = r.pick(FUNCTIONS);
    let targs = if r.chance(5) {
        format!(
            "<{}>",
            r.pick(&["1", "0", "2", "1,0", "4", "64", "-1", "half_t,float"])
        )
    } else {
        String::new()
    };
    let args: Vec<String> = (0..r.below(4)).map(|_| value(r, depth)).collect();
    format!("{name}{targs}({})", args.join(", "))
}

/// A chain of up to 40 algebra operations applied to one value: what grows with nesting (ranks
/// doubling, symbolic expressions compounding) shows here.
fn chain(r: &mut Rng) -> String {
    let mut e = match r.below(3) {
        0 => layout(r),
        1 => format!(
            "({},{}):(_1,{})",
            r.pick(&["M", "4", "_8"]),
            r.pick(&["N", "M", "4"]),
            r.pick(&["M", "4", "_8"])
        ),
        _ => format!("composition(Swizzle<2,3,3>, {})", layout(r)),
    };
    let tilers = [
        "(_2,_2):(_1,_2)",
        "_4:_1",
        "(_3,_2):(_1,_3)",
        "make_tile(_2,_4)",
        "(_2,_4):(_4,_1)",
        "(M,_2):(_1,M)",
    ];
    for _ in 0..1 + r.below(40) {
        let t = r.pick(&tilers);
        e = match r.below(10) {
            0 => format!("composition({e}, {t})"),
            1 => format!("logical_divide({e}, {t})"),
            2 => format!("zipped_divide({e}, {t})"),
            3 => format!("logical_product({e}, {t})"),
            4 => format!("blocked_product({e}, {t})"),
            5 => format!("coalesce({e})"),
            6 => format!("tile_to_shape({e}, (M,N))"),
            7 => format!("upcast<2>({e})"),
            8 => format!("make_layout_like({e})"),
            _ => format!("right_inverse({e})"),
        };
    }
    e
}

/// A mutation of an oracle expression.
fn mutate(r: &mut Rng, src: &str) -> String {
    let mut s = src.to_string();
    for _ in 0..1 + r.below(3) {
        s = match r.below(5) {
            // a value replaced by a hostile one
            0 => {
                let starts: Vec<usize> = s
                    .char_indices()
                    .filter(|(i, c)| {
                        c.is_ascii_digit()
                            && !s[..*i].ends_with(|p: char| p.is_ascii_alphanumeric())
                    })
                    .map(|(i, _)| i)
                    .collect();
                if starts.is_empty() {
                    s
                } else {
                    let i = starts[r.below(starts.len())];
                    let j = s[i..]
                        .find(|c: char| !c.is_ascii_digit())
                        .map_or(s.len(), |k| i + k);
                    format!("{}{}{}", &s[..i], int(r).trim_start_matches('_'), &s[j..])
                }
            }
            // wrapped in a function
            1 => format!(
                "{}({s}{})",
                r.pick(FUNCTIONS),
                if r.chance(2) {
                    format!(", {}", value(r, 1))
                } else {
                    String::new()
                }
            ),
            // composed with itself
            2 => format!(
                "{}({s}, {s})",
                r.pick(&[
                    "composition",
                    "logical_divide",
                    "zipped_divide",
                    "logical_product",
                    "blocked_product",
                    "raked_product"
                ])
            ),
            // a function renamed
            3 => match s.find('(') {
                Some(i)
                    if s[..i]
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_') =>
                {
                    format!("{}{}", r.pick(FUNCTIONS), &s[i..])
                }
                _ => s,
            },
            // a cut
            _ => {
                let cut = r.below(s.len() + 1);
                let cut = (0..=cut)
                    .rev()
                    .find(|&k| s.is_char_boundary(k))
                    .unwrap_or(0);
                s[..cut].to_string()
            }
        };
    }
    s
}

fn oracle_expressions() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle");
    let mut out = Vec::new();
    for f in [
        "algebra.tsv",
        "tiled.tsv",
        "cute-extra.tsv",
        "cute-swizzle.tsv",
    ] {
        let text = std::fs::read_to_string(dir.join(f)).unwrap_or_default();
        out.extend(
            text.lines()
                .filter_map(|l| l.split_once('\t'))
                .map(|(e, _)| e.to_string()),
        );
    }
    out
}

/// Runs `src` on a thread with an 8 MiB stack: its time and peak memory, or why it failed.
fn run(src: String) -> Result<(Duration, usize), String> {
    let (tx, rx) = mpsc::channel();
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let worker = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            let t = Instant::now();
            let ok = std::panic::catch_unwind(|| drop(eval(&src))).is_ok();
            let _ = tx.send((ok, t.elapsed()));
        })
        .map_err(|e| e.to_string())?;
    match rx.recv_timeout(TIME_BAR * 10) {
        Ok((true, t)) => {
            let _ = worker.join();
            Ok((t, PEAK.load(Ordering::Relaxed).saturating_sub(base)))
        }
        Ok((false, _)) => Err("panicked".into()),
        Err(_) => Err(format!("still running after {:?}", TIME_BAR * 10)),
    }
}

#[test]
fn every_expression_ends_within_a_second_and_a_gibibyte() {
    let cases: usize = std::env::var("FUZZ_BOUNDS_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let seed: u64 = std::env::var("FUZZ_BOUNDS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    let mut r = Rng(seed | 1);
    let oracle = oracle_expressions();
    let (mut slowest, mut largest) = ((Duration::ZERO, String::new()), (0, String::new()));
    let mut failures = Vec::new();
    // Time only counts in optimised builds; a debug build is ~30x slower.
    let time_bar = if cfg!(debug_assertions) {
        TIME_BAR * 30
    } else {
        TIME_BAR
    };
    for i in 0..cases {
        let src = if i % 3 == 0 {
            call(&mut r, 2)
        } else if i % 3 == 1 {
            chain(&mut r)
        } else {
            let k = r.below(oracle.len());
            mutate(&mut r, &oracle[k])
        };
        match run(src.clone()) {
            Ok((t, bytes)) => {
                if t > slowest.0 {
                    slowest = (t, src.clone());
                }
                if bytes > largest.0 {
                    largest = (bytes, src.clone());
                }
                if t > time_bar || bytes > MEMORY_BAR {
                    failures.push(format!("{t:?}, {} MiB: {src}", bytes >> 20));
                }
            }
            Err(why) => {
                failures.push(format!("{why}: {src}"));
                if why.starts_with("still running") {
                    break;
                }
            }
        }
    }
    println!(
        "{cases} cases; slowest {:?}: {}\nlargest {} KiB: {}",
        slowest.0,
        slowest.1.chars().take(300).collect::<String>(),
        largest.0 >> 10,
        largest.1.chars().take(300).collect::<String>()
    );
    assert!(
        failures.is_empty(),
        "{} cases broke the bound:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .map(|f| f.chars().take(400).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
