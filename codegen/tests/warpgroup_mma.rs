//! One warpgroup's `wgmma` tile (`recipes::wgmma_tile`): A and B in SW128 GMMA layouts in
//! shared memory, one descriptor per 64 x 16 tile. The CPU interpreter runs it against a
//! float64 product of the same rounded inputs, in both majors of the 16-bit operands and for
//! TF32; the CUDA has the atom's `wgmma` with the descriptors `make_gmma_desc` derives.

use cute_codegen::cuda::emit;
use cute_codegen::interp::{round, run, Arg, HostBuffer};
use cute_codegen::recipes::wgmma_tile;
use cute_layout::ElemType;

/// C (64 x N, column-major) of A (64 x K) and B (N x K) in the majors `(a_k, b_k)`.
fn check(atom: &str, elem: ElemType, n: usize, k: usize, majors: (bool, bool)) -> String {
    check_types(atom, (elem, elem), n, k, majors, 1e-4)
}

/// [`check`] with A and B of types `(ta, tb)` (8-bit integers take small integers) and C within
/// `tol` of the float64 product.
fn check_types(
    atom: &str,
    (ta, tb): (ElemType, ElemType),
    n: usize,
    k: usize,
    (a_k, b_k): (bool, bool),
    tol: f64,
) -> String {
    let kern = wgmma_tile(atom, k as i64).unwrap_or_else(|e| panic!("{atom}: {e}"));
    let val = |t: ElemType, i: usize, salt: usize| {
        let q = (i * 7 + salt * 13) % 17;
        match t {
            ElemType::I8 => q as f64 - 8.0,
            ElemType::U8 => q as f64,
            _ => round(t, q as f64 / 8.5 - 1.0),
        }
    };
    let a: Vec<f64> = (0..64 * k).map(|i| val(ta, i, 1)).collect();
    let b: Vec<f64> = (0..n * k).map(|i| val(tb, i, 2)).collect();
    let mut args = vec![
        Arg::Buffer(HostBuffer::from_values(ta, &a)),
        Arg::Buffer(HostBuffer::from_values(tb, &b)),
        Arg::Buffer(HostBuffer::from_values(
            ElemType::F32,
            &vec![f64::NAN; 64 * n],
        )),
    ];
    run(&kern, &mut args).unwrap_or_else(|e| panic!("{atom}: {e}"));
    let Arg::Buffer(c) = &args[2] else { panic!() };
    let at_a = |mi: usize, q: usize| if a_k { a[mi * k + q] } else { a[mi + 64 * q] };
    let at_b = |ni: usize, q: usize| if b_k { b[ni * k + q] } else { b[ni + n * q] };
    for ni in 0..n {
        for mi in 0..64 {
            let want: f64 = (0..k).map(|q| at_a(mi, q) * at_b(ni, q)).sum();
            let got = c.data[mi + 64 * ni];
            assert!(
                (got - want).abs() <= tol * want.abs().max(1.0),
                "{atom} C({mi},{ni}) = {got}, want {want}"
            );
        }
    }
    emit(&kern).unwrap().source
}

const K: &str = "GMMA::Major::K";
const MN: &str = "GMMA::Major::MN";

#[test]
fn a_k_major_fp16_tile_agrees_with_float64_and_reads_its_descriptors() {
    let atom = format!("SM90_64x64x16_F32F16F16_SS<{K},{K}>");
    let cuda = check(&atom, ElemType::F16, 64, 64, (true, true));
    assert!(
        cuda.contains("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"),
        "{cuda}"
    );
    // SW128 (layout type 1 at bit 62), SBO 1024 bytes (64 at bit 32), LBO 1 (bit 16)
    assert!(
        cuda.contains("cute_gmma_desc(0x4000004000010000ull, cute_smem_u32(sA)"),
        "{cuda}"
    );
    for fence in [
        "fence.proxy.async.shared::cta",
        "wgmma.fence.sync.aligned",
        "wgmma.commit_group.sync.aligned",
        "wgmma.wait_group.sync.aligned 0",
    ] {
        assert!(cuda.contains(fence), "{fence}");
    }
    assert!(cuda.contains("extern __shared__ __align__(1024)"));
}

#[test]
fn mn_major_bf16_and_k_major_tf32_tiles_agree_with_float64() {
    check(
        &format!("SM90_64x32x16_F32BF16BF16_SS<{MN},{MN}>"),
        ElemType::Bf16,
        32,
        64,
        (false, false),
    );
    check(
        &format!("SM90_64x64x16_F32F16F16_SS<{K},{MN}>"),
        ElemType::F16,
        64,
        128,
        (true, false),
    );
    check(
        "SM90_64x16x8_F32TF32TF32_SS_TN<>",
        ElemType::Tf32,
        16,
        32,
        (true, true),
    );
}

/// A from registers (RS): each thread's fragment of the atom's `ALayout_64x16` read from the
/// shared tile, packed two 16-bit values (or one TF32) a register into the wgmma's 4 A
/// registers; B by descriptor in either major.
#[test]
fn register_a_tiles_agree_with_float64() {
    let cuda = check(
        &format!("SM90_64x64x16_F32F16F16_RS<{K},{MN}>"),
        ElemType::F16,
        64,
        64,
        (true, false),
    );
    assert!(
        cuda.contains("}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;"),
        "{cuda}"
    );
    assert!(cuda.contains("cute_pack16(tCrA["), "{cuda}");
    check(
        &format!("SM90_64x32x16_F32BF16BF16_RS<{K},{K}>"),
        ElemType::Bf16,
        32,
        32,
        (true, true),
    );
    check(
        "SM90_64x16x8_F32TF32TF32_RS_TN<>",
        ElemType::Tf32,
        16,
        16,
        (true, true),
    );
}

/// An FP16 accumulator (`.f16` over FP16 or FP8 operands): each thread's N/2 values held two to
/// a register, declared as `unsigned` pairs the wgmma reads and writes in place and viewed as
/// 16-bit values by the rest of the kernel (CuTe's `recast`); within FP16's rounding of every
/// atom's sum. The integer MMAs (`S32S8U8`) accumulate exactly.
#[test]
fn fp16_and_integer_accumulators_agree_with_float64() {
    let cuda = check_types(
        &format!("SM90_64x64x16_F16F16F16_SS<{K},{MN}>"),
        (ElemType::F16, ElemType::F16),
        64,
        64,
        (true, false),
        4e-3,
    );
    assert!(
        cuda.contains(
            "unsigned acc_pairs[16]; // 32 half_t, two per register (a wgmma accumulator)"
        ),
        "{cuda}"
    );
    assert!(
        cuda.contains("unsigned short* acc = reinterpret_cast<unsigned short*>(acc_pairs);"),
        "{cuda}"
    );
    assert!(cuda.contains("(acc_pairs[0], acc_pairs[1],"), "{cuda}");
    assert!(!cuda.contains("cute_pack16"), "{cuda}");
    check_types(
        &format!("SM90_64x32x16_F16F16F16_RS<{K},{K}>"),
        (ElemType::F16, ElemType::F16),
        32,
        32,
        (true, true),
        4e-3,
    );
    check_types(
        "SM90_64x32x32_F16E4M3E4M3_SS_TN<>",
        (ElemType::E4M3, ElemType::E4M3),
        32,
        64,
        (true, true),
        4e-3,
    );
    let cuda = check_types(
        "SM90_64x16x32_S32S8U8_SS_TN",
        (ElemType::I8, ElemType::U8),
        16,
        64,
        (true, true),
        0.0,
    );
    assert!(cuda.contains("int acc[8];"), "{cuda}");
    assert!(cuda.contains(".s32.s8.u8 {%0,"), "{cuda}");
}

#[test]
fn what_the_lowering_does_not_take_is_an_error() {
    let bad = |atom: &str, k: i64| wgmma_tile(atom, k).unwrap_err().to_string();
    assert!(bad(&format!("SM90_64x64x16_F32F16F16_SS<{K},{K}>"), 24)
        .contains("a multiple of the atom's K"));
    // an FP8 or integer register A is not lowered
    assert!(bad("SM90_64x64x32_S32S8S8_RS_TN", 64).contains("RS over 16-bit or TF32 A"));
    assert!(bad("SM90_64x64x32_F32E4M3E4M3_RS_TN<>", 64).contains("RS over 16-bit or TF32 A"));
    assert!(bad("SM80_16x8x16_F32F16F16F32_TN", 64).contains("not an SM90 GMMA atom"));
}
