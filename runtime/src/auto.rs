//! The GEMM a selector picks for a problem, ready to run: `AutoGemm::new(&gpu, &p)` (FP32) or
//! `AutoGemm::for_dtype(&gpu, "bf16", &p)` (`f16`, `bf16`: the tensor-core GEMMs, C in FP32)
//! asks [`tuning::selected`] (this device's tuned plan of the shape's class from the tuning
//! cache, else the heuristic, `codegen::select::pick`), plans the kernel it names for the
//! GPU's architecture, and loads it — as one kernel, or as split-K ([`SplitK`], serial or
//! parallel) with its workspace when the pick splits K. What `cute run sgemm|hgemm|bgemm` does,
//! as a library call.
//!
//! ```no_run
//! use cute_runtime::{auto::AutoGemm, gemm::Problem, gpu::Gpu};
//! use cute_codegen::GemmLayout;
//! use half::bf16;
//! let gpu = Gpu::open()?;
//! let p = Problem::new(16, 4096, 4096, GemmLayout::parse("TN").unwrap(), 1.0, 0.0)?;
//! let gemm = AutoGemm::for_dtype(&gpu, "bf16", &p)?;
//! let (sa, sb, sc) = p.buffer_sizes();
//! let (a, b, mut c) = (vec![bf16::ONE; sa], vec![bf16::ONE; sb], vec![0.0f32; sc]);
//! gemm.run_host(&p, &a, &b, &mut c)?;
//! assert_eq!(c[0], 4096.0);
//! # Ok::<(), cute_runtime::RuntimeError>(())
//! ```

use cute_codegen::cuda::IndexWidth;
use cute_codegen::gemm::emit_with;
use cute_codegen::{named, GemmPlan, Target};

use crate::api::{DeviceInput, Gemm, InputElem};
use crate::error::{Result, RuntimeError};
use crate::gemm::{launch, Buffers, Problem};
use crate::gpu::Gpu;
use crate::launch::Buf;
use crate::split_k::{Split, SplitK, Workspace};
use crate::stream_k::StreamK;
use crate::tuning::{self, Device, Selected};
use cudarc::driver::CudaSlice;
use cute_codegen::gemm::SplitKMode;
use cute_codegen::recipes::StreamSchedule;

/// A selector's GEMM for one problem shape and layout.
pub struct AutoGemm<'g> {
    gpu: &'g Gpu,
    selected: Selected,
    shape: (i64, i64, i64),
    how: How<'g>,
}

/// One kernel, split-K's kernels and their workspace (parallel split-K's slices, serial
/// split-K's semaphores), or stream-K's and theirs.
enum How<'g> {
    One(Box<Gemm<'g>>),
    Split {
        sk: Box<SplitK<'g>>,
        cut: Split,
        work: Workspace,
    },
    Stream {
        sk: Box<StreamK<'g>>,
        sch: StreamSchedule,
        work: CudaSlice<f32>,
    },
}

impl<'g> AutoGemm<'g> {
    /// The selector's pick for `p`'s shape and layout on `gpu`, planned, compiled (through the
    /// compile cache) and loaded. The tuning cache is read if it is this device's; a missing,
    /// stale or corrupted one leaves the heuristic's pick.
    pub fn new(gpu: &'g Gpu, p: &Problem) -> Result<AutoGemm<'g>> {
        AutoGemm::for_dtype(gpu, "f32", p)
    }

    /// The pick of `dtype`'s selector (`f32`; `f16`, `bf16`: A and B of that type, C in FP32)
    /// for `p`, as [`AutoGemm::new`] takes FP32's.
    pub fn for_dtype(gpu: &'g Gpu, dtype: &str, p: &Problem) -> Result<AutoGemm<'g>> {
        p.check()?;
        let target = Target::parse(&gpu.arch)?;
        let load = Device::of(gpu).map(|d| tuning::load(&d)).ok();
        let table = load.as_ref().and_then(tuning::Load::table);
        let mnk = (p.m, p.n, p.k);
        let mut selected =
            tuning::selected(dtype, target, table, p.layout, mnk).ok_or_else(|| {
                RuntimeError::Problem(format!(
                    "no selector for {dtype} (f32, f16 and bf16 have one)"
                ))
            })?;
        if selected.mode != SplitKMode::None && p.index_width() != IndexWidth::I32 {
            // leading dimensions past the shape's own can make a matrix need 64-bit indices
            selected.splits = 1;
            selected.mode = SplitKMode::None;
            selected
                .reasons
                .push("this problem's leading dimensions need 64-bit indices: no split".into());
        }
        let plan = named::plan_for(&selected.name, p.layout, &target)?;
        AutoGemm::with_plan(gpu, plan, p, selected)
    }

    /// `plan` for problems of `p`'s shape and layout run as `selected.mode` says: split-K's
    /// kernels in `selected.splits` slices (serial or parallel) and their workspace, stream-K's
    /// over one CTA a CTA slot of the GPU and theirs, or the one kernel with the index width `p`
    /// needs. `selected.splits` becomes the slices made (K may cut into fewer than asked).
    pub fn with_plan(
        gpu: &'g Gpu,
        plan: GemmPlan,
        p: &Problem,
        mut selected: Selected,
    ) -> Result<AutoGemm<'g>> {
        let how = match selected.mode {
            SplitKMode::Parallel | SplitKMode::Serial => {
                let serial = selected.mode == SplitKMode::Serial;
                let sk = Box::new(SplitK::with_mode(gpu, plan, serial)?);
                let cut = sk.split(p, selected.splits)?;
                selected.splits = cut.splits;
                let work = sk.workspace(p, cut)?;
                How::Split { sk, cut, work }
            }
            SplitKMode::Stream => {
                let sk = Box::new(StreamK::new(gpu, plan)?);
                let sch = sk.schedule(p, sk.ctas())?;
                let work = sk.workspace(sch)?;
                How::Stream { sk, sch, work }
            }
            SplitKMode::None => {
                let kernel = emit_with(&plan, p.index_width())?;
                How::One(Box::new(Gemm::from_kernel(gpu, plan, &kernel)?))
            }
        };
        Ok(AutoGemm {
            gpu,
            selected,
            shape: (p.m, p.n, p.k),
            how,
        })
    }

    /// What was picked and why.
    pub fn selected(&self) -> &Selected {
        &self.selected
    }

    /// `C = alpha * A * B + beta * C` on device buffers for a problem of the shape and layout
    /// this was built for (alpha, beta and the leading dimensions may differ); waits for it.
    pub fn run(&self, p: &Problem, bufs: &mut Buffers) -> Result<()> {
        self.launch(p, bufs)?;
        self.sync()
    }

    /// [`AutoGemm::run`] without the wait: the kernels are queued on the GPU's stream (what a
    /// benchmark times).
    pub fn launch(&self, p: &Problem, bufs: &mut Buffers) -> Result<()> {
        self.same_shape(p)?;
        match &self.how {
            How::One(g) => launch(self.gpu, g.loaded(), p, bufs),
            How::Split { sk, cut, work } => sk.launch(p, bufs, work, *cut),
            How::Stream { sk, sch, work } => sk.launch(p, bufs, work, *sch),
        }
    }

    /// `C = alpha * A * B + beta * C` on device values (A and B of the plan's input type, C of
    /// its output type, uploaded by [`InputElem::upload`]) for a problem of the shape and
    /// layout this was built for; waits for it. Buffers of another type are refused.
    pub fn run_device(
        &self,
        p: &Problem,
        a: &DeviceInput,
        b: &DeviceInput,
        c: &mut DeviceInput,
    ) -> Result<()> {
        self.same_shape(p)?;
        crate::api::device_types(self.plan(), &self.plan().name, [a, b, c])?;
        if let How::One(g) = &self.how {
            return g.run_device(p, a, b, c, None);
        }
        // the selectors' plans fuse no bias: a one-element placeholder
        let none = crate::api::up(self.gpu, &[0.0f32])?;
        let bufs = [a.buf(), b.buf(), c.buf(), Buf::F32(&none)];
        match &self.how {
            How::Split { sk, cut, work } => sk.launch_bufs(p, bufs, work, *cut)?,
            How::Stream { sk, sch, work } => sk.launch_bufs(p, bufs, work, *sch)?,
            How::One(_) => {}
        }
        self.sync()
    }

    /// The same on host slices (sizes from [`Problem::buffer_sizes`]): A and B of the plan's
    /// input type (`f32`, `half::f16`, `half::bf16`), C of its output type (`f32`); uploads,
    /// runs ([`AutoGemm::run_device`]) and copies C back.
    pub fn run_host<T: InputElem, O: InputElem>(
        &self,
        p: &Problem,
        a: &[T],
        b: &[T],
        c: &mut [O],
    ) -> Result<()> {
        crate::api::on_host(self.gpu, p, (a, b, c), |da, db, dc| {
            self.run_device(p, da, db, dc)
        })
    }

    fn same_shape(&self, p: &Problem) -> Result<()> {
        if (p.m, p.n, p.k) != self.shape || p.layout != self.plan().layout {
            return Err(RuntimeError::Problem(format!(
                "this AutoGemm was built for {} {}x{}x{}, not {} {}x{}x{}",
                self.plan().layout,
                self.shape.0,
                self.shape.1,
                self.shape.2,
                p.layout,
                p.m,
                p.n,
                p.k
            )));
        }
        Ok(())
    }

    fn sync(&self) -> Result<()> {
        self.gpu
            .stream
            .synchronize()
            .map_err(RuntimeError::driver(format!(
                "running {}",
                self.plan().name
            )))
    }

    /// The plan (before its split).
    pub fn plan(&self) -> &GemmPlan {
        match &self.how {
            How::One(g) => g.plan(),
            How::Split { sk, .. } => sk.plan(),
            How::Stream { sk, .. } => sk.plan(),
        }
    }
}
