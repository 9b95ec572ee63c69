//! Where an element of a tensor lives: the one place the lowering, the checks and the
//! interpreter ask the layout algebra for an element's offset or coordinate.
//!
//! Element `j` of a tensor is the element at the 1-D coordinate `j` (colexicographic over its
//! shape, as CuTe's `tensor(j)`). A plain layout gives a linear offset (`ptr + L(j)`); a swizzled
//! one `Sw o O o B` gives `ptr + Sw(O + B(j))`, which stays a swizzle of a symbolic argument
//! when the offset depends on the thread index.

use cute_layout::{s, AnyLayout, Engine, Int, IntTuple, Result, Swizzle, Tensor};

/// An element offset from a pointer's base, in elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Addr {
    /// `base`.
    Lin(Int),
    /// `base + sw(arg)`.
    Swz { base: Int, sw: Swizzle, arg: Int },
}

impl Addr {
    /// The offset with the symbols bound by `env` (`None` when one is unbound).
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
        match self {
            Addr::Lin(o) => o.evaluate(env),
            Addr::Swz { base, sw, arg } => {
                let a = sw.apply(arg.evaluate(env)?).ok()?;
                base.evaluate(env)?.checked_add(a)
            }
        }
    }

    /// The linear part (`base`) and the swizzled argument, if any.
    pub fn parts(&self) -> (&Int, Option<(Swizzle, &Int)>) {
        match self {
            Addr::Lin(o) => (o, None),
            Addr::Swz { base, sw, arg } => (base, Some((*sw, arg))),
        }
    }
}

/// The offset of element `j` of a pointer tensor.
pub fn addr(t: &Tensor, j: i64) -> Result<Addr> {
    let Engine::Ptr(p) = t.engine() else {
        return Err(cute_layout::Error::Eval(format!(
            "{t}: a coordinate tensor has no address"
        )));
    };
    let c = IntTuple::Int(s(j));
    match t.layout() {
        AnyLayout::Plain(l) => Ok(Addr::Lin(p.offset.add(&l.crd2idx(&c)?)?)),
        AnyLayout::Composed(l) => {
            let arg = l.offset().add(&l.layout_b().crd2idx(&c)?)?;
            let sw = l.layout_a();
            match arg.value() {
                Some(v) => Ok(Addr::Lin(p.offset.add(&s(sw.apply(v)?))?)),
                None => Ok(Addr::Swz {
                    base: p.offset.clone(),
                    sw,
                    arg,
                }),
            }
        }
    }
}

/// The coordinate element `j` of a coordinate tensor holds.
pub fn coord(t: &Tensor, j: i64) -> Result<Vec<Int>> {
    match t.at(&IntTuple::Int(s(j)))? {
        cute_layout::Element::Coord(v) => Ok(v),
        cute_layout::Element::Offset(_) => Err(cute_layout::Error::Eval(format!(
            "{t}: not a coordinate tensor"
        ))),
    }
}

/// The static number of elements of a tensor.
pub fn size(t: &Tensor) -> Option<i64> {
    t.layout().shape_layout().size().ok()?.as_static()
}

/// The static extents of a UniversalFMA fragment: `(x, y)` of `(x,y)` or `(1,x,y)`.
pub(crate) fn fma_dims(t: &Tensor) -> Option<(i64, i64)> {
    let l = t.layout().shape_layout();
    let modes: Vec<i64> = (0..l.rank())
        .map(|i| l.mode(i).ok()?.size().ok()?.as_static())
        .collect::<Option<_>>()?;
    match modes.as_slice() {
        [1, x, y] | [x, y] => Some((*x, *y)),
        _ => None,
    }
}

/// A warp MMA's fragment `(V, X, Y)` (`(V,MMA_M,MMA_K)` of A, `(V,MMA_N,MMA_K)` of B,
/// `(V,MMA_M,MMA_N)` of C): its three mode sizes, a missing last mode counting 1.
pub(crate) fn warp_dims(t: &Tensor) -> Option<(i64, i64, i64)> {
    let l = t.layout().shape_layout();
    let size = |i: usize| -> Option<i64> {
        if i >= l.rank() {
            return Some(1);
        }
        l.mode(i).ok()?.size().ok()?.as_static()
    };
    (l.rank() <= 3).then_some(())?;
    Some((size(0)?, size(1)?, size(2)?))
}

/// The `(k, m, n)` order CuTe's `gemm` calls a warp MMA over `(MMA_M, MMA_N, MMA_K)` atoms: k
/// outer, then m, n serpentine (backwards on odd m) so consecutive MMAs share A's registers.
pub(crate) fn mma_order(m: i64, n: i64, k: i64) -> Vec<(i64, i64, i64)> {
    let mut out = Vec::new();
    for kk in 0..k {
        for mi in 0..m {
            for n0 in 0..n {
                let ni = if mi % 2 == 1 { n - 1 - n0 } else { n0 };
                out.push((kk, mi, ni));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cute_layout::{compose_swizzle, tup, Coord, ElemType, Layout, MemSpace, Ptr};

    #[test]
    fn element_offsets_come_from_the_layout() {
        let p = Ptr::new(MemSpace::Gmem, ElemType::F32, "A");
        let t = Tensor::new(
            p,
            Layout::new(tup![s(4), s(8)], tup![s(1), Int::symbol("ldA")]).unwrap(),
        );
        assert_eq!(
            addr(&t, 5).unwrap(),
            Addr::Lin(Int::symbol("ldA").add(&s(1)).unwrap())
        );
        let sw = Swizzle::new(3, 2, 3).unwrap();
        let b = Layout::new(tup![s(32), s(32)], tup![s(32), s(1)]).unwrap();
        let t = Tensor::new(
            Ptr::new(MemSpace::Smem, ElemType::F32, "sA"),
            compose_swizzle(sw, &b),
        );
        let row = t
            .slice(&Coord::Tuple(vec![
                Int::index("tid").into(),
                cute_layout::X,
            ]))
            .unwrap();
        let a = addr(&row, 5).unwrap();
        assert!(matches!(a, Addr::Swz { .. }), "{a:?}");
        for tid in [0, 3, 31] {
            let want = (tid * 32 + 5) ^ (((tid * 32 + 5) & (7 << 5)) >> 3);
            let env = |n: &str| (n == "tid").then_some(tid);
            assert_eq!(a.eval(&env), Some(want));
        }
        let id = Tensor::identity(&tup![s(4), s(8)]).unwrap();
        assert_eq!(coord(&id, 9).unwrap(), vec![s(1), s(2)]);
    }
}
