//! Fuzzing the tuning cache's reader (`runtime::tuning::decode`): any bytes, and a valid file
//! with bytes flipped, cut or inserted, give `Fresh` only for an intact file of this device and
//! otherwise `Stale` or `Corrupt` — never a panic; any table reads back as itself.

use cute::codegen::gemm::SplitKMode;
use cute::codegen::GemmLayout;
use cute::runtime::tuning::{decode, encode, Device, Load, ShapeClass, Table, Tuned};
use proptest::prelude::*;

fn device() -> Device {
    Device {
        name: "NVIDIA H200".into(),
        arch: "sm_90a".into(),
        driver: 13000,
    }
}

/// A table of up to 12 entries of valid kernels, slices, times and shapes.
fn table() -> impl Strategy<Value = Table> {
    let kernels = [
        "sgemm-sm80",
        "sgemm-sm80-16x128",
        "sgemm-sm80-64x128",
        "bgemm-sm80",
    ];
    let entry = (
        0..4usize,
        0..4usize,
        1..=4096i64,
        (1..100_000i64, 1..100_000i64, 1..100_000i64),
        1e-6..1e3f64,
    );
    prop::collection::vec(entry, 0..12).prop_map(move |entries| {
        let mut t = Table::new(device());
        for (l, kern, splits, at, ms) in entries {
            let layout = GemmLayout::all()[l];
            let dtype = if kern == 3 { "bf16" } else { "f32" };
            let tuned = Tuned {
                kernel: kernels[kern].to_string(),
                splits,
                // serial split-K is tuned up to SERIAL_MAX_SPLITS slices, stream-K unsplit
                // and for FP32 alone
                mode: match (splits, at.0 % 3, dtype) {
                    (1, 0, "f32") => SplitKMode::Stream,
                    (2..=4, 1, _) => SplitKMode::Serial,
                    (s, _, _) => SplitKMode::split(s, false),
                },
                ms,
                at,
            };
            t.entries.insert(ShapeClass::of(dtype, layout, at), tuned);
        }
        t
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_table_reads_back_as_itself(t in table()) {
        prop_assert_eq!(decode(encode(&t).as_bytes(), &device()), Load::Fresh(t));
    }

    #[test]
    fn any_bytes_are_never_a_fresh_table(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        prop_assert!(!matches!(decode(&bytes, &device()), Load::Fresh(_)));
    }

    #[test]
    fn a_damaged_file_is_never_trusted(
        t in table(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..3u8), 1..4),
    ) {
        let mut bytes = encode(&t).into_bytes();
        for (at, byte, kind) in edits {
            let i = at.index(bytes.len().max(1));
            match kind {
                0 if i < bytes.len() => bytes[i] = byte,
                1 => bytes.truncate(i),
                _ => bytes.insert(i.min(bytes.len()), byte),
            }
        }
        match decode(&bytes, &device()) {
            // an edit that changed nothing (a byte for itself) leaves the same table
            Load::Fresh(back) => prop_assert_eq!(back, t),
            Load::Stale { .. } | Load::Corrupt(_) => {}
            Load::Missing => prop_assert!(false, "decode never says Missing"),
        }
    }
}
