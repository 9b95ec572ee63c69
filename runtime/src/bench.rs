//! Timing a generated kernel beside cuBLAS SGEMM in the same process: CUDA events (created with
//! CU_EVENT_DEFAULT so they can time), warm-up, the median of repeated runs.

use cudarc::cublas::CudaBlas;
use cudarc::driver::sys::CUevent_flags;

use crate::check::Rng;
use crate::error::{Result, RuntimeError};
use crate::gemm::{cublas_sgemm, launch, Buffers, Problem};
use crate::gpu::{Gpu, Loaded};

/// Medians in milliseconds: (generated kernel, cuBLAS).
pub struct Timing {
    pub kernel_ms: f64,
    pub cublas_ms: f64,
    /// Whether both were timed launch to launch ([`LAUNCH_TO_LAUNCH_BELOW_MS`]).
    pub launch_to_launch: bool,
}

/// Below this cuBLAS time (10 µs) an event pair around one launch measures mostly the launch:
/// both sides are then timed launch to launch ([`time_back_to_back`]).
pub const LAUNCH_TO_LAUNCH_BELOW_MS: f64 = 0.010;

/// Launches a back-to-back sample holds.
const BACK_TO_BACK: usize = 100;

/// How a kernel and cuBLAS are timed: an event pair around each launch, or launch to launch
/// ([`time_back_to_back`]); `Auto` takes launch to launch where cuBLAS's own launch takes under
/// [`LAUNCH_TO_LAUNCH_BELOW_MS`]. A comparison of several kernels at one shape (`cute tune`)
/// names the method the first one got, so all are timed the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Auto,
    PerLaunch,
    LaunchToLaunch,
}

impl Method {
    /// Whether to time launch to launch, given cuBLAS's per-launch median.
    pub fn launch_to_launch(self, cublas_ms: f64) -> bool {
        match self {
            Method::Auto => cublas_ms < LAUNCH_TO_LAUNCH_BELOW_MS,
            Method::PerLaunch => false,
            Method::LaunchToLaunch => true,
        }
    }

    /// The method a timing used.
    pub fn of(launch_to_launch: bool) -> Method {
        if launch_to_launch {
            Method::LaunchToLaunch
        } else {
            Method::PerLaunch
        }
    }
}

/// The timed runs of a benchmark (after 3 warm-ups and [`WARM_UP`]) and how they are timed; a count alone is
/// [`Method::Auto`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reps {
    pub count: usize,
    pub method: Method,
}

impl From<usize> for Reps {
    fn from(count: usize) -> Reps {
        Reps {
            count,
            method: Method::Auto,
        }
    }
}

impl Timing {
    /// TFLOP/s of the kernel and of cuBLAS.
    pub fn tflops(&self, p: &Problem) -> (f64, f64) {
        (
            p.flops() / self.kernel_ms / 1e9,
            p.flops() / self.cublas_ms / 1e9,
        )
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// The least wall time the warm-up of a timing keeps the GPU busy (each run waited for):
/// after a compile or a shape's setup the GPU idles at low clocks, and a few runs of a 20 µs
/// kernel do not bring them up (an H100, 2026-12-07: the first plan `cute tune` timed at a
/// shape, 512³ BF16, ran 29.0 µs there and 18.2 µs in the suite's bench).
pub const WARM_UP: std::time::Duration = std::time::Duration::from_millis(10);

/// The most warm-up runs (a kernel of a microsecond stops here, short of [`WARM_UP`]).
const MAX_WARM_UP_RUNS: usize = 2000;

/// Runs `f` at least `runs` times and until [`WARM_UP`] has passed, each run waited for.
fn warm_up(gpu: &Gpu, runs: usize, f: &mut impl FnMut() -> Result<()>) -> Result<()> {
    let start = std::time::Instant::now();
    let mut done = 0;
    while done < runs || (start.elapsed() < WARM_UP && done < MAX_WARM_UP_RUNS) {
        f()?;
        gpu.stream
            .synchronize()
            .map_err(RuntimeError::driver("warm-up"))?;
        done += 1;
    }
    Ok(())
}

/// Times `f` with events: at least `warmup` runs and [`WARM_UP`] of them, then the median of
/// `reps`.
pub(crate) fn time(
    gpu: &Gpu,
    warmup: usize,
    reps: usize,
    mut f: impl FnMut() -> Result<()>,
) -> Result<f64> {
    if reps == 0 {
        return Err(RuntimeError::Problem(
            "a benchmark needs at least one timed run".into(),
        ));
    }
    let ev = |what: &'static str| RuntimeError::driver(format!("timing event: {what}"));
    warm_up(gpu, warmup, &mut f)?;
    let mut samples = Vec::with_capacity(reps);
    for _ in 0..reps {
        let event = || {
            gpu.ctx
                .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(ev("create"))
        };
        let (start, end) = (event()?, event()?);
        start.record(&gpu.stream).map_err(ev("record"))?;
        f()?;
        end.record(&gpu.stream).map_err(ev("record"))?;
        end.synchronize().map_err(ev("synchronize"))?;
        samples.push(f64::from(start.elapsed_ms(&end).map_err(ev("elapsed"))?));
    }
    Ok(median(samples))
}

/// Times `f` launched [`BACK_TO_BACK`] times between one event pair, per launch: a warm-up of
/// `warmup` batches and [`WARM_UP`], then the median of `samples` such batches. What a stream of small GEMMs costs each,
/// launch to launch.
pub(crate) fn time_back_to_back(
    gpu: &Gpu,
    warmup: usize,
    samples: usize,
    mut f: impl FnMut() -> Result<()>,
) -> Result<f64> {
    let batch = time(gpu, warmup, samples, || {
        (0..BACK_TO_BACK).try_for_each(|_| f())
    })?;
    Ok(batch / BACK_TO_BACK as f64)
}

/// Times a kernel and cuBLAS SGEMM (pedantic FP32) on the same problem and buffers.
pub fn bench(
    gpu: &Gpu,
    blas: &CudaBlas,
    loaded: &Loaded,
    p: &Problem,
    reps: impl Into<Reps>,
) -> Result<Timing> {
    bench_with(gpu, blas, p, reps, &mut |bufs| launch(gpu, loaded, p, bufs))
}

/// [`bench`] of any way of computing the GEMM on device buffers (`run` launches it on the
/// GPU's stream, such as split-K's two kernels).
pub fn bench_with(
    gpu: &Gpu,
    blas: &CudaBlas,
    p: &Problem,
    reps: impl Into<Reps>,
    run: &mut dyn FnMut(&mut Buffers) -> Result<()>,
) -> Result<Timing> {
    let Reps { count, method } = reps.into();
    let mut rng = Rng::fresh(p.m as u64);
    let (sa, sb, sc) = p.buffer_sizes();
    let a = rng.fill(sa);
    let b = rng.fill(sb);
    let c = rng.fill(sc);
    let bias = rng.fill(p.m.max(p.n) as usize);
    let mut bufs = Buffers::upload(gpu, p, &a, &b, &c, &bias)?;
    let mut bufs2 = Buffers::upload(gpu, p, &a, &b, &c, &bias)?;
    let cublas_ms = time(gpu, 3, count, || cublas_sgemm(blas, p, &mut bufs2))?;
    if method.launch_to_launch(cublas_ms) {
        return Ok(Timing {
            kernel_ms: time_back_to_back(gpu, 3, count, || run(&mut bufs))?,
            cublas_ms: time_back_to_back(gpu, 3, count, || cublas_sgemm(blas, p, &mut bufs2))?,
            launch_to_launch: true,
        });
    }
    Ok(Timing {
        kernel_ms: time(gpu, 3, count, || run(&mut bufs))?,
        cublas_ms,
        launch_to_launch: false,
    })
}
