//! Snapshots of every recipe variant and of every named GEMM's IR kernel (NN): its IR (as
//! `ir::Kernel` prints) and its CUDA, for sm_90a with 32-bit indices, plus the 64-bit build of
//! one (only the index type differs).

use cute_codegen::cuda::{emit, emit_with, IndexWidth};
use cute_codegen::recipes::{gemm, variants, NAMES};
use cute_codegen::{named, GemmLayout};

#[test]
fn recipes_ir_and_cuda() {
    for name in NAMES {
        for k in variants(name).unwrap() {
            insta::assert_snapshot!(format!("{}_ir", k.name), k.to_string());
            insta::assert_snapshot!(format!("{}_cuda", k.name), emit(&k).unwrap().source);
        }
    }
}

#[test]
fn named_gemms_ir_and_cuda() {
    for name in named::NAMES {
        let plan = named::plan(name, GemmLayout::parse("NN").unwrap()).unwrap();
        let k = gemm(&plan).unwrap();
        insta::assert_snapshot!(format!("gemm_{name}_NN_ir"), k.to_string());
        insta::assert_snapshot!(format!("gemm_{name}_NN_cuda"), emit(&k).unwrap().source);
    }
}

#[test]
fn tensor_core_gemms_ir_and_cuda() {
    for name in named::TENSOR_CORE_NAMES {
        let plan = named::plan(name, GemmLayout::parse("TN").unwrap()).unwrap();
        let k = gemm(&plan).unwrap();
        insta::assert_snapshot!(format!("gemm_{name}_TN_ir"), k.to_string());
        insta::assert_snapshot!(format!("gemm_{name}_TN_cuda"), emit(&k).unwrap().source);
    }
}

/// The GEMVs: TN (A read in vectors) and NN (A a value at a time) stream B's columns along K;
/// NT and TT read B's rows in vectors along N, the warps splitting K.
#[test]
fn gemvs_ir_and_cuda() {
    for name in named::GEMV_NAMES {
        for layout in ["NN", "TN", "NT", "TT"] {
            let plan = named::plan(name, GemmLayout::parse(layout).unwrap()).unwrap();
            let k = gemm(&plan).unwrap();
            insta::assert_snapshot!(format!("gemm_{name}_{layout}_ir"), k.to_string());
            let cuda = emit(&k).unwrap().source;
            insta::assert_snapshot!(format!("gemm_{name}_{layout}_cuda"), cuda);
        }
    }
}

/// The MN-major operands: hgemm-sm80 NN reads A by `ldmatrix.trans`, tf32gemm-sm80 NN by 32-bit
/// shared loads from a `Sw<2,3,2>` tile.
#[test]
fn tensor_core_gemms_with_an_mn_major_operand_ir_and_cuda() {
    for name in ["hgemm-sm80", "tf32gemm-sm80"] {
        let plan = named::plan(name, GemmLayout::parse("NN").unwrap()).unwrap();
        let k = gemm(&plan).unwrap();
        insta::assert_snapshot!(format!("gemm_{name}_NN_ir"), k.to_string());
        insta::assert_snapshot!(format!("gemm_{name}_NN_cuda"), emit(&k).unwrap().source);
    }
}

/// hgemm-sm80 TN writing an FP16 C and bgemm-sm80 NN writing a BF16 one: C's parameter, the
/// conversions and the 64-bit vectors of the epilogue differ, the mainloop does not.
#[test]
fn tensor_core_gemms_with_a_16_bit_c_ir_and_cuda() {
    use cute_layout::ElemType::{Bf16, F16};
    for (name, layout, out) in [("hgemm-sm80", "TN", F16), ("bgemm-sm80", "NN", Bf16)] {
        let plan = named::plan(name, GemmLayout::parse(layout).unwrap())
            .unwrap()
            .with_output(out)
            .unwrap();
        let k = gemm(&plan).unwrap();
        let tag = format!("gemm_{name}_{layout}_{out}_out");
        insta::assert_snapshot!(format!("{tag}_ir"), k.to_string());
        insta::assert_snapshot!(format!("{tag}_cuda"), emit(&k).unwrap().source);
    }
}

#[test]
fn the_64_bit_build_differs_only_in_the_index_type() {
    let k = &variants("transpose").unwrap()[0];
    let narrow = emit(k).unwrap().source;
    let wide = emit_with(k, IndexWidth::I64).unwrap().source;
    let changed: Vec<(&str, &str)> = narrow
        .lines()
        .zip(wide.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert!(!changed.is_empty());
    for (a, b) in changed {
        assert_eq!(
            a.replace("int", "long long"),
            b.replace("int", "long long"),
            "{a} / {b}"
        );
    }
}

/// One warpgroup's wgmma tile (`recipes::wgmma_tile`): its IR and CUDA, descriptors included.
#[test]
fn the_wgmma_tile_ir_and_cuda() {
    let k = cute_codegen::recipes::wgmma_tile(
        "SM90_64x64x16_F32F16F16_SS<GMMA::Major::K,GMMA::Major::MN>",
        64,
    )
    .unwrap();
    insta::assert_snapshot!("wgmma_tile_f16_k_mn_ir", k.to_string());
    insta::assert_snapshot!("wgmma_tile_f16_k_mn_cuda", emit(&k).unwrap().source);
}

/// Split-K of sgemm-sm80-16x128 (the decode shapes' tile) and of hgemm-sm80-bias-relu: the
/// parallel partial products and reduction, and serial split-K's one kernel (its semaphore
/// wait and release around the epilogue, the slice's `beta_z`, `bias_z`, `relu_lo`).
#[test]
fn split_k_kernels_ir_and_cuda() {
    use cute_codegen::recipes::split_k_reduce;
    for (name, layout) in [("sgemm-sm80-16x128", "NN"), ("hgemm-sm80-bias-relu", "TN")] {
        let plan = named::plan(name, GemmLayout::parse(layout).unwrap()).unwrap();
        let kernels = [
            gemm(&plan.clone().with_split_k().unwrap()).unwrap(),
            split_k_reduce(&plan).unwrap(),
            gemm(&plan.clone().with_serial_split_k().unwrap()).unwrap(),
        ];
        for k in kernels {
            insta::assert_snapshot!(format!("{}_ir", k.name), k.to_string());
            insta::assert_snapshot!(format!("{}_cuda", k.name), emit(&k).unwrap().source);
        }
    }
}

/// Stream-K of sgemm-sm80-16x128 NN: the partials (the unit loop around the mainloop and
/// epilogue, each unit's indices bound first) and the reduction over each tile's slots.
#[test]
fn stream_k_kernels_ir_and_cuda() {
    use cute_codegen::recipes::stream_k_reduce;
    let plan = named::plan("sgemm-sm80-16x128", GemmLayout::parse("NN").unwrap()).unwrap();
    let kernels = [
        gemm(&plan.clone().with_stream_k().unwrap()).unwrap(),
        stream_k_reduce(&plan).unwrap(),
    ];
    for k in kernels {
        insta::assert_snapshot!(format!("{}_ir", k.name), k.to_string());
        insta::assert_snapshot!(format!("{}_cuda", k.name), emit(&k).unwrap().source);
    }
}
