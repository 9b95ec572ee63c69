//! The asynchronous-pipeline part of [`KernelBuilder`] (SM90): tensor-map parameters, mbarrier
//! arrays and their operations, TMA loads, and the warp-specialization instructions.

use cute_layout::atom::TmaBox;
use cute_layout::{AnyLayout, ElemType, Int, MemSpace, Ptr, Tensor};

use super::KernelBuilder;
use crate::error::Result;
use crate::ir::{BarRef, Barrier, Mbarrier, MbarrierOp, ParamType, Stmt, TensorMap};
use crate::kernel::Requirement;

impl KernelBuilder {
    /// A global tensor passed as a TMA tensor map (`const __grid_constant__ cute_tensor_map`):
    /// the tensor is for the layout algebra (the tiles a CTA loads), its elements are read
    /// only by [`KernelBuilder::tma_load`]s once [`KernelBuilder::tensor_map`] gives the box.
    pub fn gmem_map(&mut self, name: &str, elem: ElemType, layout: impl Into<AnyLayout>) -> Tensor {
        self.push_param(name, ParamType::TensorMap { elem });
        Tensor::new(Ptr::new(MemSpace::Gmem, elem, name), layout)
    }

    /// The box and dimensions the runtime encodes parameter `name`'s tensor map with; each
    /// global stride that is a parameter is required to be a multiple of 16 bytes.
    pub fn tensor_map(&mut self, name: &str, tma: TmaBox) -> &mut Self {
        for (stride, by) in tma.stride_multiples() {
            if let Some(symbol) = crate::ir::sym::single_symbol(&stride) {
                self.require(Requirement::Divisible {
                    symbol,
                    by,
                    from: format!(
                        "the TMA map of {name}: global strides are multiples of 16 bytes"
                    ),
                });
            }
        }
        self.kernel.tensor_maps.push(TensorMap {
            param: name.to_string(),
            tma,
        });
        self
    }

    /// An array of `len` mbarriers of `count` arrivals each (static shared memory).
    pub fn mbarriers(&mut self, name: &str, len: i64, count: i64) -> &mut Self {
        self.kernel.mbarriers.push(Mbarrier {
            name: name.to_string(),
            len,
            count,
        });
        self
    }

    /// The names of the declared mbarrier arrays, in order.
    pub fn mbarrier_arrays(&self) -> Vec<String> {
        self.kernel
            .mbarriers
            .iter()
            .map(|b| b.name.clone())
            .collect()
    }

    /// `mbarrier.init` of every barrier of the array (by the thread that runs it).
    pub fn mbarrier_init(&mut self, name: &str) -> &mut Self {
        self.push(Stmt::Mbarrier(MbarrierOp::Init(name.to_string())))
    }

    /// This thread arrives on `name[index]`, whose phase also waits for `bytes` of TMA.
    pub fn mbarrier_arrive_expect_tx(&mut self, name: &str, index: &Int, bytes: i64) -> &mut Self {
        self.push(Stmt::Mbarrier(MbarrierOp::ArriveExpectTx {
            bar: bar(name, index),
            bytes,
        }))
    }

    /// This thread arrives on `name[index]`.
    pub fn mbarrier_arrive(&mut self, name: &str, index: &Int) -> &mut Self {
        self.push(Stmt::Mbarrier(MbarrierOp::Arrive(bar(name, index))))
    }

    /// This thread arrives on `name[index]` of the cluster's CTA of rank `cta`.
    pub fn mbarrier_arrive_cluster(&mut self, name: &str, index: &Int, cta: Int) -> &mut Self {
        self.push(Stmt::Mbarrier(MbarrierOp::ArriveCluster {
            bar: bar(name, index),
            cta,
        }))
    }

    /// Waits for the phase of `parity` of `name[index]`.
    pub fn mbarrier_wait(&mut self, name: &str, index: &Int, parity: Int) -> &mut Self {
        self.push(Stmt::Mbarrier(MbarrierOp::Wait {
            bar: bar(name, index),
            parity,
        }))
    }

    /// One TMA load of map `map`'s box at `coords` into the shared tile `dst`, completing on
    /// `name[index]`.
    pub fn tma_load(
        &mut self,
        map: &str,
        coords: Vec<Int>,
        dst: &Tensor,
        at: (&str, &Int),
    ) -> &mut Self {
        self.tma(map, coords, dst, at, None)
    }

    /// One TMA load multicast to the cluster's CTAs of the mask `ctas` (bit r: rank r): map
    /// `map`'s box at `coords` into the shared tile `dst` of each, completing on
    /// `name[index]` of each.
    pub fn tma_load_multicast(
        &mut self,
        map: &str,
        coords: Vec<Int>,
        dst: &Tensor,
        at: (&str, &Int),
        ctas: Int,
    ) -> &mut Self {
        self.tma(map, coords, dst, at, Some(ctas))
    }

    fn tma(
        &mut self,
        map: &str,
        coords: Vec<Int>,
        dst: &Tensor,
        (name, index): (&str, &Int),
        multicast: Option<Int>,
    ) -> &mut Self {
        self.push(Stmt::Tma {
            map: map.to_string(),
            coords,
            dst: dst.clone(),
            bar: bar(name, index),
            multicast,
        })
    }

    /// One TMA store of the shared tile `src` into map `map`'s box at `coords`.
    pub fn tma_store(&mut self, map: &str, coords: Vec<Int>, src: &Tensor) -> &mut Self {
        self.push(Stmt::TmaStore {
            map: map.to_string(),
            coords,
            src: src.clone(),
        })
    }

    /// `cp.async.bulk.commit_group`.
    pub fn bulk_commit(&mut self) -> &mut Self {
        self.push(Stmt::Barrier(Barrier::BulkCommit))
    }

    /// `cp.async.bulk.wait_group.read n`.
    pub fn bulk_wait_read(&mut self, n: i64) -> &mut Self {
        self.push(Stmt::Barrier(Barrier::BulkWaitRead(n)))
    }

    /// `bar.sync id, threads`.
    pub fn named_sync(&mut self, id: i64, threads: i64) -> &mut Self {
        self.push(Stmt::Barrier(Barrier::Named { id, threads }))
    }

    /// `setmaxnreg.inc` (`inc`) or `.dec` to `regs` registers per thread.
    pub fn setmaxnreg(&mut self, inc: bool, regs: i64) -> &mut Self {
        self.push(Stmt::Barrier(Barrier::SetMaxNReg { inc, regs }))
    }

    /// `fence.mbarrier_init.release.cluster`.
    pub fn fence_mbarrier_init(&mut self) -> &mut Self {
        self.push(Stmt::Barrier(Barrier::MbarrierInit))
    }

    /// A barrier of every thread of the cluster (`barrier.cluster.arrive` + `wait`).
    pub fn cluster_sync(&mut self) -> &mut Self {
        self.push(Stmt::Barrier(Barrier::Cluster))
    }

    /// Runs `f` with [`KernelBuilder::sync`] emitting `barrier` (the named barrier of the
    /// warps a branch runs on) instead of `__syncthreads()`.
    pub fn with_sync(
        &mut self,
        barrier: Barrier,
        f: impl FnOnce(&mut Self) -> Result<()>,
    ) -> Result<&mut Self> {
        let saved = std::mem::replace(&mut self.sync_as, barrier);
        let r = f(self);
        self.sync_as = saved;
        r.map(|()| self)
    }
}

fn bar(name: &str, index: &Int) -> BarRef {
    BarRef {
        name: name.to_string(),
        index: index.clone(),
    }
}
