//! `Copy_Atom`, `TiledCopy` and `ThrCopy`: a copy instruction tiled over threads and values, and
//! the partitions it makes of any tensor.

use std::fmt;

use super::copy_op::{CopyOp, CopyOperation};
use super::tiled_mma::{Operand, TiledMma};
use crate::composed::AnyLayout;
use crate::coord::Coord;
use crate::error::{algebra, Result};
use crate::int::{s, Int};
use crate::int_tuple::{zip, IntTuple};
use crate::layout::Layout;
use crate::numeric::{ElemType, Numeric};
use crate::tensor::Tensor;
use crate::tiler::Tiler;
use crate::*;

/// `Copy_Atom<Op, T>`: a copy operation applied to elements of type T.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyAtom {
    op: CopyOp,
    val: ElemType,
}

impl CopyAtom {
    /// `Copy_Atom<Op, T>{}`; fails when the operation's bit layouts do not hold whole elements
    /// of T for every thread (CuTe's "CopyOperation is not valid for Src of ValType").
    pub fn new(op: CopyOp, val: ElemType) -> Result<CopyAtom> {
        let atom = CopyAtom { op, val };
        let threads = op.thr_id().size()?;
        for (which, l) in [
            ("Src", atom.val_layout_src()?),
            ("Dst", atom.val_layout_dst()?),
            ("Ref", atom.val_layout_ref()?),
        ] {
            if l.mode(0)?.size()? != threads {
                return Err(algebra(
                    "Copy_Atom",
                    format!("{op} is not valid for {which} of {val}: {l} does not have {threads} threads"),
                ));
            }
        }
        Ok(atom)
    }

    /// The typed form: `CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>()`.
    pub fn of<Op: CopyOperation, T: Numeric>() -> Result<CopyAtom> {
        CopyAtom::new(Op::OP, T::TYPE)
    }

    /// The operation.
    pub fn op(&self) -> CopyOp {
        self.op
    }

    /// The element type.
    pub fn val_type(&self) -> ElemType {
        self.val
    }

    /// `recast_layout<uint1_t, T>` of a bit layout.
    fn in_elements(&self, bits: &Layout) -> Result<Layout> {
        upcast(bits, i64::from(self.val.bits()))
    }

    /// `ValLayoutSrc`: (thread, value) -> element offset of the source.
    pub fn val_layout_src(&self) -> Result<Layout> {
        self.in_elements(&self.op.src_layout())
    }

    /// `ValLayoutDst`.
    pub fn val_layout_dst(&self) -> Result<Layout> {
        self.in_elements(&self.op.dst_layout())
    }

    /// `ValLayoutRef`.
    pub fn val_layout_ref(&self) -> Result<Layout> {
        self.in_elements(&self.op.ref_layout())
    }

    /// CuTe's multi-line `print(Copy_Atom)`.
    pub fn print(&self) -> Result<String> {
        Ok(format!(
            "Copy_Atom\n  ThrID:        {}\n  ValLayoutSrc: {}\n  ValLayoutDst: {}\n  ValLayoutRef: {}\n  ValueType:    {}b\n",
            self.op.thr_id(),
            self.val_layout_src()?,
            self.val_layout_dst()?,
            self.val_layout_ref()?,
            self.val.bits()
        ))
    }
}

impl fmt::Display for CopyAtom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Copy_Atom<{}, {}>", self.op, self.val)
    }
}

/// `TiledCopy`: an atom, a (thread, value) -> coordinate layout over a tile, and the tile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TiledCopy {
    atom: CopyAtom,
    layout_tv: Layout,
    tiler: IntTuple,
}

/// `make_tiled_copy(atom, thr_layout, val_layout)`: threads laid out by `thr_layout`
/// ((m,n) -> thread), each copying the block `val_layout` ((m,n) -> value).
///
/// ```
/// # use cute_layout::*;
/// let tc = expr::eval_str(
///     "make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>, (_32,_8):(_1,_32), (_4,_1):(_1,_0)).tidfrg_D((_128,_32,_3):(_1,_128,_4096))",
/// );
/// assert_eq!(tc.unwrap(), "(_256,(_4,_1),(_1,_4,_3)):(_4,(_1,_0),(_0,_1024,_4096))");
/// ```
pub fn make_tiled_copy(atom: &CopyAtom, thr: &Layout, val: &Layout) -> Result<TiledCopy> {
    let layout_mn = raked_product(thr, val)?;
    let shape = IntTuple::Tuple(vec![IntTuple::Int(thr.size()?), IntTuple::Int(val.size()?)]);
    let layout_tv = composition(&right_inverse(&layout_mn)?, &Layout::col_major(&shape)?)?;
    let tiler = layout_mn.shape().product_each()?;
    TiledCopy::new(atom.clone(), layout_tv, tiler)
}

/// `make_tiled_copy_A(copy_atom, mma)`: the copy that loads exactly the A fragments of
/// `mma`'s threads, with the MMA's `get_layoutA_TV()` and the `(M,K)` tile
/// `(tile_size<0>(mma), tile_size<2>(mma))`.
///
/// ```
/// # use cute_layout::*;
/// # use cute_layout::atom::{copy_op::SM75_U32x4_LDSM_N, mma_op::SM80_16x8x32_S32S8S8S32_TN, *};
/// let mma = make_tiled_mma(
///     MmaAtom::of::<SM80_16x8x32_S32S8S8S32_TN>(),
///     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(),
///     &[],
/// )
/// .unwrap();
/// let ldsm = CopyAtom::of::<SM75_U32x4_LDSM_N, i8>().unwrap();
/// let tiled = make_tiled_copy_A(&ldsm, &mma).unwrap();
/// // print(make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, int8_t>{}, mma)): Tiler_MN, TiledLayout_TV
/// assert_eq!(tiled.tiler().to_string(), "(_32,_32)");
/// assert_eq!(
///     tiled.layout_tv().to_string(),
///     "((_4,_8,_2,_2),((_4,_2,_2),(_1,_1))):((_128,_1,_16,_0),((_32,_8,_512),(_0,_0)))"
/// );
/// ```
#[allow(non_snake_case)]
pub fn make_tiled_copy_A(copy_atom: &CopyAtom, mma: &TiledMma) -> Result<TiledCopy> {
    make_tiled_copy_for(copy_atom, mma, Operand::A)
}

/// `make_tiled_copy_B(copy_atom, mma)`: the copy of `mma`'s B fragments, over the `(N,K)` tile.
///
/// ```
/// # use cute_layout::*;
/// # use cute_layout::atom::{copy_op::SM75_U32x2_LDSM_N, mma_op::SM80_16x8x32_S32S8S8S32_TN, *};
/// let mma = make_tiled_mma(
///     MmaAtom::of::<SM80_16x8x32_S32S8S8S32_TN>(),
///     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(),
///     &[],
/// )
/// .unwrap();
/// let ldsm = CopyAtom::of::<SM75_U32x2_LDSM_N, i8>().unwrap();
/// let tiled = make_tiled_copy_B(&ldsm, &mma).unwrap();
/// // print(make_tiled_copy_B(Copy_Atom<SM75_U32x2_LDSM_N, int8_t>{}, mma)): Tiler_MN, TiledLayout_TV
/// assert_eq!(tiled.tiler().to_string(), "(_16,_32)");
/// assert_eq!(
///     tiled.layout_tv().to_string(),
///     "((_4,_8,_2,_2),((_4,_2),(_1,_1))):((_64,_1,_0,_8),((_16,_256),(_0,_0)))"
/// );
/// ```
#[allow(non_snake_case)]
pub fn make_tiled_copy_B(copy_atom: &CopyAtom, mma: &TiledMma) -> Result<TiledCopy> {
    make_tiled_copy_for(copy_atom, mma, Operand::B)
}

/// `make_tiled_copy_C(copy_atom, mma)`: the copy of `mma`'s C (accumulator) fragments, over the
/// `(M,N)` tile, as an epilogue writes them.
///
/// ```
/// # use cute_layout::*;
/// # use cute_layout::atom::{copy_op::{UniversalCopy, uint64_t}, mma_op::SM80_16x8x32_S32S8S8S32_TN, *};
/// let mma = make_tiled_mma(
///     MmaAtom::of::<SM80_16x8x32_S32S8S8S32_TN>(),
///     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(),
///     &[],
/// )
/// .unwrap();
/// let st = CopyAtom::of::<UniversalCopy<uint64_t>, i32>().unwrap();
/// let tiled = make_tiled_copy_C(&st, &mma).unwrap();
/// // print(make_tiled_copy_C(Copy_Atom<UniversalCopy<uint64_t>, int32_t>{}, mma)): Tiler_MN, TiledLayout_TV
/// assert_eq!(tiled.tiler().to_string(), "(_32,_16)");
/// assert_eq!(
///     tiled.layout_tv().to_string(),
///     "((_4,_8,_2,_2),((_2,_2),(_1,_1))):((_64,_1,_16,_256),((_32,_8),(_0,_0)))"
/// );
/// ```
#[allow(non_snake_case)]
pub fn make_tiled_copy_C(copy_atom: &CopyAtom, mma: &TiledMma) -> Result<TiledCopy> {
    make_tiled_copy_for(copy_atom, mma, Operand::C)
}

/// `make_tiled_copy_impl(copy_atom, mma.get_layoutX_TV(), make_shape(tile_size<r>(mma),
/// tile_size<c>(mma)))` for operand X spanning MNK modes r and c.
fn make_tiled_copy_for(copy_atom: &CopyAtom, mma: &TiledMma, op: Operand) -> Result<TiledCopy> {
    let (tv, (r, c)) = match op {
        Operand::A => (mma.get_layout_a_tv()?, (0, 2)),
        Operand::B => (mma.get_layout_b_tv()?, (1, 2)),
        Operand::C => (mma.get_layout_c_tv()?, (0, 1)),
    };
    let tiler = crate::tup![mma.tile_size(r)?, mma.tile_size(c)?];
    TiledCopy::new(copy_atom.clone(), tv, tiler)
}

impl TiledCopy {
    /// `make_tiled_copy_impl(atom, layout_tv, tiler)`: the TiledCopy of a `(thread, value) ->
    /// coordinate` layout over the tile `tiler`. Fails when `layout_tv` is not rank 2, or when the
    /// tiling has fewer threads or values than the atom needs, or does not divide them (C++'s
    /// "TiledCopy uses too few thrs/vals for selected CopyAtom").
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::{UniversalCopy, uint128_t}, CopyAtom, TiledCopy};
    /// let atom = CopyAtom::of::<UniversalCopy<uint128_t>, f32>().unwrap();
    /// let tv = Layout::new(tup![s(256), s(4)], tup![s(4), s(1)]).unwrap(); // (thr,val) -> (m,n)
    /// let tc = TiledCopy::new(atom.clone(), tv, tup![s(128), s(8)]).unwrap();
    /// // make_tiled_copy_impl(atom, Layout<Shape<_256,_4>,Stride<_4,_1>>{}, Shape<_128,_8>{})
    /// //   .tidfrg_D(make_layout(make_shape(_128{},_32{})))
    /// let s_a = AnyLayout::Plain(Layout::col_major(&tup![s(128), s(32)]).unwrap());
    /// assert_eq!(tc.tidfrg_d(&s_a).unwrap().to_string(), "(_256,(_4,_1),(_1,_4)):(_4,(_1,_0),(_0,_1024))");
    /// // 2 values per thread cannot hold the atom's 4
    /// let two = Layout::new(tup![s(256), s(2)], tup![s(2), s(1)]).unwrap();
    /// assert!(TiledCopy::new(atom, two, tup![s(128), s(4)]).is_err());
    /// ```
    pub fn new(atom: CopyAtom, layout_tv: Layout, tiler: IntTuple) -> Result<TiledCopy> {
        if layout_tv.rank() != 2 {
            return Err(algebra(
                "make_tiled_copy",
                format!("TiledLayout_TV {layout_tv} is not rank 2 (thread, value)"),
            ));
        }
        let tc = TiledCopy {
            atom,
            layout_tv,
            tiler,
        };
        let ref_l = tc.atom.val_layout_ref()?;
        for (what, tiled, per_atom) in [
            ("thrs", tc.num_threads()?, ref_l.mode(0)?.size()?),
            (
                "vals",
                tc.layout_tv.mode(1)?.size()?,
                ref_l.mode(1)?.size()?,
            ),
        ] {
            if let (Some(t), Some(a)) = (tiled.value(), per_atom.value()) {
                if a == 0 || t % a != 0 {
                    return Err(algebra(
                        "make_tiled_copy",
                        format!(
                            "TiledCopy uses too few {what} for selected CopyAtom {}: the tiling has {t} {what}, \
                             not a multiple of the atom's {a} (TiledLayout_TV {})",
                            tc.atom, tc.layout_tv
                        ),
                    ));
                }
            }
        }
        Ok(tc)
    }

    /// The atom.
    pub fn atom(&self) -> &CopyAtom {
        &self.atom
    }

    /// `TiledLayout_TV`: (thread, value) -> coordinate in the tile.
    pub fn layout_tv(&self) -> &Layout {
        &self.layout_tv
    }

    /// `Tiler_MN`.
    pub fn tiler(&self) -> &IntTuple {
        &self.tiler
    }

    /// `size(TiledCopy)`: the number of threads.
    pub fn num_threads(&self) -> Result<Int> {
        self.layout_tv.mode(0)?.size()
    }

    /// `right_inverse(AtomLayoutRef).compose(AtomLayoutSrc or Dst)`.
    fn ref2trg(&self, dst: bool) -> Result<Layout> {
        let trg = if dst {
            self.atom.val_layout_dst()?
        } else {
            self.atom.val_layout_src()?
        };
        composition(&right_inverse(&self.atom.val_layout_ref()?)?, &trg)
    }

    /// `tidfrg_S(L)`: `(Thr, (FrgV, FrgX), (RestM, RestN, ...))`, the source partition of a tile
    /// per thread.
    pub fn tidfrg_s(&self, l: &AnyLayout) -> Result<AnyLayout> {
        self.tidfrg("tidfrg_S", l, false)
    }

    /// `tidfrg_D(L)`: the destination partition.
    pub fn tidfrg_d(&self, l: &AnyLayout) -> Result<AnyLayout> {
        self.tidfrg("tidfrg_D", l, true)
    }

    fn tidfrg(&self, op: &'static str, l: &AnyLayout, dst: bool) -> Result<AnyLayout> {
        if l.shape_layout().rank() < self.tiler.rank() {
            return Err(algebra(
                op,
                format!("rank of {l} is below the rank of Tiler_MN {} (rank of tensor to be partitioned too small)", self.tiler),
            ));
        }
        let tiler = Tiler::from_shape(&self.tiler);
        let divided = l.map(|b| zipped_divide(b, &tiler))?;
        self.tile2thrfrg(&divided, &self.ref2trg(dst)?)
    }

    /// `tile2thrfrg`: re-expresses a `(tile, rest)` layout as `(thread, value, rest)`.
    fn tile2thrfrg(&self, tensor: &AnyLayout, ref2trg: &Layout) -> Result<AnyLayout> {
        let ref_l = self.atom.val_layout_ref()?;
        let atom_shape = IntTuple::Tuple(vec![
            IntTuple::Int(ref_l.mode(0)?.size()?),
            IntTuple::Int(ref_l.mode(1)?.size()?),
        ]);
        let atom_tv = zipped_divide(&self.layout_tv, &Tiler::from_shape(&atom_shape))?;
        let trg_tv = composition_tiler(
            &atom_tv,
            &Tiler::Tuple(vec![Tiler::Layout(ref2trg.clone()), Tiler::Under]),
        )?;
        let zipped = Layout::new(zip(trg_tv.shape())?, zip(trg_tv.stride())?)?;
        let profile = crate::tup![s(1), crate::tup![s(1), s(1)]];
        let thrval2mn = coalesce_profile(&zipped, &profile)?;
        let tv = tensor.map(|t| {
            composition_tiler(
                t,
                &Tiler::Tuple(vec![Tiler::Layout(thrval2mn.clone()), Tiler::Under]),
            )
        })?;
        tv.slice(&Coord::Tuple(vec![
            Coord::Tuple(vec![Coord::Under, Coord::Under]),
            Coord::Under,
        ]))
    }

    /// `get_layoutS_TV()`: (thread, value) -> coordinate in the tile, as the source sees it.
    pub fn get_layout_s_tv(&self) -> Result<Layout> {
        self.layout_tv_of(false)
    }

    /// `get_layoutD_TV()`.
    pub fn get_layout_d_tv(&self) -> Result<Layout> {
        self.layout_tv_of(true)
    }

    fn layout_tv_of(&self, dst: bool) -> Result<Layout> {
        let shape = IntTuple::Tuple(vec![self.tiler.clone(), IntTuple::st(1)]);
        let ref_layout = AnyLayout::Plain(Layout::col_major(&shape)?);
        let tv = self.tile2thrfrg(&ref_layout, &self.ref2trg(dst)?)?;
        match tv.slice(&Coord::Tuple(vec![
            Coord::Under,
            Coord::Under,
            Coord::Int(s(0)),
        ]))? {
            AnyLayout::Plain(l) => Ok(l),
            AnyLayout::Composed(c) => Ok(c.layout_b().clone()),
        }
    }

    /// `get_layoutS_MN()` (CUTLASS 3.x): `(layoutS_MK, thrID_S)`, the tile's coordinates ->
    /// (thread, value), and the thread layout.
    pub fn get_layout_s_mn(&self) -> Result<(Layout, Layout)> {
        let tv = self.get_layout_s_tv()?;
        let mk = composition(&right_inverse(&tv)?, &Layout::col_major(&self.tiler)?)?;
        let thr = Layout::col_major(&IntTuple::Int(self.num_threads()?))?;
        Ok((mk, thr))
    }

    /// `retile(L)`: re-views a register fragment (partitioned by another tiling, e.g. a TiledMMA)
    /// as `(CPY_V, rest...)` of this copy's values.
    pub fn retile(&self, l: &Layout) -> Result<Layout> {
        let r = l.rank();
        let v = l.mode(0)?.size()?;
        let (Some(vn), Some(nthr)) = (v.as_static(), self.num_threads()?.as_static()) else {
            return Err(algebra(
                "retile",
                format!("{l}: the value mode and the thread count must be static"),
            ));
        };
        let inv = composition(
            &right_inverse(&self.layout_tv)?,
            &Layout::col_major(&self.tiler)?,
        )?;
        let n = nthr
            .checked_mul(vn)
            .ok_or_else(|| algebra("retile", format!("{l}: {nthr} x {vn} values overflow")))?;
        let frg_mn = upcast(&inv, n)?;
        let atom_vals = self.atom.val_layout_ref()?.mode(1)?.size()?;
        let prod = logical_product(
            &Layout::col_major(&IntTuple::Int(v.clone()))?,
            &Tiler::Layout(right_inverse(&frg_mn)?),
        )?;
        let frg_v = zipped_divide(
            &prod,
            &Tiler::Layout(Layout::col_major(&IntTuple::Int(atom_vals))?),
        )?;
        let mut shape = vec![IntTuple::Int(v)];
        shape.extend(frg_mn.shape().product_each()?.modes());
        let t = zipped_divide(l, &Tiler::from_shape(&IntTuple::Tuple(shape)))?;
        let vt = composition_tiler(&t, &Tiler::Tuple(vec![Tiler::Layout(frg_v), Tiler::Under]))?;
        let rest = if r == 1 {
            Coord::Int(s(0))
        } else {
            Coord::Tuple(
                std::iter::once(Coord::Int(s(0)))
                    .chain(std::iter::repeat_n(Coord::Under, r - 1))
                    .collect(),
            )
        };
        vt.slice(&Coord::Tuple(vec![Coord::Under, rest]))
    }

    /// `get_slice(thr_idx)`: the partitioner of one thread. A symbolic index
    /// (`Int::symbol("tid")`) is accepted; a known one outside `0..size(tiled_copy)` is an
    /// [`Error::ThreadIndex`](crate::Error::ThreadIndex).
    pub fn get_slice(&self, thr_idx: &Int) -> Result<ThrCopy> {
        super::check_thread_index("TiledCopy::get_slice", thr_idx, &self.num_threads()?)?;
        Ok(ThrCopy {
            tiled: self.clone(),
            thr_idx: thr_idx.clone(),
        })
    }

    /// CuTe's multi-line `print(TiledCopy)`.
    pub fn print(&self) -> Result<String> {
        Ok(format!(
            "TiledCopy\n  Tiler_MN:       {}\n  TiledLayout_TV: {}\n{}",
            self.tiler,
            self.layout_tv,
            self.atom.print()?
        ))
    }
}

impl fmt::Display for TiledCopy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "TiledCopy{{Tiler_MN: {}, TiledLayout_TV: {}, {}}}",
            self.tiler, self.layout_tv, self.atom
        )
    }
}

/// `ThrCopy`: one thread's view of a TiledCopy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThrCopy {
    tiled: TiledCopy,
    thr_idx: Int,
}

impl ThrCopy {
    /// The thread index.
    pub fn thr_idx(&self) -> &Int {
        &self.thr_idx
    }

    /// The TiledCopy.
    pub fn tiled(&self) -> &TiledCopy {
        &self.tiled
    }

    /// `partition_S(T)`: this thread's `(CPY, CPY_M, CPY_N, ...)` source fragment of T.
    pub fn partition_s(&self, t: &Tensor) -> Result<Tensor> {
        self.partition(t, false)
    }

    /// `partition_D(T)`.
    pub fn partition_d(&self, t: &Tensor) -> Result<Tensor> {
        self.partition(t, true)
    }

    fn partition(&self, t: &Tensor, dst: bool) -> Result<Tensor> {
        let r = t.layout().shape_layout().rank();
        let tv = if dst {
            self.tiled.tidfrg_d(t.layout())?
        } else {
            self.tiled.tidfrg_s(t.layout())?
        };
        let thr_tensor = t.with_layout(tv);
        thr_tensor.slice(&Coord::Tuple(vec![
            Coord::Int(self.thr_idx.clone()),
            Coord::Under,
            Coord::repeat_under(r),
        ]))
    }

    /// CuTe's multi-line `print(ThrCopy)`.
    pub fn print(&self) -> Result<String> {
        Ok(format!(
            "ThrCopy\n  ThrIdx: {}\n{}",
            self.thr_idx,
            self.tiled.print()?
        ))
    }

    /// `retile_S(T)` / `retile_D(T)`: T's data under the copy's value layout.
    pub fn retile(&self, t: &Tensor) -> Result<Tensor> {
        let AnyLayout::Plain(l) = t.layout() else {
            return Err(algebra("retile", "a register fragment has a plain layout"));
        };
        Ok(t.with_layout(AnyLayout::Plain(self.tiled.retile(l)?)))
    }
}

impl fmt::Display for ThrCopy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ThrCopy{{ThrIdx: {}, {}}}", self.thr_idx, self.tiled)
    }
}
