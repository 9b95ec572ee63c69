//! The kernel IR: what a CuTe kernel body is, as values the passes check, the interpreter runs and
//! the CUDA writer lowers.
//!
//! A [`Kernel`] has typed parameters, shared-memory buffers (element type, layout plain or
//! swizzled, alignment), register fragments, a thread block and a grid, and a body of
//! [`Stmt`]s over CuTe tensors: `copy(atom, src, dst, pred)`, `gemm(mma, a, b, c)`, elementwise
//! maps and reductions over fragments, loops with an unroll factor, conditions and barriers. Tensors are `cute_layout::Tensor`s: an engine (a pointer named after a parameter, a
//! shared buffer or a register fragment) and a layout whose dynamic leaves are expressions of the
//! parameters, the thread index `tid`, the block indices `bx, by, bz` and the loop variables.
//!
//! The conventions the lowering and the interpreter share:
//! - a `Copy`'s source and destination have the same shape; mode 0 is one atom's values (a
//!   vector), the other modes are iterated;
//! - a `Gemm` over `UniversalFMA` takes `a: (M, K)`, `b: (N, K)`, `c: (M, N)` fragments in
//!   registers (mode 0 of each may be the atom's value mode of size 1);
//! - loop extents are CTA-uniform (they depend on parameters, block indices and loop variables,
//!   not on `tid`); a condition of `If` may read `tid` (each thread takes its own branch, as a
//!   thread outside C skips its output), and then its branches hold no `__syncthreads()` and no
//!   shuffle; per-element conditions are predicates of the statements that carry them.

mod builder;
pub mod expr;
pub mod index;
mod print;
pub mod sym;

pub use builder::{Body, KernelBuilder};
pub use expr::{EExpr, ScalarOp};

use cute_layout::atom::{CopyAtom, MmaAtom};
use cute_layout::{AnyLayout, ElemType, Int, Tensor};

use crate::kernel::Requirement;
pub use crate::kernel::{Param, ParamType, TensorMap};
use crate::target::Target;

/// A kernel: its interface, its storage and its body.
#[derive(Debug, Clone, PartialEq)]
pub struct Kernel {
    /// The `extern "C"` name (a C identifier).
    pub name: String,
    /// What it is, for the header comment.
    pub doc: String,
    /// Figures for the header comment (the bank conflicts of its shared tiles), a line each.
    pub notes: Vec<String>,
    /// The parameters, in order.
    pub params: Vec<Param>,
    /// Shared-memory buffers, laid out one after the other in dynamic shared memory.
    pub smem: Vec<SmemBuf>,
    /// Per-thread register fragments.
    pub regs: Vec<RegBuf>,
    /// How the tensor-map parameters are encoded.
    pub tensor_maps: Vec<TensorMap>,
    /// The mbarrier arrays (static shared memory).
    pub mbarriers: Vec<Mbarrier>,
    /// Threads per block (x, y, z).
    pub block: [i64; 3],
    /// Blocks (x, y, z), as expressions of the integer parameters.
    pub grid: [Int; 3],
    /// The thread-block cluster (x, y, z) (`__cluster_dims__`; `[1, 1, 1]`: none): each
    /// dimension divides the grid's, and a CTA's rank in its cluster is x fastest.
    pub cluster: [i64; 3],
    /// `__launch_bounds__`'s second argument (the blocks per SM it is built for).
    pub min_blocks_per_sm: i64,
    /// The body.
    pub body: Vec<Stmt>,
    /// What must hold for a launch (divisible sizes, aligned pointers, buffer lengths).
    pub requirements: Vec<Requirement>,
    /// The GPU it is checked and written for.
    pub target: Target,
}

/// A shared-memory buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmemBuf {
    pub name: String,
    pub elem: ElemType,
    /// Its layout (plain or swizzled); it holds `cosize` elements.
    pub layout: AnyLayout,
    /// Alignment of its start, in bytes.
    pub align: i64,
    /// It reuses the memory of the buffers before it: placed at the start of shared memory over
    /// them (the union of a CuTe kernel's `SharedStorage`), as an epilogue's staging tile reuses
    /// the mainloop's stages. Accesses to it race with theirs, and barriers order them.
    pub reuses: bool,
}

impl SmemBuf {
    /// The elements it holds (its layout's static cosize), `None` when that is not static.
    pub fn elements(&self) -> Option<i64> {
        self.layout.shape_layout().cosize().ok()?.as_static()
    }
}

/// A per-thread register fragment of `size` elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegBuf {
    pub name: String,
    pub elem: ElemType,
    pub size: i64,
}

/// A statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// A comment in the CUDA.
    Comment(String),
    /// A named tensor (`tAgA`): its layout becomes a shape comment in the CUDA.
    Bind { name: String, tensor: Tensor },
    /// `for (int var = 0; var < extent; ++var)`.
    For {
        var: String,
        extent: Int,
        unroll: Unroll,
        body: Vec<Stmt>,
    },
    /// A condition (on the thread index too: [`Cond::per_thread`]).
    If {
        cond: Cond,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    /// `copy(atom, src, dst)`, each vector guarded by `pred` when given (a copy that may zero-fill,
    /// such as `cp.async`, writes zeros where the predicate fails, element by element, the
    /// in-bounds elements of a vector being a prefix of it; others skip whole vectors).
    Copy {
        atom: CopyAtom,
        src: Tensor,
        dst: Tensor,
        pred: Option<Pred>,
    },
    /// `gemm(mma, a, b, c)`: `c += a * b` over register fragments (a GMMA's A and B: shared
    /// partitions). Where `overwrite` holds, the first k block of each `(m, n)` writes `a * b`
    /// instead of adding it (CuTe's `accumulate_ = GMMA::ScaleOut::Zero`: the accumulator needs
    /// no zeros first, which `wgmma` would have to wait for); GMMA atoms only.
    Gemm {
        atom: MmaAtom,
        a: Tensor,
        b: Tensor,
        c: Tensor,
        overwrite: Option<Cond>,
    },
    /// `dst(i) = f(srcs[0](i), srcs[1](i), ...)` for every element of `dst`, guarded by `pred`.
    Map {
        dst: Tensor,
        srcs: Vec<Tensor>,
        f: EExpr,
        pred: Option<Pred>,
    },
    /// `var = op over src`: the elements of a register fragment, in order. `var` is a
    /// per-thread float scalar.
    Reduce {
        var: String,
        op: ScalarOp,
        src: Tensor,
    },
    /// `var = op over the lanes of each group of `across` consecutive lanes of the warp`: a
    /// butterfly of `__shfl_xor_sync` (offsets `across/2, ..., 1`).
    Shuffle {
        var: String,
        op: ScalarOp,
        across: i64,
    },
    /// A per-thread float scalar `var = f` (f over scalars and parameters).
    Let { var: String, f: EExpr },
    /// A CTA-uniform index `const cute_idx var = value;`, which later integers read as
    /// `Int::index(var)` (a persistent kernel's tile coordinates: written once, not in every
    /// address of the tile).
    Index { var: String, value: Int },
    /// A barrier or an asynchronous-copy group operation.
    Barrier(Barrier),
    /// One TMA load (`cp.async.bulk.tensor`): the box of tensor map `map` at `coords` (one per
    /// map dimension, innermost first) into the shared tile `dst` (its first element), its bytes
    /// completing on `bar`. Issued by one thread. With `multicast` (a mask of cluster ranks,
    /// `SM90_TMA_LOAD_MULTICAST`), the box lands at the same offset of the shared memory of
    /// every CTA of the mask, completing on the same barrier of each; each of those CTAs
    /// issues the same statement for its own share.
    Tma {
        map: String,
        coords: Vec<Int>,
        dst: Tensor,
        bar: BarRef,
        multicast: Option<Int>,
    },
    /// One TMA store (`cp.async.bulk.tensor ... .bulk_group`): the shared tile `src` (a whole
    /// box from its first element) into the box of tensor map `map` at `coords`, elements
    /// outside the tensor dropped; part of the issuing thread's bulk group
    /// ([`Barrier::BulkCommit`], [`Barrier::BulkWaitRead`]). Issued by one thread, after each
    /// writer's `fence.proxy.async` and a barrier.
    TmaStore {
        map: String,
        coords: Vec<Int>,
        src: Tensor,
    },
    /// An mbarrier operation.
    Mbarrier(MbarrierOp),
    /// A global semaphore that orders CTAs (CUTLASS's `Semaphore`, serial split-K's tile lock).
    Semaphore(SemOp),
}

/// The operations of a global semaphore: one `int` in global memory (`sem`, a writable
/// 32-bit integer tensor of one element) that CTAs of one launch hand to each other. Both are
/// CTA-wide (every thread reaches them, as `__syncthreads()`); one thread touches the integer.
/// A CTA may wait only for a value that CTAs launched before it release (the grid's linear
/// order): they are resident first, so the wait ends.
#[derive(Debug, Clone, PartialEq)]
pub enum SemOp {
    /// Thread 0 reads `sem` (`ld.global.acquire.gpu`) until it holds `value`, then the CTA's
    /// barrier: what the releasing CTA wrote before its release is visible to every thread.
    Wait { sem: Tensor, value: Int },
    /// The CTA's barrier, then thread 0 makes the CTA's global writes visible
    /// (`__threadfence()`) and stores `value` to `sem` (`st.global.release.gpu`).
    Release { sem: Tensor, value: Int },
}

impl SemOp {
    /// The semaphore and the value.
    pub fn parts(&self) -> (&Tensor, &Int) {
        match self {
            SemOp::Wait { sem, value } | SemOp::Release { sem, value } => (sem, value),
        }
    }
}

/// An array of `len` mbarriers in shared memory, each completing a phase when `count` threads
/// have arrived (and the transactions they expect have landed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mbarrier {
    pub name: String,
    pub len: i64,
    pub count: i64,
}

/// One mbarrier of an array: `name[index]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BarRef {
    pub name: String,
    pub index: Int,
}

/// The mbarrier operations of an asynchronous pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MbarrierOp {
    /// `mbarrier.init` of every barrier of the array with its arrival count (one thread).
    Init(String),
    /// This thread arrives and the phase also waits for `bytes` of transactions
    /// (`mbarrier.arrive.expect_tx`: the TMA loads that complete on it).
    ArriveExpectTx { bar: BarRef, bytes: i64 },
    /// This thread arrives (`mbarrier.arrive`).
    Arrive(BarRef),
    /// This thread arrives on the barrier at the same place in the shared memory of the
    /// cluster's CTA of rank `cta` (`mapa` + `mbarrier.arrive.shared::cluster`): a consumer
    /// releasing a stage that another CTA's producer multicasts into.
    ArriveCluster { bar: BarRef, cta: Int },
    /// Waits until the phase of that parity (0 or 1) has completed (`mbarrier.try_wait.parity`
    /// in a loop); a barrier that has completed no phase counts as having completed parity 1.
    Wait { bar: BarRef, parity: Int },
}

/// How a loop is unrolled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unroll {
    /// `#pragma unroll`.
    Full,
    /// `#pragma unroll 1`.
    None,
    /// `#pragma unroll N`.
    By(i64),
    /// No pragma: the compiler chooses (a plain C++ loop).
    Auto,
}

/// A condition over integers (parameters, block and thread indices, loop variables).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cond {
    /// `a < b`.
    Lt(Int, Int),
    /// `a <= b`.
    Le(Int, Int),
    /// Both.
    And(Box<Cond>, Box<Cond>),
    /// The scalar parameter of that name is not zero (`beta != 0`: an epilogue that reads C
    /// only when it is scaled by something).
    NonZero(String),
    /// The one thread `elect.sync` picks in each warp (the lowest lane; every thread of the
    /// warp reaches it): a warp's single issuer, as CUTLASS's `elect_one_sync()` picks a
    /// producer's. A condition of its own (not inside `And`).
    Elect,
}

/// The per-element guard of CuTe's identity-tensor predication: the element at index `i` is in
/// bounds when every mode of `coord(i)` is below `bounds`.
#[derive(Debug, Clone, PartialEq)]
pub struct Pred {
    /// The coordinate tensor, partitioned as the guarded tensor is.
    pub coord: Tensor,
    /// The bound of each coordinate mode (`M`, `N`).
    pub bounds: Vec<Int>,
}

/// Barriers and asynchronous-copy groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Barrier {
    /// `__syncthreads()`.
    Cta,
    /// `cp.async.commit_group`.
    CpAsyncCommit,
    /// `cp.async.wait_group N`: all but the `N` most recent groups have landed.
    CpAsyncWait(i64),
    /// `fence.proxy.async.shared::cta`: this thread's shared-memory writes are visible to the
    /// async proxy (`wgmma` and TMA read shared memory through it).
    ProxyAsync,
    /// `wgmma.fence.sync.aligned`: register and shared-memory accesses before it are ordered
    /// before the warpgroup's next `wgmma`.
    WgmmaFence,
    /// `wgmma.commit_group.sync.aligned`: the `wgmma`s issued since the last commit form a group.
    WgmmaCommit,
    /// `wgmma.wait_group.sync.aligned N`: all but the `N` most recent groups are complete.
    WgmmaWait(i64),
    /// `bar.sync id, threads`: a barrier of the `threads` threads (whole warps) that reach it,
    /// such as the consumer warpgroups of a warp-specialized kernel.
    Named { id: i64, threads: i64 },
    /// `setmaxnreg.{inc,dec}.sync.aligned.u32 regs`: the warpgroup's registers per thread
    /// become `regs` (a producer gives its registers to the consumers).
    SetMaxNReg { inc: bool, regs: i64 },
    /// `fence.mbarrier_init.release.cluster`: the mbarrier inits are visible to the async
    /// proxy (TMA's transaction counts) before the barrier after it.
    MbarrierInit,
    /// `cp.async.bulk.commit_group`: this thread's TMA stores since the last commit form a
    /// bulk group.
    BulkCommit,
    /// `cp.async.bulk.wait_group.read N`: all but this thread's `N` most recent bulk groups
    /// have read their shared tiles (which may be written again).
    BulkWaitRead(i64),
    /// `barrier.cluster.arrive.release` + `barrier.cluster.wait.acquire`: every thread of
    /// the cluster's CTAs (the mbarriers one CTA initialised are then seen by the others).
    Cluster,
}

impl Kernel {
    /// The shared buffer of that name.
    pub fn smem_buf(&self, name: &str) -> Option<&SmemBuf> {
        self.smem.iter().find(|b| b.name == name)
    }

    /// The register fragment of that name.
    pub fn reg_buf(&self, name: &str) -> Option<&RegBuf> {
        self.regs.iter().find(|b| b.name == name)
    }

    /// The mbarrier array of that name.
    pub fn mbarrier(&self, name: &str) -> Option<&Mbarrier> {
        self.mbarriers.iter().find(|b| b.name == name)
    }

    /// The tensor map of the parameter of that name.
    pub fn tensor_map(&self, name: &str) -> Option<&TensorMap> {
        self.tensor_maps.iter().find(|m| m.param == name)
    }

    /// The parameter of that name.
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// Threads per block.
    pub fn threads(&self) -> i64 {
        self.block.iter().product()
    }
}

/// Calls `f` on every statement, depth first.
pub fn visit_stmts<'a>(body: &'a [Stmt], f: &mut impl FnMut(&'a Stmt)) {
    for s in body {
        f(s);
        match s {
            Stmt::For { body, .. } => visit_stmts(body, f),
            Stmt::If { then, els, .. } => {
                visit_stmts(then, f);
                visit_stmts(els, f);
            }
            _ => {}
        }
    }
}

/// Calls `f` on every integer the statements hold: extents, conditions, tensors' offsets,
/// shapes and strides, predicate bounds.
pub fn visit_ints(body: &[Stmt], f: &mut impl FnMut(&Int)) {
    let tensor = |t: &Tensor, f: &mut dyn FnMut(&Int)| {
        match t.engine() {
            cute_layout::Engine::Ptr(p) => f(&p.offset),
            cute_layout::Engine::Coord(o) => o.iter().for_each(&mut *f),
        }
        if let AnyLayout::Composed(c) = t.layout() {
            f(c.offset());
        }
        let l = t.layout().shape_layout();
        l.shape()
            .leaves()
            .iter()
            .chain(l.stride().leaves().iter())
            .for_each(&mut *f);
    };
    visit_stmts(body, &mut |s| match s {
        Stmt::For { extent, .. } | Stmt::Index { value: extent, .. } => f(extent),
        Stmt::If { cond, .. } => cond.visit(&mut *f),
        Stmt::Copy { src, dst, pred, .. } => {
            tensor(src, f);
            tensor(dst, f);
            if let Some(p) = pred {
                tensor(&p.coord, f);
                p.bounds.iter().for_each(&mut *f);
            }
        }
        Stmt::Gemm { a, b, c, .. } => [a, b, c].into_iter().for_each(|t| tensor(t, f)),
        Stmt::Map {
            dst, srcs, pred, ..
        } => {
            tensor(dst, f);
            srcs.iter().for_each(|t| tensor(t, f));
            if let Some(p) = pred {
                tensor(&p.coord, f);
                p.bounds.iter().for_each(&mut *f);
            }
        }
        Stmt::Reduce { src, .. } => tensor(src, f),
        Stmt::Bind { tensor: t, .. } => tensor(t, f),
        Stmt::Tma {
            coords,
            dst,
            bar,
            multicast,
            ..
        } => {
            coords.iter().for_each(&mut *f);
            tensor(dst, f);
            f(&bar.index);
            multicast.iter().for_each(&mut *f);
        }
        Stmt::TmaStore { coords, src, .. } => {
            coords.iter().for_each(&mut *f);
            tensor(src, f);
        }
        Stmt::Mbarrier(op) => match op {
            MbarrierOp::Init(_) => {}
            MbarrierOp::ArriveExpectTx { bar, .. } | MbarrierOp::Arrive(bar) => f(&bar.index),
            MbarrierOp::ArriveCluster { bar, cta } => {
                f(&bar.index);
                f(cta);
            }
            MbarrierOp::Wait { bar, parity } => {
                f(&bar.index);
                f(parity);
            }
        },
        Stmt::Semaphore(op) => {
            let (sem, value) = op.parts();
            tensor(sem, f);
            f(value);
        }
        Stmt::Comment(_) | Stmt::Shuffle { .. } | Stmt::Let { .. } | Stmt::Barrier(_) => {}
    });
}

impl Cond {
    /// Whether the condition reads the thread index (each thread takes its own branch, as
    /// `if (m < M && n < N)` around one thread's output): its branches hold no barrier and no
    /// shuffle (`passes::checks`).
    pub fn per_thread(&self) -> bool {
        let mut tid = false;
        self.visit(&mut |i| tid |= sym::names(i).contains("tid"));
        tid || self.elects()
    }

    /// Whether it is or holds [`Cond::Elect`].
    pub fn elects(&self) -> bool {
        match self {
            Cond::Elect => true,
            Cond::And(a, b) => a.elects() || b.elects(),
            _ => false,
        }
    }

    /// Calls `f` on both sides of every comparison.
    pub fn visit(&self, f: &mut dyn FnMut(&Int)) {
        match self {
            Cond::Lt(a, b) | Cond::Le(a, b) => {
                f(a);
                f(b);
            }
            Cond::And(a, b) => {
                a.visit(f);
                b.visit(f);
            }
            Cond::NonZero(_) | Cond::Elect => {}
        }
    }
}

/// `(M, N, K)` each rounded up to the multiples `requirements` ask of it (a GEMV's 128-bit
/// vectors along K or N): the nearest sizes a check matrix can run the kernel at.
/// Requirements on other symbols (leading dimensions) are the caller's.
pub fn fit_mnk(requirements: &[Requirement], (m, n, k): (i64, i64, i64)) -> (i64, i64, i64) {
    fn gcd(a: i64, b: i64) -> i64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    // the least common multiple of every divisor asked of `symbol`, then one rounding up
    let up = |x: i64, symbol: &str| {
        let by = requirements.iter().fold(1i64, |l, r| match r {
            Requirement::Divisible { symbol: s, by, .. } if s == symbol && *by > 0 => {
                (l / gcd(l, *by)).saturating_mul(*by)
            }
            _ => l,
        });
        x.saturating_add(by - 1) / by * by
    };
    (up(m, "M"), up(n, "N"), up(k, "K"))
}

impl Kernel {
    /// `(M, N, K)` rounded up to what the kernel requires of them ([`fit_mnk`]).
    pub fn fit_mnk(&self, mnk: (i64, i64, i64)) -> (i64, i64, i64) {
        fit_mnk(&self.requirements, mnk)
    }

    /// Whether a launch with these integer arguments meets the kernel's divisibility
    /// requirements (`Err` names the first that fails). Pointer alignments and buffer lengths
    /// are the caller's to check.
    pub fn admits(&self, ints: &dyn Fn(&str) -> Option<i64>) -> std::result::Result<(), String> {
        match self
            .requirements
            .iter()
            .find_map(|r| Some((r, r.divisible_unmet(ints)?)))
        {
            Some((r, why)) => Err(format!("{r}: {why}")),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod fit_tests {
    use super::*;

    fn div(symbol: &str, by: i64) -> Requirement {
        Requirement::Divisible {
            symbol: symbol.into(),
            by,
            from: "test".into(),
        }
    }

    #[test]
    fn fit_mnk_rounds_to_every_divisor_at_once() {
        let r = [div("K", 4), div("K", 6), div("N", 8), div("ldA", 16)];
        // K: a multiple of both 4 and 6 (12), not 4 then 6; ldA is not M, N or K
        assert_eq!(fit_mnk(&r, (1, 1, 1)), (1, 8, 12));
        assert_eq!(fit_mnk(&r, (17, 16, 24)), (17, 16, 24));
        assert_eq!(fit_mnk(&[], (3, 5, 7)), (3, 5, 7));
    }
}
