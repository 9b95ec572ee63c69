//! Lowerings owned by the atoms: one module per atom family turns a `copy` or `gemm` of the IR
//! into CUDA statements. The instruction text comes from the atom itself (`CopyOp::ptx`,
//! `ptx_zfill`, `MmaOp::ptx`); these modules only bind its operands. Universal copies and FMA
//! (`universal`), `cp.async` (`cp_async`), `ldmatrix` (`ldmatrix`) and `mma.sync`
//! (`mma_sync`), `stmatrix` (`stmatrix`), `wgmma` (`wgmma`), TMA (`tma`) and the global semaphores that order
//! CTAs (`semaphore`).

pub mod cp_async;
pub mod ldmatrix;
pub mod mma_sync;
pub mod semaphore;
pub mod stmatrix;
pub mod tma;
pub mod universal;
pub mod wgmma;

use std::collections::{BTreeMap, BTreeSet};

/// Device functions a kernel's statements call, written once before the kernel.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Needs {
    /// `cute_swizzle<B,M,S>`.
    pub swizzle: bool,
    /// `cute_gcd` / `cute_lcm`.
    pub gcd: bool,
    /// The `cp.async` helpers, by PTX text.
    pub cp_async: BTreeSet<(String, String)>,
    /// `cute_h2f` / `cute_f2h` (f16) and `cute_bf2f` / `cute_f2bf` (bf16).
    pub half: bool,
    pub bfloat: bool,
    /// `cute_lds128` / `cute_lds64` (`universal::LDS_FNS`).
    pub lds: bool,
    /// `cute_pack16` (`mma_sync::PACK16_FN`).
    pub pack16: bool,
    /// `cute_tensor_map` (`tma::TENSOR_MAP_TYPE`): a parameter is a tensor map.
    pub tensor_map: bool,
    /// The 16-bit register buffers held two values per `unsigned` (`passes::paired_registers`).
    pub pairs: BTreeSet<String>,
    /// The 16-bit register buffers a `wgmma` accumulates into: pairs (`NAME_pairs`) with a
    /// 16-bit view (`NAME`) for every other use (`passes::accumulator_pairs`).
    pub viewed: BTreeSet<String>,
    /// The warp-level instruction helpers (`ldmatrix`, `mma.sync`): name -> definition.
    pub fns: BTreeMap<String, String>,
    /// The enclosing loops of static extent (the bounds the swizzle split's bit analysis reads),
    /// innermost last.
    pub loops: Vec<LoopBound>,
    /// Inside a statement whose elements may share swizzled offsets (`cuda::stmt::hoisted`).
    pub hoist: Option<Hoist>,
}

/// The swizzled offsets a statement's elements share, declared once before them: counted in a
/// first writing of the statement, then named in the second.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hoist {
    /// How often each offset's text occurs.
    Count(BTreeMap<String, usize>),
    /// The texts declared as `cute_o0`, `cute_o1`, ... in that order.
    Name(Vec<String>),
}

impl Hoist {
    /// `text`, or the name it is declared as; counts it while counting.
    pub fn share(&mut self, text: String) -> String {
        match self {
            Hoist::Count(uses) => {
                *uses.entry(text.clone()).or_default() += 1;
                text
            }
            Hoist::Name(texts) => match texts.iter().position(|t| *t == text) {
                Some(i) => format!("cute_o{i}"),
                None => text,
            },
        }
    }
}

/// A loop the writer is inside, of static extent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopBound {
    pub var: String,
    /// Its largest value (narrowed inside `if (var < c)`).
    pub max: i64,
    /// Fully unrolled: the compiler sees each value as a constant.
    pub unrolled: bool,
}
