//! Per-thread fragments: a tensor partitioned for one (symbolic) thread, as the emitter needs it —
//! a base offset expression, the fragment's layout, and the swizzle of a swizzled shared tile.

use cute_layout::atom::{Operand, ThrCopy, ThrMma};
use cute_layout::{
    AnyLayout, ElemType, Element, Engine, Int, IntTuple, Layout, MemSpace, Ptr, Swizzle, Tensor,
};

use crate::cexpr::c;

/// One thread's view of a tensor.
#[derive(Debug, Clone)]
pub struct Frag {
    /// The thread's base offset (an expression of `tid`, `bm`, `bn`).
    pub base: Int,
    /// The fragment layout (static modes and, last, the k-tile or pipe mode).
    pub layout: Layout,
    /// The swizzle applied to the whole offset (shared tiles only).
    pub swizzle: Option<Swizzle>,
}

/// A pointer tensor over `layout` (a swizzled layout contributes its inner layout; the swizzle is
/// returned separately, since it applies to the full offset).
pub fn tensor(name: &str, space: MemSpace, layout: &AnyLayout) -> (Tensor, Option<Swizzle>) {
    let (inner, sw) = match layout {
        AnyLayout::Plain(l) => (l.clone(), None),
        AnyLayout::Composed(cl) => (cl.layout_b().clone(), Some(cl.layout_a())),
    };
    let ptr = Ptr::new(space, ElemType::F32, name);
    (Tensor::new(ptr, inner), sw)
}

/// The fragment of a partitioned pointer tensor.
pub fn of(t: &Tensor, swizzle: Option<Swizzle>) -> Option<Frag> {
    let Engine::Ptr(p) = t.engine() else {
        return None;
    };
    let AnyLayout::Plain(l) = t.layout() else {
        return None;
    };
    Some(Frag {
        base: p.offset.clone(),
        layout: l.clone(),
        swizzle,
    })
}

/// `partition_S`/`partition_D` by a thread of a TiledCopy.
pub fn copy(
    thr: &ThrCopy,
    t: &Tensor,
    sw: Option<Swizzle>,
    src: bool,
) -> cute_layout::Result<Frag> {
    let p = if src {
        thr.partition_s(t)?
    } else {
        thr.partition_d(t)?
    };
    of(&p, sw).ok_or_else(|| cute_layout::Error::Eval("a partition of a pointer tensor".into()))
}

/// `partition_A/B/C` by a thread of a TiledMMA.
pub fn mma(
    thr: &ThrMma,
    which: Operand,
    t: &Tensor,
    sw: Option<Swizzle>,
) -> cute_layout::Result<Frag> {
    let p = thr.partition(which, t)?;
    of(&p, sw).ok_or_else(|| cute_layout::Error::Eval("a partition of a pointer tensor".into()))
}

/// A thread base at `tid` (shared-memory partitions depend on `tid` only; `None` if it names
/// another symbol).
pub fn base_at(base: &Int, tid: i64) -> Option<i64> {
    base.evaluate(&|name| (name == "tid").then_some(tid))
}

impl Frag {
    /// The offset (relative to the base) of a coordinate of the fragment.
    pub fn rel(&self, coord: &[Int]) -> cute_layout::Result<Int> {
        let t = IntTuple::Tuple(coord.iter().cloned().map(IntTuple::Int).collect());
        self.layout.crd2idx(&t)
    }

    /// The static size of mode `i`.
    pub fn mode_size(&self, i: usize) -> i64 {
        self.layout
            .mode(i)
            .ok()
            .and_then(|m| m.size().ok())
            .and_then(|s| s.as_static())
            .unwrap_or(0)
    }

    /// The static stride of mode `i` (when it is a single static leaf).
    pub fn mode_stride(&self, i: usize) -> Option<i64> {
        self.layout
            .mode(i)
            .ok()
            .and_then(|m| m.stride().as_int().and_then(Int::as_static))
    }
}

/// The coordinate (one C++ expression per mode of the problem) of a coordinate tensor at `coord`.
pub fn coord_at(t: &Tensor, coord: &[Int]) -> cute_layout::Result<Vec<String>> {
    let c_t = IntTuple::Tuple(coord.iter().cloned().map(IntTuple::Int).collect());
    match t.at(&c_t)? {
        Element::Coord(v) => Ok(v.iter().map(c).collect()),
        Element::Offset(_) => Err(cute_layout::Error::Eval("not a coordinate tensor".into())),
    }
}

/// Whether `base` is a multiple of `n` for every thread index below `threads` (and block indices
/// 0..4, symbols bound to `n`): the proof a vector access is aligned.
pub fn aligned_for_all_threads(base: &Int, n: i64, threads: i64) -> bool {
    (0..threads).all(|tid| {
        [0i64, 1, 3].iter().all(|&b| {
            let env = |name: &str| match name {
                "tid" => Some(tid),
                "bm" | "bn" | "kt" | "pipe" => Some(b),
                _ => Some(n * 7),
            };
            base.evaluate(&env).is_some_and(|v| v % n == 0)
        })
    })
}

/// The coordinate offset (one C++ expression per problem mode) of a coordinate tensor at `coord`,
/// relative to its origin.
pub fn coord_delta(t: &Tensor, coord: &[Int]) -> cute_layout::Result<Vec<String>> {
    let c_t = IntTuple::Tuple(coord.iter().cloned().map(IntTuple::Int).collect());
    Ok(t.coord_delta(&c_t)?.iter().map(c).collect())
}
