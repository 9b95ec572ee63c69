//! `KernelBuilder`: the Rust way to write a CuTe kernel body. Declare the parameters (each a
//! symbol or a tensor over a pointer), the shared buffers and the register fragments, then write
//! the body with the same operations a CuTe kernel uses (`copy`, `gemm`, maps, reductions, loops,
//! barriers) on tensors partitioned by the layout algebra, and `finish` it: the kernel is checked
//! (`passes::verify`) before it can be lowered or interpreted.

use cute_layout::atom::{CopyAtom, MmaAtom};
use cute_layout::{AnyLayout, ElemType, Int, Layout, MemSpace, Ptr, Tensor};

use super::{
    Barrier, Cond, EExpr, Kernel, Param, ParamType, Pred, RegBuf, ScalarOp, SemOp, SmemBuf, Stmt,
    Unroll,
};
use crate::error::Result;
use crate::kernel::Requirement;
use crate::target::Target;

/// Builds a [`Kernel`].
///
/// ```
/// use cute_codegen::ir::{EExpr, KernelBuilder, Pred};
/// use cute_layout::{s, tup, Coord, ElemType::F32, Layout, Tensor, Tiler};
///
/// // y = 2 * x over N elements: block bx takes 256 of them, one per thread
/// let mut k = KernelBuilder::new("scale2");
/// let n = k.param_int("N");
/// let x = k.gmem("x", F32, false, Layout::col_major(&tup![n.clone()])?); // (N)
/// let y = k.gmem("y", F32, true, Layout::col_major(&tup![n.clone()])?);  // (N)
/// k.threads(256).grid([n.ceil_div(&s(256))?, s(1), s(1)]);
/// let (tid, bx) = (KernelBuilder::tid(), KernelBuilder::block_idx(0));
/// let thr = Layout::col_major(&tup![s(256)])?; // (THR) -> thr_idx
/// let part = |t: &Tensor| -> cute_layout::Result<Tensor> {
///     t.local_tile(&Tiler::from_shape(&tup![s(256)]), &Coord::Int(bx.clone()), None)? // (256)
///         .local_partition(&thr, &tid, None) // (1)
/// };
/// let c = part(&Tensor::identity(&tup![n.clone()])?)?; // the coordinates, for predication
/// k.map(&part(&y)?, &[&part(&x)?], EExpr::c(2.0) * EExpr::arg(0), Some(Pred { coord: c, bounds: vec![n] }));
/// let kernel = k.finish()?;
/// let cuda = cute_codegen::cuda::emit(&kernel)?;
/// assert!(cuda.source.contains("extern \"C\" __global__ void __launch_bounds__(256)"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct KernelBuilder {
    kernel: Kernel,
    /// The bodies being written: the kernel's, then each open loop's or branch's.
    open: Vec<Vec<Stmt>>,
    /// What [`KernelBuilder::sync`] emits: `__syncthreads()`, or the named barrier of the
    /// threads a branch runs on ([`KernelBuilder::with_sync`]).
    sync_as: Barrier,
}

mod pipeline;

/// A body under construction (the argument of [`KernelBuilder::for_`] and `if_`'s closures).
pub type Body<'a> = &'a mut KernelBuilder;

impl KernelBuilder {
    /// A kernel named `name` (a C identifier), for `sm_90a` until [`KernelBuilder::target`]
    /// says otherwise.
    pub fn new(name: &str) -> KernelBuilder {
        KernelBuilder {
            kernel: Kernel {
                name: name.to_string(),
                doc: String::new(),
                notes: Vec::new(),
                params: Vec::new(),
                smem: Vec::new(),
                regs: Vec::new(),
                tensor_maps: Vec::new(),
                mbarriers: Vec::new(),
                block: [1, 1, 1],
                grid: [Int::Static(1), Int::Static(1), Int::Static(1)],
                cluster: [1, 1, 1],
                min_blocks_per_sm: 1,
                body: Vec::new(),
                requirements: Vec::new(),
                target: Target::default(),
            },
            open: vec![Vec::new()],
            sync_as: Barrier::Cta,
        }
    }

    /// The thread index `threadIdx.x` (a symbol, at least 0).
    pub fn tid() -> Int {
        Int::index("tid")
    }

    /// The block index `blockIdx.x` (0), `.y` (1) or `.z` (2).
    pub fn block_idx(i: usize) -> Int {
        Int::index(["bx", "by", "bz"][i.min(2)])
    }

    /// What the kernel computes (its header comment).
    pub fn doc(&mut self, text: &str) -> &mut Self {
        self.kernel.doc = text.to_string();
        self
    }

    /// A line of figures for the header comment, after the shared-memory line.
    pub fn note(&mut self, text: &str) -> &mut Self {
        self.kernel.notes.push(text.to_string());
        self
    }

    /// The GPU the kernel is checked and written for (its shared memory, threads and
    /// instructions).
    pub fn target(&mut self, target: Target) -> &mut Self {
        self.kernel.target = target;
        self
    }

    /// An `int` parameter, returned as its symbol (`M`).
    pub fn param_int(&mut self, name: &str) -> Int {
        self.push_param(name, ParamType::Int);
        Int::symbol(name)
    }

    /// A scalar parameter (`alpha`), returned as an expression.
    pub fn param_scalar(&mut self, name: &str, elem: ElemType) -> EExpr {
        self.push_param(name, ParamType::Scalar(elem));
        EExpr::param(name)
    }

    /// A global pointer parameter (`const T*`, or `T*` when `writable`), 16-byte aligned.
    pub fn param_ptr(&mut self, name: &str, elem: ElemType, writable: bool) -> Ptr {
        self.push_param(
            name,
            ParamType::Ptr {
                elem,
                writable,
                align: 16,
            },
        );
        Ptr::new(MemSpace::Gmem, elem, name)
    }

    /// A global tensor: a pointer parameter and the layout of what it points to.
    pub fn gmem(
        &mut self,
        name: &str,
        elem: ElemType,
        writable: bool,
        layout: impl Into<AnyLayout>,
    ) -> Tensor {
        let p = self.param_ptr(name, elem, writable);
        Tensor::new(p, layout)
    }

    /// A shared-memory buffer holding `layout` (plain or swizzled), as a tensor.
    pub fn smem(&mut self, name: &str, elem: ElemType, layout: impl Into<AnyLayout>) -> Tensor {
        let layout = layout.into();
        self.kernel.smem.push(SmemBuf {
            name: name.to_string(),
            elem,
            layout: layout.clone(),
            align: 128,
            reuses: false,
        });
        Tensor::new(Ptr::new(MemSpace::Smem, elem, name), layout)
    }

    /// A shared-memory buffer whose start is aligned to `align` bytes (a power of two of at
    /// least 128): the period of a swizzle the hardware applies to addresses, such as a
    /// `wgmma` tile's 1024 bytes for `SW128`.
    pub fn smem_aligned(
        &mut self,
        name: &str,
        elem: ElemType,
        layout: impl Into<AnyLayout>,
        align: i64,
    ) -> Tensor {
        let t = self.smem(name, elem, layout);
        if let Some(b) = self.kernel.smem.last_mut() {
            b.align = align.max(128);
        }
        t
    }

    /// A shared buffer over the memory of the buffers allocated before it, from the start of
    /// shared memory (the union of a CuTe kernel's `SharedStorage`): an epilogue stages its
    /// accumulators in the mainloop's stages once every thread is done reading them. The
    /// kernel's shared memory is the larger of the two; the hazard check and the interpreter
    /// see its accesses and theirs as accesses to the same memory.
    pub fn smem_reuse(
        &mut self,
        name: &str,
        elem: ElemType,
        layout: impl Into<AnyLayout>,
    ) -> Tensor {
        let t = self.smem(name, elem, layout);
        if let Some(b) = self.kernel.smem.last_mut() {
            b.reuses = true;
        }
        t
    }

    /// A register fragment of `layout`'s size (CuTe's `make_tensor<T>(layout)`), as a tensor.
    pub fn regs(&mut self, name: &str, elem: ElemType, layout: Layout) -> Result<Tensor> {
        let size = layout
            .cosize()
            .ok()
            .and_then(|c| c.as_static())
            .ok_or_else(|| crate::CodegenError::Kernel {
                kernel: self.kernel.name.clone(),
                stmt: format!("regs {name}"),
                msg: format!("a register fragment needs a static layout, not {layout}"),
            })?;
        self.kernel.regs.push(RegBuf {
            name: name.to_string(),
            elem,
            size,
        });
        Ok(Tensor::new(Ptr::new(MemSpace::Rmem, elem, name), layout))
    }

    /// Threads per block, in x.
    pub fn threads(&mut self, n: i64) -> &mut Self {
        self.kernel.block = [n, 1, 1];
        self
    }

    /// The thread-block cluster (`__cluster_dims__`), whose dimensions divide the grid's.
    pub fn cluster(&mut self, cluster: [i64; 3]) -> &mut Self {
        self.kernel.cluster = cluster;
        self
    }

    /// The grid, as expressions of the integer parameters.
    pub fn grid(&mut self, grid: [Int; 3]) -> &mut Self {
        self.kernel.grid = grid;
        self
    }

    /// The CTAs per SM the kernel is built for (`__launch_bounds__(threads, n)`).
    pub fn min_blocks_per_sm(&mut self, n: i64) -> &mut Self {
        self.kernel.min_blocks_per_sm = n;
        self
    }

    /// A condition the runtime checks before launching.
    pub fn require(&mut self, r: Requirement) -> &mut Self {
        self.kernel.requirements.push(r);
        self
    }

    /// A comment in the CUDA.
    pub fn comment(&mut self, text: &str) -> &mut Self {
        self.push(Stmt::Comment(text.to_string()))
    }

    /// `copy(atom, src, dst)`.
    pub fn copy(&mut self, atom: &CopyAtom, src: &Tensor, dst: &Tensor) -> &mut Self {
        self.push(Stmt::Copy {
            atom: atom.clone(),
            src: src.clone(),
            dst: dst.clone(),
            pred: None,
        })
    }

    /// `copy_if(atom, pred, src, dst)`: only the vectors whose coordinates are in bounds (a
    /// zero-filling atom writes zeros for the others).
    pub fn copy_if(
        &mut self,
        atom: &CopyAtom,
        pred: Pred,
        src: &Tensor,
        dst: &Tensor,
    ) -> &mut Self {
        self.push(Stmt::Copy {
            atom: atom.clone(),
            src: src.clone(),
            dst: dst.clone(),
            pred: Some(pred),
        })
    }

    /// `gemm(mma, a, b, c)`: `c += a * b`.
    pub fn gemm(&mut self, atom: &MmaAtom, a: &Tensor, b: &Tensor, c: &Tensor) -> &mut Self {
        self.push(Stmt::Gemm {
            atom: *atom,
            a: a.clone(),
            b: b.clone(),
            c: c.clone(),
            overwrite: None,
        })
    }

    /// `gemm(mma, a, b, c)` whose first k block writes `c = a * b` where `when` holds
    /// (`accumulate_ = GMMA::ScaleOut::Zero` on a GMMA's first k-tile), `c += a * b` otherwise.
    pub fn gemm_overwrite(
        &mut self,
        atom: &MmaAtom,
        [a, b, c]: [&Tensor; 3],
        when: Cond,
    ) -> &mut Self {
        self.push(Stmt::Gemm {
            atom: *atom,
            a: a.clone(),
            b: b.clone(),
            c: c.clone(),
            overwrite: Some(when),
        })
    }

    /// `dst = value` (CuTe's `fill`).
    pub fn fill(&mut self, dst: &Tensor, value: f64) -> &mut Self {
        self.map(dst, &[], EExpr::c(value), None)
    }

    /// `dst(i) = f(srcs(i)...)`, guarded by `pred`.
    pub fn map(
        &mut self,
        dst: &Tensor,
        srcs: &[&Tensor],
        f: EExpr,
        pred: Option<Pred>,
    ) -> &mut Self {
        self.push(Stmt::Map {
            dst: dst.clone(),
            srcs: srcs.iter().map(|t| (*t).clone()).collect(),
            f,
            pred,
        })
    }

    /// `var = op over src` (a register fragment).
    pub fn reduce(&mut self, var: &str, op: ScalarOp, src: &Tensor) -> EExpr {
        self.push(Stmt::Reduce {
            var: var.to_string(),
            op,
            src: src.clone(),
        });
        EExpr::var(var)
    }

    /// `var = op over the groups of `across` lanes` (a butterfly of warp shuffles).
    pub fn shuffle(&mut self, var: &str, op: ScalarOp, across: i64) -> EExpr {
        self.push(Stmt::Shuffle {
            var: var.to_string(),
            op,
            across,
        });
        EExpr::var(var)
    }

    /// Names a tensor (`tAgA`): the CUDA shows its layout where it is bound. Returns it.
    pub fn bind(&mut self, name: &str, t: Tensor) -> Tensor {
        self.push(Stmt::Bind {
            name: name.to_string(),
            tensor: t.clone(),
        });
        t
    }

    /// `var = f` (a per-thread float).
    pub fn let_(&mut self, var: &str, f: EExpr) -> EExpr {
        self.push(Stmt::Let {
            var: var.to_string(),
            f,
        });
        EExpr::var(var)
    }

    /// `const cute_idx var = value;` (CTA-uniform): returns the index that reads it.
    pub fn let_index(&mut self, var: &str, value: Int) -> Int {
        self.push(Stmt::Index {
            var: var.to_string(),
            value,
        });
        Int::index(var)
    }

    /// `__syncthreads()` (or, inside [`KernelBuilder::with_sync`], its barrier).
    pub fn sync(&mut self) -> &mut Self {
        self.push(Stmt::Barrier(self.sync_as))
    }

    /// Waits, CTA-wide, until the global semaphore `sem` (one 32-bit integer) holds `value`
    /// ([`SemOp::Wait`]).
    pub fn semaphore_wait(&mut self, sem: &Tensor, value: Int) -> &mut Self {
        self.push(Stmt::Semaphore(SemOp::Wait {
            sem: sem.clone(),
            value,
        }))
    }

    /// Releases the global semaphore `sem` with `value` once the CTA's writes are visible
    /// ([`SemOp::Release`]).
    pub fn semaphore_release(&mut self, sem: &Tensor, value: Int) -> &mut Self {
        self.push(Stmt::Semaphore(SemOp::Release {
            sem: sem.clone(),
            value,
        }))
    }

    /// `cp.async.commit_group`.
    pub fn cp_async_commit(&mut self) -> &mut Self {
        self.push(Stmt::Barrier(Barrier::CpAsyncCommit))
    }

    /// `cp.async.wait_group n`.
    pub fn cp_async_wait(&mut self, n: i64) -> &mut Self {
        self.push(Stmt::Barrier(Barrier::CpAsyncWait(n)))
    }

    /// `fence.proxy.async.shared::cta`: shared-memory writes made visible to `wgmma` / TMA.
    pub fn fence_proxy_async(&mut self) -> &mut Self {
        self.push(Stmt::Barrier(Barrier::ProxyAsync))
    }

    /// `wgmma.fence.sync.aligned` (CuTe's `warpgroup_arrive`).
    pub fn wgmma_fence(&mut self) -> &mut Self {
        self.push(Stmt::Barrier(Barrier::WgmmaFence))
    }

    /// `wgmma.commit_group.sync.aligned` (`warpgroup_commit_batch`).
    pub fn wgmma_commit(&mut self) -> &mut Self {
        self.push(Stmt::Barrier(Barrier::WgmmaCommit))
    }

    /// `wgmma.wait_group.sync.aligned n` (`warpgroup_wait<n>`).
    pub fn wgmma_wait(&mut self, n: i64) -> &mut Self {
        self.push(Stmt::Barrier(Barrier::WgmmaWait(n)))
    }

    /// `for (int var = 0; var < extent; ++var) { body(var) }`; the body gets the loop index.
    pub fn for_(
        &mut self,
        var: &str,
        extent: Int,
        unroll: Unroll,
        body: impl FnOnce(&mut Self, Int) -> Result<()>,
    ) -> Result<&mut Self> {
        self.open.push(Vec::new());
        body(self, Int::index(var))?;
        let inner = self.close();
        Ok(self.push(Stmt::For {
            var: var.to_string(),
            extent,
            unroll,
            body: inner,
        }))
    }

    /// `if (cond) { then } else { els }`; a condition on `tid` takes no barrier or shuffle in
    /// its branches.
    pub fn if_(
        &mut self,
        cond: Cond,
        then: impl FnOnce(&mut Self) -> Result<()>,
        els: impl FnOnce(&mut Self) -> Result<()>,
    ) -> Result<&mut Self> {
        self.open.push(Vec::new());
        then(self)?;
        let t = self.close();
        self.open.push(Vec::new());
        els(self)?;
        let e = self.close();
        Ok(self.push(Stmt::If {
            cond,
            then: t,
            els: e,
        }))
    }

    /// The kernel, checked (`passes::verify`).
    pub fn finish(mut self) -> Result<Kernel> {
        while self.open.len() > 1 {
            let inner = self.close();
            if let Some(b) = self.open.last_mut() {
                b.extend(inner);
            }
        }
        self.kernel.body = self.open.pop().unwrap_or_default();
        let needed = crate::passes::verify(&self.kernel)?;
        for r in needed {
            let c = r.condition();
            if !self.kernel.requirements.iter().any(|q| q.condition() == c) {
                self.kernel.requirements.push(r);
            }
        }
        Ok(self.kernel)
    }

    fn push_param(&mut self, name: &str, ty: ParamType) {
        self.kernel.params.push(Param {
            name: name.to_string(),
            ty,
        });
    }

    fn push(&mut self, s: Stmt) -> &mut Self {
        if let Some(b) = self.open.last_mut() {
            b.push(s);
        }
        self
    }

    fn close(&mut self) -> Vec<Stmt> {
        if self.open.len() > 1 {
            self.open.pop().unwrap_or_default()
        } else {
            Vec::new()
        }
    }
}
