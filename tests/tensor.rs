//! Tensors: construction, slicing, `local_tile` / `local_partition` / `inner_partition` /
//! `outer_partition`, coordinate tensors for predication, `recast`.
//!
//! The layouts and offsets expected here were printed by C++ CuTe (CUTLASS 4.x headers, host
//! code) for the same calls with the same values; C++ prints raw addresses for pointers, so the
//! pointer's offset from its base is compared instead of the address.

use std::collections::HashMap;

use cute::layout::expr::{eval, eval_str, Value};
use cute::layout::{Element, Engine, Tensor};

fn tensor(src: &str) -> Tensor {
    match eval(src).unwrap() {
        Value::Tensor(t) => t,
        other => panic!("{src} gave {other}"),
    }
}

/// (layout, offset of the pointer from its base) of a pointer tensor.
fn layout_and_offset(src: &str) -> (String, String) {
    let t = tensor(src);
    let Engine::Ptr(p) = t.engine() else {
        panic!("{src} is not a pointer tensor")
    };
    (t.layout().to_string(), p.offset.to_string())
}

#[test]
fn tensors_agree_with_cpp_cute() {
    let cases = [
        (
            "local_tile(make_tensor(make_gmem_ptr<float>(A), make_layout((1000,512))), (_128,_128,_8), (3,2,_), Step<_1,X,_1>)",
            "(_128,_8,64):(_1,1000,8000)",
            "384",
        ),
        (
            "(make_tensor(make_smem_ptr<float>(sB), composition(Swizzle<1,2,3>, (_128,_32):(_32,_1))))(_,5)",
            "((_2,_64)):((28,_64))",
            "5",
        ),
        (
            "local_tile(make_tensor(make_gmem_ptr<float>(A), (_256,_64):(_64,_1)), (_128,_32), (1,1))",
            "(_128,_32):(_64,_1)",
            "8224",
        ),
        (
            "local_partition(make_tensor(make_smem_ptr<float>(sA), make_layout((_128,_8))), (_32,_8):(_8,_1), 37)",
            "(_4,_1):(_32,_0)",
            "644",
        ),
    ];
    for (src, layout, offset) in cases {
        assert_eq!(
            layout_and_offset(src),
            (layout.to_string(), offset.to_string()),
            "{src}"
        );
    }
    for (src, printed) in [
        ("make_identity_tensor((1000,512))", "ArithTuple(_0,_0) o (1000,512):(_1@0,_1@1)"),
        (
            "local_tile(make_identity_tensor((1000,512)), (_128,_128,_8), (3,2,_), Step<_1,X,_1>)",
            "ArithTuple(384,_0) o (_128,_8,64):(_1@0,_1@1,_8@1)",
        ),
        ("(local_tile(make_identity_tensor((1000,512)), (_128,_8), (2,3)))(5,6)", "(261,30)"),
        ("(make_tensor(make_smem_ptr<float>(sB), composition(Swizzle<1,2,3>, (_128,_32):(_32,_1))))(7,5)", "smem_ptr[32b](sB+225)"),
        (
            "zipped_divide(make_identity_tensor((_16,_16)), (_4,_4))",
            "ArithTuple(_0,_0) o ((_4,_4),(_4,_4)):((_1@0,_1@1),(_4@0,_4@1))",
        ),
        ("recast<half_t>(make_tensor(make_gmem_ptr<float>(A), make_layout((_128,_8))))", "gmem_ptr[16b](A) o (_256,_8):(_1,_256)"),
    ] {
        assert_eq!(eval_str(src).unwrap(), printed, "{src}");
    }
}

#[test]
fn symbolic_problem_sizes_flow_through_tiling() {
    assert_eq!(
        eval_str("local_tile(make_tensor(make_gmem_ptr<float>(A), make_layout((M,K))), (_128,_128,_8), (bx,by,_), Step<_1,X,_1>)").unwrap(),
        "gmem_ptr[32b](A+128*bx) o (_128,_8,(K+7)/8):(_1,M,8*M)"
    );
    assert_eq!(
        eval_str(
            "local_tile(make_identity_tensor((M,K)), (_128,_128,_8), (bx,by,_), Step<_1,X,_1>)"
        )
        .unwrap(),
        "ArithTuple(128*bx,_0) o (_128,_8,(K+7)/8):(_1@0,_1@1,_8@1)"
    );
}

/// Every element offset of `t`, by coordinate index.
fn offsets(t: &Tensor) -> Vec<i64> {
    let n = t.layout().shape_layout().size().unwrap().value().unwrap();
    (0..n)
        .map(|i| {
            match t
                .at(&cute::layout::IntTuple::Int(cute::layout::d(i)))
                .unwrap()
            {
                Element::Offset(p) => p.offset.value().unwrap(),
                Element::Coord(_) => unreachable!(),
            }
        })
        .collect()
}

#[test]
fn local_tile_and_local_partition_cover_a_tensor_exactly_once() {
    for (layout, tile, grid) in [
        ("(_64,_32):(_1,_64)", "(_16,_8)", (4, 4)),
        ("(_64,_32):(_32,_1)", "(_32,_4)", (2, 8)),
        ("((_4,_16),_32):((_16,_1),_64)", "(_8,_4)", (8, 8)),
        ("(64,32):(_1,64)", "(_8,_16)", (8, 2)),
    ] {
        let mut seen: HashMap<i64, usize> = HashMap::new();
        for m in 0..grid.0 {
            for n in 0..grid.1 {
                let src = format!(
                    "local_tile(make_tensor(make_gmem_ptr<float>(A), {layout}), {tile}, ({m},{n}))"
                );
                for off in offsets(&tensor(&src)) {
                    *seen.entry(off).or_default() += 1;
                }
            }
        }
        assert_eq!(seen.len(), 2048, "{layout} by {tile}");
        assert!(
            seen.values().all(|&c| c == 1),
            "{layout} by {tile}: an element is covered twice"
        );
    }
    for (layout, thr) in [
        ("(_64,_32):(_1,_64)", "(_16,_8):(_1,_16)"),
        ("(_64,_32):(_32,_1)", "(_32,_4):(_4,_1)"),
    ] {
        let mut seen: HashMap<i64, usize> = HashMap::new();
        for tid in 0..128 {
            let src = format!(
                "local_partition(make_tensor(make_smem_ptr<float>(sA), {layout}), {thr}, {tid})"
            );
            for off in offsets(&tensor(&src)) {
                *seen.entry(off).or_default() += 1;
            }
        }
        assert_eq!(seen.len(), 2048, "{layout} over {thr}");
        assert!(
            seen.values().all(|&c| c == 1),
            "{layout} over {thr}: an element is owned twice"
        );
    }
}

#[test]
fn coordinate_tensors_give_the_coordinates_predication_needs() {
    // A 100x30 problem tiled by 32x16: the last tiles hang over the edge, and their coordinate
    // tensor says which elements are outside (m >= 100 or n >= 30).
    let mut inside = 0;
    for bm in 0..4 {
        for bn in 0..2 {
            let t = tensor(&format!(
                "local_tile(make_identity_tensor((100,30)), (_32,_16), ({bm},{bn}))"
            ));
            for i in 0..512 {
                let Element::Coord(c) = t
                    .at(&cute::layout::IntTuple::Int(cute::layout::d(i)))
                    .unwrap()
                else {
                    unreachable!()
                };
                let (m, n) = (c[0].value().unwrap(), c[1].value().unwrap());
                assert_eq!((m, n), (bm * 32 + i % 32, bn * 16 + i / 32));
                inside += usize::from(m < 100 && n < 30);
            }
        }
    }
    assert_eq!(inside, 3000);
}

#[test]
fn bad_tensor_input_is_an_error() {
    for (src, needle) in [
        ("make_gmem_ptr<quux>(A)", "unknown element type"),
        ("make_gmem_ptr<float>(3)", "pointer name"),
        ("make_tensor((_4,_4):(_1,_4))", "expected a pointer"),
        ("(make_tensor(make_gmem_ptr<float>(A), (_4,_4):(_1,_4)))(_,_,_)", "mismatched ranks"),
        ("local_tile(make_tensor(make_gmem_ptr<float>(A), (_4,_4):(_1,_4)), (_2,_2,_2), (0,0,0))", "too many modes"),
        ("local_tile(make_tensor(make_gmem_ptr<float>(A), (_4,_4):(_1,_4)), (_2,_2), (0,0), Step<_1>)", "different ranks"),
        ("make_identity_tensor(((_2,_2),_4))", "nested"),
        ("recast<float>(make_identity_tensor((_4,_4)))", "no element type"),
        ("local_partition(make_tensor(make_gmem_ptr<float>(A), (_4,_4):(_1,_4)), (_2,_2):(_1,_2), _)", "thread index"),
    ] {
        let e = eval_str(src).unwrap_err().to_string();
        assert!(e.contains(needle), "{src}: {e}");
    }
}
