//! Running a GEMM: a problem (sizes, layout, alpha, beta), device buffers, the launch of a
//! generated kernel with its requirements checked first, and cuBLAS for the reference (DGEMM,
//! float64) and the baseline (SGEMM, pure FP32).

use cudarc::cublas::sys::{cublasMath_t, cublasOperation_t};
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cudarc::driver::{CudaSlice, DevicePtr};
use cute_codegen::cuda::IndexWidth;
use cute_codegen::gemm::Major;
use cute_codegen::{GemmLayout, Kernel, ParamType, Requirement};

use crate::error::{Result, RuntimeError};
use crate::gpu::{Gpu, Loaded};
use crate::launch::{Arg, Buf};

/// A GEMM problem: `C (M x N) = alpha * A * B + beta * C`, A, B in `layout`, C column-major.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Problem {
    pub m: i64,
    pub n: i64,
    pub k: i64,
    pub layout: GemmLayout,
    pub alpha: f32,
    pub beta: f32,
    /// Leading dimensions (at least the packed ones; rounded up to 4 by [`Problem::new`] so
    /// 128-bit vector paths apply to any size).
    pub lda: i64,
    pub ldb: i64,
    pub ldc: i64,
}

impl Problem {
    /// Checks the sizes (positive, and small enough for 32-bit indices).
    pub fn new(
        m: i64,
        n: i64,
        k: i64,
        layout: GemmLayout,
        alpha: f32,
        beta: f32,
    ) -> Result<Problem> {
        let up4 = |x: i64| x.saturating_add(3) / 4 * 4;
        let p = Problem {
            m,
            n,
            k,
            layout,
            alpha,
            beta,
            lda: up4(if layout.a == Major::MN { m } else { k }),
            ldb: up4(if layout.b == Major::K { k } else { n }),
            ldc: up4(m),
        };
        p.check()?;
        Ok(p)
    }

    /// `(ld, rows, cols)` of A, B and C as stored: a leading dimension, the extent it strides
    /// over (the contiguous mode) and the other mode.
    fn storage(&self) -> [(&'static str, i64, i64, i64); 3] {
        let (m, n, k) = (self.m, self.n, self.k);
        let (ra, ca) = if self.layout.a == Major::MN {
            (m, k)
        } else {
            (k, m)
        };
        let (rb, cb) = if self.layout.b == Major::K {
            (k, n)
        } else {
            (n, k)
        };
        [
            ("A", self.lda, ra, ca),
            ("B", self.ldb, rb, cb),
            ("C", self.ldc, m, n),
        ]
    }

    /// Checks every field (they are public): positive sizes, leading dimensions at least the
    /// rows they stride over, and every matrix (padding included) addressable by 64-bit
    /// offsets. Whether 32-bit offsets suffice is [`Problem::index_width`].
    pub fn check(&self) -> Result<()> {
        for (what, v) in [("M", self.m), ("N", self.n), ("K", self.k)] {
            if v <= 0 {
                return Err(RuntimeError::Problem(format!(
                    "{what} = {v}: sizes must be positive"
                )));
            }
        }
        for (what, v) in [("ldA", self.lda), ("ldB", self.ldb), ("ldC", self.ldc)]
            .into_iter()
            .chain([("M", self.m), ("N", self.n), ("K", self.k)])
        {
            if v > i64::from(i32::MAX) {
                return Err(RuntimeError::Problem(format!(
                    "{what} = {v}: sizes and leading dimensions must be below 2^31 (cuBLAS takes int)"
                )));
            }
        }
        for (what, ld, rows, cols) in self.storage() {
            if ld.max(rows).checked_mul(cols).is_none() {
                return Err(RuntimeError::Problem(format!(
                    "{}x{}x{}: {what} ({} x {cols} with its leading dimension) exceeds 2^63 - 1 elements",
                    self.m, self.n, self.k, ld.max(rows)
                )));
            }
            if ld < rows {
                return Err(RuntimeError::Problem(format!(
                    "ld{what} = {ld} is below the {rows} rows it strides over"
                )));
            }
        }
        Ok(())
    }

    /// The index arithmetic the problem needs: 32-bit when every matrix (padding included)
    /// holds at most 2^31 - 1 elements, else 64-bit. A kernel is emitted with this width per
    /// launch (`codegen::gemm::emit_with`), so problems that fit keep the 32-bit fast path.
    pub fn index_width(&self) -> IndexWidth {
        let fits = self.storage().iter().all(|&(_, ld, rows, cols)| {
            ld.max(rows)
                .checked_mul(cols)
                .is_some_and(|e| e <= i64::from(i32::MAX))
        });
        if fits {
            IndexWidth::I32
        } else {
            IndexWidth::I64
        }
    }

    /// Leading dimensions: ldA, ldB, ldC.
    pub fn lds(&self) -> (i64, i64, i64) {
        (self.lda, self.ldb, self.ldc)
    }

    /// Elements of the A, B and C buffers (leading dimension x the other storage dimension;
    /// never less than the rows x cols the kernels address, saturating instead of overflowing
    /// for fields [`Problem::check`] would refuse).
    pub fn buffer_sizes(&self) -> (usize, usize, usize) {
        let [a, b, c] = self.storage().map(|(_, ld, rows, cols)| {
            let e = ld.max(rows).max(0).saturating_mul(cols.max(0));
            usize::try_from(e).unwrap_or(usize::MAX)
        });
        (a, b, c)
    }

    /// The value of a problem symbol.
    pub fn symbol(&self, name: &str) -> Option<i64> {
        let (lda, ldb, ldc) = self.lds();
        Some(match name {
            "M" => self.m,
            "N" => self.n,
            "K" => self.k,
            "ldA" => lda,
            "ldB" => ldb,
            "ldC" => ldc,
            _ => return None,
        })
    }

    /// 2 M N K.
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }
}

/// Device buffers of a problem.
pub struct Buffers {
    pub a: CudaSlice<f32>,
    pub b: CudaSlice<f32>,
    pub c: CudaSlice<f32>,
    pub bias: CudaSlice<f32>,
}

impl Buffers {
    /// Copies host data to the device; the sizes must match the problem.
    pub fn upload(
        gpu: &Gpu,
        p: &Problem,
        a: &[f32],
        b: &[f32],
        c: &[f32],
        bias: &[f32],
    ) -> Result<Buffers> {
        p.check()?;
        let (sa, sb, sc) = p.buffer_sizes();
        let want = [(sa, a.len(), "A"), (sb, b.len(), "B"), (sc, c.len(), "C")];
        for (n, got, what) in want {
            if n != got {
                return Err(RuntimeError::Problem(format!(
                    "{what} has {got} elements, the problem needs {n}"
                )));
            }
        }
        let up = |x: &[f32]| {
            gpu.stream
                .clone_htod(x)
                .map_err(RuntimeError::driver("upload"))
        };
        Ok(Buffers {
            a: up(a)?,
            b: up(b)?,
            c: up(c)?,
            bias: up(bias)?,
        })
    }
}

/// Element counts of the buffers a launch passes: A, B, C and the bias.
#[derive(Debug, Clone, Copy)]
pub struct BufferLens {
    pub a: usize,
    pub b: usize,
    pub c: usize,
    pub bias: usize,
}

/// Checks a kernel's requirements and the buffers against a problem before a launch: the
/// problem's own fields, the buffer sizes, the divisible-only fast paths, the vector alignment of
/// leading dimensions, a fused bias's length (device allocations are 256-byte aligned, which
/// covers the pointer alignments).
pub fn check_buffers(kernel: &Kernel, p: &Problem, lens: BufferLens) -> Result<()> {
    check_buffers_with(kernel, p, lens, &[])
}

/// [`check_buffers`] of a kernel with integer parameters beyond the problem's (`extra`: name
/// and value, serial split-K's `Kc`).
pub fn check_buffers_with(
    kernel: &Kernel,
    p: &Problem,
    lens: BufferLens,
    extra: &[(&str, i64)],
) -> Result<()> {
    let symbol = |s: &str| {
        extra
            .iter()
            .find(|(n, _)| *n == s)
            .map(|(_, v)| *v)
            .or_else(|| p.symbol(s))
    };
    check_sizes(p, lens)?;
    if p.index_width() == IndexWidth::I64 && kernel.launch.index == IndexWidth::I32 {
        return Err(RuntimeError::Problem(format!(
            "{}x{}x{}: a matrix exceeds 2^31 - 1 elements, beyond {}'s 32-bit offsets (emit it with 64-bit indices: codegen::gemm::emit_with)",
            p.m, p.n, p.k, kernel.name
        )));
    }
    for r in &kernel.launch.requirements {
        let unmet = match r {
            Requirement::Divisible { .. } => r.divisible_unmet(&symbol),
            Requirement::Length { buffer, symbol: s } => match symbol(s) {
                Some(v) if lens.bias as i64 >= v => None,
                v => Some(format!(
                    "{s} = {} and {buffer} has {}",
                    v.unwrap_or(0),
                    lens.bias
                )),
            },
            // device allocations are 256-byte aligned
            Requirement::Aligned { .. } => None,
        };
        if let Some(why) = unmet {
            return Err(RuntimeError::Problem(format!(
                "{} needs {r}, but {why}",
                kernel.name
            )));
        }
    }
    Ok(())
}

/// The problem's fields, and A, B and C at least as large as the problem needs.
fn check_sizes(p: &Problem, lens: BufferLens) -> Result<()> {
    p.check()?;
    let (sa, sb, sc) = p.buffer_sizes();
    for (what, need, got) in [("A", sa, lens.a), ("B", sb, lens.b), ("C", sc, lens.c)] {
        if got < need {
            return Err(RuntimeError::Problem(format!(
                "{what} has {got} elements, the problem needs {need}"
            )));
        }
    }
    Ok(())
}

/// Whether `p` meets the kernel's divisibility requirements (a GEMV's vectors along K or N, a
/// leading dimension's alignment): what [`check_buffers`] checks of the problem alone, so a
/// size the kernel cannot take is refused before any compile or launch, GPU or not.
pub fn check_problem(kernel: &Kernel, p: &Problem) -> Result<()> {
    check_symbols(kernel, &|s| p.symbol(s))
}

/// [`check_problem`] of M, N and K alone, for a caller that chooses its own leading dimensions
/// (the typed path's cases pad them to the operands' vectors).
pub fn check_mnk(kernel: &Kernel, (m, n, k): (i64, i64, i64)) -> Result<()> {
    check_symbols(kernel, &|s| match s {
        "M" => Some(m),
        "N" => Some(n),
        "K" => Some(k),
        _ => None,
    })
}

/// The kernel's divisibility requirements on the symbols `symbol` knows (one it does not, such
/// as serial split-K's `Kc`, is its launch's to check).
fn check_symbols(kernel: &Kernel, symbol: &dyn Fn(&str) -> Option<i64>) -> Result<()> {
    let known = |r: &&Requirement| match r {
        Requirement::Divisible { symbol: s, .. } => symbol(s).is_some(),
        _ => false,
    };
    for r in kernel.launch.requirements.iter().filter(known) {
        if let Some(why) = r.divisible_unmet(symbol) {
            return Err(RuntimeError::Problem(format!(
                "{} needs {r}, but {why}",
                kernel.name
            )));
        }
    }
    Ok(())
}

impl BufferLens {
    /// The element counts of launch buffers A, B, C and the bias.
    pub fn of(bufs: &[Buf<'_>; 4]) -> BufferLens {
        let [a, b, c, bias] = bufs.each_ref().map(Buf::len);
        BufferLens { a, b, c, bias }
    }
}

impl Buffers {
    /// A, B, C and the bias as launch buffers.
    pub fn bufs(&self) -> [Buf<'_>; 4] {
        [&self.a, &self.b, &self.c, &self.bias].map(Buf::F32)
    }

    /// The element counts of the buffers.
    pub fn lens(&self) -> BufferLens {
        BufferLens {
            a: self.a.len(),
            b: self.b.len(),
            c: self.c.len(),
            bias: self.bias.len(),
        }
    }
}

/// The GEMM's arguments for its parameters, by name: the problem's sizes and scalars, its
/// buffers.
fn args<'a>(kernel: &Kernel, p: &Problem, bufs: [Buf<'a>; 4]) -> Result<Vec<Arg<'a>>> {
    args_with(kernel, p, bufs, &[])
}

/// The arguments of a GEMM kernel's parameters by name, `extra` (name, argument) for those a
/// plain GEMM lacks (serial split-K's `Kc` and `Sem`).
pub(crate) fn args_with<'a>(
    kernel: &Kernel,
    p: &Problem,
    [a, b, c, bias]: [Buf<'a>; 4],
    extra: &[(&str, Arg<'a>)],
) -> Result<Vec<Arg<'a>>> {
    kernel
        .launch
        .params
        .iter()
        .map(|q| {
            let n = q.name.as_str();
            if let Some((_, x)) = extra.iter().find(|(e, _)| *e == n) {
                return Ok(*x);
            }
            Ok(match (q.ty, n) {
                (ParamType::Int, _) => Arg::Int(p.symbol(n).ok_or_else(|| unknown(kernel, n))?),
                (ParamType::Scalar(_), "alpha") => Arg::Scalar(f64::from(p.alpha)),
                (ParamType::Scalar(_), "beta") => Arg::Scalar(f64::from(p.beta)),
                (ParamType::Ptr { .. } | ParamType::TensorMap { .. }, "A") => Arg::Buf(a),
                (ParamType::Ptr { .. } | ParamType::TensorMap { .. }, "B") => Arg::Buf(b),
                (ParamType::Ptr { .. } | ParamType::TensorMap { .. }, "C") => Arg::Buf(c),
                (ParamType::Ptr { .. }, "bias") => Arg::Buf(bias),
                _ => return Err(unknown(kernel, n)),
            })
        })
        .collect()
}

fn unknown(kernel: &Kernel, name: &str) -> RuntimeError {
    RuntimeError::Problem(format!(
        "{}: a GEMM has no argument for the parameter {name}",
        kernel.name
    ))
}

/// The grid of a launch, checked against CUDA's limits.
pub fn launch_dims(kernel: &Kernel, p: &Problem) -> Result<[u32; 3]> {
    let env = |name: &str| p.symbol(name);
    crate::launch::grid(kernel, &env, &format!("{}x{}x{}", p.m, p.n, p.k))
}

/// Launches a loaded GEMM kernel on a problem (asynchronously on the GPU's stream), through the
/// one launch path.
pub fn launch(gpu: &Gpu, loaded: &Loaded, p: &Problem, bufs: &mut Buffers) -> Result<()> {
    launch_bufs(gpu, loaded, p, bufs.bufs())
}

/// [`launch`] on buffers of any element type (A, B, C, bias): the launch checks each against
/// its parameter's type.
pub fn launch_bufs(gpu: &Gpu, loaded: &Loaded, p: &Problem, bufs: [Buf<'_>; 4]) -> Result<()> {
    check_buffers(&loaded.kernel, p, BufferLens::of(&bufs))?;
    let args = args(&loaded.kernel, p, bufs)?;
    crate::launch::launch(gpu, loaded, &args)
}

fn op(trans: bool) -> cublasOperation_t {
    if trans {
        cublasOperation_t::CUBLAS_OP_T
    } else {
        cublasOperation_t::CUBLAS_OP_N
    }
}

/// The BLAS view of the problem: (transA, transB, lda, ldb).
fn blas_ops(p: &Problem) -> (bool, bool, i32, i32) {
    let (lda, ldb, _) = p.lds();
    (
        p.layout.a == Major::K,
        p.layout.b == Major::MN,
        lda as i32,
        ldb as i32,
    )
}

/// The cuBLAS call of a problem (column-major; A and B transposed as their layouts say).
fn gemm_config<T>(p: &Problem, alpha: T, beta: T) -> GemmConfig<T> {
    let (ta, tb, lda, ldb) = blas_ops(p);
    GemmConfig {
        transa: op(ta),
        transb: op(tb),
        m: p.m as i32,
        n: p.n as i32,
        k: p.k as i32,
        alpha,
        lda,
        ldb,
        beta,
        ldc: p.ldc as i32,
    }
}

/// cuBLAS SGEMM on the same buffers, in pedantic (pure FP32, no TF32) math mode.
pub fn cublas_sgemm(blas: &CudaBlas, p: &Problem, bufs: &mut Buffers) -> Result<()> {
    check_sizes(p, bufs.lens())?;
    let cfg = gemm_config(p, p.alpha, p.beta);
    // SAFETY: `check_sizes` checked the problem and the buffers' sizes.
    unsafe { blas.gemm(cfg, &bufs.a, &bufs.b, &mut bufs.c) }.map_err(RuntimeError::cublas("SGEMM"))
}

/// Puts a cuBLAS handle in pedantic FP32 math (no TF32 tensor cores).
pub fn pedantic(blas: &CudaBlas) -> Result<()> {
    // SAFETY: the handle is live for `blas`'s lifetime.
    unsafe {
        cudarc::cublas::sys::cublasSetMathMode(*blas.handle(), cublasMath_t::CUBLAS_PEDANTIC_MATH)
    }
    .result()
    .map_err(RuntimeError::cublas(
        "cublasSetMathMode(CUBLAS_PEDANTIC_MATH)",
    ))
}

/// The float64 reference `alpha * A * B + beta * C` (cuBLAS DGEMM on float64 copies).
pub fn reference(
    gpu: &Gpu,
    blas: &CudaBlas,
    p: &Problem,
    a: &[f32],
    b: &[f32],
    c: &[f32],
) -> Result<Vec<f64>> {
    let wide = |x: &[f32]| -> Vec<f64> { x.iter().map(|&f| f64::from(f)).collect() };
    let scalars = (f64::from(p.alpha), f64::from(p.beta));
    dgemm(gpu, blas, p, scalars, [&wide(a), &wide(b), &wide(c)])
}

/// `alpha * A * B + beta * C` by cuBLAS DGEMM on float64 host values `[a, b, c]` stored as
/// `p` says (its own alpha and beta ignored), C read back whole (`ldc * n`).
pub fn dgemm(
    gpu: &Gpu,
    blas: &CudaBlas,
    p: &Problem,
    (alpha, beta): (f64, f64),
    [a, b, c]: [&[f64]; 3],
) -> Result<Vec<f64>> {
    let up = |v: &[f64]| {
        gpu.stream
            .clone_htod(v)
            .map_err(RuntimeError::driver("upload"))
    };
    let lens = BufferLens {
        a: a.len(),
        b: b.len(),
        c: c.len(),
        bias: 0,
    };
    check_sizes(p, lens)?;
    let (da, db, mut dc) = (up(a)?, up(b)?, up(c)?);
    let cfg = gemm_config(p, alpha, beta);
    // SAFETY: `check_sizes` checked the problem and the buffers' sizes.
    unsafe { blas.gemm(cfg, &da, &db, &mut dc) }.map_err(RuntimeError::cublas("DGEMM"))?;
    let _ = da.device_ptr(&gpu.stream);
    gpu.stream
        .clone_dtoh(&dc)
        .map_err(RuntimeError::driver("download"))
}
