//! `slice_and_offset` of a swizzled layout at a coordinate with integers in it (CuTe's
//! `swizzle_layout.hpp`): the swizzle bits the sliced-away coordinates set are folded into the
//! offset, and when the remaining layout touches only one side of the swizzle (Y or Z bits, not
//! both) the result decays to a plain layout whose strides absorb the swizzle. At a symbolic
//! coordinate the slice keeps the swizzle over a symbolic offset.

use crate::composed::{AnyLayout, ComposedLayout};
use crate::composition::composition;
use crate::coord::{dice, slice, Coord};
use crate::error::{algebra, Result};
use crate::int::{s, Int};
use crate::int_tuple::IntTuple;
use crate::layout::Layout;
use crate::mixed_bits::Bits;
use crate::stride::idx2crd;
use crate::swizzle::Swizzle;

/// The projections of a swizzle: `sw` is the bit layout `(2^M, 2^B, 2^(|S|-B), 2^B, 1)`;
/// `anti` keeps the bits the swizzle neither reads nor writes, `only` keeps those it does.
pub(crate) struct Projections {
    pub(crate) anti: Layout,
    pub(crate) only: Layout,
}

pub(crate) fn projections(sw: &Swizzle) -> Projections {
    let (b, m, sh) = sw.params();
    let (b, m, a) = (i64::from(b), i64::from(m), i64::from(sh.unsigned_abs()));
    let shape = IntTuple::from_ints(vec![s(1 << m), s(1 << b), s(1 << (a - b)), s(1 << b), s(1)]);
    let strides = [1i64, 1 << m, 1 << (m + b), 1 << (m + a), 1 << (m + b + a)];
    let pick = |keep: [bool; 5]| {
        let d: Vec<Int> = (0..5)
            .map(|i| s(if keep[i] { strides[i] } else { 0 }))
            .collect();
        Layout::new(shape.clone(), IntTuple::from_ints(d)).expect("congruent by construction")
    };
    Projections {
        anti: pick([true, false, true, false, true]),
        only: pick([false, true, false, true, false]),
    }
}

/// `dice(c, c)`: the integer parts of a coordinate, as a tuple.
fn diced_coord(c: &Coord) -> Result<IntTuple> {
    dice(c, &c.zeroed())
}

/// `to_mixed_bits(L, c)`: XOR over the leaves of L of `make_mixed_bits(_0, c_i*d_i, (s_i-1)*d_i)`.
fn to_mixed_bits(l: &Layout, c: &IntTuple) -> Result<Bits> {
    let crd = idx2crd(c, l.shape())?;
    let (shapes, strides, coords) = (l.shape().leaves(), l.stride().leaves(), crd.leaves());
    let mut acc = Bits::fixed(0);
    for ((sh, st), c) in shapes.iter().zip(&strides).zip(&coords) {
        if st.is_constant(0) {
            // a stride-0 mode sets no bits, whatever its shape
            continue;
        }
        let (Some(shv), Some(stv)) = (sh.as_static(), st.as_static()) else {
            return Err(algebra(
                "slice",
                format!("{l}: swizzle slicing needs static shapes and strides"),
            ));
        };
        let span = shv * stv;
        if span != 0 && span & (span - 1) != 0 {
            return Err(algebra(
                "slice",
                format!("{l}: shape*stride {span} is not a power of two"),
            ));
        }
        acc = acc.xor(&Bits::mixed(&c.mul(st)?, (shv - 1) * stv));
    }
    Ok(acc)
}

/// `swizzle(o)` on partially static bits.
fn swizzle_bits(sw: &Swizzle, o: &Bits) -> Bits {
    let (_, _, sh) = sw.params();
    o.xor(&o.and_static(sw.yyy_mask()).shiftr(sh))
}

/// `slice_and_offset(c, Sw o O o L)`: the sliced layout and the offset that moves to the pointer.
pub(crate) fn slice_and_offset(cl: &ComposedLayout, c: &Coord) -> Result<(AnyLayout, Int)> {
    let (sw, inner) = (cl.layout_a(), cl.layout_b());
    let sliced = Layout::new(slice(c, inner.shape())?, slice(c, inner.stride())?)?;
    if !has_int(c) {
        return Ok((
            ComposedLayout::composition(sw, cl.offset().clone(), sliced),
            s(0),
        ));
    }
    let diced = Layout::new(dice(c, inner.shape())?, dice(c, inner.stride())?)?;
    let dc = diced_coord(c)?;
    if is_symbolic(&dc) || cl.offset().value().is_none() {
        // A symbolic coordinate (a thread index): which swizzle bits it sets is known only at
        // run time, so the slice keeps the swizzle over the moved offset, `Sw o (O + B(c)) o B'`,
        // the same function as C++ CuTe's decayed forms; its offset is an expression the code
        // generator evaluates before applying the swizzle.
        let offset = cl.offset().add(&diced.crd2idx(&dc)?)?;
        return Ok((ComposedLayout::composition(sw, offset, sliced), s(0)));
    }
    let p = projections(&sw);
    let offset_bits = match cl.mixed_mask() {
        0 => Bits::of(cl.offset()),
        mask => Bits::mixed(cl.offset(), mask),
    };
    let offset_only_zy = offset_bits.xor(&to_mixed_bits(&composition(&p.only, &diced)?, &dc)?);
    let offset_anti_zy = composition(&p.anti, &diced)?.crd2idx(&dc)?;
    let only_sliced = composition(&p.only, &sliced)?;
    let last = only_sliced.size()?.sub(&s(1))?;
    let active = only_sliced.crd2idx(&IntTuple::Int(last))?;
    if let Some(a) = active.as_static() {
        if a & !sw.apply(a)? != 0 {
            // The remaining layout hits Y and Z bits: not reducible, keep the swizzle.
            let layout = match offset_only_zy.parts() {
                (Some(v), mask) if mask != 0 && mask != -1 => {
                    ComposedLayout::with_mixed_offset(sw, v, mask, sliced)
                }
                _ => ComposedLayout::composition(sw, offset_only_zy.to_int()?, sliced),
            };
            return Ok((layout, offset_anti_zy));
        }
    }
    let decayed = composition(&decay_layout(&sw, &offset_only_zy)?, &sliced)?;
    let offset = swizzle_bits(&sw, &offset_only_zy)
        .to_int()?
        .add(&offset_anti_zy)?;
    Ok((AnyLayout::Plain(decayed), offset))
}

/// Whether a coordinate holds a value known only at run time (`tid`, `M`).
fn is_symbolic(c: &IntTuple) -> bool {
    c.leaves()
        .iter()
        .any(|i| !i.is_static() && i.value().is_none())
}

fn has_int(c: &Coord) -> bool {
    match c {
        Coord::Int(_) => true,
        Coord::Under => false,
        Coord::Tuple(v) => v.iter().any(has_int),
    }
}

/// The plain layout `(2^M, (2..), 2^(|S|-B), (2..), 1)` whose strides apply the swizzle for a
/// fixed offset: each Z (or Y) bit moves by `+-Z` or `Y+-Z` depending on the offset's bits.
fn decay_layout(sw: &Swizzle, offset: &Bits) -> Result<Layout> {
    let (b, m, sh) = sw.params();
    let (b, m, a) = (i64::from(b), i64::from(m), i64::from(sh.unsigned_abs()));
    let lowest = |mask: i64| mask & mask.wrapping_neg();
    let (z, y) = (lowest(sw.zzz_mask()), lowest(sw.yyy_mask()));
    let lo = swizzle_strides(z < y, z, y, offset, b)?;
    let hi = swizzle_strides(z > y, z, y, offset, b)?;
    let twos = |n: i64| repeat(IntTuple::st(2), n);
    let shape = IntTuple::Tuple(vec![
        IntTuple::st(1 << m),
        twos(b),
        IntTuple::st(1 << (a - b)),
        twos(b),
        IntTuple::st(1),
    ]);
    let stride = IntTuple::Tuple(vec![
        IntTuple::st(1),
        lo,
        IntTuple::st(1 << (m + b)),
        hi,
        IntTuple::st(1 << (m + b + a)),
    ]);
    Layout::new(shape, stride)
}

/// `repeat<n>(x)`: x itself for n == 1, else a tuple of n copies.
fn repeat(x: IntTuple, n: i64) -> IntTuple {
    if n == 1 {
        x
    } else {
        IntTuple::Tuple(vec![x; n.max(0) as usize])
    }
}

/// `detail::make_swizzle_strides`: per bit i of the B bits, `Z*2^i` or `-Z*2^i` when this side
/// is the lower one (`lower`), else `(Y+Z)*2^i` or `(Y-Z)*2^i`, chosen by the offset's bit.
fn swizzle_strides(lower: bool, z: i64, y: i64, offset: &Bits, b: i64) -> Result<IntTuple> {
    let strides = (0..b)
        .map(|i| {
            let (test, zero, one) = if lower {
                (y << i, z << i, -(z << i))
            } else {
                (z << i, (y + z) << i, (y - z) << i)
            };
            offset.and_static(test).choose_if_zero(&s(zero), &s(one))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(repeat_ints(strides))
}

fn repeat_ints(mut v: Vec<Int>) -> IntTuple {
    if v.len() == 1 {
        IntTuple::Int(v.remove(0))
    } else {
        IntTuple::from_ints(v)
    }
}
