//! The GPU: a cudarc context and stream, kernels compiled for its architecture and loaded.

use std::sync::Arc;

use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream};
use cudarc::nvrtc::Ptx;
use cute_codegen::Kernel;

use crate::cache::{self, Provenance, Source};
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
    /// Where the cubin came from: compiled (and how long it took) or a cache.
    pub provenance: Provenance,
    /// The function.
    pub func: CudaFunction,
}

impl Loaded {
    /// Whether the cubin came from the cache.
    pub fn source(&self) -> Source {
        self.provenance.source
    }
}

/// `Ok` when the CUDA driver library is installed, else the [`RuntimeError::NoGpu`] saying so.
pub(crate) fn driver_present() -> Result<()> {
    // SAFETY: probing for libcuda runs only its initializers.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        return Ok(());
    }
    Err(RuntimeError::NoGpu {
        why: "the CUDA driver (libcuda.so.1) is not installed".into(),
        source: None,
    })
}

/// The architecture kernels are built for on a device of compute capability `major.minor`:
/// `sm_90a` on Hopper (wgmma, setmaxnreg and TMA multicast need the architecture-specific
/// target), `sm_XY` elsewhere.
pub fn arch_of(major: i32, minor: i32) -> String {
    if (major, minor) == (9, 0) {
        "sm_90a".to_string()
    } else {
        format!("sm_{major}{minor}")
    }
}

/// Whether a cubin for `cubin_arch` loads on a device of `device_arch` (both `sm_XY`, optionally
/// with an `a` suffix): a cubin runs on its own major version at an equal or higher minor; an
/// architecture-specific one (`sm_90a`) only on exactly that architecture.
pub fn runs_on(cubin_arch: &str, device_arch: &str) -> bool {
    let parse = |a: &str| -> Option<(u32, u32, bool)> {
        let digits = a.strip_prefix("sm_")?;
        let (digits, specific) = match digits.strip_suffix('a') {
            Some(d) => (d, true),
            None => (digits, false),
        };
        let n: u32 = digits.parse().ok()?;
        Some((n / 10, n % 10, specific))
    };
    match (parse(cubin_arch), parse(device_arch)) {
        (Some((cmaj, cmin, true)), Some((dmaj, dmin, _))) => (cmaj, cmin) == (dmaj, dmin),
        (Some((cmaj, cmin, false)), Some((dmaj, dmin, _))) => cmaj == dmaj && cmin <= dmin,
        _ => false,
    }
}

impl Gpu {
    /// Opens device 0; an error says what is missing when there is no driver or no GPU.
    pub fn open() -> Result<Gpu> {
        driver_present()?;
        let ctx = CudaContext::new(0).map_err(|e| RuntimeError::NoGpu {
            why: "no usable GPU (opening device 0 failed)".into(),
            source: Some(e),
        })?;
        let major = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
            .map_err(RuntimeError::driver("compute capability"))?;
        let minor = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
            .map_err(RuntimeError::driver("compute capability"))?;
        let arch = arch_of(major, minor);
        let name = ctx.name().unwrap_or_else(|_| "GPU".into());
        let stream = ctx.default_stream();
        Ok(Gpu {
            ctx,
            stream,
            arch,
            name,
        })
    }

    /// Compiles (through the cache) for the kernel's target (`kernel.target.name()`, the GPU its
    /// plan was verified for) and loads it; a target whose cubins do not run on this device is
    /// refused before compiling.
    pub fn load(&self, kernel: &Kernel) -> Result<Loaded> {
        self.load_for(kernel, kernel.target.name())
    }

    /// Compiles (through the cache) for `arch` and loads a kernel; an architecture whose cubins
    /// do not run on this device is refused before compiling.
    pub fn load_for(&self, kernel: &Kernel, arch: &str) -> Result<Loaded> {
        self.check_runs_here(kernel, arch)?;
        let (compiled, provenance) = cache::compile_timed(&kernel.name, &kernel.source, arch)?;
        self.load_compiled(kernel, compiled, provenance)
    }

    fn check_runs_here(&self, kernel: &Kernel, arch: &str) -> Result<()> {
        if runs_on(arch, &self.arch) {
            return Ok(());
        }
        Err(RuntimeError::WrongArch {
            kernel: kernel.name.clone(),
            arch: arch.to_string(),
            device: self.name.clone(),
            device_arch: self.arch.clone(),
        })
    }

    /// Loads a kernel already compiled (by [`cache::compile_timed`]), keeping the provenance of
    /// that compile: nothing is looked up again, so what the caller reported stays true.
    pub fn load_compiled(
        &self,
        kernel: &Kernel,
        compiled: Compiled,
        provenance: Provenance,
    ) -> Result<Loaded> {
        self.check_runs_here(kernel, &compiled.arch)?;
        let module = self
            .ctx
            .load_module(Ptx::from_binary(compiled.cubin.clone()))
            .map_err(RuntimeError::driver("loading the cubin"))?;
        let func = module
            .load_function(&kernel.name)
            .map_err(RuntimeError::driver("finding the kernel"))?;
        if kernel.launch.dynamic_smem_bytes > 0 {
            let bytes = i32::try_from(kernel.launch.dynamic_smem_bytes).unwrap_or(i32::MAX);
            func.set_attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes,
            )
            .map_err(RuntimeError::driver(
                "raising the dynamic shared-memory limit",
            ))?;
        }
        Ok(Loaded {
            kernel: kernel.clone(),
            compiled,
            provenance,
            func,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::runs_on;

    #[test]
    fn a_cubin_runs_on_its_major_version_at_an_equal_or_higher_minor() {
        assert!(runs_on("sm_80", "sm_80"));
        assert!(runs_on("sm_80", "sm_86"));
        assert!(runs_on("sm_86", "sm_89"));
        assert!(!runs_on("sm_86", "sm_80"));
        assert!(
            !runs_on("sm_80", "sm_90a"),
            "no cubin crosses a major version"
        );
        assert!(runs_on("sm_90a", "sm_90a"));
        assert!(!runs_on("sm_90a", "sm_100"));
        assert!(!runs_on("compute_90", "sm_90a"), "PTX is not a cubin");
        assert!(!runs_on("sm_9x", "sm_90a"));
    }
}
