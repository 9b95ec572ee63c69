//! One warp's tensor-core tile written with the builder: A and B through shared memory,
//! `ldmatrix` into the fragments CuTe's `make_tiled_copy_A/B` gives, one `mma.sync` per atom of
//! the tiled MMA, the accumulator stored to C. The CPU interpreter runs it and the result is
//! compared with a float64 product of the same (rounded) inputs; the CUDA is checked for the
//! atoms' instructions.

use cute_codegen::interp::{round, run, Arg, HostBuffer};
use cute_codegen::ir::{Kernel, KernelBuilder};
use cute_codegen::{CodegenError, Target};
use cute_layout::atom::{
    make_tiled_copy, make_tiled_copy_A, make_tiled_copy_B, make_tiled_mma, CopyAtom, CopyOp,
    MmaAtom, MmaOp, Operand,
};
use cute_layout::{s, tup, ElemType, Layout, Tensor};

/// `C (M x N, column-major) = A (M x K, K-major) * B (N x K, K-major)` for one tile of
/// `warps` warps of `op` (`(wm, wn)` of them), K = 16 (one 16-bit atom deep, two of TF32).
fn tile_kernel(
    op: &str,
    ldsm: (CopyOp, CopyOp),
    elem: ElemType,
    warps: (i64, i64),
) -> Result<Kernel, CodegenError> {
    let le = |e: cute_layout::Error| CodegenError::Layout {
        plan: "warp tile".into(),
        part: "test",
        source: e,
    };
    let op = MmaOp::from_name(op).unwrap();
    let mma = make_tiled_mma(
        MmaAtom::new(op),
        &Layout::col_major(&tup![s(warps.0), s(warps.1), s(1)]).map_err(le)?,
        &[],
    )
    .map_err(le)?;
    let dim = |i: usize| mma.tile_size(i).unwrap().as_static().unwrap();
    let (m, n, kk) = (dim(0), dim(1), 16);
    let threads = 32 * warps.0 * warps.1;
    let mut k = KernelBuilder::new("warp_tile");
    k.target(Target::sm80());
    let a = k.param_ptr("A", elem, false);
    let b = k.param_ptr("B", elem, false);
    let c = k.param_ptr("C", ElemType::F32, true);
    k.threads(threads);
    let tid = KernelBuilder::tid();
    let kmajor = |rows: i64| Layout::new(tup![s(rows), s(kk)], tup![s(kk), s(1)]).map_err(le);
    let ga = Tensor::new(a, kmajor(m)?);
    let gb = Tensor::new(b, kmajor(n)?);
    let gc = Tensor::new(c, Layout::col_major(&tup![s(m), s(n)]).map_err(le)?);
    let sa = k.smem("sA", elem, kmajor(m)?);
    let sb = k.smem("sB", elem, kmajor(n)?);
    // gmem -> smem: one element per thread per copy, threads along K then rows
    let one = CopyAtom::new(CopyOp::UniversalCopy { bits: elem.bits() }, elem).map_err(le)?;
    for (g, sm, rows) in [(&ga, &sa, m), (&gb, &sb, n)] {
        let per = (rows * kk / threads).max(1);
        let cp = make_tiled_copy(
            &one,
            &Layout::new(tup![s(threads / kk), s(kk)], tup![s(kk), s(1)]).map_err(le)?,
            &Layout::col_major(&tup![s(1), s(1)]).map_err(le)?,
        )
        .map_err(le)?;
        let _ = per;
        let thr = cp.get_slice(&tid).map_err(le)?;
        k.copy(
            &one,
            &thr.partition_s(g).map_err(le)?,
            &thr.partition_d(sm).map_err(le)?,
        );
    }
    k.sync();
    let thr_mma = mma.get_slice(&tid).map_err(le)?;
    let frag = |k: &mut KernelBuilder, name: &str, which: Operand, t: &Tensor, e: ElemType| {
        let p = thr_mma.partition(which, t).map_err(le)?;
        k.regs(
            name,
            e,
            Layout::col_major(p.layout().shape_layout().shape()).map_err(le)?,
        )
    };
    let ra = frag(&mut k, "rA", Operand::A, &sa, elem)?; // (V,MMA_M,MMA_K)
    let rb = frag(&mut k, "rB", Operand::B, &sb, elem)?; // (V,MMA_N,MMA_K)
    let acc = frag(&mut k, "acc", Operand::C, &gc, ElemType::F32)?; // (V,MMA_M,MMA_N)

    // smem -> registers: ldmatrix, as make_tiled_copy_A/B partition and retile
    for (atom_op, sm, r, which) in [
        (ldsm.0, &sa, &ra, Operand::A),
        (ldsm.1, &sb, &rb, Operand::B),
    ] {
        let atom = CopyAtom::new(atom_op, elem).map_err(le)?;
        let tiled = match which {
            Operand::A => make_tiled_copy_A(&atom, &mma),
            _ => make_tiled_copy_B(&atom, &mma),
        }
        .map_err(le)?;
        let thr = tiled.get_slice(&tid).map_err(le)?;
        let src = thr.partition_s(sm).map_err(le)?;
        let dst = thr.retile(r).map_err(le)?;
        k.copy(&atom, &src, &dst);
    }
    k.fill(&acc, 0.0);
    k.gemm(&MmaAtom::new(op), &ra, &rb, &acc);
    let t_gc = thr_mma.partition(Operand::C, &gc).map_err(le)?;
    let store = CopyAtom::new(CopyOp::UniversalCopy { bits: 32 }, ElemType::F32).map_err(le)?;
    k.copy(&store, &acc, &t_gc);
    k.finish()
}

/// Runs the tile on the CPU with values in [-1, 1) and returns the largest error against the
/// float64 product of the rounded inputs.
fn run_tile(k: &Kernel, elem: ElemType, m: usize, n: usize) -> f64 {
    let kk = 16;
    let val = |i: usize, salt: usize| ((i * 7 + salt * 13) % 17) as f64 / 8.5 - 1.0;
    let a: Vec<f64> = (0..m * kk).map(|i| round(elem, val(i, 1))).collect();
    let b: Vec<f64> = (0..n * kk).map(|i| round(elem, val(i, 2))).collect();
    let mut args = vec![
        Arg::Buffer(HostBuffer::from_values(elem, &a)),
        Arg::Buffer(HostBuffer::from_values(elem, &b)),
        Arg::Buffer(HostBuffer::from_values(
            ElemType::F32,
            &vec![f64::NAN; m * n],
        )),
    ];
    run(k, &mut args).unwrap_or_else(|e| panic!("{e}"));
    let Arg::Buffer(c) = &args[2] else {
        unreachable!()
    };
    let input = |x: f64| {
        if elem == ElemType::Tf32 {
            round(ElemType::Tf32, x)
        } else {
            x
        }
    };
    let mut worst = 0.0f64;
    for i in 0..m {
        for j in 0..n {
            let want: f64 = (0..kk)
                .map(|q| input(a[i * kk + q]) * input(b[j * kk + q]))
                .sum();
            worst = worst.max((c.data[i + m * j] - want).abs());
        }
    }
    worst
}

#[test]
fn an_fp16_mma_tile_through_ldmatrix_agrees_with_float64() {
    let x4 = CopyOp::LdsmN { matrices: 4 };
    let x2 = CopyOp::LdsmN { matrices: 2 };
    for (warps, ops) in [((1, 1), (x4, x2)), ((2, 2), (x4, x2))] {
        let k = tile_kernel("SM80_16x8x16_F32F16F16F32_TN", ops, ElemType::F16, warps).unwrap();
        let (m, n) = (16 * warps.0 as usize, 8 * warps.1 as usize);
        let err = run_tile(&k, ElemType::F16, m, n);
        assert!(err < 1e-4, "{warps:?}: {err}");
        let cuda = cute_codegen::cuda::emit(&k).unwrap().source;
        assert!(
            cuda.contains("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
            "{cuda}"
        );
        assert!(
            cuda.contains("ldmatrix.sync.aligned.x4.m8n8.shared.b16"),
            "{cuda}"
        );
        assert!(
            cuda.contains("ldmatrix.sync.aligned.x2.m8n8.shared.b16"),
            "{cuda}"
        );
        assert!(
            cuda.contains("cute_smem_u32(const void* p)"),
            "its helper is defined"
        );
        if let Ok(dir) = std::env::var("CUTE_DUMP_CUDA") {
            std::fs::write(format!("{dir}/warp_tile_{}x{}.cu", warps.0, warps.1), &cuda).unwrap();
        }
    }
}

#[test]
fn a_bf16_mma_tile_agrees_with_float64() {
    let ops = (CopyOp::LdsmN { matrices: 4 }, CopyOp::LdsmN { matrices: 2 });
    let k = tile_kernel(
        "SM80_16x8x16_F32BF16BF16F32_TN",
        ops,
        ElemType::Bf16,
        (1, 2),
    )
    .unwrap();
    assert!(run_tile(&k, ElemType::Bf16, 16, 16) < 1e-4);
}

#[test]
fn a_tf32_mma_tile_through_ldmatrix_agrees_with_float64() {
    // 32-bit values through ldmatrix: A's 16x8 k block is four 8x8 b16 matrices, B's two
    let ops = (CopyOp::LdsmN { matrices: 4 }, CopyOp::LdsmN { matrices: 2 });
    let k = tile_kernel("SM80_16x8x8_F32TF32TF32F32_TN", ops, ElemType::Tf32, (2, 1)).unwrap();
    assert!(run_tile(&k, ElemType::Tf32, 32, 8) < 1e-4);
    let cuda = cute_codegen::cuda::emit(&k).unwrap().source;
    assert!(
        cuda.contains("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32")
            && cuda.contains("unsigned rA[")
            && !cuda.contains("__uint_as_float(r0)"),
        "{cuda}"
    );
}

#[test]
fn a_wrong_ldmatrix_is_caught_on_the_cpu() {
    // x4 for B (one 8x16 atom holds two matrices): the copy's sizes disagree, a plan error
    let ops = (CopyOp::LdsmN { matrices: 4 }, CopyOp::LdsmN { matrices: 4 });
    let r = tile_kernel("SM80_16x8x16_F32F16F16F32_TN", ops, ElemType::F16, (1, 1));
    let err = r.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        err.contains("too few vals") && err.contains("SM75_U32x4_LDSM_N"),
        "{err}"
    );
}

#[test]
fn a_transposing_ldmatrix_on_k_major_rows_is_a_plan_error() {
    // LDSM_T reads each thread's 8 values down a column: K-major shared rows are not contiguous
    let ops = (CopyOp::LdsmT { matrices: 4 }, CopyOp::LdsmN { matrices: 2 });
    let err = tile_kernel("SM80_16x8x16_F32F16F16F32_TN", ops, ElemType::F16, (1, 1))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.contains("SM75_U16x8_LDSM_T") && err.contains("not contiguous"),
        "{err}"
    );
}

/// TF32 is held as its bits and FP32 as a float: a TF32 MMA fed FP32 fragments (or an FP32 tile
/// copied into TF32 registers) would convert numbers, so the kernel is refused, naming both.
#[test]
fn a_tf32_mma_over_fp32_fragments_is_refused() {
    let ops = (CopyOp::LdsmN { matrices: 4 }, CopyOp::LdsmN { matrices: 2 });
    let err = tile_kernel("SM80_16x8x8_F32TF32TF32F32_TN", ops, ElemType::F32, (2, 1))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("holds float, the atom takes tfloat32_t"),
        "{err}"
    );
}
