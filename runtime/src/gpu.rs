//! The GPU: a cudarc context and stream, kernels compiled for its architecture and loaded.

use std::sync::Arc;

use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream};
use cudarc::nvrtc::Ptx;
use cute_codegen::Kernel;

use crate::cache::{self, Source};
use crate::error::{Result, RuntimeError};
use crate::nvrtc::Compiled;

/// An open device.
pub struct Gpu {
    /// The context.
    pub ctx: Arc<CudaContext>,
    /// The stream every launch uses.
    pub stream: Arc<CudaStream>,
    /// `sm_90a`, `sm_80`, ...
    pub arch: String,
    /// The device's name.
    pub name: String,
}

/// A kernel compiled and loaded on a device.
pub struct Loaded {
    /// The generated kernel.
    pub kernel: Kernel,
    /// The compiled image and ptxas's report.
    pub compiled: Compiled,
    /// Whether it came from the cache.
    pub source: Source,
    /// Milliseconds spent compiling (0 when cached).
    pub compile_ms: f64,
    /// The function.
    pub func: CudaFunction,
}

fn driver(what: &str) -> impl FnOnce(cudarc::driver::DriverError) -> RuntimeError + '_ {
    move |e| RuntimeError::Driver(format!("{what}: {e:?}"))
}

impl Gpu {
    /// Opens device 0; an error says what is missing when there is no driver or no GPU.
    pub fn open() -> Result<Gpu> {
        // SAFETY: probing for libcuda runs only its initializers.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(RuntimeError::NoGpu(
                "the CUDA driver (libcuda.so.1) is not installed".into(),
            ));
        }
        let ctx = CudaContext::new(0)
            .map_err(|e| RuntimeError::NoGpu(format!("no usable GPU: {e:?}")))?;
        let major = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
            .map_err(driver("compute capability"))?;
        let minor = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
            .map_err(driver("compute capability"))?;
        let arch = if major == 9 && minor == 0 {
            "sm_90a".to_string()
        } else {
            format!("sm_{major}{minor}")
        };
        let name = ctx.name().unwrap_or_else(|_| "GPU".into());
        let stream = ctx.default_stream();
        Ok(Gpu {
            ctx,
            stream,
            arch,
            name,
        })
    }

    /// Compiles (through the cache) and loads a kernel, opting in to its shared memory.
    pub fn load(&self, kernel: &Kernel) -> Result<Loaded> {
        let t = std::time::Instant::now();
        let (compiled, source) = cache::compile(&kernel.name, &kernel.source, &self.arch)?;
        let compile_ms = if source == Source::Compiled {
            t.elapsed().as_secs_f64() * 1e3
        } else {
            0.0
        };
        let module = self
            .ctx
            .load_module(Ptx::from_binary(compiled.cubin.clone()))
            .map_err(driver("loading the cubin"))?;
        let func = module
            .load_function(&kernel.name)
            .map_err(driver("finding the kernel"))?;
        if kernel.launch.dynamic_smem_bytes > 0 {
            let bytes = i32::try_from(kernel.launch.dynamic_smem_bytes).unwrap_or(i32::MAX);
            func.set_attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes,
            )
            .map_err(driver("raising the dynamic shared-memory limit"))?;
        }
        Ok(Loaded {
            kernel: kernel.clone(),
            compiled,
            source,
            compile_ms,
            func,
        })
    }
}
