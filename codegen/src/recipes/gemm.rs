//! The GEMM plans as IR kernels: [`gemm`] builds the kernel of any [`GemmPlan`] with the
//! builder, as a CuTe kernel body is written (`naive` and `tiled` in [`super::gemm_simple`], the
//! `cp.async` pipeline in [`super::gemm_pipelined`]), with what they share: the parameters
//! `M, N, K, alpha, A, ldA, B, ldB, beta, C, ldC[, bias]` in that order, the global tensors and
//! the identity tensors that predicate them ([`Problem`]), and the epilogue's expression
//! ([`value`]).
//!
//! The epilogue computes what the plan's [`Epilogue`] says, in its order: `x = alpha * acc`,
//! `x = fmaf(beta, C, x)` only when `beta != 0` (so a C of garbage is never read), `x += bias`,
//! `x = max(x, 0)`. A per-row bias is the tensor `(M,N):(_1,_0)` over the bias pointer (a
//! per-column one `(M,N):(_0,_1)`), tiled and partitioned as C is.

use cute_layout::{s, tup, ElemType::F32, Int, Layout, Tensor};

use super::layout_err;
use super::{gemm_pipelined, gemm_simple};
use crate::cuda::IndexWidth;
use crate::error::Result;
use crate::gemm::{Bias, Epilogue, GemmPlan, Policy};
use crate::ir::{EExpr, Kernel, KernelBuilder, Pred};

/// The IR kernel of a plan, named as the plan names it (`sgemm_sm80_NN`), for the plan's
/// target, as it is written with 32-bit index arithmetic. Epilogue functors (C++ text) have no
/// IR form: an epilogue is an [`EExpr`].
pub fn gemm(plan: &GemmPlan) -> Result<Kernel> {
    gemm_for(plan, IndexWidth::I32)
}

/// The IR kernel of a plan as it is written with index arithmetic `width` bits wide: the
/// pipelined recipe picks its epilogue by it (`gemm_pipelined::pipelined`).
pub fn gemm_for(plan: &GemmPlan, width: IndexWidth) -> Result<Kernel> {
    if !plan.epilogue.functors.is_empty() {
        return Err(plan.error(
            "epilogue",
            "functors are C++ text, which the IR does not take: write the epilogue as an EExpr",
        ));
    }
    match &plan.policy {
        Policy::Naive { tile, thr } => gemm_simple::naive(plan, *tile, thr),
        Policy::SmemTiled { tile } => gemm_simple::tiled(plan, *tile),
        Policy::Pipelined(p) => gemm_pipelined::pipelined(plan, p, width),
    }
}

/// The GEMM's parameters, as tensors over the problem symbols, and the identity tensors that
/// predicate them.
pub(crate) struct Problem {
    pub m: Int,
    pub n: Int,
    pub k: Int,
    /// `(M,K)`.
    pub a: Tensor,
    /// `(N,K)`.
    pub b: Tensor,
    /// `(M,N)`.
    pub c: Tensor,
    /// `(M,N)`, broadcast along the mode the bias does not index.
    pub bias: Option<Tensor>,
    pub id_a: Tensor,
    pub id_b: Tensor,
    pub id_c: Tensor,
}

impl Problem {
    /// Declares `M, N, K, alpha, A, ldA, B, ldB, beta, C, ldC` and, when the epilogue adds one,
    /// `bias`, in that order.
    pub fn declare(k: &mut KernelBuilder, plan: &GemmPlan) -> Result<Problem> {
        let layout = plan.layout;
        let (m, n, kk) = (k.param_int("M"), k.param_int("N"), k.param_int("K"));
        k.param_scalar("alpha", F32);
        let a = k.gmem("A", F32, false, layout.a_layout());
        k.param_int("ldA");
        let b = k.gmem("B", F32, false, layout.b_layout());
        k.param_int("ldB");
        k.param_scalar("beta", F32);
        let c = k.gmem("C", F32, true, layout.c_layout());
        k.param_int("ldC");
        let e = layout_err(&plan.name, "problem tensors");
        let bias = match plan.epilogue.bias {
            None => None,
            Some(which) => {
                let stride = match which {
                    Bias::PerRow => tup![s(1), s(0)],
                    Bias::PerCol => tup![s(0), s(1)],
                };
                let l = Layout::new(tup![m.clone(), n.clone()], stride).map_err(&e)?;
                let t = k.gmem("bias", F32, false, l);
                for r in crate::gemm::common::buffer_requirements(plan) {
                    k.require(r);
                }
                Some(t)
            }
        };
        let id = |x: &Int, y: &Int| Tensor::identity(&tup![x.clone(), y.clone()]).map_err(&e);
        let (id_a, id_b, id_c) = (id(&m, &kk)?, id(&n, &kk)?, id(&m, &n)?);
        Ok(Problem {
            m,
            n,
            k: kk,
            a,
            b,
            c,
            bias,
            id_a,
            id_b,
            id_c,
        })
    }

    /// In bounds of A: `m < M && k < K`.
    pub fn pred_a(&self, coord: Tensor) -> Pred {
        Pred {
            coord,
            bounds: vec![self.m.clone(), self.k.clone()],
        }
    }

    /// In bounds of B: `n < N && k < K`.
    pub fn pred_b(&self, coord: Tensor) -> Pred {
        Pred {
            coord,
            bounds: vec![self.n.clone(), self.k.clone()],
        }
    }

    /// In bounds of C: `m < M && n < N`.
    pub fn pred_c(&self, coord: Tensor) -> Pred {
        Pred {
            coord,
            bounds: vec![self.m.clone(), self.n.clone()],
        }
    }
}

/// The epilogue's value of one element of C from the map's sources: the accumulator (source
/// 0), then C when `with_c` (source 1), then the bias when the epilogue adds one.
pub(crate) fn value(epi: &Epilogue, with_c: bool) -> EExpr {
    let mut x = EExpr::param("alpha") * EExpr::arg(0);
    if with_c {
        x = EExpr::param("beta").fma(EExpr::arg(1), x);
    }
    if epi.bias.is_some() {
        x = x + EExpr::arg(1 + usize::from(with_c));
    }
    if epi.relu {
        x = x.relu();
    }
    x
}
