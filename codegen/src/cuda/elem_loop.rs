//! Statements over strided fragments written as unrolled loops: a fill, an elementwise copy or
//! map, or a UniversalFMA `gemm` whose every tensor puts element `j` at `base + stride * j` is
//! written as `#pragma unroll` loops over `j` instead of one statement per element. NVCC unrolls
//! them back into the same straight-line code, but compiles the short loop faster than the long
//! list (the front end and the NVVM optimizer see one statement, not 64), and the CUDA reads as a
//! CuTe kernel's `for` over a fragment does.
//!
//! Statements of fewer than [`LOOP_MIN`] elements, predicated ones and swizzled or non-affine
//! offsets keep the per-element form.

use cute_layout::{s, Engine, Int, Tensor};

use crate::ir::index::{addr, fma_dims, Addr};
use crate::lower::{self, Needs};
use crate::writer::Writer;

/// Statements over fewer elements stay one line per element (a 128-bit vector's four lanes).
const LOOP_MIN: i64 = 8;

/// A tensor whose element `j` is `name[base + stride * j]` for every `j < n`.
#[derive(Debug, Clone)]
pub(super) struct Strided {
    name: String,
    base: Int,
    stride: i64,
}

impl Strided {
    /// The tensor's `n` element offsets, when they are linear in `j` with a static stride (a
    /// register fragment, a thread's column of a staged tile); `None` otherwise.
    pub(super) fn of(t: &Tensor, n: i64) -> Option<Strided> {
        let Engine::Ptr(p) = t.engine() else {
            return None;
        };
        let off = |j: i64| match addr(t, j).ok()? {
            Addr::Lin(o) => Some(o),
            Addr::Swz { .. } => None,
        };
        let base = off(0)?;
        let step = |j: i64| off(j)?.sub(&base).ok()?.value();
        let stride = if n > 1 { step(1)? } else { 0 };
        (2..n)
            .all(|j| step(j) == stride.checked_mul(j))
            .then(|| Strided {
                name: p.name.clone(),
                base,
                stride,
            })
    }

    /// The offset of element `index` (a C loop variable, or a sum of them).
    fn offset(&self, index: &str) -> String {
        let base = super::CInt(&self.base).to_string();
        let scaled = match self.stride {
            0 => return base,
            1 => index.to_string(),
            d => format!("{} * {}", super::CInt(&s(d)), paren(index)),
        };
        if self.base.is_constant(0) {
            scaled
        } else {
            format!("{base} + {scaled}")
        }
    }

    /// `name[offset(index)]`.
    pub(super) fn at(&self, index: &str) -> String {
        format!("{}[{}]", self.name, self.offset(index))
    }

    /// Whether the offsets need the kernel's `gcd` helper.
    pub(super) fn needs_gcd(&self) -> bool {
        super::needs_gcd(&self.base)
    }
}

/// Every tensor strided over `n` elements, when `n` is at least [`LOOP_MIN`].
pub(super) fn all_strided(ts: &[&Tensor], n: i64) -> Option<Vec<Strided>> {
    if n < LOOP_MIN {
        return None;
    }
    ts.iter().map(|t| Strided::of(t, n)).collect()
}

/// The loop variable of an element loop.
const ELEM: &str = "cute_i";

/// Opens `#pragma unroll` / `for (cute_idx cute_i = 0; cute_i < n; ++cute_i)` over the elements
/// of `st` and returns the loop variable; the caller writes the body and closes it.
pub(super) fn open(w: &mut Writer, n: i64, st: &[Strided], needs: &mut Needs) -> &'static str {
    needs.gcd |= st.iter().any(Strided::needs_gcd);
    w.line("#pragma unroll");
    w.open(format!("for (cute_idx {ELEM} = 0; {ELEM} < {n}; ++{ELEM})"));
    ELEM
}

/// UniversalFMA's `c += a * b` over strided `(M,1)`, `(N,1)` and `(M,N)` fragments with N even,
/// as loops in the order of [`super::fma_order`]: n in pairs, m forwards on the even n and
/// backwards on the odd one (serpentine). `false` (nothing written) for any other MMA, which
/// keeps one statement per FMA: a K mode, an odd N, fewer than [`LOOP_MIN`] FMAs, a fragment
/// that is not strided.
pub(super) fn gemm(a: &Tensor, b: &Tensor, c: &Tensor, w: &mut Writer, needs: &mut Needs) -> bool {
    let (Some((m, 1)), Some((n, 1))) = (fma_dims(a), fma_dims(b)) else {
        return false;
    };
    if m * n < LOOP_MIN || n % 2 != 0 {
        return false;
    }
    let (Some(sa), Some(sb), Some(sc)) =
        (Strided::of(a, m), Strided::of(b, n), Strided::of(c, m * n))
    else {
        return false;
    };
    needs.gcd |= sa.needs_gcd() || sb.needs_gcd() || sc.needs_gcd();
    // column `nj` of C: c(m, nj) += a(m) * b(nj), m forwards or backwards
    let column = |w: &mut Writer, nj: &str, backwards: bool| {
        w.line("#pragma unroll");
        if backwards {
            w.open(format!(
                "for (cute_idx cute_m = {}; cute_m >= 0; --cute_m)",
                m - 1
            ));
        } else {
            w.open(format!("for (cute_idx cute_m = 0; cute_m < {m}; ++cute_m)"));
        }
        let ic = format!("cute_m + {m} * {}", paren(nj));
        lower::universal::fma(w, &sa.at("cute_m"), &sb.at(nj), &sc.at(&ic));
        w.close("");
    };
    w.line("#pragma unroll");
    w.open(format!(
        "for (cute_idx cute_n = 0; cute_n < {n}; cute_n += 2)"
    ));
    column(w, "cute_n", false);
    column(w, "cute_n + 1", true);
    w.close("");
    true
}

/// A compound C index in parentheses.
fn paren(x: &str) -> String {
    if x.contains(' ') {
        format!("({x})")
    } else {
        x.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cute_layout::{tup, ElemType, Layout, MemSpace, Ptr};

    fn regs(name: &str, offset: Int, l: Layout) -> Tensor {
        let mut p = Ptr::new(MemSpace::Rmem, ElemType::F32, name);
        p.offset = offset;
        Tensor::new(p, l)
    }

    #[test]
    fn a_compact_fragment_is_strided() {
        let buf = Int::index("kb1").rem(&s(2)).unwrap().mul(&s(8)).unwrap();
        let l = Layout::new(tup![tup![s(4), s(2)], s(1)], tup![tup![s(1), s(4)], s(0)]).unwrap();
        let t = regs("rA", buf, l);
        let st = Strided::of(&t, 8).unwrap();
        assert_eq!(st.at("cute_i"), "rA[(8 * (kb1 % 2)) + cute_i]");
    }

    #[test]
    fn a_thread_column_is_strided_by_the_thread_count() {
        let l = Layout::new(tup![s(4), s(16)], tup![s(256), s(1024)]).unwrap();
        let t = regs("sC", Int::index("tid"), l);
        let st = Strided::of(&t, 64).unwrap();
        assert_eq!(st.at("cute_i"), "sC[tid + 256 * cute_i]");
    }

    #[test]
    fn a_gather_is_not_strided() {
        // (_4,_2):(_1,_64): elements 0..4 then 64..68, not one stride
        let l = Layout::new(tup![s(4), s(2)], tup![s(1), s(64)]).unwrap();
        let t = regs("x", s(0), l);
        assert!(Strided::of(&t, 8).is_none());
        assert!(all_strided(&[&t], 4).is_none(), "below LOOP_MIN");
    }
}
