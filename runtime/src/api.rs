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
//!
//! The tensor-core GEMMs take A and B of their type from the host (`half::f16` for `hgemm-sm80`,
//! `half::bf16` for `bgemm-sm80`, `f32` read as TF32 for `tf32gemm-sm80`), C in FP32 (or FP16 / BF16
//! for a plan `with_output` one), on host slices or on values uploaded once (`run_device`); their
//! 128-bit copies need leading dimensions of whole 16-byte rows (8 halves):
//!
//! ```no_run
//! use cute_runtime::{api::Gemm, gemm::Problem, gpu::Gpu};
//! use cute_codegen::GemmLayout;
//! use half::f16;
//! let gpu = Gpu::open()?;
//! let gemm = Gemm::named(&gpu, "hgemm-sm80", GemmLayout::parse("TN").unwrap())?;
//! let p = Problem::new(1000, 300, 64, gemm.layout(), 1.0, 0.0)?;
//! let (sa, sb, sc) = p.buffer_sizes();
//! let (a, b, mut c) = (vec![f16::ONE; sa], vec![f16::ONE; sb], vec![0.0f32; sc]);
//! gemm.run_host(&p, &a, &b, &mut c, None)?;
//! assert_eq!(c[0], 64.0);
//! # Ok::<(), cute_runtime::RuntimeError>(())
//! ```

use cudarc::driver::CudaSlice;
use cute_codegen::{emit, named, GemmLayout, GemmPlan, Kernel, Target};
use cute_layout::ElemType;

use crate::error::{Result, RuntimeError};
use crate::gemm::{launch, launch_bufs, Buffers, Problem};
use crate::gpu::{Gpu, Loaded};
use crate::launch::Buf;

/// A host element type of A, B and C (`f32`, `half::f16`, `half::bf16`): the kernel element
/// types it feeds, the C type it holds, and its device copies.
pub trait InputElem: Copy {
    /// Whether a kernel whose A and B are `e` takes these values (`f32` feeds FP32 and TF32).
    fn feeds(e: ElemType) -> bool;
    /// The C type these values are (`f32`: FP32; `f16`: FP16; `bf16`: BF16).
    fn holds(e: ElemType) -> bool;
    /// The values on the GPU.
    fn upload(gpu: &Gpu, x: &[Self]) -> Result<DeviceInput>;
    /// The device values back into `out` (of the same length and type).
    fn download(gpu: &Gpu, d: &DeviceInput, out: &mut [Self]) -> Result<()>;
}

/// A, B or C on the GPU (uploaded by [`InputElem::upload`]).
pub enum DeviceInput {
    F32(CudaSlice<f32>),
    Bits16(CudaSlice<u16>, ElemType),
    Bits8(CudaSlice<u8>, ElemType),
}

impl DeviceInput {
    /// The type of its values (FP32, or the 16-bit type of its bits).
    pub fn elem(&self) -> ElemType {
        match self {
            DeviceInput::F32(_) => ElemType::F32,
            DeviceInput::Bits16(_, e) | DeviceInput::Bits8(_, e) => *e,
        }
    }

    /// Whether a kernel whose A and B are `e` takes these values (FP32 feeds FP32 and TF32).
    pub fn feeds(&self, e: ElemType) -> bool {
        self.elem() == e || (self.elem() == ElemType::F32 && e == ElemType::Tf32)
    }

    pub(crate) fn buf(&self) -> Buf<'_> {
        match self {
            DeviceInput::F32(s) => Buf::F32(s),
            DeviceInput::Bits16(s, e) => Buf::Bits16(s, *e),
            DeviceInput::Bits8(s, e) => Buf::Bits8(s, *e),
        }
    }
}

pub(crate) fn up<T: cudarc::driver::DeviceRepr>(gpu: &Gpu, x: &[T]) -> Result<CudaSlice<T>> {
    gpu.stream
        .clone_htod(x)
        .map_err(RuntimeError::driver("upload"))
}

/// A device buffer's values copied back to the host.
fn down<T: cudarc::driver::DeviceRepr>(gpu: &Gpu, d: &CudaSlice<T>, out: &mut [T]) -> Result<()> {
    gpu.stream
        .memcpy_dtoh(d, out)
        .map_err(RuntimeError::driver("download of C"))
}

fn wrong_type() -> RuntimeError {
    RuntimeError::Problem("C's device buffer is not of the host type".into())
}

impl InputElem for f32 {
    fn feeds(e: ElemType) -> bool {
        matches!(e, ElemType::F32 | ElemType::Tf32)
    }
    fn holds(e: ElemType) -> bool {
        e == ElemType::F32
    }
    fn upload(gpu: &Gpu, x: &[f32]) -> Result<DeviceInput> {
        Ok(DeviceInput::F32(up(gpu, x)?))
    }
    fn download(gpu: &Gpu, d: &DeviceInput, out: &mut [f32]) -> Result<()> {
        match d {
            DeviceInput::F32(s) => down(gpu, s, out),
            _ => Err(wrong_type()),
        }
    }
}

/// The 16-bit host types: their bits on the GPU.
macro_rules! sixteen_bit_elem {
    ($t:ty, $e:expr) => {
        impl InputElem for $t {
            fn feeds(e: ElemType) -> bool {
                e == $e
            }
            fn holds(e: ElemType) -> bool {
                e == $e
            }
            fn upload(gpu: &Gpu, x: &[$t]) -> Result<DeviceInput> {
                let bits: Vec<u16> = x.iter().map(|v| v.to_bits()).collect();
                Ok(DeviceInput::Bits16(up(gpu, &bits)?, $e))
            }
            fn download(gpu: &Gpu, d: &DeviceInput, out: &mut [$t]) -> Result<()> {
                let DeviceInput::Bits16(s, e) = d else {
                    return Err(wrong_type());
                };
                if *e != $e {
                    return Err(wrong_type());
                }
                let mut bits = vec![0u16; out.len()];
                down(gpu, s, &mut bits)?;
                for (o, b) in out.iter_mut().zip(bits) {
                    *o = <$t>::from_bits(b);
                }
                Ok(())
            }
        }
    };
}

sixteen_bit_elem!(half::f16, ElemType::F16);
sixteen_bit_elem!(half::bf16, ElemType::Bf16);

/// The FP8 host types (the `float8` crate's): their bits on the GPU. A and B only: no GEMM
/// writes an FP8 C.
macro_rules! eight_bit_elem {
    ($t:ty, $e:expr) => {
        impl InputElem for $t {
            fn feeds(e: ElemType) -> bool {
                e == $e
            }
            fn holds(_: ElemType) -> bool {
                false
            }
            fn upload(gpu: &Gpu, x: &[$t]) -> Result<DeviceInput> {
                let bits: Vec<u8> = x.iter().map(|v| v.to_bits()).collect();
                Ok(DeviceInput::Bits8(up(gpu, &bits)?, $e))
            }
            fn download(_: &Gpu, _: &DeviceInput, _: &mut [$t]) -> Result<()> {
                Err(wrong_type())
            }
        }
    };
}

eight_bit_elem!(float8::F8E4M3, ElemType::E4M3);
eight_bit_elem!(float8::F8E5M2, ElemType::E5M2);

/// A GEMM on host A, B and C (sizes checked against `p`): uploads them, runs `run` on the
/// device values and copies C back.
pub(crate) fn on_host<T: InputElem, O: InputElem>(
    gpu: &Gpu,
    p: &Problem,
    (a, b, c): (&[T], &[T], &mut [O]),
    run: impl FnOnce(&DeviceInput, &DeviceInput, &mut DeviceInput) -> Result<()>,
) -> Result<()> {
    p.check()?;
    host_sizes(p, [a.len(), b.len(), c.len()])?;
    let (da, db) = (T::upload(gpu, a)?, T::upload(gpu, b)?);
    let mut dc = O::upload(gpu, c)?;
    run(&da, &db, &mut dc)?;
    O::download(gpu, &dc, c)
}

/// Whether host A, B and C have the sizes `p` needs ([`Problem::buffer_sizes`]).
fn host_sizes(p: &Problem, [a, b, c]: [usize; 3]) -> Result<()> {
    let (sa, sb, sc) = p.buffer_sizes();
    for (n, got, what) in [(sa, a, "A"), (sb, b, "B"), (sc, c, "C")] {
        if n != got {
            return Err(RuntimeError::Problem(format!(
                "{what} has {got} elements, the problem needs {n}"
            )));
        }
    }
    Ok(())
}

/// Whether device values A, B and C are of the types `plan`'s kernel (`name`) takes: A and B
/// fed by its input type, C of its output type.
pub(crate) fn device_types(
    plan: &GemmPlan,
    name: &str,
    [a, b, c]: [&DeviceInput; 3],
) -> Result<()> {
    let (elem, out) = (plan.input_type(), plan.output_type());
    for (what, d) in [("A", a), ("B", b)] {
        if !d.feeds(elem) {
            return Err(RuntimeError::Problem(format!(
                "{name} takes {what} of {elem}, given a device buffer of {}",
                d.elem()
            )));
        }
    }
    if c.elem() != out {
        return Err(RuntimeError::Problem(format!(
            "{name} writes C of {out}, given a device buffer of {}",
            c.elem()
        )));
    }
    Ok(())
}

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
        self.sync()
    }

    fn sync(&self) -> Result<()> {
        self.gpu
            .stream
            .synchronize()
            .map_err(RuntimeError::driver(format!(
                "running {}",
                self.loaded.kernel.name
            )))
    }

    /// The same on host slices (sizes from [`Problem::buffer_sizes`], leading dimensions from the
    /// problem): uploads A, B (of the kernel's input type, [`InputElem`]), C (of its output type:
    /// `f32`, or `half::f16` / `half::bf16` for a plan `with_output` a 16-bit C; and the bias,
    /// one per row or column, when the epilogue has one), runs ([`Gemm::run_device`]), and
    /// copies C back.
    pub fn run_host<T: InputElem, O: InputElem>(
        &self,
        p: &Problem,
        a: &[T],
        b: &[T],
        c: &mut [O],
        bias: Option<&[f32]>,
    ) -> Result<()> {
        self.same_layout(p)?;
        self.types::<T, O>()?;
        on_host(self.gpu, p, (a, b, c), |da, db, dc| {
            let dbias = bias.map(|v| up(self.gpu, v)).transpose()?;
            self.run_device(p, da, db, dc, dbias.as_ref())
        })
    }

    /// `C = alpha * A * B + beta * C` (+ the plan's epilogue) on device values of any type the
    /// kernel takes (A and B of its input type, C of its output type, uploaded by
    /// [`InputElem::upload`]; the bias FP32, one per row or column, when the epilogue has one);
    /// waits for it. A buffer of another type, one too short for the problem, or one whose
    /// alignment the kernel's vectors do not have is refused before the launch.
    pub fn run_device(
        &self,
        p: &Problem,
        a: &DeviceInput,
        b: &DeviceInput,
        c: &mut DeviceInput,
        bias: Option<&CudaSlice<f32>>,
    ) -> Result<()> {
        self.same_layout(p)?;
        let name = &self.loaded.kernel.name;
        device_types(&self.plan, name, [a, b, c])?;
        let placeholder;
        let bias = match (self.plan.epilogue.bias.is_some(), bias) {
            (true, None) => {
                return Err(RuntimeError::Problem(format!(
                    "{name} fuses a bias: pass one"
                )))
            }
            (true, Some(v)) => v,
            // the kernel takes no bias: a one-element placeholder buffer
            (false, _) => {
                placeholder = up(self.gpu, &[0.0f32])?;
                &placeholder
            }
        };
        p.check()?;
        launch_bufs(
            self.gpu,
            &self.loaded,
            p,
            [a.buf(), b.buf(), c.buf(), Buf::F32(bias)],
        )?;
        self.sync()
    }

    /// Whether host values of `T` feed the kernel's A and B and `O` is its C type.
    fn types<T: InputElem, O: InputElem>(&self) -> Result<()> {
        let name = &self.loaded.kernel.name;
        let elem = self.plan.input_type();
        if !T::feeds(elem) {
            return Err(RuntimeError::Problem(format!(
                "{name} takes A and B of {elem}, given {}",
                std::any::type_name::<T>()
            )));
        }
        let out = self.plan.output_type();
        if !O::holds(out) {
            return Err(RuntimeError::Problem(format!(
                "{name} writes C of {out}, given {}",
                std::any::type_name::<O>()
            )));
        }
        Ok(())
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
