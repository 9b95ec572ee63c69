//! The algebra where a swizzle meets a layout on either side: `make_swizzle` from masks,
//! `composition(L, Sw)`, `composition(Sw, Sw)`, `composition(L, Sw o O o B)`, `make_layout(Sw)`,
//! the inverses of swizzles and swizzled layouts, `max_common_vector/layout` with a swizzled
//! argument, `make_fragment_like` and `recast_layout` (C++ CuTe's `swizzle_layout.hpp`).

use crate::composed::{AnyLayout, ComposedLayout};
use crate::composed_fn::{compose3, Part};
use crate::composition::{composition, composition_tiler};
use crate::error::{algebra, Result};
use crate::int::{s, Int};
use crate::int_tuple::IntTuple;
use crate::inverse::Inverse;
use crate::layout::Layout;
use crate::max_common::{max_common_layout, max_common_vector};
use crate::numeric::ElemType;
use crate::swizzle::Swizzle;
use crate::tiler::Tiler;

/// `make_swizzle<Y, Z>()`: the swizzle whose YYY mask is `y` and ZZZ mask is `z`.
///
/// ```
/// # use cute_layout::*;
/// assert_eq!(make_swizzle(0b1000, 0b0100).unwrap().to_string(), "Sw<1,2,1>");
/// assert_eq!(make_swizzle(0b1100_0000, 0b0000_0110).unwrap().to_string(), "Sw<2,1,5>");
/// assert!(make_swizzle(0b1000, 0b0110).is_err());
/// ```
pub fn make_swizzle(y: i64, z: i64) -> Result<Swizzle> {
    let bad = |why: &str| algebra("make_swizzle", format!("masks {y:#b} and {z:#b}: {why}"));
    let (Ok(y32), Ok(z32)) = (u32::try_from(y), u32::try_from(z)) else {
        return Err(bad("the masks must be 32-bit unsigned values"));
    };
    if y32.count_ones() != z32.count_ones() {
        return Err(bad("the numbers of bits in Y and Z differ"));
    }
    let (ty, tz) = (y32.trailing_zeros(), z32.trailing_zeros());
    let m = ty.min(tz) % 32;
    let sh = i64::from(ty) - i64::from(tz);
    let sw = Swizzle::new(i64::from(y32.count_ones()), i64::from(m), sh)?;
    if sw.yyy_mask() | sw.zzz_mask() != i64::from(y32 | z32) {
        return Err(bad(
            "the masks are not the contiguous bit ranges of one swizzle",
        ));
    }
    Ok(sw)
}

/// `make_layout(Swizzle<B,M,S>)`: `Sw<B,M,S> o _0 o _(M+B+|S|):_1`, as C++ CuTe builds it.
///
/// ```
/// # use cute_layout::*;
/// let sw = Swizzle::new(3, 4, 3).unwrap();
/// assert_eq!(make_layout_of_swizzle(sw).to_string(), "Sw<3,4,3> o _0 o _10:_1");
/// ```
pub fn make_layout_of_swizzle(sw: Swizzle) -> AnyLayout {
    let (b, m, sh) = sw.params();
    let n = i64::from(b) + i64::from(m) + i64::from(sh.unsigned_abs());
    ComposedLayout::composition(
        sw,
        s(0),
        Layout::raw(IntTuple::Int(s(n)), IntTuple::Int(s(1))),
    )
}

/// `composition(L, Sw)`: the swizzle moved to the left of `L`, `Sw' o _0 o L` with `Sw'` made
/// from `L(YYY)` and `L(ZZZ)` (which must be static).
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(tup![s(16), s(8)], tup![s(8), s(1)]).unwrap();
/// let sw = Swizzle::new(1, 2, 3).unwrap();
/// assert_eq!(composition_swizzle(&l, sw).unwrap().to_string(), "Sw<1,1,-4> o _0 o (_16,_8):(_8,_1)");
/// ```
pub fn composition_swizzle(a: &Layout, sw: Swizzle) -> Result<AnyLayout> {
    let at = |mask: i64| -> Result<i64> {
        let v = a.crd2idx(&IntTuple::Int(s(mask)))?;
        v.as_static().ok_or_else(|| {
            algebra(
                "composition",
                format!("{a} maps the swizzle bits {mask:#b} of {sw} to the dynamic {v}; a swizzle needs static bits"),
            )
        })
    };
    let (y, z) = (at(sw.yyy_mask())?, at(sw.zzz_mask())?);
    let moved = make_swizzle(y, z).map_err(|e| e.in_op("composition"))?;
    Ok(ComposedLayout::composition(moved, s(0), a.clone()))
}

/// `composition(Sw0, Sw1)`: two swizzles of one shift merged into one (`make_swizzle` of the
/// XORed masks).
///
/// ```
/// # use cute_layout::*;
/// let (a, b) = (Swizzle::new(1, 2, 3).unwrap(), Swizzle::new(1, 3, 3).unwrap());
/// assert_eq!(composition_swizzles(a, b).unwrap().to_string(), "Sw<2,2,3>");
/// ```
pub fn composition_swizzles(a: Swizzle, b: Swizzle) -> Result<Swizzle> {
    if a.params().2 != b.params().2 {
        return Err(algebra(
            "composition",
            format!("{a} and {b}: only swizzles of the same shift merge"),
        ));
    }
    make_swizzle(a.yyy_mask() ^ b.yyy_mask(), a.zzz_mask() ^ b.zzz_mask())
        .map_err(|e| e.in_op("composition"))
}

/// `composition(L, Sw o O o B)`: `composition(composition(L, Sw), B)`; the offset must be `_0`.
///
/// ```
/// # use cute_layout::*;
/// let inner = Layout::new(tup![s(8), s(4)], tup![s(4), s(1)])?; // (_8,_4):(_4,_1)
/// let sw = Swizzle::new(1, 2, 3)?;
/// let AnyLayout::Composed(b) = compose_swizzle(sw, &inner) else { unreachable!() };
/// let a = Layout::new(tup![s(32)], tup![s(1)])?; // (_32):(_1)
/// assert_eq!(composition_composed(&a, &b)?.to_string(), "Sw<1,2,3> o _0 o (_8,_4):(_4,_1)");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn composition_composed(a: &Layout, b: &ComposedLayout) -> Result<AnyLayout> {
    b.unflagged("composition")?;
    if !b.offset().is_constant(0) {
        return Err(algebra(
            "composition",
            format!("{a} o ({b}): the right-hand composed layout must have offset _0 (Require offset == 0)"),
        ));
    }
    let left = composition_swizzle(a, b.layout_a())?;
    left.map(|l| composition(l, b.layout_b()))
}

impl Inverse for Swizzle {
    type Output = Swizzle;

    /// A swizzle is its own inverse.
    fn right_inverse_of(&self) -> Result<Swizzle> {
        Ok(*self)
    }

    fn left_inverse_of(&self) -> Result<Swizzle> {
        Ok(*self)
    }
}

impl Inverse for ComposedLayout {
    type Output = Part;

    /// `right_inverse(Sw o _0 o B) = composition(right_inverse(B), Sw)`; with an offset O,
    /// `right_inverse(B) o -O o Sw`.
    fn right_inverse_of(&self) -> Result<Part> {
        self.inverse_with("right_inverse", self.layout_b().right_inverse_of()?)
    }

    /// `left_inverse(Sw o _0 o B) = composition(left_inverse(B), Sw)`; with an offset O,
    /// `left_inverse(B) o -O o Sw`.
    fn left_inverse_of(&self) -> Result<Part> {
        self.inverse_with("left_inverse", self.layout_b().left_inverse_of()?)
    }
}

impl ComposedLayout {
    fn inverse_with(&self, op: &'static str, inv_b: Layout) -> Result<Part> {
        self.unflagged(op)?;
        if !self.offset().is_static() {
            return Err(algebra(
                op,
                format!(
                    "{self}: the offset {} is dynamic; C++ CuTe inverts only a static offset",
                    self.offset()
                ),
            ));
        }
        if !self.offset().is_constant(0) {
            let minus = s(0).sub(self.offset()).map_err(|e| e.in_op(op))?;
            return Ok(compose3(
                Part::Layout(inv_b.into()),
                minus,
                Part::Swizzle(self.layout_a()),
            ));
        }
        Ok(Part::Layout(
            composition_swizzle(&inv_b, self.layout_a()).map_err(|e| e.in_op(op))?,
        ))
    }
}

impl Inverse for AnyLayout {
    type Output = Part;

    fn right_inverse_of(&self) -> Result<Part> {
        match self {
            AnyLayout::Plain(l) => Ok(Part::Layout(l.right_inverse_of()?.into())),
            AnyLayout::Composed(c) => c.right_inverse_of(),
        }
    }

    fn left_inverse_of(&self) -> Result<Part> {
        match self {
            AnyLayout::Plain(l) => Ok(Part::Layout(l.left_inverse_of()?.into())),
            AnyLayout::Composed(c) => c.left_inverse_of(),
        }
    }
}

/// `composition(Sw o O o B, X)` for a swizzle or swizzled layout X: `Sw o O o composition(B, X)`,
/// a composition of functions.
///
/// ```
/// # use cute_layout::*;
/// let sw = Swizzle::new(2, 3, 3)?;
/// let b = Layout::new(tup![s(8), s(64)], tup![s(64), s(1)])?; // (_8,_64):(_64,_1)
/// let AnyLayout::Composed(a) = compose_swizzle(sw, &b) else { unreachable!() };
/// assert_eq!(
///     composition_of_composed(&a, &Part::Swizzle(sw))?.to_string(),
///     "Sw<2,3,3> o _0 o Sw<2,0,3> o _0 o (_8,_64):(_64,_1)"
/// );
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn composition_of_composed(a: &ComposedLayout, x: &Part) -> Result<Part> {
    a.unflagged("composition")?;
    let inner = match x {
        Part::Swizzle(sw) => composition_swizzle(a.layout_b(), *sw)?,
        Part::Layout(AnyLayout::Composed(c)) => composition_composed(a.layout_b(), c)?,
        Part::Layout(AnyLayout::Plain(l)) => AnyLayout::Plain(composition(a.layout_b(), l)?),
        Part::Fn(f) => {
            return Err(algebra(
                "composition",
                format!("{a} o ({f}): composing with a composition of functions is not supported"),
            ))
        }
    };
    Ok(compose3(
        Part::Swizzle(a.layout_a()),
        a.offset().clone(),
        Part::Layout(inner),
    ))
}

/// `max_common_vector(a, b)` where either may be swizzled: the plain result, capped at the
/// swizzle's `1 << M` unless both carry the same swizzle.
///
/// ```
/// # use cute_layout::*;
/// let row = Layout::new(tup![s(8), s(32)], tup![s(32), s(1)])?; // (_8,_32):(_32,_1)
/// let sw = compose_swizzle(Swizzle::new(3, 2, 3)?, &row);
/// let plain = AnyLayout::Plain(row);
/// assert_eq!(max_common_vector_any(&sw, &plain)?.to_string(), "_4");
/// assert_eq!(max_common_vector_any(&sw, &sw)?.to_string(), "_256");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn max_common_vector_any(a: &AnyLayout, b: &AnyLayout) -> Result<Int> {
    unflagged_any("max_common_vector", [a, b])?;
    let cap = |sw: Swizzle| s(1i64 << sw.params().1);
    let vec = max_common_vector(a.shape_layout(), b.shape_layout())?;
    match (a, b) {
        (AnyLayout::Plain(_), AnyLayout::Plain(_)) => Ok(vec),
        (AnyLayout::Composed(c), AnyLayout::Plain(_))
        | (AnyLayout::Plain(_), AnyLayout::Composed(c)) => vec.min(&cap(c.layout_a())),
        (AnyLayout::Composed(x), AnyLayout::Composed(y)) if x.layout_a() == y.layout_a() => Ok(vec),
        (AnyLayout::Composed(x), AnyLayout::Composed(y)) => {
            vec.min(&cap(x.layout_a()))?.min(&cap(y.layout_a()))
        }
    }
}

/// `max_common_layout(a, b)` with one argument swizzled: the plain result truncated to the
/// swizzle's `1 << M` elements (C++ CuTe has no form for two swizzled arguments).
///
/// ```
/// # use cute_layout::*;
/// let b = Layout::new(tup![s(8), s(64)], tup![s(64), s(1)])?; // (_8,_64):(_64,_1)
/// let sw = compose_swizzle(Swizzle::new(1, 2, 3)?, &b);
/// let row = AnyLayout::Plain(Layout::compact(&tup![s(8), s(64)], Major::Right)?);
/// assert_eq!(max_common_layout_any(&sw, &row)?.to_string(), "_4:_8");
/// assert!(max_common_layout_any(&sw, &sw).is_err());
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn max_common_layout_any(a: &AnyLayout, b: &AnyLayout) -> Result<Layout> {
    unflagged_any("max_common_layout", [a, b])?;
    let (sw, plain_a, plain_b) = match (a, b) {
        (AnyLayout::Plain(x), AnyLayout::Plain(y)) => return max_common_layout(x, y),
        (AnyLayout::Composed(c), AnyLayout::Plain(y)) => (c.layout_a(), c.layout_b(), y),
        (AnyLayout::Plain(x), AnyLayout::Composed(c)) => (c.layout_a(), c.layout_b(), x),
        (AnyLayout::Composed(_), AnyLayout::Composed(_)) => {
            return Err(algebra(
                "max_common_layout",
                format!("{a} and {b}: C++ CuTe defines it for at most one swizzled layout"),
            ))
        }
    };
    let common = max_common_layout(plain_a, plain_b)?;
    let base = 1i64 << sw.params().1;
    match common.size()?.as_static() {
        Some(n) if base < n => composition_tiler(&common, &Tiler::Int(s(base))),
        _ => Ok(common),
    }
}

/// `logical_product(L, Sw o _0 o T)`: `logical_product(L, T)` under the swizzle moved onto its
/// strides (the swizzle bits T reaches, carried through the product).
///
/// ```
/// # use cute_layout::*;
/// let inner = Layout::new(tup![s(8), s(16)], tup![s(16), s(1)])?; // (_8,_16):(_16,_1)
/// let sw = Swizzle::new(1, 2, 3)?;
/// let AnyLayout::Composed(t) = compose_swizzle(sw, &inner) else { unreachable!() };
/// let l = Layout::new(tup![s(2), s(2)], tup![s(1), s(2)])?; // (_2,_2):(_1,_2)
/// assert_eq!(
///     logical_product_swizzled(&l, &t)?.to_string(),
///     "Sw<1,5,3> o _0 o ((_2,_2),(_8,_16)):((_1,_2),(_64,_4))"
/// );
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn logical_product_swizzled(a: &Layout, t: &ComposedLayout) -> Result<AnyLayout> {
    const OP: &str = "logical_product";
    t.unflagged(OP)?;
    if !t.offset().is_constant(0) {
        return Err(algebra(
            OP,
            format!("{t}: the swizzled tiler must have offset _0 (Require Swizzle offset == 0)"),
        ));
    }
    let (sw, tb) = (t.layout_a(), t.layout_b());
    let new_layout = crate::logical_product(a, &Tiler::Layout(tb.clone()))?;
    let only = crate::swizzle_slice::projections(&sw).only;
    let only_zy = composition(&only, tb)?;
    let last = only_zy.size()?.sub(&s(1))?;
    let active = only_zy.crd2idx(&IntTuple::Int(last))?;
    let static_bits = |i: &Int| {
        i.as_static()
            .ok_or_else(|| algebra(OP, format!("{t}: the swizzle bits {i} are not static")))
    };
    let active = static_bits(&active)?;
    let moved = |mask: i64| -> Result<i64> {
        let inner = tb.crd2idx(&IntTuple::Int(s(active & mask)))?;
        static_bits(&new_layout.crd2idx(&IntTuple::from_ints(vec![s(0), inner]))?)
    };
    let moved_sw =
        make_swizzle(moved(sw.yyy_mask())?, moved(sw.zzz_mask())?).map_err(|e| e.in_op(OP))?;
    Ok(ComposedLayout::composition(moved_sw, s(0), new_layout))
}

/// `make_fragment_like(L)`: of a swizzled layout, the fragment of its inner layout.
///
/// ```
/// # use cute_layout::*;
/// let b = Layout::new(tup![s(8), s(8)], tup![s(8), s(1)])?; // (_8,_8):(_8,_1)
/// let sa = compose_swizzle(Swizzle::new(1, 2, 3)?, &b);
/// assert_eq!(make_fragment_like(&sa)?.to_string(), "(_8,(_8)):(_1,(_8))");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn make_fragment_like(l: &AnyLayout) -> Result<Layout> {
    l.shape_layout().fragment_like()
}

/// `recast_layout<Old, New>(L)`: the layout re-expressed for elements of type `New` where it held
/// `Old` (`upcast` by the ratio of their widths, or `downcast`).
///
/// ```
/// # use cute_layout::*;
/// let l = AnyLayout::Plain(Layout::new(tup![s(8), s(4)], tup![s(1), s(8)]).unwrap());
/// let r = recast_layout(ElemType::F16, ElemType::F32, &l).unwrap();
/// assert_eq!(r.to_string(), "(_4,_4):(_1,_4)");
/// ```
pub fn recast_layout(old: ElemType, new: ElemType, l: &AnyLayout) -> Result<AnyLayout> {
    let (num, den) = width_ratio(old, new);
    let up = |l: &AnyLayout| -> Result<AnyLayout> {
        if num == 1 {
            return Ok(l.clone());
        }
        match l {
            AnyLayout::Plain(p) => Ok(AnyLayout::Plain(crate::upcast(p, num)?)),
            AnyLayout::Composed(c) => c.upcast(num),
        }
    };
    let down = |l: &AnyLayout| -> Result<AnyLayout> {
        if den == 1 {
            return Ok(l.clone());
        }
        match l {
            AnyLayout::Plain(p) => Ok(AnyLayout::Plain(crate::downcast(p, den)?)),
            AnyLayout::Composed(c) => c.downcast(den),
        }
    };
    down(&up(l)?).map_err(|e| e.in_op("recast_layout"))
}

/// `recast_layout<Old, New>(Swizzle)`.
///
/// ```
/// # use cute_layout::*;
/// // recast_layout<float,half_t>(Swizzle<2,0,3>{}): two halves per float, one more M bit
/// let sw = recast_swizzle(ElemType::F32, ElemType::F16, Swizzle::new(2, 0, 3)?)?;
/// assert_eq!(sw.to_string(), "Sw<2,1,3>");
/// let sw = recast_swizzle(ElemType::F16, ElemType::F32, Swizzle::new(2, 0, -2)?)?;
/// assert_eq!(sw.to_string(), "Sw<1,0,-2>");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn recast_swizzle(old: ElemType, new: ElemType, sw: Swizzle) -> Result<Swizzle> {
    let (num, den) = width_ratio(old, new);
    let up = if num == 1 { sw } else { sw.upcast(num)? };
    if den == 1 {
        Ok(up)
    } else {
        up.downcast(den)
    }
}

/// `sizeof_bits<New> / sizeof_bits<Old>` in lowest terms.
fn width_ratio(old: ElemType, new: ElemType) -> (i64, i64) {
    let (n, d) = (i64::from(new.bits()), i64::from(old.bits()));
    let g = gcd(n, d).max(1);
    (n / g, d / g)
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The `smem_ptr_flag` guard of an operation on two layouts.
fn unflagged_any(op: &'static str, ls: [&AnyLayout; 2]) -> Result<()> {
    for l in ls {
        if let AnyLayout::Composed(c) = l {
            c.unflagged(op)?;
        }
    }
    Ok(())
}
