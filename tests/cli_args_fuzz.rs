//! Fuzzing the `cute` command line: every command with a few hundred argument vectors, valid and
//! hostile values mixed (empty strings, huge and negative numbers, missing option values, repeated
//! and unknown options, unicode, control characters, 100 KB strings, deeply nested expressions,
//! odd `--bits`, junk layouts and unrolls, unknown kernels, unwritable `--report` paths).
//!
//! The rule: no input makes the binary panic or die of a signal. A process fails the test if a
//! signal ends it, it exits with 101 (Rust's panic status), its standard error mentions
//! "panicked" or "RUST_BACKTRACE", or it runs past a generous time limit. The vectors come from a
//! fixed-seed xorshift, so a failure reproduces.

use std::io::{Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A deterministic xorshift64* generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T: ?Sized>(&mut self, xs: &[&'a T]) -> &'a T {
        xs[self.below(xs.len())]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// One invocation: the arguments and, optionally, standard input.
#[derive(Clone)]
struct Case {
    args: Vec<String>,
    stdin: Option<Vec<u8>>,
}

fn case(args: &[&str]) -> Case {
    Case {
        args: args.iter().map(|s| s.to_string()).collect(),
        stdin: None,
    }
}

fn owned(args: Vec<String>) -> Case {
    Case { args, stdin: None }
}

const COMMANDS: &[&str] = &[
    "eval",
    "print",
    "print-layout",
    "emit",
    "run",
    "check",
    "bench",
    "tune",
    "bank-conflicts",
    "coalescing",
    "draw",
];

/// The named kernels.
const KERNELS: &[&str] = cute::codegen::named::NAMES;

const BAD_KERNELS: &[&str] = &[
    "no-such-kernel",
    "",
    "SGEMM-SM80",
    "sgemm-sm80 ",
    "sgemm-sm80\n",
    "../../etc/passwd",
    "--list",
    "-",
    "--",
    "ｓｇｅｍｍ",
    "naive-rows\u{0}x", // replaced below: NUL cannot be in an argument
];

const LAYOUTS: &[&str] = &["NN", "NT", "TN", "TT"];

/// Hostile values for any option or position.
const HOSTILE: &[&str] = &[
    "",
    " ",
    "0",
    "-0",
    "1",
    "-1",
    "-32",
    "7",
    "1024",
    "99999999999999999999",
    "-99999999999999999999",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "18446744073709551615",
    "4611686018427387904",
    "2147483648",
    "4294967296",
    "1e9",
    "0x10",
    "+8",
    "NaN",
    "inf",
    "--",
    "-",
    "--m",
    "--layout",
    "--bits",
    "--report",
    "--k-block-unroll",
    "--unknown",
    "-x",
    "--help",
    "日本語",
    "ü",
    "\u{202e}reversed",
    "😀😀😀",
    "\t\r\x0b\x0c\x01\x1b[31m",
    "\x7f",
    "null",
    "true",
    "%s%n%x",
    "$(echo hi)",
];

/// Expressions that evaluate, of every kind the commands take.
const GOOD_EXPRS: &[&str] = &[
    "(_4,_8):(_1,_4)",
    "(_8,_8):(_8,_1)",
    "(_32,_4):(_1,_32)",
    "(_32,_32):(_32,_1)",
    "(_2,_16):(_0,_1)",
    "(_4,(_2,_2)):(_2,(_1,_8))",
    "(_2,_2,_2):(_1,_2,_4)",
    "((_16,_16),(_8,_32)):((_0,_32),(_512,_1))",
    "composition(Swizzle<1,2,3>, (_4,_8):(_8,_1))",
    "composition(Swizzle<3,3,3>, (_64,_8):(_8,_1))",
    "composition(Swizzle<5,0,5>, (_32,_32):(_32,_1))",
    "composition(Swizzle<1,2,3>, ((_16,_16),(_8,_32)):((_0,_32),(_512,_1)))",
    "make_layout((4,3), LayoutRight)",
    "complement((_2,_2):(_1,_6), _24)",
    "logical_divide((_64,_32):(_1,_64), (_16,_8))",
    "size((_4,_8):(_1,_4))",
    "(_4,_8)",
    "_7",
    "make_tiled_copy(Copy_Atom<UniversalCopy<uint64_t>, float>, (_4,_8):(_8,_1), (_1,_2):(_0,_1))",
    "make_tiled_mma(MMA_Atom<SM80_16x8x8_F32TF32TF32F32_TN>)",
    "make_tiled_mma(MMA_Atom<UniversalFMA<float>>, (_16,_16):(_1,_16))",
    "Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>",
    "MMA_Atom<SM80_16x8x8_F32TF32TF32F32_TN>",
    "make_tensor(make_gmem_ptr<float>(A), (_8,_4):(_1,_8))",
    "make_identity_tensor((_8,M))",
    "(M,N):(_1,M)",
];

/// Expressions that should fail (or do something odd) without panicking.
const BAD_EXPRS: &[&str] = &[
    "",
    " ",
    "(",
    ")",
    "()",
    ":",
    "_",
    "_-",
    "_4::_2",
    "(_4,_3):(_1,_4",
    "99999999999999999999",
    "_99999999999999999999",
    "_-9223372036854775808",
    "(_4,_4):(_-9223372036854775808,_1)",
    "(9223372036854775807,2):(1,1)",
    "(_1000000000,_1000000000):(_1,_1)",
    "(_4611686018427387904,_4):(_1,_1)",
    "(_0,_0):(_0,_0)",
    "_0:_0",
    "_-1:_1",
    "(_-4,_8):(_1,_-4)",
    "(_4,_8):(_0,_0)",
    "composition(Swizzle<99,99,99>, (_4,_8):(_8,_1))",
    "composition(Swizzle<-1,-1,-1>, (_4,_8):(_8,_1))",
    "composition(Swizzle<0,0,0>, (_4,_8):(_8,_1))",
    "composition(Swizzle<1,2,3>, _0:_0)",
    "Swizzle<1,2,3>",
    "foo(_1)",
    "size(_4:_1) extra",
    "get<99>((_4,_8):(_1,_4))",
    "get<-1>((_4,_8):(_1,_4))",
    "upcast<0>((_4,_8):(_1,_4))",
    "downcast<0>((_4,_8):(_1,_4))",
    "upcast<-9223372036854775808>((_4,_8):(_1,_4))",
    "ceil_div(_4, _0)",
    "make_tiled_copy(Copy_Atom<UniversalCopy<uint64_t>, float>, (_0,_8):(_8,_1), (_1,_2):(_0,_1))",
    "make_tiled_copy(Copy_Atom<UniversalCopy<uint64_t>, float>, (_-4,_8):(_8,_1), (_1,_2):(_0,_1))",
    "make_tiled_mma(MMA_Atom<UniversalFMA<float>>, (_0,_16):(_1,_16))",
    "make_tiled_mma(MMA_Atom<UniversalFMA<float>>, (_1000000,_1000000):(_1,_1000000))",
    "make_tiled_mma(MMA_Atom<NoSuchAtom>)",
    "Copy_Atom<UniversalCopy<uint7_t>, float>",
    "make_identity_tensor((_-8,M))",
    "blocked_product((_1024,_1024):(_1,_1024), (_1024,_1024):(_1,_1024))",
    "raked_product((_65536,_2):(_1,_65536), (_65536,_2):(_1,_65536))",
    "M",
    "LayoutRight",
    "日本語",
    "(_4,\u{0}_8)", // replaced below
    "\u{feff}(_4,_8):(_1,_4)",
    "(_4,_8):(_1,_4)\n(_2,_2):(_1,_2)",
    "# comment",
    "--bits",
    "--banks",
    "--access",
];

/// An argument may not hold a NUL byte; the tables above mark a would-be NUL with one, which
/// becomes a control character that is allowed.
fn no_nul(s: &str) -> String {
    s.replace('\u{0}', "\u{1}")
}

fn nested_parens(depth: usize, inner: &str) -> String {
    "(".repeat(depth) + inner + &")".repeat(depth)
}

fn nested_calls(f: &str, depth: usize, inner: &str) -> String {
    format!("{f}(").repeat(depth) + inner + &")".repeat(depth)
}

/// Long and deep expressions.
fn monster_exprs() -> Vec<String> {
    let mut v = vec![
        nested_parens(10_000, "_4:_1"),
        nested_parens(10_000, ""),
        "(".repeat(10_000),
        ")".repeat(10_000),
        nested_calls("size", 10_000, "_4"),
        nested_calls("composition", 10_000, "(_4,_8):(_1,_4)"),
        nested_calls("coalesce", 63, "(_4,_8):(_1,_4)"),
        nested_calls("coalesce", 64, "(_4,_8):(_1,_4)"),
        nested_calls("coalesce", 65, "(_4,_8):(_1,_4)"),
        format!("{}:{}", nested_parens(63, "_4"), nested_parens(63, "_1")),
        format!("{}:{}", nested_parens(64, "_4"), nested_parens(64, "_1")),
        format!(
            "{}:{}",
            "(".repeat(5_000) + "_4" + &",_1)".repeat(5_000),
            "(".repeat(5_000) + "_4" + &",_1)".repeat(5_000)
        ),
        format!(
            "({}):({})",
            vec!["_2"; 40].join(","),
            vec!["_1"; 40].join(",")
        ),
        format!(
            "({}):({})",
            vec!["_1"; 20_000].join(","),
            vec!["_0"; 20_000].join(",")
        ),
        "_".to_string() + &"9".repeat(100_000),
        "a".repeat(100_000),
        "x(".repeat(30_000),
        "<".repeat(10_000) + &">".repeat(10_000),
        format!("Swizzle<{}>", vec!["1"; 10_000].join(",")),
        format!("make_layout({})", vec!["_2"; 10_000].join(",")),
        format!("get<{}>((_4,_8):(_1,_4))", vec!["0"; 10_000].join(",")),
        "日本語".repeat(10_000),
    ];
    v.push(format!("{},", nested_parens(3, "_4:_1")).repeat(3_000));
    v
}

/// A hostile value, or occasionally a long or generated one.
fn hostile(rng: &mut Rng) -> String {
    match rng.below(12) {
        0 => "9".repeat(1 + rng.below(40)),
        1 => format!("{}", rng.next() as i64),
        2 => "x".repeat(100_000),
        3 => {
            // random control-ish and unicode characters, no NUL
            let pool = [
                '\x01', '\t', '\n', '\r', '\x1b', '\x7f', 'é', '€', '𝄞', '(', ')', ',', ':', '_',
                '<', '>', '-', '9',
            ];
            (0..1 + rng.below(30))
                .map(|_| pool[rng.below(pool.len())])
                .collect()
        }
        _ => rng.pick(HOSTILE).to_string(),
    }
}

/// A random layout in CuTe notation, leaves mostly small, sometimes hostile.
fn layout_text(rng: &mut Rng) -> String {
    const COMMON: &[&str] = &["_1", "_2", "_4", "_8", "_32", "_0", "_3", "2", "4", "8"];
    const LEAVES: &[&str] = &[
        "_-1",
        "_-4",
        "0",
        "-2",
        "M",
        "_4611686018427387904",
        "_1099511627776",
        "9223372036854775807",
        "_9223372036854775807",
        "_-9223372036854775808",
    ];
    let leaf = |rng: &mut Rng| {
        if rng.chance(85) {
            rng.pick(COMMON).to_string()
        } else {
            rng.pick(LEAVES).to_string()
        }
    };
    let tuple = |rng: &mut Rng, n: usize| -> String {
        if n == 1 {
            leaf(rng)
        } else {
            format!(
                "({})",
                (0..n).map(|_| leaf(rng)).collect::<Vec<_>>().join(",")
            )
        }
    };
    let n = 1 + rng.below(3);
    format!("{}:{}", tuple(rng, n), tuple(rng, n))
}

/// An expression built around random layouts: swizzles, tiled copies and MMAs.
fn built_expr(rng: &mut Rng) -> String {
    let l = layout_text(rng);
    const SW: &[&str] = &["0", "1", "2", "3", "5", "-1", "31", "63", "64", "99"];
    match rng.below(6) {
        0 => l,
        1 => format!(
            "composition(Swizzle<{},{},{}>, {l})",
            rng.pick(SW),
            rng.pick(SW),
            rng.pick(SW)
        ),
        2 => format!(
            "make_tiled_copy(Copy_Atom<UniversalCopy<uint{}_t>, float>, {l}, {})",
            rng.pick(&["32", "64", "128", "16", "8"][..]),
            layout_text(rng)
        ),
        3 => format!("make_tiled_mma(MMA_Atom<UniversalFMA<float>>, {l})"),
        4 => format!("make_tiled_mma(MMA_Atom<SM80_16x8x8_F32TF32TF32F32_TN>, {l})"),
        _ => format!(
            "{}({l}, {})",
            rng.pick(
                &[
                    "logical_divide",
                    "zipped_divide",
                    "blocked_product",
                    "raked_product",
                    "composition",
                    "logical_product"
                ][..]
            ),
            layout_text(rng)
        ),
    }
}

/// An expression: good, bad, built, or a random mangling of a good one.
fn expr(rng: &mut Rng) -> String {
    match rng.below(12) {
        9 | 10 => built_expr(rng),
        11 => no_nul(rng.pick(BAD_EXPRS)),
        0..=3 => rng.pick(GOOD_EXPRS).to_string(),
        4..=6 => no_nul(rng.pick(BAD_EXPRS)),
        7 => hostile(rng),
        _ => {
            // cut, duplicate or splice a good expression
            let e = rng.pick(GOOD_EXPRS);
            let chars: Vec<char> = e.chars().collect();
            let i = rng.below(chars.len() + 1);
            let j = rng.below(chars.len() + 1);
            let (i, j) = (i.min(j), i.max(j));
            match rng.below(3) {
                0 => chars[..i].iter().chain(&chars[j..]).collect(),
                1 => chars[..j].iter().chain(&chars[i..]).collect(),
                _ => {
                    let ins = rng.pick(HOSTILE);
                    chars[..i].iter().collect::<String>()
                        + ins
                        + &chars[i..].iter().collect::<String>()
                }
            }
        }
    }
}

fn bits(rng: &mut Rng) -> String {
    const BITS: &[&str] = &[
        "0",
        "1",
        "7",
        "8",
        "16",
        "32",
        "64",
        "128",
        "256",
        "1024",
        "-32",
        "-1",
        "-9223372036854775808",
        "9223372036854775807",
        "99999999999999999999",
        "",
        "x",
        "32.0",
    ];
    if rng.chance(85) {
        rng.pick(BITS).to_string()
    } else {
        hostile(rng)
    }
}

fn unroll(rng: &mut Rng) -> String {
    const U: &[&str] = &[
        "0",
        "1",
        "2",
        "3",
        "4",
        "8",
        "16",
        "32",
        "64",
        "-8",
        "-1",
        "x",
        "",
        "-9223372036854775808",
        "9223372036854775807",
        "99999999999999999999",
    ];
    if rng.chance(85) {
        rng.pick(U).to_string()
    } else {
        hostile(rng)
    }
}

fn layout_arg(rng: &mut Rng) -> String {
    const L: &[&str] = &["nn", "XY", "", "N", "NNN", "TT ", "ＮＮ", "N\u{301}N"];
    if rng.chance(50) {
        rng.pick(LAYOUTS).to_string()
    } else if rng.chance(60) {
        rng.pick(L).to_string()
    } else {
        hostile(rng)
    }
}

/// A size for `--m/--n/--k`: mostly small or hostile, so `run` never asks for a big compile loop.
fn size(rng: &mut Rng) -> String {
    const S: &[&str] = &[
        "1",
        "17",
        "0",
        "-1",
        "-9223372036854775808",
        "9223372036854775807",
        "99999999999999999999",
        "4096",
        "3037000500",
        "2147483648",
        "",
        "x",
    ];
    if rng.chance(85) {
        rng.pick(S).to_string()
    } else {
        hostile(rng)
    }
}

fn report_path(rng: &mut Rng) -> String {
    let dir = std::env::temp_dir();
    match rng.below(6) {
        0 => dir.display().to_string(),
        1 => "/".to_string(),
        2 => dir
            .join("no-such-dir-cute-fuzz/x/y/report.txt")
            .display()
            .to_string(),
        3 => "/proc/self/nope/report".to_string(),
        4 => "".to_string(),
        _ => dir
            .join("cute-cli-args-fuzz-report.txt")
            .display()
            .to_string(),
    }
}

/// A random argument vector for `cmd`.
fn random_case(rng: &mut Rng, cmd: &str) -> Case {
    let mut a = vec![cmd.to_string()];
    let n = rng.below(5);
    match cmd {
        "eval" | "print" | "print-layout" => {
            for _ in 0..n {
                a.push(expr(rng));
            }
            if cmd == "eval" && n == 0 {
                // read expressions from standard input
                let mut input = Vec::new();
                for _ in 0..1 + rng.below(6) {
                    if rng.chance(20) {
                        input.extend_from_slice(&[0xff, 0xfe, 0x00, b'\n']);
                    } else {
                        input.extend_from_slice(expr(rng).as_bytes());
                        input.push(b'\n');
                    }
                }
                return Case {
                    args: a,
                    stdin: Some(input),
                };
            }
        }
        "bank-conflicts" | "coalescing" | "draw" => {
            let mut items = vec![expr(rng)];
            for _ in 0..n {
                items.push(match rng.below(8) {
                    0 | 1 => "--bits".to_string(),
                    2 | 3 => bits(rng),
                    4 if cmd == "draw" => "--banks".to_string(),
                    5 if cmd == "draw" => "--access".to_string(),
                    6 => expr(rng),
                    _ => hostile(rng),
                });
            }
            // "--bits N" pairs are the common case
            if rng.chance(60) {
                let at = rng.below(items.len() + 1);
                items.insert(at, bits(rng));
                items.insert(at, "--bits".to_string());
            }
            if rng.chance(15) {
                items.push("--bits".to_string()); // missing value
            }
            a.extend(items);
        }
        "emit" | "run" | "check" | "bench" | "tune" => {
            // at most one valid kernel name for run, so NVRTC compiles stay few
            let name = if rng.chance(35) && cmd != "run" {
                rng.pick(KERNELS).to_string()
            } else if rng.chance(50) {
                no_nul(rng.pick(BAD_KERNELS))
            } else {
                hostile(rng)
            };
            let mut items = vec![name];
            for _ in 0..n {
                match rng.below(9) {
                    0 => items.extend(["--layout".to_string(), layout_arg(rng)]),
                    1 => items.extend(["--k-block-unroll".to_string(), unroll(rng)]),
                    2 => {
                        let opt = rng.pick(&["--m", "--n", "--k"][..]).to_string();
                        items.extend([opt, size(rng)]);
                    }
                    3 => items.extend(["--report".to_string(), report_path(rng)]),
                    4 => items.push(
                        rng.pick(
                            &[
                                "--m",
                                "--n",
                                "--k",
                                "--layout",
                                "--report",
                                "--k-block-unroll",
                                "--k-major-tile",
                                "--list",
                            ][..],
                        )
                        .to_string(),
                    ),
                    5 if cmd != "run" => items.push(rng.pick(KERNELS).to_string()),
                    6 => items.push(
                        rng.pick(&["--unknown", "-m", "--M", "--m=1", "--layout=NN"][..])
                            .to_string(),
                    ),
                    _ => items.push(hostile(rng)),
                }
            }
            // "run" with a valid kernel reaches NVRTC: only when a bad option comes first
            if rng.chance(20) {
                let i = rng.below(items.len() + 1);
                items.insert(
                    i,
                    rng.pick(&["--m", "--layout", "--k-block-unroll", "--report"][..])
                        .to_string(),
                );
            }
            a.extend(items);
        }
        _ => unreachable!(),
    }
    owned(a)
}

/// The hand-written nasty cases.
fn hand_cases() -> Vec<Case> {
    let tmp = std::env::temp_dir();
    let tmp_s = tmp.display().to_string();
    let missing = tmp
        .join("no-such-dir-cute-fuzz/sub/report.txt")
        .display()
        .to_string();
    let long = "z".repeat(100_000);
    let mut v: Vec<Case> = vec![
        case(&[]),
        case(&[""]),
        case(&["--help"]),
        case(&["-h"]),
        case(&["help", "extra", "args"]),
        case(&["nonsense"]),
        case(&["EVAL", "_1"]),
        case(&["日本語"]),
        owned(vec![long.clone()]),
        // eval / print / print-layout
        case(&["eval", ""]),
        case(&["eval", "", "", ""]),
        case(&["eval", "99999999999999999999"]),
        case(&["eval", "-9223372036854775808"]),
        case(&["eval", "--bits", "32"]),
        case(&["print", ""]),
        case(&["print"]),
        case(&["print-layout"]),
        case(&["print-layout", ""]),
        case(&["print-layout", "(_1000000000,_1000000000):(_1,_1)"]),
        case(&["print-layout", "(_256,_256):(_256,_1)"]),
        case(&["print-layout", "(_65536,_1):(_1,_1)"]),
        case(&["print-layout", "(_65537,_1):(_1,_1)"]),
        case(&["print", "make_tiled_mma(MMA_Atom<SM80_16x8x8_F32TF32TF32F32_TN>)"]),
        case(&["print", "make_tiled_copy(Copy_Atom<UniversalCopy<uint64_t>, float>, (_4,_8):(_8,_1), (_1,_2):(_0,_1))"]),
        // emit
        case(&["emit"]),
        case(&["emit", "--list", "extra"]),
        case(&["emit", "x", "--list"]),
        case(&["emit", "--layout"]),
        case(&["emit", "sgemm-sm80", "--layout"]),
        case(&["emit", "sgemm-sm80", "--layout", ""]),
        case(&["emit", "sgemm-sm80", "--layout", "NN", "--layout", "TT"]),
        case(&["emit", "sgemm-sm80", "--k-block-unroll"]),
        case(&["emit", "sgemm-sm80", "--k-block-unroll", ""]),
        case(&["emit", "sgemm-sm80", "--k-block-unroll", "0"]),
        case(&["emit", "sgemm-sm80", "--k-block-unroll", "-8"]),
        case(&["emit", "sgemm-sm80", "--k-block-unroll", "99999999999999999999"]),
        case(&["emit", "sgemm-sm80", "--k-block-unroll", "-9223372036854775808"]),
        case(&["emit", "sgemm-sm80", "--k-block-unroll", "9223372036854775807"]),
        case(&["emit", "sgemm-sm80", "--k-block-unroll", "4611686018427387904"]),
        case(&["emit", "sgemm-sm80", "--k-block-unroll", "32"]),
        case(&["emit", "sgemm-sm80", "--k-block-unroll", "64"]),
        case(&["emit", "sgemm-sm80", "--k-block-unroll", "8", "--k-block-unroll", "16"]),
        case(&["emit", "simt-hier", "--k-block-unroll", "1"]),
        case(&["emit", "simt-hier", "--k-block-unroll", "2"]),
        case(&["emit", "tiled-16", "--k-block-unroll", "2"]),
        case(&["emit", "sgemm-sm80-bias-relu", "--k-block-unroll", "-2"]),
        case(&["emit", "sgemm-sm80", "sgemm-sm80"]),
        case(&["emit", ""]),
        case(&["emit", "--m", "1"]),
        owned(vec!["emit".into(), long.clone()]),
        // run: bad input before NVRTC
        case(&["run"]),
        case(&["run", ""]),
        case(&["run", "no-such-kernel"]),
        case(&["run", "sgemm-sm80", "tiled-16"]),
        case(&["run", "sgemm-sm80", "--m"]),
        case(&["run", "sgemm-sm80", "--n", "1", "--k"]),
        case(&["run", "sgemm-sm80", "--m", ""]),
        case(&["run", "sgemm-sm80", "--m", "99999999999999999999"]),
        case(&["run", "sgemm-sm80", "--m", "-1"]),
        case(&["run", "sgemm-sm80", "--m", "0"]),
        case(&["run", "sgemm-sm80", "--m", "0", "--n", "0", "--k", "0"]),
        case(&["run", "sgemm-sm80", "--m", "-9223372036854775808"]),
        case(&["run", "sgemm-sm80", "--m", "9223372036854775807", "--n", "9223372036854775807", "--k", "9223372036854775807"]),
        case(&["run", "naive-rows", "--m", "3037000500", "--n", "3037000500", "--k", "2"]),
        case(&["run", "sgemm-sm80", "--layout", "XY"]),
        case(&["run", "sgemm-sm80", "--layout"]),
        case(&["run", "sgemm-sm80", "--k-block-unroll", "3"]),
        case(&["run", "sgemm-sm80", "--k-block-unroll", "0"]),
        case(&["run", "sgemm-sm80", "--k-block-unroll", "-9223372036854775808"]),
        case(&["run", "sgemm-sm80", "--k-block-unroll"]),
        case(&["run", "sgemm-sm80", "--report"]),
        case(&["run", "--unknown"]),
        case(&["run", "--m", "1", "--n", "1", "--k", "1"]),
        // run: valid kernels that reach NVRTC (few; the compile cache keeps repeats cheap)
        case(&["run", "sgemm-sm80"]),
        case(&["run", "sgemm-sm80", "--m", "1", "--n", "1", "--k", "1"]),
        case(&["run", "naive-rows", "--m", "1", "--n", "1", "--k", "1", "--layout", "TT"]),
        case(&["run", "sgemm-sm80", "--m", "17", "--n", "17", "--k", "17", "--layout", "TN", "--k-block-unroll", "8"]),
        case(&["run", "simt-hier", "--report", &tmp_s, "--layout", "NT", "--layout", "TN"]),
        case(&["run", "tiled-16", "--m", "9223372036854775807", "--n", "1", "--k", "1"]),
        // check
        case(&["check", "--report"]),
        case(&["check", "--report", &tmp_s]),
        case(&["check", "--report", "/"]),
        case(&["check", "--report", &missing]),
        case(&["check", "--report", ""]),
        case(&["check", "sgemm-sm80", "--report", &tmp_s, "--report", &missing]),
        case(&["check", "--k-block-unroll", "8"]),
        case(&["check", "--k-block-unroll", "3"]),
        case(&["check", "--k-block-unroll", "0"]),
        case(&["check", "--k-block-unroll", "-9223372036854775808"]),
        case(&["check", "--layout", "XY"]),
        case(&["check", "--layout", "NN", "--layout", "NN", "--layout", "NN"]),
        case(&["check", "no-such-kernel"]),
        case(&["check", "sgemm-sm80", "no-such-kernel"]),
        case(&["check", "--m", "-9223372036854775808", "--n", "9223372036854775807", "--k", "9223372036854775807"]),
        case(&["check", "naive-rows", "--m", "9223372036854775807", "--n", "9223372036854775807", "--k", "9223372036854775807"]),
        case(&["check", "--m"]),
        owned(vec!["check".into(), "--report".into(), long.clone()]),
        // bench
        case(&["bench"]),
        case(&["bench", ""]),
        case(&["bench", "--layout", "NN"]),
        case(&["bench", "sgemm-sm80", "--k-block-unroll", "4"]),
        case(&["bench", "sgemm-sm80", "naive-rows", "tiled-16", "tiled-32", "simt-hier", "sgemm-sm80-bias-relu", "naive-cols", "--layout", "TT"]),
        case(&["bench", "sgemm-sm80", "--m", "99999999999999999999"]),
        case(&["bench", "sgemm-sm80", "--report", &missing]),
        // bank-conflicts / coalescing
        case(&["bank-conflicts"]),
        case(&["bank-conflicts", ""]),
        case(&["bank-conflicts", "--bits"]),
        case(&["bank-conflicts", "--bits", "32"]),
        case(&["bank-conflicts", "(_32,_4):(_1,_32)", "--bits"]),
        case(&["bank-conflicts", "(_32,_4):(_1,_32)", "(_32,_4):(_1,_32)"]),
        case(&["coalescing"]),
        case(&["coalescing", "--bits", "--bits", "(_32,_4):(_1,_32)"]),
        case(&["coalescing", "(_32,_8):(_1,_4096)", "--bits", "64", "--bits", "128"]),
        case(&["coalescing", "(_32,_8):(_4096,_1)", "--bits", "9223372036854775807"]),
        case(&["bank-conflicts", "(_2048,_2048):(_1,_2048)"]),
        case(&["bank-conflicts", "(_32,_4):(_1,_9223372036854775807)"]),
        case(&["coalescing", "(_32,_4):(_1,_9223372036854775807)"]),
        case(&["bank-conflicts", "(_32,_4):(_-9223372036854775808,_1)", "--bits", "128"]),
        case(&["coalescing", "(_32,_4):(_-1,_-32)", "--bits", "8"]),
        case(&["bank-conflicts", "composition(Swizzle<3,3,3>, (_64,_8):(_8,_1))", "--bits", "1024"]),
        case(&["bank-conflicts", "composition(Swizzle<30,30,30>, (_32,_4):(_1,_32))"]),
        // negative modes (found by this fuzzer's random vectors)
        case(&["print-layout", "(_3,_-4):(_3,_4)"]),
        case(&["print-layout", "(_-3,_4):(_1,_3)"]),
        case(&["bank-conflicts", "(_4,_-4):(_1,_4)"]),
        case(&["coalescing", "(_4,_-4):(_1,_4)"]),
        case(&["draw", "--access", "(_4,_-4):(_1,_4)"]),
        case(&["draw", "(_-3,_4):(_1,_3)"]),
        case(&["draw", "make_tiled_copy(Copy_Atom<UniversalCopy<uint64_t>, float>, (_-4,_8):(_8,_1), (_1,_2):(_0,_1))"]),
        case(&["draw", "make_tiled_copy(Copy_Atom<UniversalCopy<uint64_t>, float>, (_4,_8):(_8,_1), (_-1,_2):(_0,_1))"]),
        case(&["draw", "make_tiled_mma(MMA_Atom<UniversalFMA<float>>, (_-16,_16):(_1,_16))"]),
        case(&["draw", "make_tiled_mma(MMA_Atom<SM80_16x8x8_F32TF32TF32F32_TN>, (_2,_-2):(_1,_2))"]),
        // draw
        case(&["draw"]),
        case(&["draw", "--banks"]),
        case(&["draw", "--access"]),
        case(&["draw", "--banks", "--access", "(_32,_4):(_1,_32)"]),
        case(&["draw", "--bits"]),
        case(&["draw", "(_8,_8):(_8,_1)", "--bits"]),
        case(&["draw", "(_256,_256):(_256,_1)"]),
        case(&["draw", "(_257,_256):(_256,_1)"]),
        case(&["draw", "--access", "(_2048,_2048):(_1,_2048)"]),
        case(&["draw", "--access", "(_32,_4):(_1,_32)", "--bits", "1"]),
        case(&["draw", "--banks", "(_8,_8):(_-9223372036854775808,_1)"]),
        case(&["draw", "--banks", "(_8,_8):(_9223372036854775807,_1)", "--bits", "128"]),
        case(&["draw", "--bits", "99999999999999999999", "(_8,_8):(_8,_1)"]),
        case(&["draw", "M"]),
        case(&["draw", "_7"]),
        case(&["draw", "make_tiled_mma(MMA_Atom<UniversalFMA<float>>, (_64,_64):(_1,_64))"]),
        case(&["draw", "make_tiled_copy(Copy_Atom<UniversalCopy<uint64_t>, float>, (_32,_32):(_32,_1), (_4,_4):(_4,_1))"]),
        owned(vec!["draw".into(), "--bits".into(), long.clone()]),
        owned(vec!["draw".into(), long.clone()]),
        // standard input for eval
        Case {
            args: vec!["eval".into()],
            stdin: Some(b"\xff\xfe\n".to_vec()),
        },
        Case {
            args: vec!["eval".into()],
            stdin: Some(Vec::new()),
        },
        Case {
            args: vec!["eval".into()],
            stdin: Some(
                (nested_parens(10_000, "_1") + "\n# c\n\n   \n_4:_1\n\x01\x02\n(_4,_8):(_1,_4)")
                    .into_bytes(),
            ),
        },
        Case {
            args: vec!["eval".into()],
            stdin: Some(format!("{}\n", "y".repeat(1_000_000)).into_bytes()),
        },
    ];
    // --bits over every value the brief names, for every command that takes it
    for cmd in ["bank-conflicts", "coalescing", "draw"] {
        for b in [
            "0",
            "1",
            "7",
            "1024",
            "-32",
            "8",
            "16",
            "-9223372036854775808",
            "9223372036854775807",
            "99999999999999999999",
        ] {
            for e in [
                "(_32,_4):(_1,_32)",
                "composition(Swizzle<3,3,3>, (_64,_8):(_8,_1))",
                "(_4,(_2,_2)):(_2,(_1,_8))",
            ] {
                v.push(case(&[cmd, e, "--bits", b]));
            }
        }
        v.push(case(&[
            "draw",
            "--access",
            "(_32,_4):(_1,_32)",
            "--bits",
            "0",
        ]));
        v.push(case(&[
            "draw",
            "--access",
            "(_32,_4):(_1,_32)",
            "--bits",
            "-32",
        ]));
    }
    // every command with monster expressions / a missing value / an unknown option / a long string
    for e in monster_exprs() {
        for cmd in [
            "eval",
            "print",
            "print-layout",
            "bank-conflicts",
            "coalescing",
            "draw",
        ] {
            v.push(owned(vec![cmd.into(), e.clone()]));
        }
    }
    for cmd in COMMANDS {
        for extra in [
            &["--unknown"][..],
            &["--m"],
            &["--bits"],
            &["--layout"],
            &["--report"],
            &["--k-block-unroll"],
            &[""],
            &["-"],
            &["--"],
            &["\u{1b}[2J"],
            &["\u{202e}"],
        ] {
            let mut a = vec![cmd.to_string()];
            a.extend(extra.iter().map(|s| s.to_string()));
            v.push(owned(a));
        }
        v.push(owned(vec![cmd.to_string(), long.clone()]));
        v.push(owned(vec![cmd.to_string(), "--bits".into(), long.clone()]));
    }
    v
}

/// What happened to one process.
struct Outcome {
    status: Option<ExitStatus>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    elapsed: Duration,
}

/// Past this a process counts as hung. The largest hand-written analyses (`bank-conflicts` and
/// `draw --access` of a 2048 x 2048 pattern) take 10 to 25 s of CPU in a debug build, and more
/// wall time on a loaded 2-core machine (they went past 30 s there); a hang of the kind this
/// looks for (a 2^63-iteration loop) runs far longer than either limit.
const LIMIT: Duration = Duration::from_secs(if cfg!(debug_assertions) { 120 } else { 30 });

fn run_case(c: &Case, cache: &std::path::Path) -> Outcome {
    let t = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cute"))
        .args(&c.args)
        .env("CUTE_CACHE_DIR", cache)
        .env_remove("RUST_BACKTRACE")
        .stdin(if c.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cute starts");
    let stdin = c.stdin.clone().map(|data| {
        let mut pipe = child.stdin.take().unwrap();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&data);
        })
    });
    let mut out_pipe = child.stdout.take().unwrap();
    let mut err_pipe = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out_pipe.read_to_end(&mut b);
        b
    });
    let err = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err_pipe.read_to_end(&mut b);
        b
    });
    let status = loop {
        match child.try_wait().expect("wait") {
            Some(s) => break Some(s),
            None if t.elapsed() > LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    };
    if let Some(h) = stdin {
        let _ = h.join();
    }
    Outcome {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
        elapsed: t.elapsed(),
    }
}

/// A short, printable rendering of an argument vector.
fn show(args: &[String]) -> String {
    let parts: Vec<String> = args
        .iter()
        .map(|a| {
            if a.chars().count() > 300 {
                let head: String = a.chars().take(60).collect();
                format!("{head:?}...({} bytes)", a.len())
            } else {
                format!("{a:?}")
            }
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

fn excerpt(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    let s: String = s.chars().take(600).collect();
    s
}

#[test]
fn no_argument_vector_panics_or_crashes() {
    let start = Instant::now();
    let mut cases = hand_cases();
    let hand = cases.len();
    // CLI_FUZZ_SEED picks another sequence, CLI_FUZZ_PER_COMMAND a longer one
    let seed = std::env::var("CLI_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0x9E37_79B9_7F4A_7C15);
    let mut rng = Rng(seed | 1);
    let per_command = std::env::var("CLI_FUZZ_PER_COMMAND")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    for cmd in COMMANDS {
        for _ in 0..per_command {
            cases.push(random_case(&mut rng, cmd));
        }
    }
    // a few vectors with no command-specific structure at all
    for _ in 0..per_command {
        let mut a = vec![rng.pick(COMMANDS).to_string()];
        for _ in 0..rng.below(6) {
            a.push(hostile(&mut rng));
        }
        cases.push(owned(a));
    }

    let cache = std::env::temp_dir().join("cute-cli-args-fuzz-cache");
    let next = AtomicUsize::new(0);
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let warnings: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let slowest: Mutex<Vec<(Duration, String)>> = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 4);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(c) = cases.get(i) else { break };
                let o = run_case(c, &cache);
                let stderr = String::from_utf8_lossy(&o.stderr);
                let code = o.status.and_then(|s| s.code());
                let why = match o.status {
                    None => Some(format!("still running after {LIMIT:?} (killed)")),
                    Some(_) if code.is_none() => {
                        #[cfg(unix)]
                        let sig = {
                            use std::os::unix::process::ExitStatusExt;
                            o.status.and_then(|s| s.signal())
                        };
                        #[cfg(not(unix))]
                        let sig: Option<i32> = None;
                        Some(format!("killed by signal {sig:?}"))
                    }
                    Some(_) if code == Some(101) => Some("exit status 101 (panic)".to_string()),
                    Some(_) if stderr.contains("panicked") || stderr.contains("RUST_BACKTRACE") => {
                        Some(format!("stderr mentions a panic (exit {code:?})"))
                    }
                    _ => None,
                };
                if let Some(why) = why {
                    failures.lock().unwrap().push(format!(
                        "{} -> {why}\n  stderr: {}\n  stdout: {}",
                        show(&c.args),
                        excerpt(&o.stderr),
                        excerpt(&o.stdout)
                    ));
                } else if code != Some(0) {
                    // the contract's softer half: a failing run says why
                    let all = String::from_utf8_lossy(&o.stdout).to_string() + &stderr;
                    if !all.contains("error") {
                        warnings.lock().unwrap().push(format!(
                            "{} -> exit {code:?} without an error line: {}",
                            show(&c.args),
                            excerpt(&o.stdout)
                        ));
                    }
                }
                slowest.lock().unwrap().push((o.elapsed, show(&c.args)));
            });
        }
    });

    let mut slowest = slowest.into_inner().unwrap();
    slowest.sort_by_key(|a| std::cmp::Reverse(a.0));
    println!(
        "cli_args_fuzz: {} argument vectors ({hand} hand-written, {} random), {workers} at a time, {:.1} s",
        cases.len(),
        cases.len() - hand,
        start.elapsed().as_secs_f64()
    );
    println!("slowest:");
    for (d, a) in slowest.iter().take(5) {
        println!(
            "  {:.2} s {}",
            d.as_secs_f64(),
            a.chars().take(200).collect::<String>()
        );
    }
    let warnings = warnings.into_inner().unwrap();
    for w in &warnings {
        println!("warning: {w}");
    }
    let failures = failures.into_inner().unwrap();
    for f in &failures {
        println!("FAILURE: {f}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} argument vectors panicked, crashed or hung (listed above)",
        failures.len(),
        cases.len()
    );
}
