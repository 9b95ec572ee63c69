//! Split-K on the GPU. Parallel: a plan's partial-products kernel (`GemmPlan::with_split_k`)
//! over `S` slices of K into an FP32 workspace, then its reduction
//! (`recipes::split_k_reduce`), which sums the slices and applies the plan's epilogue as it
//! writes C; both launched on the GPU's stream, back to back. Serial
//! (`GemmPlan::with_serial_split_k`): one kernel whose slices add into C in turn, ordered by a
//! semaphore per output tile, its "workspace" those semaphores (zeros, left zero by every
//! launch). `codegen::select` picks `S` and the mode for a shape.

use cudarc::driver::CudaSlice;

use cute_codegen::recipes::{
    emit_split_kernels, k_chunk, semaphores, workspace_ld, workspace_len, MAX_WORKSPACE,
};
use cute_codegen::{GemmPlan, Kernel};

use crate::error::{Result, RuntimeError};
use crate::gemm::{check_buffers, check_buffers_with, BufferLens, Buffers, Problem};
use crate::gpu::{Gpu, Loaded};
use crate::launch::{launch, Arg, Buf};

/// A plan's split-K kernels, loaded: parallel split-K's two or serial split-K's one.
pub struct SplitK<'g> {
    gpu: &'g Gpu,
    plan: GemmPlan,
    kernels: Kernels,
}

enum Kernels {
    Parallel(Box<[Loaded; 2]>),
    Serial(Box<Loaded>),
}

/// What a split-K launch needs beside the problem's buffers: parallel split-K's FP32 slices,
/// or serial split-K's semaphores (one `int` per output tile, zero between launches).
pub enum Workspace {
    Slices(CudaSlice<f32>),
    Semaphores(CudaSlice<i32>),
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
    /// Split-K of `plan`, serial or parallel: emitted (`recipes::emit_split_kernels`),
    /// compiled through the cache and loaded.
    pub fn with_mode(gpu: &'g Gpu, plan: GemmPlan, serial: bool) -> Result<SplitK<'g>> {
        let kernels = emit_split_kernels(&plan, serial)?;
        SplitK::from_kernels(gpu, plan, &kernels)
    }

    /// Compiles (or finds in the cache) and loads the kernels `emit_split_kernels` wrote for
    /// `plan`: serial split-K's one, or parallel split-K's partials and reduction.
    pub fn from_kernels(gpu: &'g Gpu, plan: GemmPlan, kernels: &[Kernel]) -> Result<SplitK<'g>> {
        let kernels = match kernels {
            [serial] => Kernels::Serial(Box::new(gpu.load(serial)?)),
            [partial, reduce] => {
                Kernels::Parallel(Box::new([gpu.load(partial)?, gpu.load(reduce)?]))
            }
            _ => {
                return Err(RuntimeError::Problem(format!(
                    "{}: split-K is one kernel (serial) or two (parallel), not {}",
                    plan.name,
                    kernels.len()
                )))
            }
        };
        Ok(SplitK { gpu, kernels, plan })
    }

    /// Whether this is serial split-K.
    pub fn is_serial(&self) -> bool {
        matches!(self.kernels, Kernels::Serial(_))
    }

    /// The plan before the split (its epilogue is the reduction's).
    pub fn plan(&self) -> &GemmPlan {
        &self.plan
    }

    /// The kernels launched, in order.
    pub fn loaded(&self) -> Vec<&Loaded> {
        match &self.kernels {
            Kernels::Parallel(k) => k.iter().collect(),
            Kernels::Serial(k) => vec![k.as_ref()],
        }
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
        if self.is_serial() {
            return match semaphores(&self.plan, p.m, p.n) {
                Some(_) => Ok(Split { splits, kc, ldw: 0 }),
                None => Err(RuntimeError::Problem(format!(
                    "{}x{}: more output tiles than serial split-K's semaphores may number ({MAX_WORKSPACE})",
                    p.m, p.n
                ))),
            };
        }
        let ldw = workspace_ld(p.m);
        if workspace_len(ldw, p.n, splits).is_none() {
            return Err(RuntimeError::Problem(format!(
                "{}x{}x{} in {splits} slices: the split-K workspace ({ldw} x {} x {splits}) exceeds {MAX_WORKSPACE} elements",
                p.m, p.n, p.k, p.n
            )));
        }
        Ok(Split { splits, kc, ldw })
    }

    /// A workspace for `s`: `ldW x N x S` floats (every slice fully written by the partials),
    /// or serial split-K's semaphores, zeros, one per output tile.
    pub fn workspace(&self, p: &Problem, s: Split) -> Result<Workspace> {
        let alloc = RuntimeError::driver("allocating the split-K workspace");
        if self.is_serial() {
            let n = self.semaphores(p)?;
            let sem = self.gpu.stream.alloc_zeros::<i32>(n).map_err(alloc)?;
            return Ok(Workspace::Semaphores(sem));
        }
        let n = workspace_elems(p, s)?;
        let w = self.gpu.stream.alloc_zeros::<f32>(n).map_err(alloc)?;
        Ok(Workspace::Slices(w))
    }

    /// Serial split-K's semaphores for `p`: one per output tile.
    fn semaphores(&self, p: &Problem) -> Result<usize> {
        semaphores(&self.plan, p.m, p.n)
            .ok_or_else(|| RuntimeError::Problem(format!("{}x{}: no semaphore count", p.m, p.n)))
    }

    /// `C = alpha * A * B + beta * C` (+ the plan's epilogue) as `s.splits` partial products
    /// into `work`, then their reduction into C (or serial split-K's one kernel); asynchronous
    /// on the GPU's stream.
    pub fn launch(
        &self,
        p: &Problem,
        bufs: &mut Buffers,
        work: &Workspace,
        s: Split,
    ) -> Result<()> {
        self.launch_bufs(p, bufs.bufs(), work, s)
    }

    /// [`SplitK::launch`] on A, B, C and the bias of any type the kernels take (a 16-bit
    /// GEMM's A and B; the launch checks each against its parameter's type).
    pub fn launch_bufs(
        &self,
        p: &Problem,
        bufs: [Buf<'_>; 4],
        work: &Workspace,
        s: Split,
    ) -> Result<()> {
        let (partial_k, reduce_k, work) = match (&self.kernels, work) {
            (Kernels::Serial(k), Workspace::Semaphores(sem)) => {
                return self.launch_serial(k, p, bufs, sem, s)
            }
            (Kernels::Parallel(k), Workspace::Slices(w)) => (&k[0], &k[1], w),
            _ => {
                return Err(RuntimeError::Problem(format!(
                    "{}: a workspace of the other split-K mode",
                    self.plan.name
                )))
            }
        };
        let need = workspace_elems(p, s)?;
        if work.len() < need {
            return Err(RuntimeError::Problem(format!(
                "the split-K workspace has {} elements, {need} needed",
                work.len()
            )));
        }
        check_buffers(&reduce_k.kernel, p, BufferLens::of(&bufs))?;
        let [a, b, c, bias] = bufs;
        let (lda, ldb, ldc) = p.lds();
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
        launch(self.gpu, partial_k, &partial)?;
        // M, N, S, alpha, W, ldW, beta, C, ldC[, bias]
        let mut reduce = vec![
            Arg::Int(p.m),
            Arg::Int(p.n),
            Arg::Int(s.splits),
            Arg::Scalar(f64::from(p.alpha)),
            Arg::Buf(Buf::F32(work)),
            Arg::Int(s.ldw),
            Arg::Scalar(f64::from(p.beta)),
            Arg::Buf(c),
            Arg::Int(ldc),
        ];
        if self.plan.epilogue.bias.is_some() {
            reduce.push(Arg::Buf(bias));
        }
        launch(self.gpu, reduce_k, &reduce)
    }

    /// Serial split-K: the plan's arguments, then `Kc` and the semaphores.
    fn launch_serial(
        &self,
        k: &Loaded,
        p: &Problem,
        bufs: [Buf<'_>; 4],
        sem: &CudaSlice<i32>,
        s: Split,
    ) -> Result<()> {
        let need = self.semaphores(p)?;
        if sem.len() < need {
            return Err(RuntimeError::Problem(format!(
                "serial split-K has {} semaphores, {need} needed (one per output tile)",
                sem.len()
            )));
        }
        check_buffers_with(&k.kernel, p, BufferLens::of(&bufs), &[("Kc", s.kc)])?;
        let extra = [("Kc", Arg::Int(s.kc)), ("Sem", Arg::Buf(Buf::I32(sem)))];
        let args = crate::gemm::args_with(&k.kernel, p, bufs, &extra)?;
        launch(self.gpu, k, &args)
    }
}
