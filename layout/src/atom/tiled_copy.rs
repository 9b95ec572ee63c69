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
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{CopyAtom, CopyOp};
    /// let atom = CopyAtom::new(CopyOp::LdsmN { matrices: 4 }, ElemType::F16).unwrap();
    /// // print(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}): ValLayoutDst
    /// assert_eq!(atom.val_layout_dst().unwrap().to_string(), "(_32,(_2,_4)):(_2,(_1,_64))");
    /// ```
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
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// let atom = CopyAtom::of::<SM75_U32x4_LDSM_N, half_t>().unwrap();
    /// assert_eq!(atom.to_string(), "Copy_Atom<SM75_U32x4_LDSM_N, half_t>");
    /// // print(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}): ValLayoutSrc
    /// assert_eq!(atom.val_layout_src().unwrap().to_string(), "(_32,_8):(_8,_1)");
    /// ```
    pub fn of<Op: CopyOperation, T: Numeric>() -> Result<CopyAtom> {
        CopyAtom::new(Op::OP, T::TYPE)
    }

    /// The operation.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// let atom = CopyAtom::of::<SM75_U32x4_LDSM_N, half_t>().unwrap();
    /// assert_eq!(atom.op(), CopyOp::LdsmN { matrices: 4 });
    /// ```
    pub fn op(&self) -> CopyOp {
        self.op
    }

    /// The element type.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// let atom = CopyAtom::of::<SM75_U32x4_LDSM_N, half_t>().unwrap();
    /// assert_eq!(atom.val_type(), ElemType::F16);
    /// ```
    pub fn val_type(&self) -> ElemType {
        self.val
    }

    /// `recast_layout<uint1_t, T>` of a bit layout.
    fn in_elements(&self, bits: &Layout) -> Result<Layout> {
        upcast(bits, i64::from(self.val.bits()))
    }

    /// `ValLayoutSrc`: (thread, value) -> element offset of the source.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// let atom = CopyAtom::of::<SM75_U32x4_LDSM_N, half_t>().unwrap();
    /// // print(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}): ValLayoutSrc, one 16-byte row per thread
    /// assert_eq!(atom.val_layout_src().unwrap().to_string(), "(_32,_8):(_8,_1)");
    /// ```
    pub fn val_layout_src(&self) -> Result<Layout> {
        self.in_elements(&self.op.src_layout())
    }

    /// `ValLayoutDst`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// let atom = CopyAtom::of::<SM75_U32x4_LDSM_N, half_t>().unwrap();
    /// // print(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}): ValLayoutDst
    /// assert_eq!(atom.val_layout_dst().unwrap().to_string(), "(_32,(_2,_4)):(_2,(_1,_64))");
    /// ```
    pub fn val_layout_dst(&self) -> Result<Layout> {
        self.in_elements(&self.op.dst_layout())
    }

    /// `ValLayoutRef`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// let atom = CopyAtom::of::<SM75_U32x4_LDSM_N, half_t>().unwrap();
    /// // print(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}): ValLayoutRef (the destination for ldmatrix)
    /// assert_eq!(atom.val_layout_ref().unwrap().to_string(), "(_32,(_2,_4)):(_2,(_1,_64))");
    /// ```
    pub fn val_layout_ref(&self) -> Result<Layout> {
        self.in_elements(&self.op.ref_layout())
    }

    /// CuTe's multi-line `print(Copy_Atom)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// let atom = CopyAtom::of::<SM75_U32x4_LDSM_N, half_t>().unwrap();
    /// let expected = concat!(
    ///     "Copy_Atom\n",
    ///     "  ThrID:        _32:_1\n",
    ///     "  ValLayoutSrc: (_32,_8):(_8,_1)\n",
    ///     "  ValLayoutDst: (_32,(_2,_4)):(_2,(_1,_64))\n",
    ///     "  ValLayoutRef: (_32,(_2,_4)):(_2,(_1,_64))\n",
    ///     "  ValueType:    16b\n",
    /// );
    /// // print(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{})
    /// assert_eq!(atom.print().unwrap(), expected);
    /// ```
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
/// # use cute_layout::atom::{copy_op::*, *};
/// let atom = CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>().unwrap();
/// let thr = Layout::col_major(&tup![s(32), s(8)]).unwrap(); // (m,n) -> thr_idx
/// let val = Layout::col_major(&tup![s(4), s(1)]).unwrap(); // (m,n) -> val_idx
/// let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
/// let s_a = AnyLayout::Plain(Layout::col_major(&tup![s(128), s(32), s(3)]).unwrap()); // (BLK_M,BLK_K,PIPE)
/// // make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>{},
/// //                 Layout<Shape<_32,_8>>{}, Layout<Shape<_4,_1>>{}).tidfrg_D(sA)
/// assert_eq!(
///     tc.tidfrg_d(&s_a).unwrap().to_string(),
///     "(_256,(_4,_1),(_1,_4,_3)):(_4,(_1,_0),(_0,_1024,_4096))"
/// );
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
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// # let atom = CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>().unwrap();
    /// # let thr = Layout::col_major(&tup![s(32), s(8)]).unwrap(); // Layout<Shape<_32,_8>>{}
    /// # let val = Layout::col_major(&tup![s(4), s(1)]).unwrap(); // Layout<Shape<_4,_1>>{}
    /// # let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
    /// assert_eq!(tc.atom(), &atom);
    /// // print(tc): the atom's ValLayoutSrc
    /// assert_eq!(tc.atom().val_layout_src().unwrap().to_string(), "(_1,_4):(_0,_1)");
    /// ```
    pub fn atom(&self) -> &CopyAtom {
        &self.atom
    }

    /// `TiledLayout_TV`: (thread, value) -> coordinate in the tile.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// # let atom = CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>().unwrap();
    /// # let thr = Layout::col_major(&tup![s(32), s(8)]).unwrap(); // Layout<Shape<_32,_8>>{}
    /// # let val = Layout::col_major(&tup![s(4), s(1)]).unwrap(); // Layout<Shape<_4,_1>>{}
    /// # let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
    /// // print(tc): TiledLayout_TV
    /// assert_eq!(tc.layout_tv().to_string(), "(_256,_4):(_4,_1)");
    /// ```
    pub fn layout_tv(&self) -> &Layout {
        &self.layout_tv
    }

    /// `Tiler_MN`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// # let atom = CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>().unwrap();
    /// # let thr = Layout::col_major(&tup![s(32), s(8)]).unwrap(); // Layout<Shape<_32,_8>>{}
    /// # let val = Layout::col_major(&tup![s(4), s(1)]).unwrap(); // Layout<Shape<_4,_1>>{}
    /// # let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
    /// // print(tc): Tiler_MN
    /// assert_eq!(tc.tiler().to_string(), "(_128,_8)");
    /// ```
    pub fn tiler(&self) -> &IntTuple {
        &self.tiler
    }

    /// `size(TiledCopy)`: the number of threads.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// # let atom = CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>().unwrap();
    /// # let thr = Layout::col_major(&tup![s(32), s(8)]).unwrap(); // Layout<Shape<_32,_8>>{}
    /// # let val = Layout::col_major(&tup![s(4), s(1)]).unwrap(); // Layout<Shape<_4,_1>>{}
    /// # let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
    /// // print(size(tc))
    /// assert_eq!(tc.num_threads().unwrap().to_string(), "_256");
    /// ```
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
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// # let atom = CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>().unwrap();
    /// # let thr = Layout::col_major(&tup![s(32), s(8)]).unwrap(); // Layout<Shape<_32,_8>>{}
    /// # let val = Layout::col_major(&tup![s(4), s(1)]).unwrap(); // Layout<Shape<_4,_1>>{}
    /// # let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
    /// let s_a = AnyLayout::Plain(Layout::col_major(&tup![s(128), s(32), s(3)]).unwrap());
    /// // tc.tidfrg_S(make_layout(make_shape(_128{},_32{},_3{})))
    /// assert_eq!(
    ///     tc.tidfrg_s(&s_a).unwrap().to_string(),
    ///     "(_256,(_4,_1),(_1,_4,_3)):(_4,(_1,_0),(_0,_1024,_4096))"
    /// );
    /// ```
    pub fn tidfrg_s(&self, l: &AnyLayout) -> Result<AnyLayout> {
        self.tidfrg("tidfrg_S", l, false)
    }

    /// `tidfrg_D(L)`: the destination partition.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// let atom = CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>().unwrap();
    /// let thr = Layout::new(tup![s(32), s(8)], tup![s(8), s(1)]).unwrap();
    /// let val = Layout::new(tup![s(1), s(4)], tup![s(0), s(1)]).unwrap();
    /// let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
    /// let s_b = AnyLayout::Plain(Layout::new(tup![s(128), s(32), s(3)], tup![s(32), s(1), s(4096)]).unwrap());
    /// // tests/oracle/tiled.tsv: tc.tidfrg_D(make_layout(make_shape(_128{},_32{},_3{}), make_stride(_32{},_1{},_4096{})))
    /// assert_eq!(
    ///     tc.tidfrg_d(&s_b).unwrap().to_string(),
    ///     "((_8,_32),(_4,_1),(_4,_1,_3)):((_4,_32),(_1,_0),(_1024,_0,_4096))"
    /// );
    /// ```
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
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// # let atom = CopyAtom::of::<UniversalCopy<uint128_t>, f32>().unwrap();
    /// # let thr = Layout::new(tup![s(32), s(8)], tup![s(1), s(32)]).unwrap();
    /// # let val = Layout::new(tup![s(4), s(1)], tup![s(1), s(0)]).unwrap();
    /// # let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
    /// // tests/oracle/tiled.tsv: tc.get_layoutS_TV()
    /// assert_eq!(tc.get_layout_s_tv().unwrap().to_string(), "(_256,(_4,_1)):(_4,(_1,_0))");
    /// ```
    pub fn get_layout_s_tv(&self) -> Result<Layout> {
        self.layout_tv_of(false)
    }

    /// `get_layoutD_TV()`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// # let atom = CopyAtom::of::<UniversalCopy<uint128_t>, f32>().unwrap();
    /// # let thr = Layout::new(tup![s(32), s(8)], tup![s(1), s(32)]).unwrap();
    /// # let val = Layout::new(tup![s(4), s(1)], tup![s(1), s(0)]).unwrap();
    /// # let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
    /// // tests/oracle/tiled.tsv: tc.get_layoutD_TV()
    /// assert_eq!(tc.get_layout_d_tv().unwrap().to_string(), "(_256,(_4,_1)):(_4,(_1,_0))");
    /// ```
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
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// # let atom = CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>().unwrap();
    /// # let thr = Layout::col_major(&tup![s(32), s(8)]).unwrap(); // Layout<Shape<_32,_8>>{}
    /// # let val = Layout::col_major(&tup![s(4), s(1)]).unwrap(); // Layout<Shape<_4,_1>>{}
    /// # let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
    /// let (mk, thr_id) = tc.get_layout_s_mn().unwrap();
    /// // C++ (the CUTLASS 3.x definition): make_tuple(right_inverse(tc.get_layoutS_TV())
    /// //     .compose(make_layout(Tiler_MN{})), make_layout(size(tc)))
    /// assert_eq!(format!("({mk},{thr_id})"), "(((_4,_32),_8):((_256,_1),_32),_256:_1)");
    /// ```
    pub fn get_layout_s_mn(&self) -> Result<(Layout, Layout)> {
        let tv = self.get_layout_s_tv()?;
        let mk = composition(&right_inverse(&tv)?, &Layout::col_major(&self.tiler)?)?;
        let thr = Layout::col_major(&IntTuple::Int(self.num_threads()?))?;
        Ok((mk, thr))
    }

    /// `retile(L)`: re-views a register fragment (partitioned by another tiling, e.g. a TiledMMA)
    /// as `(CPY_V, rest...)` of this copy's values.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, mma_op::*, *};
    /// let mma = make_tiled_mma(
    ///     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    ///     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(),
    ///     &[],
    /// )
    /// .unwrap();
    /// let st = make_tiled_copy_C(&CopyAtom::of::<UniversalCopy<uint64_t>, f32>().unwrap(), &mma).unwrap();
    /// // a thread's C fragment: partition_fragment_C(mma, (_128,_128))
    /// let frag = Layout::new(tup![tup![s(2), s(2)], s(4), s(8)], tup![tup![s(1), s(2)], s(4), s(16)]).unwrap();
    /// // decltype(st)::retile(frag)
    /// assert_eq!(st.retile(&frag).unwrap().to_string(), "((_2,_2),_4,_8):((_1,_2),_4,_16)");
    /// ```
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
    /// (`Int::index("tid")`) is accepted; a known one outside `0..size(tiled_copy)` is an
    /// [`Error::ThreadIndex`](crate::Error::ThreadIndex).
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// # let atom = CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>().unwrap();
    /// # let thr = Layout::col_major(&tup![s(32), s(8)]).unwrap(); // Layout<Shape<_32,_8>>{}
    /// # let val = Layout::col_major(&tup![s(4), s(1)]).unwrap(); // Layout<Shape<_4,_1>>{}
    /// # let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
    /// let thr3 = tc.get_slice(&d(3)).unwrap();
    /// assert_eq!(thr3.thr_idx().to_string(), "3");
    /// assert!(tc.get_slice(&Int::index("tid")).is_ok());
    /// assert_eq!(
    ///     tc.get_slice(&d(256)).unwrap_err().to_string(),
    ///     "TiledCopy::get_slice: thread index 256 is out of range for _256 threads (0.._256)"
    /// );
    /// ```
    pub fn get_slice(&self, thr_idx: &Int) -> Result<ThrCopy> {
        let thr_idx = &super::thread_index("TiledCopy::get_slice", thr_idx, &self.num_threads()?)?;
        Ok(ThrCopy {
            tiled: self.clone(),
            thr_idx: thr_idx.clone(),
        })
    }

    /// CuTe's multi-line `print(TiledCopy)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// # let atom = CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>().unwrap();
    /// # let thr = Layout::col_major(&tup![s(32), s(8)]).unwrap(); // Layout<Shape<_32,_8>>{}
    /// # let val = Layout::col_major(&tup![s(4), s(1)]).unwrap(); // Layout<Shape<_4,_1>>{}
    /// # let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
    /// let expected = concat!(
    ///     "TiledCopy\n",
    ///     "  Tiler_MN:       (_128,_8)\n",
    ///     "  TiledLayout_TV: (_256,_4):(_4,_1)\n",
    ///     "Copy_Atom\n",
    ///     "  ThrID:        _1:_0\n",
    ///     "  ValLayoutSrc: (_1,_4):(_0,_1)\n",
    ///     "  ValLayoutDst: (_1,_4):(_0,_1)\n",
    ///     "  ValLayoutRef: (_1,_4):(_0,_1)\n",
    ///     "  ValueType:    32b\n",
    /// );
    /// // print(tc)
    /// assert_eq!(tc.print().unwrap(), expected);
    /// ```
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
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// # let atom = CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>().unwrap();
    /// # let thr = Layout::col_major(&tup![s(32), s(8)]).unwrap(); // Layout<Shape<_32,_8>>{}
    /// # let val = Layout::col_major(&tup![s(4), s(1)]).unwrap(); // Layout<Shape<_4,_1>>{}
    /// # let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
    /// assert_eq!(tc.get_slice(&Int::index("tid")).unwrap().thr_idx().to_string(), "tid");
    /// ```
    pub fn thr_idx(&self) -> &Int {
        &self.thr_idx
    }

    /// The TiledCopy.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// # let atom = CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>().unwrap();
    /// # let thr = Layout::col_major(&tup![s(32), s(8)]).unwrap(); // Layout<Shape<_32,_8>>{}
    /// # let val = Layout::col_major(&tup![s(4), s(1)]).unwrap(); // Layout<Shape<_4,_1>>{}
    /// # let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
    /// assert_eq!(tc.get_slice(&d(3)).unwrap().tiled(), &tc);
    /// ```
    pub fn tiled(&self) -> &TiledCopy {
        &self.tiled
    }

    /// `partition_S(T)`: this thread's `(CPY, CPY_M, CPY_N, ...)` source fragment of T.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// # let atom = CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>().unwrap();
    /// # let thr = Layout::col_major(&tup![s(32), s(8)]).unwrap(); // Layout<Shape<_32,_8>>{}
    /// # let val = Layout::col_major(&tup![s(4), s(1)]).unwrap(); // Layout<Shape<_4,_1>>{}
    /// # let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
    /// let g_a = make_tensor(make_gmem_ptr::<f32>("A"), Layout::col_major(&tup![d(4096), d(1024)]).unwrap());
    /// let tile = Tiler::from_shape(&tup![s(128), s(32)]);
    /// let g_t = local_tile(&g_a, &tile, &Coord::Tuple(vec![d(3).into(), X]), None).unwrap();
    /// // tc.get_slice(37).partition_S(local_tile(gA, make_shape(_128{},_32{}), make_coord(3,_))):
    /// // ((_4,_1),_1,_4,32):((_1,_0),_0,32768,131072), 4500 elements past A
    /// let t_ag_a = tc.get_slice(&d(37)).unwrap().partition_s(&g_t).unwrap(); // (CPY,CPY_M,CPY_K,k)
    /// assert_eq!(t_ag_a.to_string(), "gmem_ptr[32b](A+4500) o ((_4,_1),_1,_4,32):((_1,_0),_0,32768,131072)");
    /// ```
    pub fn partition_s(&self, t: &Tensor) -> Result<Tensor> {
        self.partition(t, false)
    }

    /// `partition_D(T)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// # let atom = CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>().unwrap();
    /// # let thr = Layout::col_major(&tup![s(32), s(8)]).unwrap(); // Layout<Shape<_32,_8>>{}
    /// # let val = Layout::col_major(&tup![s(4), s(1)]).unwrap(); // Layout<Shape<_4,_1>>{}
    /// # let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
    /// let s_a = make_tensor(make_smem_ptr::<f32>("sA"), Layout::col_major(&tup![s(128), s(32), s(3)]).unwrap());
    /// // tc.get_slice(33).partition_D(sA): ((_4,_1),_1,_4,_3):((_1,_0),_0,_1024,_4096), 132 past sA
    /// let t_as_a = tc.get_slice(&d(33)).unwrap().partition_d(&s_a).unwrap(); // (CPY,CPY_M,CPY_K,PIPE)
    /// assert_eq!(t_as_a.to_string(), "smem_ptr[32b](sA+132) o ((_4,_1),_1,_4,_3):((_1,_0),_0,_1024,_4096)");
    /// ```
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
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, *};
    /// # let atom = CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>().unwrap();
    /// # let thr = Layout::col_major(&tup![s(32), s(8)]).unwrap(); // Layout<Shape<_32,_8>>{}
    /// # let val = Layout::col_major(&tup![s(4), s(1)]).unwrap(); // Layout<Shape<_4,_1>>{}
    /// # let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
    /// let expected = concat!(
    ///     "TiledCopy\n",
    ///     "  Tiler_MN:       (_128,_8)\n",
    ///     "  TiledLayout_TV: (_256,_4):(_4,_1)\n",
    ///     "Copy_Atom\n",
    ///     "  ThrID:        _1:_0\n",
    ///     "  ValLayoutSrc: (_1,_4):(_0,_1)\n",
    ///     "  ValLayoutDst: (_1,_4):(_0,_1)\n",
    ///     "  ValLayoutRef: (_1,_4):(_0,_1)\n",
    ///     "  ValueType:    32b\n",
    /// );
    /// // print(tc.get_slice(3))
    /// assert_eq!(tc.get_slice(&d(3)).unwrap().print().unwrap(), format!("ThrCopy\n  ThrIdx: 3\n{expected}"));
    /// ```
    pub fn print(&self) -> Result<String> {
        Ok(format!(
            "ThrCopy\n  ThrIdx: {}\n{}",
            self.thr_idx,
            self.tiled.print()?
        ))
    }

    /// `retile_S(T)` / `retile_D(T)`: T's data under the copy's value layout.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{copy_op::*, mma_op::*, *};
    /// // make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{}, Tile<_32,_32,_16>{})
    /// let mma = make_tiled_mma(
    ///     MmaAtom::of::<SM80_16x8x16_F32F16F16F32_TN>(),
    ///     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(),
    ///     &[Tiler::Int(s(32)), Tiler::Int(s(32)), Tiler::Int(s(16))],
    /// )
    /// .unwrap();
    /// let ldsm = make_tiled_copy_A(&CopyAtom::of::<SM75_U32x4_LDSM_N, half_t>().unwrap(), &mma).unwrap();
    /// let s_a = make_tensor(make_smem_ptr::<half_t>("sA"), Layout::new(tup![s(32), s(16)], tup![s(16), s(1)]).unwrap());
    /// let t_cr_a = mma.get_slice(&d(5)).unwrap().partition_fragment(Operand::A, &s_a).unwrap();
    /// // ldsm.get_slice(5).retile_D(mma.get_slice(5).partition_fragment_A(sA))
    /// let t_cr_a_view = ldsm.get_slice(&d(5)).unwrap().retile(&t_cr_a).unwrap();
    /// assert_eq!(t_cr_a_view.layout().to_string(), "((_8,_1),_1,_1):((_1,_0),_0,_0)");
    /// ```
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
