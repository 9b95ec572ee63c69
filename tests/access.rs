//! Bank conflicts and coalescing from layouts: hand-computed cases for each access width,
//! broadcast and swizzles; a property test against an independent simulator; the CLI lines.

use std::collections::{HashMap, HashSet};
use std::process::Command;

use cute::layout::expr::{eval, Value};
use cute::layout::{bank_conflicts, coalescing, AnyLayout};
use proptest::prelude::*;

fn pattern(src: &str) -> AnyLayout {
    match eval(src).unwrap() {
        Value::Layout(l) => l,
        other => panic!("{src} gave {other}"),
    }
}

fn ways(src: &str, bits: i64) -> i64 {
    bank_conflicts(&pattern(src), bits).unwrap().max_ways()
}

#[test]
fn hand_computed_bank_conflicts() {
    // 32-bit: consecutive words are conflict-free; stride 2 is 2-way, stride 32 is 32-way.
    assert_eq!(ways("_32:_1", 32), 1);
    assert_eq!(ways("_32:_2", 32), 2);
    assert_eq!(ways("_32:_32", 32), 32);
    assert_eq!(ways("_32:_33", 32), 1);
    // Broadcast: every thread reading one word, or pairs reading a word, costs nothing extra.
    assert_eq!(ways("_32:_0", 32), 1);
    assert_eq!(ways("(_2,_16):(_0,_1)", 32), 1);
    // 64-bit: half-warps of 16 threads x 8 bytes; consecutive is free, stride 2 (16 B) is 2-way.
    assert_eq!(ways("_32:_1", 64), 1);
    assert_eq!(ways("_32:_2", 64), 2);
    assert_eq!(ways("_32:_16", 64), 16);
    // 128-bit: quarter-warps of 8 threads x 16 bytes; consecutive is free, stride 2 is 2-way,
    // and 8 threads 128 B apart all land on banks 0-3: 8-way.
    assert_eq!(ways("_32:_1", 128), 1);
    assert_eq!(ways("_32:_2", 128), 2);
    assert_eq!(ways("_32:_8", 128), 8);
    // The seed SGEMM's B read (UniversalFMA 16x16 over a row-major (128,32) tile): 2-way, and
    // conflict-free once the tile is Swizzle<1,2,3>'d.
    assert_eq!(ways("((_16,_16),(_8,_32)):((_0,_32),(_512,_1))", 32), 2);
    assert_eq!(
        ways(
            "composition(Swizzle<1,2,3>, ((_16,_16),(_8,_32)):((_0,_32),(_512,_1)))",
            32
        ),
        1
    );
    // A 32x32 float tile read by columns: 32-way; a Swizzle<5,0,5> removes it.
    assert_eq!(ways("(_32,_32):(_32,_1)", 32), 32);
    assert_eq!(
        ways("composition(Swizzle<5,0,5>, (_32,_32):(_32,_1))", 32),
        1
    );
}

#[test]
fn wavefront_totals_and_the_worst_threads() {
    let r = bank_conflicts(&pattern("_32:_2"), 32).unwrap();
    assert_eq!(r.totals(), (2, 1));
    let (bank, threads) = r.warps[0].worst.clone().unwrap();
    assert_eq!(bank, 0);
    assert_eq!(threads, vec![0, 16]);
    // 64-bit, consecutive: two half-warp wavefronts, both ideal.
    assert_eq!(
        bank_conflicts(&pattern("_32:_1"), 64).unwrap().totals(),
        (2, 2)
    );
    // 256 threads: 8 warps, one request each.
    assert_eq!(
        bank_conflicts(&pattern("_256:_1"), 32).unwrap().warps.len(),
        8
    );
}

#[test]
fn hand_computed_coalescing() {
    let spr = |src: &str, bits| {
        coalescing(&pattern(src), bits)
            .unwrap()
            .sectors_per_request()
    };
    assert_eq!(spr("_32:_1", 32), 4.0); // 128 contiguous bytes
    assert_eq!(spr("_32:_1", 128), 16.0); // 512 contiguous bytes
    assert_eq!(spr("_32:_2", 32), 8.0); // every other float: 8 sectors for 128 bytes
    assert_eq!(spr("_32:_1024", 32), 32.0); // a column of a row-major matrix
    assert_eq!(spr("_32:_0", 32), 1.0); // broadcast
    let r = coalescing(&pattern("_32:_2"), 32).unwrap();
    assert_eq!(r.ideal_per_request(), 4.0);
    // naive-cols vs naive-rows SGEMM: threads along the stride-1 dimension coalesce.
    assert_eq!(spr("(_32,_8):(_1,_4096)", 32), 4.0);
    assert_eq!(spr("(_32,_8):(_4096,_1)", 32), 32.0);
}

/// An independent model: serve each phase cycle by cycle, each bank delivering one distinct word
/// per cycle (all readers of that word at once), until every request is served.
fn simulate(offsets: &[i64], bits: i64) -> (i64, i64) {
    let words = bits / 32;
    let phase = (32 / words) as usize;
    let (mut cycles, mut worst) = (0, 0);
    for chunk in offsets.chunks(phase) {
        let mut pending: Vec<i64> = chunk
            .iter()
            .flat_map(|&o| (0..words).map(move |j| o * words + j))
            .collect();
        let mut phase_cycles = 0;
        while !pending.is_empty() {
            let mut served_banks: HashMap<i64, i64> = HashMap::new();
            pending.retain(|&w| {
                let bank = w.rem_euclid(32);
                match served_banks.get(&bank) {
                    None => {
                        served_banks.insert(bank, w);
                        false
                    }
                    Some(&s) => s != w,
                }
            });
            phase_cycles += 1;
        }
        cycles += phase_cycles;
        worst = worst.max(phase_cycles);
    }
    (cycles, worst)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn the_analysis_agrees_with_a_cycle_by_cycle_simulator(
        shape in prop::collection::vec(prop::sample::select(vec![1i64, 2, 4, 8]), 1..4),
        strides in prop::collection::vec(prop::sample::select(vec![0i64, 1, 2, 3, 4, 8, 16, 32, 33, 64]), 4),
        bits in prop::sample::select(vec![32i64, 64, 128]),
        swz in prop::option::of((1i64..=3, 0i64..=3)),
    ) {
        let threads: i64 = shape.iter().product();
        prop_assume!(threads <= 32);
        let sh: Vec<String> = shape.iter().map(|s| format!("_{s}")).collect();
        let st: Vec<String> = strides.iter().take(shape.len()).map(|d| format!("_{d}")).collect();
        // One mode of threads (a rank-1 layout): a single instruction.
        let thr = format!("(({})):(({}))", sh.join(","), st.join(","));
        let src = match swz {
            Some((b, m)) => format!("composition(Swizzle<{b},{m},{b}>, ({thr}))"),
            None => thr,
        };
        let l = pattern(&src);
        let offsets: Vec<i64> = (0..threads).map(|t| l.eval(t).unwrap()).collect();
        let (cycles, worst) = simulate(&offsets, bits);
        let r = bank_conflicts(&l, bits).unwrap();
        prop_assert_eq!(r.totals().0, cycles, "{}", src);
        prop_assert_eq!(r.max_ways(), worst, "{}", src);
        // Coalescing against a direct count of sectors.
        let bytes = bits / 8;
        let sectors: HashSet<i64> = offsets.iter().flat_map(|&o| (0..bytes).map(move |b| (o * bytes + b).div_euclid(32))).collect();
        prop_assert_eq!(coalescing(&l, bits).unwrap().warps[0].sectors, sectors.len() as i64);
    }
}

#[test]
fn the_cli_prints_max_ways_and_sectors_per_request() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_cute"))
            .args(args)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    let (code, out) = run(&[
        "bank-conflicts",
        "((_16,_16),(_8,_32)):((_0,_32),(_512,_1))",
    ]);
    assert_eq!(code, Some(0));
    assert!(
        out.lines().next().unwrap().starts_with("max_ways=2 "),
        "{out}"
    );
    assert!(
        out.contains(
            "worst: instruction 0, warp 0: bank 0 holds 2 distinct words, read by threads 0, 16"
        ),
        "{out}"
    );
    let (_, out) = run(&[
        "bank-conflicts",
        "composition(Swizzle<1,2,3>, ((_16,_16),(_8,_32)):((_0,_32),(_512,_1)))",
    ]);
    assert!(out.starts_with("max_ways=1 "), "{out}");
    let (_, out) = run(&["coalescing", "--bits", "128", "(_32,_4):(_1,_32)"]);
    assert!(
        out.starts_with("sectors_per_request=16.00 ideal=16.00"),
        "{out}"
    );
    let (code, out) = run(&["bank-conflicts", "--bits", "48", "_32:_1"]);
    assert_eq!(code, Some(1));
    assert!(out.contains("48 bits is not 32, 64 or 128"), "{out}");
    let (code, _) = run(&["coalescing"]);
    assert_eq!(code, Some(2));
    let (code, out) = run(&[
        "draw",
        "--access",
        "composition(Swizzle<1,2,3>, ((_16,_16),(_8,_32)):((_0,_32),(_512,_1)))",
    ]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("<svg") && !out.contains(r#"stroke="red""#),
        "a conflict-free pattern has no red cells"
    );
    let (_, out) = run(&[
        "draw",
        "--access",
        "((_16,_16),(_8,_32)):((_0,_32),(_512,_1))",
    ]);
    assert!(
        out.contains(r#"stroke="red""#),
        "the 2-way pattern marks its conflicts"
    );
}
