//! Statements over strided fragments written as unrolled loops: a fill, an elementwise copy or
//! map, or a UniversalFMA `gemm` whose every tensor puts element `j` at `base + L(j)`, with `L` a
//! static layout of a few modes (one stride for a register fragment; `((_2,_2),_4,_8):((_132,_8),
//! _32,_4224)` for a tensor-core accumulator's place in a staged tile), is written as
//! `#pragma unroll` loops over `j` instead of one statement per element. NVCC unrolls them back
//! into the same straight-line code (the same cubin, byte for byte, for the kernels measured),
//! but compiles the short loop faster than the long list (the front end and the NVVM optimizer
//! see one statement, not 64 or 128), and the CUDA reads as a CuTe kernel's `for` over a
//! fragment does.
//!
//! Statements of fewer than [`LOOP_MIN`] elements, predicated ones and swizzled or non-affine
//! offsets keep the per-element form.

use cute_layout::{s, Engine, Int, Tensor};

use crate::ir::index::{addr, fma_dims, Addr};
use crate::lower::{self, Needs};
use crate::writer::Writer;

/// Statements over fewer elements stay one line per element (a 128-bit vector's four lanes).
const LOOP_MIN: i64 = 8;

/// The most modes an element loop's offset is written with; a fragment that needs more keeps
/// one statement per element.
const MAX_MODES: usize = 4;

/// A tensor whose element `j` is `name[base + L(j)]` for every `j < n`, `L` the static layout
/// `modes` (extent, stride), first mode fastest.
#[derive(Debug, Clone)]
pub(super) struct Strided {
    name: String,
    base: Int,
    modes: Vec<(i64, i64)>,
}

impl Strided {
    /// The tensor's `n` element offsets, when they are `base` plus a static layout of at most
    /// [`MAX_MODES`] modes (a register fragment, a thread's column or accumulator slots of a
    /// staged tile); `None` otherwise.
    pub(super) fn of(t: &Tensor, n: i64) -> Option<Strided> {
        let Engine::Ptr(p) = t.engine() else {
            return None;
        };
        let off = |j: i64| match addr(t, j).ok()? {
            Addr::Lin(o) => Some(o),
            Addr::Swz { .. } => None,
        };
        let base = off(0)?;
        let deltas = (0..n)
            .map(|j| off(j)?.sub(&base).ok()?.value())
            .collect::<Option<Vec<i64>>>()?;
        Some(Strided {
            name: p.name.clone(),
            base,
            modes: modes_of(&deltas)?,
        })
    }

    /// The same, when the offsets are one stride (`base + stride * j`).
    fn linear(t: &Tensor, n: i64) -> Option<Strided> {
        Strided::of(t, n).filter(|st| st.modes.len() <= 1)
    }

    /// The offset of element `index` (a C loop variable, or a sum of them).
    fn offset(&self, index: &str) -> String {
        let base = super::CInt(&self.base).to_string();
        let mut terms = Vec::new();
        let mut below = 1;
        for (i, &(extent, stride)) in self.modes.iter().enumerate() {
            let last = i + 1 == self.modes.len();
            let j = match below {
                1 => index.to_string(),
                q => format!("{} / {q}", paren(index)),
            };
            let coord = if last {
                j
            } else {
                format!("{} % {extent}", paren(&j))
            };
            below *= extent;
            terms.push(match stride {
                0 => continue,
                1 => coord,
                d => format!("{} * {}", super::CInt(&s(d)), paren(&coord)),
            });
        }
        if !self.base.is_constant(0) || terms.is_empty() {
            terms.insert(0, base);
        }
        terms.join(" + ")
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

/// The static layout `(extent, stride)` modes, first fastest, of the offsets `d` (`d[0] == 0`):
/// each mode takes the longest run of whole copies of the modes before it, shifted by one
/// stride, that divides the size. Every offset is checked, so the layout is exact; `None` when
/// a mode cannot be extended or more than [`MAX_MODES`] are needed.
fn modes_of(d: &[i64]) -> Option<Vec<(i64, i64)>> {
    let n = d.len();
    let mut modes = Vec::new();
    let mut size = 1;
    while size < n {
        let stride = d[size];
        let copy_holds = |e: usize| {
            (0..size).all(|r| {
                i64::try_from(e)
                    .ok()
                    .and_then(|e| stride.checked_mul(e))
                    .and_then(|x| x.checked_add(d[r]))
                    == Some(d[e * size + r])
            })
        };
        let mut extent = 1;
        while size * (extent + 1) <= n && copy_holds(extent) {
            extent += 1;
        }
        while extent > 1 && !n.is_multiple_of(size * extent) {
            extent -= 1;
        }
        if extent < 2 || modes.len() == MAX_MODES {
            return None;
        }
        modes.push((i64::try_from(extent).ok()?, stride));
        size *= extent;
    }
    Some(modes)
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
    let (Some(sa), Some(sb), Some(sc)) = (
        Strided::linear(a, m),
        Strided::linear(b, n),
        Strided::linear(c, m * n),
    ) else {
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
    fn a_gather_of_two_strides_is_two_modes() {
        // (_4,_2):(_1,_64): elements 0..4 then 64..68
        let l = Layout::new(tup![s(4), s(2)], tup![s(1), s(64)]).unwrap();
        let t = regs("x", s(0), l);
        assert_eq!(
            Strided::of(&t, 8).unwrap().at("cute_i"),
            "x[cute_i % 4 + 64 * (cute_i / 4)]"
        );
        assert!(Strided::linear(&t, 8).is_none(), "not one stride");
        assert!(all_strided(&[&t], 4).is_none(), "below LOOP_MIN");
    }

    #[test]
    fn an_accumulator_staged_in_a_tile_is_its_layout() {
        // a tensor-core thread's accumulators in the staged C tile
        let l = Layout::new(
            tup![tup![s(2), s(2)], s(4), s(8)],
            tup![tup![s(132), s(8)], s(32), s(4224)],
        )
        .unwrap();
        let t = regs("sC", Int::index("tid"), l);
        assert_eq!(
            Strided::of(&t, 128).unwrap().at("cute_i"),
            "sC[tid + 132 * (cute_i % 2) + 8 * ((cute_i / 2) % 2) + 32 * ((cute_i / 4) % 4) + 4224 * (cute_i / 16)]"
        );
    }

    #[test]
    fn offsets_that_are_no_layout_keep_one_statement_each() {
        let d = [0, 1, 2, 4, 5, 6, 9, 10];
        assert_eq!(modes_of(&d), None);
        // a broadcast mode is a stride of zero; the modes are exact
        assert_eq!(modes_of(&[0, 0, 3, 3]), Some(vec![(2, 0), (2, 3)]));
        assert_eq!(modes_of(&[0, 7]), Some(vec![(2, 7)]));
        assert_eq!(modes_of(&[0]), Some(vec![]));
        // five modes of two are more than MAX_MODES
        let five: Vec<i64> = (0..32)
            .map(|j| (0..5).map(|b| ((j >> b) & 1) * (1 << (2 * b))).sum())
            .collect();
        assert_eq!(modes_of(&five), None);
    }

    #[test]
    fn the_modes_reproduce_every_offset() {
        // ((_2,_3),_4):((_5,_1),_40) in a column-major walk
        let l = Layout::new(tup![tup![s(2), s(3)], s(4)], tup![tup![s(5), s(1)], s(40)]).unwrap();
        let t = regs("r", s(7), l.clone());
        let st = Strided::of(&t, 24).unwrap();
        for j in 0..24 {
            let mut below = 1;
            let mut off = 7;
            for (i, &(e, d)) in st.modes.iter().enumerate() {
                let c = if i + 1 == st.modes.len() {
                    j / below
                } else {
                    (j / below) % e
                };
                off += d * c;
                below *= e;
            }
            assert_eq!(off, l.eval(j).unwrap() + 7, "element {j}");
        }
    }
}
