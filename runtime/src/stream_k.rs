//! Stream-K on the GPU: a SIMT plan's partial-products kernel (`GemmPlan::with_stream_k`: `G`
//! persistent CTAs sharing every output tile's k-tiles evenly, one FP32 workspace slot per tile
//! a CTA touches) and its reduction (`recipes::stream_k_reduce`: each tile's slots summed in
//! order of the CTA through the plan's epilogue), launched back to back on the GPU's stream.

use cudarc::driver::CudaSlice;

use cute_codegen::recipes::{emit_stream_k, schedule, StreamSchedule, MAX_WORKSPACE};
use cute_codegen::{GemmPlan, Kernel};

use crate::error::{Result, RuntimeError};
use crate::gemm::{args_with, check_buffers, BufferLens, Buffers, Problem};
use crate::gpu::{Gpu, Loaded};
use crate::launch::{launch, Arg, Buf};

/// The two kernels of a plan's stream-K, loaded.
pub struct StreamK<'g> {
    gpu: &'g Gpu,
    plan: GemmPlan,
    kernels: Box<[Loaded; 2]>,
}

impl<'g> StreamK<'g> {
    /// Emits (`recipes::emit_stream_k`), compiles through the cache and loads both kernels.
    pub fn new(gpu: &'g Gpu, plan: GemmPlan) -> Result<StreamK<'g>> {
        let kernels = emit_stream_k(&plan)?;
        StreamK::from_kernels(gpu, plan, &kernels)
    }

    /// Compiles (or finds in the cache) and loads the kernels `emit_stream_k` wrote for `plan`.
    pub fn from_kernels(
        gpu: &'g Gpu,
        plan: GemmPlan,
        [partial, reduce]: &[Kernel; 2],
    ) -> Result<StreamK<'g>> {
        let kernels = Box::new([gpu.load(partial)?, gpu.load(reduce)?]);
        Ok(StreamK { gpu, plan, kernels })
    }

    /// The CTAs stream-K launches: one a CTA slot of the target (its SMs times the CTAs an SM
    /// the partials are built for).
    pub fn ctas(&self) -> i64 {
        let per_sm = (self.plan.clone().with_stream_k().ok())
            .and_then(|p| p.cp_async_pipeline())
            .map_or(1, |x| x.1);
        self.plan.target.sms.max(1) * per_sm.max(1)
    }

    /// The plan before stream-K (its epilogue is the reduction's).
    pub fn plan(&self) -> &GemmPlan {
        &self.plan
    }

    /// `p` over at most `ctas` CTAs (`recipes::schedule`), checked: 32-bit indices, a
    /// workspace within `MAX_WORKSPACE` elements.
    pub fn schedule(&self, p: &Problem, ctas: i64) -> Result<StreamSchedule> {
        p.check()?;
        if p.index_width() != cute_codegen::cuda::IndexWidth::I32 {
            return Err(RuntimeError::Problem(format!(
                "{}: stream-K of {}x{}x{}: a matrix beyond 2^31 - 1 elements, and stream-K's kernels take 32-bit indices",
                self.plan.name, p.m, p.n, p.k
            )));
        }
        schedule(&self.plan, (p.m, p.n, p.k), ctas).ok_or_else(|| {
            RuntimeError::Problem(format!(
                "{}: stream-K of {}x{}x{} over {ctas} CTAs: no schedule (a workspace within {MAX_WORKSPACE} elements)",
                self.plan.name, p.m, p.n, p.k
            ))
        })
    }

    /// The workspace of `s`: `G J BLK_M BLK_N` floats (every slot the reduction reads is
    /// written by the partials).
    pub fn workspace(&self, s: StreamSchedule) -> Result<CudaSlice<f32>> {
        let n = usize::try_from(s.workspace_elems()).unwrap_or(0);
        self.gpu
            .stream
            .alloc_zeros::<f32>(n.max(1))
            .map_err(RuntimeError::driver("allocating the stream-K workspace"))
    }

    /// `C = alpha * A * B + beta * C` (+ the plan's epilogue) as stream-K's partials into `work`
    /// and their reduction into C; asynchronous on the GPU's stream.
    pub fn launch(
        &self,
        p: &Problem,
        bufs: &mut Buffers,
        work: &CudaSlice<f32>,
        s: StreamSchedule,
    ) -> Result<()> {
        self.launch_bufs(p, bufs.bufs(), work, s)
    }

    /// [`StreamK::launch`] on A, B, C and the bias as launch buffers (the launch checks each
    /// against its parameter's type).
    pub fn launch_bufs(
        &self,
        p: &Problem,
        bufs: [Buf<'_>; 4],
        work: &CudaSlice<f32>,
        s: StreamSchedule,
    ) -> Result<()> {
        let need = usize::try_from(s.workspace_elems()).unwrap_or(usize::MAX);
        if work.len() < need {
            return Err(RuntimeError::Problem(format!(
                "the stream-K workspace has {} elements, {need} needed",
                work.len()
            )));
        }
        let [partial, reduce] = self.kernels.as_ref();
        check_buffers(&reduce.kernel, p, BufferLens::of(&bufs))?;
        let [a, b, c, bias] = bufs;
        let (g, j) = (Arg::Int(s.ctas), Arg::Int(s.slots));
        let bm = self.plan.cp_async_pipeline().map_or(1, |x| x.0 .0);
        // the partials: alpha 1, beta 0, C the workspace (its slots' leading dimension BLK_M)
        let part = Problem {
            alpha: 1.0,
            beta: 0.0,
            ldc: bm,
            ..*p
        };
        let into = [a, b, Buf::F32(work), bias];
        let args = args_with(&partial.kernel, &part, into, &[("G", g), ("J", j)])?;
        launch(self.gpu, partial, &args)?;
        let from = [a, b, c, bias];
        let extra = [("W", Arg::Buf(Buf::F32(work))), ("G", g), ("J", j)];
        let args = args_with(&reduce.kernel, p, from, &extra)?;
        launch(self.gpu, reduce, &args)
    }
}
