//! cuBLAS's FP8 GEMM, the baseline of `fp8gemm-sm90` as `cublasGemmEx` is the 16-bit kernels':
//! `cublasLtMatmul` with E4M3 A and B, FP32 compute and scale, and a BF16 C. cuBLASLt takes FP8
//! operands K-major only (A transposed, B not: the TN layout). `cublasGemmEx` has no FP8.

use cudarc::cublaslt::sys as lt;
use cudarc::driver::CudaSlice;

use crate::error::{Result, RuntimeError};
use crate::gpu::Gpu;

/// cuBLASLt's workspace on Hopper (NVIDIA's recommendation: 32 MiB).
const WORKSPACE: usize = 32 << 20;

/// A cuBLASLt handle, the matmul and matrix descriptors of one FP8 problem and a workspace;
/// all destroyed on drop.
pub struct Fp8Gemm {
    handle: lt::cublasLtHandle_t,
    desc: lt::cublasLtMatmulDesc_t,
    layouts: [lt::cublasLtMatrixLayout_t; 3],
    workspace: CudaSlice<u8>,
}

fn check(call: &str, s: lt::cublasStatus_t) -> Result<()> {
    if s == lt::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(RuntimeError::Problem(format!(
            "{call}: cublasStatus {}",
            s as i32
        )))
    }
}

impl Fp8Gemm {
    /// `C (m x n, BF16, ldc) = alpha * A^T B + beta * C` with A `k x m` (lda) and B `k x n`
    /// (ldb), both E4M3 and K-major.
    pub fn new(
        gpu: &Gpu,
        (m, n, k): (i64, i64, i64),
        (lda, ldb, ldc): (i64, i64, i64),
    ) -> Result<Fp8Gemm> {
        let workspace = gpu
            .stream
            .alloc_zeros::<u8>(WORKSPACE)
            .map_err(RuntimeError::driver("cuBLASLt workspace"))?;
        let mut g = Fp8Gemm {
            handle: std::ptr::null_mut(),
            desc: std::ptr::null_mut(),
            layouts: [std::ptr::null_mut(); 3],
            workspace,
        };
        let dim = |x: i64| {
            u64::try_from(x).map_err(|_| RuntimeError::Problem(format!("{x}: not a size")))
        };
        // SAFETY: each call writes the handle or descriptor it creates; Drop destroys those
        // that were created (the others stay null).
        unsafe {
            check("cublasLtCreate", lt::cublasLtCreate(&mut g.handle))?;
            check(
                "cublasLtMatmulDescCreate",
                lt::cublasLtMatmulDescCreate(
                    &mut g.desc,
                    lt::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                    lt::cudaDataType_t::CUDA_R_32F,
                ),
            )?;
            // cublasOperation_t: CUBLAS_OP_T = 1 (an int32 attribute)
            let t: i32 = 1;
            check(
                "cublasLtMatmulDescSetAttribute(TRANSA)",
                lt::cublasLtMatmulDescSetAttribute(
                    g.desc,
                    lt::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSA,
                    (&t as *const i32).cast(),
                    std::mem::size_of::<i32>(),
                ),
            )?;
            let e4m3 = lt::cudaDataType_t::CUDA_R_8F_E4M3;
            let shapes = [
                (e4m3, dim(k)?, dim(m)?, lda),
                (e4m3, dim(k)?, dim(n)?, ldb),
                (lt::cudaDataType_t::CUDA_R_16BF, dim(m)?, dim(n)?, ldc),
            ];
            for (l, (ty, rows, cols, ld)) in g.layouts.iter_mut().zip(shapes) {
                check(
                    "cublasLtMatrixLayoutCreate",
                    lt::cublasLtMatrixLayoutCreate(l, ty, rows, cols, ld),
                )?;
            }
        }
        Ok(g)
    }

    /// One launch on the GPU's stream, at the device addresses of A, B and C (sized for the
    /// problem of `new`).
    pub fn run(&self, gpu: &Gpu, (a, b, c): (u64, u64, u64), alpha: f32, beta: f32) -> Result<()> {
        let [la, lb, lc] = self.layouts;
        let (ws, _guard) = cudarc::driver::DevicePtr::device_ptr(&self.workspace, &gpu.stream);
        // SAFETY: the descriptors are live and describe buffers of the sizes the caller
        // allocated; the workspace is WORKSPACE bytes; alpha and beta outlive the call.
        let s = unsafe {
            lt::cublasLtMatmul(
                self.handle,
                self.desc,
                (&alpha as *const f32).cast(),
                a as *const _,
                la,
                b as *const _,
                lb,
                (&beta as *const f32).cast(),
                c as *const _,
                lc,
                c as *mut _,
                lc,
                std::ptr::null(),
                ws as *mut _,
                WORKSPACE,
                gpu.stream.cu_stream() as lt::cudaStream_t,
            )
        };
        check("cublasLtMatmul (E4M3 x E4M3 -> BF16)", s)
    }
}

impl Drop for Fp8Gemm {
    fn drop(&mut self) {
        // SAFETY: each non-null handle was created by `new` and is destroyed once.
        unsafe {
            for l in self.layouts {
                if !l.is_null() {
                    lt::cublasLtMatrixLayoutDestroy(l);
                }
            }
            if !self.desc.is_null() {
                lt::cublasLtMatmulDescDestroy(self.desc);
            }
            if !self.handle.is_null() {
                lt::cublasLtDestroy(self.handle);
            }
        }
    }
}
