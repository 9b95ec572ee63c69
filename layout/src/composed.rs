//! `ComposedLayout`: `A o O o B`, the function `c -> A(O + B(c))`, with a swizzle as A.
//!
//! As in CuTe, shape, size, rank and depth come from the inner layout B, and the algebra (divides,
//! products, `tile_to_shape`, `coalesce`, by-mode `get`, slicing) acts on B while A and O stay.
//! Slicing adds the offset of the sliced-away coordinates into O.

use std::fmt;

use crate::coord::Coord;
use crate::error::Result;
use crate::int::{s, Int};
use crate::layout::Layout;
use crate::swizzle::Swizzle;

/// `A o O o B` with a swizzle A, an offset O and a layout B.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComposedLayout {
    outer: Swizzle,
    offset: Int,
    /// The dynamic bits of O when it is a CuTe `MixedBits` (0 for a plain integer offset).
    mixed: i64,
    /// `B` when O is CuTe's `smem_ptr_flag_bits<B>` (0 otherwise): the swizzle is not applied to
    /// the layout's offsets but deferred to the byte address of the shared-memory pointer a
    /// tensor over it gets (the GMMA layout atoms, `GMMA::Layout_K_SW128_Atom<T>`).
    ptr_bits: u32,
    inner: Layout,
}

/// `composition(Swizzle, Layout)`: `Sw o _0 o L`; a `Swizzle<0,...>` is the identity and gives L.
///
/// ```
/// # use cute_layout::*;
/// let l = Layout::new(tup![s(8), s(64)], tup![s(64), s(1)])?; // (BLK_M,BLK_K)
/// let sa = compose_swizzle(Swizzle::new(3, 4, 3)?, &l);
/// assert_eq!(sa.to_string(), "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)");
/// let id = compose_swizzle(Swizzle::new(0, 4, 3)?, &Layout::new(s(8), s(1))?);
/// assert_eq!(id.to_string(), "_8:_1");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn compose_swizzle(sw: Swizzle, l: &Layout) -> AnyLayout {
    ComposedLayout::composition(sw, s(0), l.clone())
}

/// A plain layout or a composed one: what the algebra returns for either input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnyLayout {
    /// A plain layout.
    Plain(Layout),
    /// A composed layout.
    Composed(ComposedLayout),
}

impl ComposedLayout {
    /// `composition(A, O, B)`; `Swizzle<0,...>` with a static `_0` offset collapses to B.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![s(8), s(16)], tup![s(16), s(1)])?; // (_8,_16):(_16,_1)
    /// let c = ComposedLayout::composition(Swizzle::new(1, 2, 3)?, s(4), b.clone());
    /// assert_eq!(c.to_string(), "Sw<1,2,3> o _4 o (_8,_16):(_16,_1)");
    /// let c = ComposedLayout::composition(Swizzle::new(1, 2, 3)?, d(4), b);
    /// assert_eq!(c.to_string(), "Sw<1,2,3> o 4 o (_8,_16):(_16,_1)");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn composition(outer: Swizzle, offset: Int, inner: Layout) -> AnyLayout {
        if outer.is_identity() && offset.is_constant(0) {
            return AnyLayout::Plain(inner);
        }
        AnyLayout::Composed(ComposedLayout {
            outer,
            offset,
            mixed: 0,
            ptr_bits: 0,
            inner,
        })
    }

    /// `ComposedLayout<Sw, smem_ptr_flag_bits<B>, L>`: the swizzle acts on the byte address of
    /// a shared-memory pointer of `bits`-bit elements, not on the layout's offsets (CuTe's
    /// position-independent swizzle, as the GMMA layout atoms are). It stays composed for any
    /// swizzle, `Sw<0,4,3>` included, as C++ keeps it.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![s(8), s(64)], tup![s(64), s(1)])?; // (_8,_64):(_64,_1)
    /// let a = ComposedLayout::smem_ptr_flag(Swizzle::new(3, 4, 3)?, 16, b);
    /// // print(GMMA::Layout_K_SW128_Atom<half_t>{})
    /// assert_eq!(a.to_string(), "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)");
    /// // the swizzle is the pointer's: a(1,8) is 72
    /// assert_eq!(a.crd2idx(&tup![s(1), s(8)])?.to_string(), "_72");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn smem_ptr_flag(outer: Swizzle, bits: u32, inner: Layout) -> AnyLayout {
        AnyLayout::Composed(ComposedLayout {
            outer,
            offset: s(0),
            mixed: 0,
            ptr_bits: bits.max(1),
            inner,
        })
    }

    /// A layout whose swizzle acts on the smem pointer (`smem_ptr_flag`) as the same function on
    /// element offsets: `Sw<B,M,S>` on byte addresses of `b`-bit elements is `Sw<B,M-log2(b/8),S>
    /// o _0 o L` on element offsets of a buffer aligned to the swizzle's period (what a
    /// shared-memory buffer holding the tile computes). A layout with an integer offset is
    /// returned as it is.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![s(8), s(64)], tup![s(64), s(1)])?;
    /// let AnyLayout::Composed(a) = ComposedLayout::smem_ptr_flag(Swizzle::new(3, 4, 3)?, 16, b) else { unreachable!() };
    /// assert_eq!(a.in_element_units()?.to_string(), "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn in_element_units(&self) -> Result<AnyLayout> {
        let Some(bits) = self.smem_ptr_bits() else {
            return Ok(AnyLayout::Composed(self.clone()));
        };
        let shift = (bits / 8).max(1).trailing_zeros();
        if bits < 8 || !bits.is_power_of_two() || self.outer.params().1 < shift {
            return Err(crate::error::algebra(
                "in_element_units",
                format!("{self}: {bits}-bit elements (whole bytes whose count is a power of two)"),
            ));
        }
        // the byte swizzle for elements bits/8 bytes wide: upcast<bits/8>
        let sw = self.outer.upcast(i64::from(bits / 8))?;
        Ok(ComposedLayout::composition(sw, s(0), self.inner.clone()))
    }

    /// The element bits `B` of an `smem_ptr_flag_bits<B>` offset; `None` for an integer offset.
    pub fn smem_ptr_bits(&self) -> Option<u32> {
        (self.ptr_bits > 0).then_some(self.ptr_bits)
    }

    /// An error for the operations this port does not carry over an `smem_ptr_flag` offset.
    pub(crate) fn unflagged(&self, op: &'static str) -> Result<()> {
        match self.smem_ptr_bits() {
            None => Ok(()),
            Some(_) => Err(crate::error::algebra(
                op,
                format!("{self}: a layout whose swizzle acts on the smem pointer (smem_ptr_flag) is not supported here; use its layout_b or a swizzled layout in element units"),
            )),
        }
    }

    /// `composition(A, O, B)` where O is a CuTe `MixedBits`: a known value whose bits under
    /// `mask` are dynamic (prints `M_S|(d&F)=v`).
    pub(crate) fn with_mixed_offset(
        outer: Swizzle,
        value: i64,
        mask: i64,
        inner: Layout,
    ) -> AnyLayout {
        AnyLayout::Composed(ComposedLayout {
            outer,
            offset: crate::int::d(value),
            mixed: mask,
            ptr_bits: 0,
            inner,
        })
    }

    /// The dynamic-bit mask of a `MixedBits` offset (0 when O is a plain integer).
    pub(crate) fn mixed_mask(&self) -> i64 {
        self.mixed
    }

    /// A (the swizzle).
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![s(8), s(64)], tup![s(64), s(1)])?;
    /// let any = ComposedLayout::composition(Swizzle::new(3, 4, 3)?, s(8), b);
    /// let AnyLayout::Composed(c) = any else { unreachable!() };
    /// // c: Sw<3,4,3> o _8 o (_8,_64):(_64,_1)
    /// assert_eq!(c.layout_a().to_string(), "Sw<3,4,3>");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn layout_a(&self) -> Swizzle {
        self.outer
    }

    /// O.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![s(8), s(64)], tup![s(64), s(1)])?;
    /// let any = ComposedLayout::composition(Swizzle::new(3, 4, 3)?, s(8), b);
    /// let AnyLayout::Composed(c) = any else { unreachable!() };
    /// // c: Sw<3,4,3> o _8 o (_8,_64):(_64,_1)
    /// assert_eq!(c.offset().to_string(), "_8");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn offset(&self) -> &Int {
        &self.offset
    }

    /// B (the inner layout).
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![s(8), s(64)], tup![s(64), s(1)])?;
    /// let any = ComposedLayout::composition(Swizzle::new(3, 4, 3)?, s(8), b);
    /// let AnyLayout::Composed(c) = any else { unreachable!() };
    /// // c: Sw<3,4,3> o _8 o (_8,_64):(_64,_1)
    /// assert_eq!(c.layout_b().to_string(), "(_8,_64):(_64,_1)");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn layout_b(&self) -> &Layout {
        &self.inner
    }

    /// The same A and O over a new inner layout: how CuTe forwards the algebra to B.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![tup![s(8), s(2)], s(64)], tup![tup![s(64), s(512)], s(1)])?;
    /// let sw = Swizzle::new(3, 4, 3)?;
    /// let AnyLayout::Composed(c) = compose_swizzle(sw, &b) else { unreachable!() };
    /// let flat = c.with_inner(b.flatten()); // flatten(composition(Swizzle<3,4,3>{}, b))
    /// assert_eq!(flat.to_string(), "Sw<3,4,3> o _0 o (_8,_2,_64):(_64,_512,_1)");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn with_inner(&self, inner: Layout) -> AnyLayout {
        if self.ptr_bits > 0 {
            return ComposedLayout::smem_ptr_flag(self.outer, self.ptr_bits, inner);
        }
        ComposedLayout::composition(self.outer, self.offset.clone(), inner)
    }

    /// `(A o O o B)(c) = A(O + B(c))` for a coordinate without `_`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![s(8), s(8)], tup![s(8), s(1)])?; // (_8,_8):(_8,_1)
    /// let sw = Swizzle::new(2, 0, 3)?;
    /// let AnyLayout::Composed(c) = compose_swizzle(sw, &b) else { unreachable!() };
    /// assert_eq!(c.crd2idx(&tup![s(3), s(1)])?.to_string(), "_26"); // Sw(25) = 25 ^ 3
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn crd2idx(&self, c: &crate::IntTuple) -> Result<Int> {
        let inner = self.inner.crd2idx(c)?;
        if self.ptr_bits > 0 {
            // the swizzle is the pointer's (C++: smem_ptr_flag + offset is the offset)
            return Ok(inner);
        }
        self.outer.apply_int(&self.offset.add(&inner)?)
    }

    /// `slice(c, Sw o O o B)`: the sliced layout, which decays to a plain layout when the
    /// remaining modes touch only one side of the swizzle (as C++ CuTe). The offset of the
    /// sliced-away coordinates is dropped here, as `L(c)` drops it; see [`Self::slice_and_offset`].
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![s(8), s(8)], tup![s(8), s(1)])?; // (_8,_8):(_8,_1)
    /// let sw = Swizzle::new(2, 0, 3)?;
    /// let AnyLayout::Composed(c) = compose_swizzle(sw, &b) else { unreachable!() };
    /// let col = c.slice(&Coord::Tuple(vec![X, s(1).into()]))?; // c(_,_1)
    /// assert_eq!(col.to_string(), "((_2,_2,_2)):((_7,_18,_32))");
    /// let row = c.slice(&Coord::Tuple(vec![s(1).into(), X]))?; // c(_1,_)
    /// assert_eq!(row.to_string(), "((_2,_4)):((_-1,_2))");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn slice(&self, c: &Coord) -> Result<AnyLayout> {
        Ok(self.slice_and_offset(c)?.0)
    }

    /// `slice_and_offset(c, Sw o O o B)`: the sliced layout and the offset a tensor adds to its
    /// pointer.
    ///
    /// Where C++ keeps a `MixedBits` offset (a non-reducible slice at a dynamic coordinate) this
    /// keeps a dynamic integer with the same value.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![s(8), s(8)], tup![s(8), s(1)])?; // (_8,_8):(_8,_1)
    /// let sw = Swizzle::new(2, 0, 3)?;
    /// let AnyLayout::Composed(c) = compose_swizzle(sw, &b) else { unreachable!() };
    /// let (col, off) = c.slice_and_offset(&Coord::Tuple(vec![X, d(1).into()]))?; // c(_,1)
    /// assert_eq!(col.to_string(), "((_2,_2,_2)):((7,18,_32))");
    /// assert_eq!(off.value(), Some(1)); // c(0,1) = Sw(1) = 1
    /// for i in 0..8 {
    ///     assert_eq!(c.crd2idx(&tup![d(i), d(1)])?.value(), Some(1 + col.eval(i)?));
    /// }
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn slice_and_offset(&self, c: &Coord) -> Result<(AnyLayout, Int)> {
        self.unflagged("slice")?;
        crate::swizzle_slice::slice_and_offset(self, c)
    }

    /// `upcast<N>`: the swizzle, the offset and the inner layout all re-expressed for N-wide
    /// elements. A swizzle that shrinks to no bits stays (`Sw<0,0,3> o _0 o ...`), as in C++ CuTe.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![s(8), s(64)], tup![s(64), s(1)])?; // (_8,_64):(_64,_1)
    /// let sw = Swizzle::new(3, 3, 3)?;
    /// let AnyLayout::Composed(c) = compose_swizzle(sw, &b) else { unreachable!() };
    /// assert_eq!(c.upcast(8)?.to_string(), "Sw<3,0,3> o _0 o (_8,_8):(_8,_1)"); // upcast<8>(c)
    /// let b = Layout::new(tup![s(32), s(32)], tup![s(32), s(1)])?; // (_32,_32):(_32,_1)
    /// let sw = Swizzle::new(2, 0, -2)?;
    /// let AnyLayout::Composed(c) = compose_swizzle(sw, &b) else { unreachable!() };
    /// assert_eq!(c.upcast(8)?.to_string(), "Sw<0,0,-2> o _0 o (_32,_4):(_4,_1)");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn upcast(&self, n: i64) -> Result<AnyLayout> {
        if self.ptr_bits > 0 {
            // smem_ptr_flag_bits<B> becomes <B*N>; the swizzle (on bytes) stays
            let bits = u32::try_from(n)
                .ok()
                .and_then(|n| self.ptr_bits.checked_mul(n))
                .ok_or_else(|| crate::error::algebra("upcast", format!("{self}: upcast<{n}>")))?;
            return Ok(ComposedLayout::smem_ptr_flag(
                self.outer,
                bits,
                crate::upcast(&self.inner, n)?,
            ));
        }
        self.static_offset("upcast")?;
        Ok(AnyLayout::Composed(ComposedLayout {
            outer: self.outer.upcast(n)?,
            offset: safe_div(&self.offset, n)?,
            mixed: 0,
            ptr_bits: 0,
            inner: crate::upcast(&self.inner, n)?,
        }))
    }

    /// `downcast<N>`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![s(8), s(64)], tup![s(64), s(1)])?; // (_8,_64):(_64,_1)
    /// let sw = Swizzle::new(3, 4, 3)?;
    /// let AnyLayout::Composed(c) = compose_swizzle(sw, &b) else { unreachable!() };
    /// let narrow = c.downcast(4)?; // downcast<4>(c)
    /// assert_eq!(narrow.to_string(), "Sw<3,6,3> o _0 o (_8,_256):(_256,_1)");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn downcast(&self, n: i64) -> Result<AnyLayout> {
        if self.ptr_bits > 0 {
            let bits = u32::try_from(n)
                .ok()
                .filter(|&n| n > 0 && self.ptr_bits.is_multiple_of(n))
                .map(|n| self.ptr_bits / n)
                .ok_or_else(|| {
                    crate::error::algebra(
                        "downcast",
                        format!("{self}: downcast<{n}> of {}-bit elements", self.ptr_bits),
                    )
                })?;
            return Ok(ComposedLayout::smem_ptr_flag(
                self.outer,
                bits,
                crate::downcast(&self.inner, n)?,
            ));
        }
        self.static_offset("downcast")?;
        Ok(AnyLayout::Composed(ComposedLayout {
            outer: self.outer.downcast(n)?,
            offset: self.offset.mul(&s(n))?,
            mixed: 0,
            ptr_bits: 0,
            inner: crate::downcast(&self.inner, n)?,
        }))
    }
}

impl ComposedLayout {
    /// C++ CuTe casts a composed layout's offset only when it is static (there is no
    /// `upcast<N>(const int&)`).
    fn static_offset(&self, op: &'static str) -> Result<()> {
        if self.offset.is_static() {
            return Ok(());
        }
        Err(crate::error::algebra(
            op,
            format!(
                "{self}: the offset {} is dynamic; C++ CuTe casts only a static offset",
                self.offset
            ),
        ))
    }
}

/// CuTe's `safe_div` of an offset by a static N (exact division required when static).
fn safe_div(o: &Int, n: i64) -> Result<Int> {
    if let Some(v) = o.as_static() {
        if n <= 0 || v.checked_rem(n) != Some(0) {
            return Err(crate::error::algebra(
                "upcast",
                format!("offset {o} is not divisible by {n}"),
            ));
        }
    }
    o.div(&s(n))
}

impl AnyLayout {
    /// The layout whose shape this has (B for a composed layout).
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![s(8), s(64)], tup![s(64), s(1)])?; // (_8,_64):(_64,_1)
    /// let sa = compose_swizzle(Swizzle::new(3, 4, 3)?, &b);
    /// assert_eq!(sa.shape_layout().shape().to_string(), "(_8,_64)"); // shape(sa)
    /// assert_eq!(sa.shape_layout(), &b);
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn shape_layout(&self) -> &Layout {
        match self {
            AnyLayout::Plain(l) => l,
            AnyLayout::Composed(c) => &c.inner,
        }
    }

    /// Applies a layout operation to the plain layout, or to B keeping A and O.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![s(8), s(64)], tup![s(64), s(1)])?; // (_8,_64):(_64,_1)
    /// let sa = compose_swizzle(Swizzle::new(3, 4, 3)?, &b);
    /// // take<0,1>(sa)
    /// assert_eq!(sa.map(|l| l.take(0, 1))?.to_string(), "Sw<3,4,3> o _0 o (_8):(_64)");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn map(&self, f: impl FnOnce(&Layout) -> Result<Layout>) -> Result<AnyLayout> {
        match self {
            AnyLayout::Plain(l) => Ok(AnyLayout::Plain(f(l)?)),
            AnyLayout::Composed(c) => Ok(c.with_inner(f(&c.inner)?)),
        }
    }

    /// The offset at a coordinate without `_`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![s(8), s(8)], tup![s(8), s(1)])?; // (_8,_8):(_8,_1)
    /// let sa = compose_swizzle(Swizzle::new(2, 0, 3)?, &b);
    /// assert_eq!(sa.crd2idx(&tup![d(3), d(5)])?.to_string(), "30"); // sa(3,5)
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn crd2idx(&self, c: &crate::IntTuple) -> Result<Int> {
        match self {
            AnyLayout::Plain(l) => l.crd2idx(c),
            AnyLayout::Composed(cl) => cl.crd2idx(c),
        }
    }

    /// `L(i)` for an index known now.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![s(8), s(8)], tup![s(8), s(1)])?; // (_8,_8):(_8,_1)
    /// let sa = compose_swizzle(Swizzle::new(2, 0, 3)?, &b);
    /// assert_eq!(sa.eval(43)?, 30); // index 43 is the coordinate (3,5): Sw(29) = 29 ^ 3
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn eval(&self, i: i64) -> Result<i64> {
        let off = self.crd2idx(&crate::IntTuple::Int(crate::int::d(i)))?;
        off.value().ok_or_else(|| {
            crate::error::Error::Symbolic(format!(
                "evaluate: {self} has symbolic modes; its offsets are not numbers"
            ))
        })
    }

    /// `slice_and_offset(c, L)`: the sub-layout under the `_` of `c`, and the offset of the
    /// integer coordinates (which a tensor adds to its pointer).
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::new(tup![s(4), d(8)], tup![s(1), s(4)])?; // (_4,8):(_1,_4)
    /// let l = AnyLayout::from(l);
    /// let (col, off) = l.slice_and_offset(&Coord::Tuple(vec![X, d(3).into()]))?; // l(_,3)
    /// assert_eq!(col.to_string(), "(_4):(_1)");
    /// assert_eq!(off.value(), Some(12)); // 3 * _4
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn slice_and_offset(&self, c: &Coord) -> Result<(AnyLayout, Int)> {
        match self {
            AnyLayout::Plain(l) => Ok((AnyLayout::Plain(l.slice(c)?), l.crd2idx(&c.zeroed())?)),
            AnyLayout::Composed(cl) => cl.slice_and_offset(c),
        }
    }

    /// Slicing with `_`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let b = Layout::new(tup![s(8), s(8)], tup![s(8), s(1)])?; // (_8,_8):(_8,_1)
    /// let sa = compose_swizzle(Swizzle::new(1, 2, 3)?, &b);
    /// let row = sa.slice(&Coord::Tuple(vec![d(1).into(), X]))?; // sa(1,_)
    /// assert_eq!(row.to_string(), "((_4,_2)):((_1,4))");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn slice(&self, c: &Coord) -> Result<AnyLayout> {
        match self {
            AnyLayout::Plain(l) => Ok(AnyLayout::Plain(l.slice(c)?)),
            AnyLayout::Composed(cl) => cl.slice(c),
        }
    }
}

impl From<Layout> for AnyLayout {
    fn from(l: Layout) -> Self {
        AnyLayout::Plain(l)
    }
}

impl fmt::Display for ComposedLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} o ", self.outer)?;
        if self.ptr_bits > 0 {
            return write!(f, "smem_ptr[{}b](unset) o {}", self.ptr_bits, self.inner);
        }
        match self.offset.value() {
            Some(v) if self.mixed != 0 => {
                let m = self.mixed;
                write!(f, "M_{}|({}&{m})={v}", v & !m, v & m)?;
            }
            _ => write!(f, "{}", self.offset)?,
        }
        write!(f, " o {}", self.inner)
    }
}

impl fmt::Display for AnyLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyLayout::Plain(l) => write!(f, "{l}"),
            AnyLayout::Composed(c) => write!(f, "{c}"),
        }
    }
}
