//! `Gemm`: a GEMM plan compiled (through the cache) and loaded on a GPU, run on host slices or on
//! device buffers, in any of NN/NT/TN/TT.
//!
//! ```no_run
//! use cute_runtime::{api::Gemm, gemm::Problem, gpu::Gpu};
//! use cute_codegen::GemmLayout;
//! let gpu = Gpu::open()?;
//! let gemm = Gemm::named(&gpu, "sgemm-sm80", GemmLayout::parse("NN").unwrap())?;
//! let p = Problem::new(1000, 300, 17, gemm.layout(), 1.0, 0.0)?;
//! let (sa, sb, sc) = p.buffer_sizes();
//! let (a, b, mut c) = (vec![1.0f32; sa], vec![1.0f32; sb], vec![0.0f32; sc]);
//! gemm.run_host(&p, &a, &b, &mut c, None)?;
//! assert_eq!(c[0], 17.0);
//! # Ok::<(), cute_runtime::RuntimeError>(())
//! ```

use cute_codegen::{emit, named, GemmLayout, GemmPlan, Kernel, Target};

use crate::error::{Result, RuntimeError};
use crate::gemm::{launch, Buffers, Problem};
use crate::gpu::{Gpu, Loaded};

/// A loaded GEMM kernel and the plan it came from.
pub struct Gemm<'g> {
    gpu: &'g Gpu,
    plan: GemmPlan,
    loaded: Loaded,
}

impl<'g> Gemm<'g> {
    /// Emits, compiles (or finds in the cache) for the plan's target and loads a plan.
    pub fn new(gpu: &'g Gpu, plan: GemmPlan) -> Result<Gemm<'g>> {
        let kernel = emit(&plan)?;
        Gemm::from_kernel(gpu, plan, &kernel)
    }

    /// Compiles (or finds in the cache) for its target and loads a kernel already emitted from
    /// `plan`.
    pub fn from_kernel(gpu: &'g Gpu, plan: GemmPlan, kernel: &Kernel) -> Result<Gemm<'g>> {
        let loaded = gpu.load(kernel)?;
        Ok(Gemm::from_loaded(gpu, plan, loaded))
    }

    /// A kernel emitted from `plan` and already loaded (by [`Gpu::load_for`] or
    /// [`Gpu::load_compiled`]).
    pub fn from_loaded(gpu: &'g Gpu, plan: GemmPlan, loaded: Loaded) -> Gemm<'g> {
        Gemm { gpu, plan, loaded }
    }

    /// A named kernel (`cute emit --list`) in a layout, planned for this GPU's architecture
    /// (one of the code generator's targets, `cute_codegen::Target`).
    pub fn named(gpu: &'g Gpu, name: &str, layout: GemmLayout) -> Result<Gemm<'g>> {
        let target = Target::parse(&gpu.arch)?;
        Gemm::new(gpu, named::plan_for(name, layout, &target)?)
    }

    /// The layout of A and B this kernel was generated for.
    pub fn layout(&self) -> GemmLayout {
        self.plan.layout
    }

    /// The plan (its epilogue decides the reference).
    pub fn plan(&self) -> &GemmPlan {
        &self.plan
    }

    /// The loaded kernel (its source, launch spec and compile report).
    pub fn loaded(&self) -> &Loaded {
        &self.loaded
    }

    /// `C = alpha * A * B + beta * C` (+ the plan's epilogue) on device buffers; waits for it.
    pub fn run(&self, p: &Problem, bufs: &mut Buffers) -> Result<()> {
        self.same_layout(p)?;
        launch(self.gpu, &self.loaded, p, bufs)?;
        self.gpu
            .stream
            .synchronize()
            .map_err(RuntimeError::driver(format!(
                "running {}",
                self.loaded.kernel.name
            )))
    }

    /// The same on host slices (sizes from [`Problem::buffer_sizes`], leading dimensions from the
    /// problem): uploads A, B, C (and the bias, one per row or column, when the epilogue has one),
    /// runs, and copies C back.
    pub fn run_host(
        &self,
        p: &Problem,
        a: &[f32],
        b: &[f32],
        c: &mut [f32],
        bias: Option<&[f32]>,
    ) -> Result<()> {
        self.same_layout(p)?;
        let needed = self.plan.epilogue.bias.is_some();
        let bias: Vec<f32> = match (needed, bias) {
            (true, None) => {
                return Err(RuntimeError::Problem(format!(
                    "{} fuses a bias: pass one",
                    self.loaded.kernel.name
                )))
            }
            (true, Some(v)) => v.to_vec(),
            // the kernel takes no bias: a one-element placeholder buffer
            (false, _) => vec![0.0],
        };
        let mut bufs = Buffers::upload(self.gpu, p, a, b, c, &bias)?;
        self.run(p, &mut bufs)?;
        self.gpu
            .stream
            .memcpy_dtoh(&bufs.c, c)
            .map_err(RuntimeError::driver("download of C"))
    }

    fn same_layout(&self, p: &Problem) -> Result<()> {
        if p.layout != self.plan.layout {
            return Err(RuntimeError::Problem(format!(
                "{} was generated for {}, the problem is {}",
                self.loaded.kernel.name, self.plan.layout, p.layout
            )));
        }
        Ok(())
    }
}
