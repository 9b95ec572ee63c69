//! Parallel split-K on the GPU: a plan's partial-products kernel (`GemmPlan::with_split_k`)
//! over `S` slices of K into an FP32 workspace, then its reduction
//! (`recipes::split_k_reduce`), which sums the slices and applies the plan's epilogue as it
//! writes C. Both are launched on the GPU's stream, back to back; `codegen::select::plan_splits`
//! is the heuristic that picks `S` for a shape.

use cudarc::driver::CudaSlice;

use cute_codegen::recipes::{emit_split_k, k_chunk, workspace_ld, workspace_len, MAX_WORKSPACE};
use cute_codegen::{GemmPlan, Kernel};

use crate::error::{Result, RuntimeError};
use crate::gemm::{check_buffers, BufferLens, Buffers, Problem};
use crate::gpu::{Gpu, Loaded};
use crate::launch::{launch, Arg, Buf};

/// The two kernels of a plan's parallel split-K, loaded.
pub struct SplitK<'g> {
    gpu: &'g Gpu,
    plan: GemmPlan,
    partial: Loaded,
    reduce: Loaded,
}

/// How a problem is split: `splits` slices of K, `kc` elements each (the last one shorter),
/// and the workspace's leading dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    pub splits: i64,
    pub kc: i64,
    pub ldw: i64,
}

/// The elements of a workspace for `s` (checked: a hand-made [`Split`] may be anything).
fn workspace_elems(p: &Problem, s: Split) -> Result<usize> {
    workspace_len(s.ldw, p.n, s.splits).ok_or_else(|| {
        RuntimeError::Problem(format!(
            "a split-K workspace of {} x {} x {} elements is out of range (0 to {MAX_WORKSPACE})",
            s.ldw, p.n, s.splits
        ))
    })
}

impl<'g> SplitK<'g> {
    /// Emits (`recipes::emit_split_k`), compiles through the cache and loads both kernels of
    /// `plan`.
    pub fn new(gpu: &'g Gpu, plan: GemmPlan) -> Result<SplitK<'g>> {
        let kernels = emit_split_k(&plan)?;
        SplitK::from_kernels(gpu, plan, &kernels)
    }

    /// Compiles (or finds in the cache) and loads the kernels `emit_split_k` wrote for `plan`.
    pub fn from_kernels(
        gpu: &'g Gpu,
        plan: GemmPlan,
        [partial, reduce]: &[Kernel; 2],
    ) -> Result<SplitK<'g>> {
        Ok(SplitK {
            gpu,
            partial: gpu.load(partial)?,
            reduce: gpu.load(reduce)?,
            plan,
        })
    }

    /// The plan before the split (its epilogue is the reduction's).
    pub fn plan(&self) -> &GemmPlan {
        &self.plan
    }

    /// The partial-products kernel and the reduction.
    pub fn loaded(&self) -> [&Loaded; 2] {
        [&self.partial, &self.reduce]
    }

    /// The split of `p` into at most `splits` slices, checked: the workspace and every offset
    /// into it must fit 32-bit indices.
    pub fn split(&self, p: &Problem, splits: i64) -> Result<Split> {
        p.check()?;
        if p.index_width() != cute_codegen::cuda::IndexWidth::I32 {
            return Err(RuntimeError::Problem(format!(
                "{}: split-K of {}x{}x{}: a matrix beyond 2^31 - 1 elements, and split-K's kernels take 32-bit indices (run it unsplit: its one kernel takes 64)",
                self.plan.name, p.m, p.n, p.k
            )));
        }
        let (kc, splits) = k_chunk(&self.plan, p.k, splits).ok_or_else(|| {
            RuntimeError::Problem(format!(
                "{}: split-K of K = {} into {splits} slices",
                self.plan.name, p.k
            ))
        })?;
        let ldw = workspace_ld(p.m);
        if workspace_len(ldw, p.n, splits).is_none() {
            return Err(RuntimeError::Problem(format!(
                "{}x{}x{} in {splits} slices: the split-K workspace ({ldw} x {} x {splits}) exceeds {MAX_WORKSPACE} elements",
                p.m, p.n, p.k, p.n
            )));
        }
        Ok(Split { splits, kc, ldw })
    }

    /// A workspace for `s`: `ldW x N x S` floats (every slice fully written by the partials).
    pub fn workspace(&self, p: &Problem, s: Split) -> Result<CudaSlice<f32>> {
        let n = workspace_elems(p, s)?;
        self.gpu
            .stream
            .alloc_zeros::<f32>(n)
            .map_err(RuntimeError::driver("allocating the split-K workspace"))
    }

    /// `C = alpha * A * B + beta * C` (+ the plan's epilogue) as `s.splits` partial products
    /// into `work`, then their reduction into C; asynchronous on the GPU's stream.
    pub fn launch(
        &self,
        p: &Problem,
        bufs: &mut Buffers,
        work: &CudaSlice<f32>,
        s: Split,
    ) -> Result<()> {
        let need = workspace_elems(p, s)?;
        if work.len() < need {
            return Err(RuntimeError::Problem(format!(
                "the split-K workspace has {} elements, {need} needed",
                work.len()
            )));
        }
        let lens = BufferLens {
            a: bufs.a.len(),
            b: bufs.b.len(),
            c: bufs.c.len(),
            bias: bufs.bias.len(),
        };
        check_buffers(&self.reduce.kernel, p, lens)?;
        let (lda, ldb, ldc) = p.lds();
        let (a, b) = (Buf::F32(&bufs.a), Buf::F32(&bufs.b));
        // M, N, K, alpha 1, A, ldA, B, ldB, beta 0, W, ldW, Kc
        let partial = [
            Arg::Int(p.m),
            Arg::Int(p.n),
            Arg::Int(p.k),
            Arg::Scalar(1.0),
            Arg::Buf(a),
            Arg::Int(lda),
            Arg::Buf(b),
            Arg::Int(ldb),
            Arg::Scalar(0.0),
            Arg::Buf(Buf::F32(work)),
            Arg::Int(s.ldw),
            Arg::Int(s.kc),
        ];
        launch(self.gpu, &self.partial, &partial)?;
        // M, N, S, alpha, W, ldW, beta, C, ldC[, bias]
        let mut reduce = vec![
            Arg::Int(p.m),
            Arg::Int(p.n),
            Arg::Int(s.splits),
            Arg::Scalar(f64::from(p.alpha)),
            Arg::Buf(Buf::F32(work)),
            Arg::Int(s.ldw),
            Arg::Scalar(f64::from(p.beta)),
            Arg::Buf(Buf::F32(&bufs.c)),
            Arg::Int(ldc),
        ];
        if self.plan.epilogue.bias.is_some() {
            reduce.push(Arg::Buf(Buf::F32(&bufs.bias)));
        }
        launch(self.gpu, &self.reduce, &reduce)
    }
}
