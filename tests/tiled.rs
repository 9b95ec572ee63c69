//! TiledCopy and TiledMMA beyond tiled.tsv: CuTe's multi-line prints, thread partitions of
//! tensors, fragments and retile, compared with `tests/oracle/cute-tiled-extra.txt` (printed by
//! C++ CuTe, `tools/oracle/tiled_extra.cpp`; partitions print their layout and the offset of
//! their pointer from the tensor's base); and the properties of the partitions.

use std::collections::HashMap;
use std::path::Path;

use cute::layout::expr::{eval, Value};
use cute::layout::{Engine, Tensor};

/// The `@@ name` blocks of the oracle file.
fn oracle() -> HashMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/cute-tiled-extra.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = HashMap::new();
    let mut name = String::new();
    for line in text.split_inclusive('\n') {
        match line.strip_prefix("@@ ") {
            Some(n) => name = n.trim_end().to_string(),
            None => out
                .entry(name.clone())
                .or_insert_with(String::new)
                .push_str(line),
        }
    }
    out
}

fn value(src: &str) -> Value {
    eval(src).unwrap_or_else(|e| panic!("{src}: {e}"))
}

/// `layout +offset` of a pointer tensor, as the oracle program prints partitions.
fn partition_text(src: &str) -> String {
    let Value::Tensor(t) = value(src) else {
        panic!("{src} is not a tensor")
    };
    let Engine::Ptr(p) = t.engine() else {
        panic!("{src} has no pointer")
    };
    format!("{} +{}\n", t.layout(), p.offset)
}

fn layout_text(src: &str) -> String {
    match value(src) {
        Value::Tensor(t) => format!("{}\n", t.layout()),
        other => format!("{other}\n"),
    }
}

const TC: &str = "make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>, (_32,_8):(_1,_32), (_4,_1):(_1,_0))";
const TC_B: &str = "make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>, (_32,_8):(_8,_1), (_1,_4):(_0,_1))";
const MMA: &str = "make_tiled_mma(MMA_Atom<UniversalFMA<float,float,float,float>>, (_16,_16):(_1,_16), make_tile((_16,_4,_2):(_4,_1,_64), _128, _32))";
const MMA80: &str =
    "make_tiled_mma(MMA_Atom<SM80_16x8x8_F32TF32TF32F32_TN>, (_2,_2,_1):(_1,_2,_0))";
const MMAH: &str = "make_tiled_mma(MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>, (_2,_2,_1):(_1,_2,_0), make_tile(_32,_32,_16))";
const SA: &str = "make_tensor(make_smem_ptr<float>(A), make_layout((_128,_32,_3)))";
const SB: &str = "make_tensor(make_smem_ptr<float>(A), composition(Swizzle<1,2,3>, (_128,_32,_3):(_32,_1,_4096)))";
const SC: &str = "make_tensor(make_smem_ptr<float>(A), make_layout((_128,_128)))";
const SA16: &str = "make_tensor(make_smem_ptr<half_t>(A), (_32,_16):(_16,_1))";

#[test]
fn prints_partitions_and_fragments_agree_with_cpp_cute() {
    let o = oracle();
    let mut cases: Vec<(String, String)> = vec![
        ("print tiled_copy".into(), value(TC).print().unwrap()),
        ("print copy_atom".into(), value("Copy_Atom<SM75_U32x4_LDSM_N, half_t>").print().unwrap()),
        ("print tiled_mma".into(), value(MMA).print().unwrap() + "\n"),
        ("print tiled_mma sm80".into(), value(MMA80).print().unwrap() + "\n"),
        ("print mma_atom".into(), value("MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>").print().unwrap()),
        (
            "partition_S 37 gA".into(),
            partition_text(&format!(
                "({TC}).get_slice(37).partition_S(local_tile(make_tensor(make_gmem_ptr<float>(A), make_layout((4096,1024))), (_128,_32), (3,_)))"
            )),
        ),
        ("partition_shape_C".into(), layout_text(&format!("partition_shape_C({MMA}, (_128,_128))"))),
        ("partition_shape_A 80".into(), layout_text(&format!("partition_shape_A({MMA80}, (_64,_32))"))),
        (
            "fragment_A 16x8x16 thread 5".into(),
            layout_text(&format!("({MMAH}).get_slice(5).partition_fragment_A({SA16})")),
        ),
        (
            "retile_D ldsm thread 5".into(),
            layout_text(&format!(
                "(make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>, {MMAH})).get_slice(5).retile_D(({MMAH}).get_slice(5).partition_fragment_A({SA16}))"
            )),
        ),
        (
            "ldsm partition_S 5".into(),
            partition_text(&format!("(make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>, {MMAH})).get_slice(5).partition_S({SA16})")),
        ),
        ("fragment_C sm80 3".into(), layout_text(&format!("({MMA80}).get_slice(3).partition_fragment_C({SC})"))),
        (
            "retile_S copy_C 3".into(),
            layout_text(&format!(
                "(make_tiled_copy_C(Copy_Atom<UniversalCopy<uint64_t>, float>, {MMA80})).get_slice(3).retile_S(({MMA80}).get_slice(3).partition_fragment_C({SC}))"
            )),
        ),
    ];
    for tid in [0, 33, 255] {
        cases.push((
            format!("partition_D {tid}"),
            partition_text(&format!("({TC}).get_slice({tid}).partition_D({SA})")),
        ));
    }
    for tid in [0, 9, 200] {
        cases.push((
            format!("partition_D swizzled {tid}"),
            partition_text(&format!("({TC_B}).get_slice({tid}).partition_D({SB})")),
        ));
    }
    for tid in [0, 17, 255] {
        let thr = format!("({MMA}).get_slice({tid})");
        cases.push((
            format!("partition_C {tid}"),
            partition_text(&format!("{thr}.partition_C({SC})")),
        ));
        cases.push((
            format!("partition_A {tid}"),
            partition_text(&format!("{thr}.partition_A({SA})")),
        ));
        cases.push((
            format!("partition_fragment_A {tid}"),
            layout_text(&format!("{thr}.partition_fragment_A({SA})")),
        ));
        cases.push((
            format!("partition_fragment_C {tid}"),
            layout_text(&format!("{thr}.partition_fragment_C({SC})")),
        ));
    }
    assert_eq!(cases.len(), o.len(), "every oracle block has a case");
    for (name, got) in cases {
        assert_eq!(
            &got,
            o.get(&name)
                .unwrap_or_else(|| panic!("no oracle block {name}")),
            "{name}"
        );
    }
}

/// Every element offset of a tensor.
fn offsets(t: &Tensor) -> Vec<i64> {
    let n = t.layout().shape_layout().size().unwrap().value().unwrap();
    let base = match t.engine() {
        Engine::Ptr(p) => p.offset.value().unwrap(),
        Engine::Coord(_) => unreachable!(),
    };
    (0..n).map(|i| base + t.layout().eval(i).unwrap()).collect()
}

fn tensor(src: &str) -> Tensor {
    match value(src) {
        Value::Tensor(t) => t,
        other => panic!("{src} gave {other}"),
    }
}

/// Partitioning a tile over all threads covers each element exactly once, or, for a copy built
/// on an MMA's A layout (`make_tiled_copy_A`), once per warp that shares the A values (2 here).
#[test]
fn a_tiled_copy_partitions_its_tile_exactly_once() {
    for (tc, smem, threads, copies) in [
        (TC, SA, 256, 1),
        (TC_B, SB, 256, 1),
        ("make_tiled_copy(Copy_Atom<UniversalCopy<uint64_t>, half_t>, (_8,_32):(_32,_1), (_1,_4):(_0,_1))", "make_tensor(make_smem_ptr<half_t>(A), (_64,_128):(_128,_1))", 256, 1),
        (&format!("make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>, {MMAH})"), "make_tensor(make_smem_ptr<half_t>(A), (_32,_64):(_64,_1))", 128, 2),
    ] {
        for side in ["S", "D"] {
            let mut seen: HashMap<i64, usize> = HashMap::new();
            for tid in 0..threads {
                let t = tensor(&format!("({tc}).get_slice({tid}).partition_{side}({smem})"));
                for off in offsets(&t) {
                    *seen.entry(off).or_default() += 1;
                }
            }
            let size = tensor(smem).layout().shape_layout().size().unwrap().value().unwrap();
            assert_eq!(seen.len() as i64, size, "{tc} partition_{side} of {smem}");
            assert!(seen.values().all(|&c| c == copies), "{tc} partition_{side}: uneven coverage");
        }
    }
}

#[test]
fn the_tv_layout_of_a_tiled_copy_is_a_bijection_onto_its_tile() {
    for tc in [TC, TC_B, "make_tiled_copy(Copy_Atom<UniversalCopy<uint32_t>, float>, (_16,_16):(_16,_1), (_1,_1):(_0,_0))"] {
        for m in ["get_layoutS_TV", "get_layoutD_TV"] {
            let Value::Layout(tv) = value(&format!("({tc}).{m}()")) else { panic!() };
            let n = tv.shape_layout().size().unwrap().value().unwrap();
            let mut img: Vec<i64> = (0..n).map(|i| tv.eval(i).unwrap()).collect();
            img.sort();
            assert_eq!(img, (0..n).collect::<Vec<_>>(), "{tc}.{m}()");
        }
    }
}

#[test]
fn an_mma_partitions_c_once_and_a_b_once_per_broadcast_group() {
    for (mma, threads, (m, n, k)) in [
        (MMA, 256, (128, 128, 32)),
        (MMA80, 128, (64, 64, 32)),
        (MMAH, 128, (64, 64, 32)),
    ] {
        for (op, rows, cols, copies) in [("C", m, n, 1), ("A", m, k, 0), ("B", n, k, 0)] {
            let t = format!("make_tensor(make_smem_ptr<float>(A), make_layout((_{rows},_{cols})))");
            let mut seen: HashMap<i64, usize> = HashMap::new();
            for tid in 0..threads {
                for off in offsets(&tensor(&format!(
                    "({mma}).get_slice({tid}).partition_{op}({t})"
                ))) {
                    *seen.entry(off).or_default() += 1;
                }
            }
            assert_eq!(seen.len() as i64, rows * cols, "{mma} partition_{op}");
            let counts: std::collections::BTreeSet<usize> = seen.values().copied().collect();
            assert_eq!(
                counts.len(),
                1,
                "{mma} partition_{op}: uneven coverage {counts:?}"
            );
            if copies == 1 {
                assert_eq!(
                    counts.into_iter().next(),
                    Some(1),
                    "{mma} partition_C covers each element once"
                );
            }
        }
    }
}

#[test]
fn retile_round_trips_a_fragment() {
    // Retiling a fragment for a copy whose TV layout is the MMA's own keeps every element.
    let frag = format!("({MMA80}).get_slice(3).partition_fragment_C({SC})");
    let re = format!("(make_tiled_copy_C(Copy_Atom<UniversalCopy<uint32_t>, float>, {MMA80})).get_slice(3).retile_S({frag})");
    let (a, b) = (tensor(&frag), tensor(&re));
    let (mut x, mut y) = (offsets(&a), offsets(&b));
    x.sort();
    y.sort();
    assert_eq!(x, y);
}

#[test]
fn tilings_that_do_not_fit_their_atom_are_errors() {
    for (src, needle) in [
        (
            "make_tiled_copy(Copy_Atom<SM75_U32x4_LDSM_N, half_t>, (_16,_1):(_1,_0), (_8,_1):(_1,_0))",
            "TiledCopy uses too few thrs for selected CopyAtom",
        ),
        (
            "make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>, (_32,_8):(_1,_32), (_2,_1):(_1,_0))",
            "TiledCopy uses too few vals for selected CopyAtom",
        ),
        ("Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint64_t>, float>", "unknown copy operation"),
        ("Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, quux>", "unknown element type"),
        ("MMA_Atom<SM80_16x8x32_F32F16F16F32_TN>", "unknown MMA operation"),
        (&format!("({TC}).tidfrg_S(_128:_1)"), "rank of tensor to be partitioned too small"),
        ("make_tiled_mma(MMA_Atom<UniversalFMA<float>>, (_16,_16,_1,_1):(_1,_16,_0,_0))", "rank-3"),
        ("make_tiled_mma(MMA_Atom<UniversalFMA<float>>, (_16,_16):(_1,_16), make_tile(M,_,_))", "static permutations"),
        (&format!("({TC}).frobnicate()"), "no method .frobnicate()"),
        (&format!("({MMA}).get_slice(3).partition_Q({SA})"), "no method"),
    ] {
        let e = cute::layout::expr::eval_str(src).unwrap_err().to_string();
        assert!(e.contains(needle), "{src}: {e}");
    }
}
