//! `MMA_Atom`, `TiledMMA` and `ThrMMA`: an MMA instruction tiled over threads (and permuted), and
//! the per-thread partitions of the A, B and C tensors.

use std::fmt;

use super::mma_op::{MmaOp, MmaOperation};
use crate::composed::AnyLayout;
use crate::coord::Coord;
use crate::error::{algebra, Result};
use crate::int::{s, Int};
use crate::int_tuple::IntTuple;
use crate::layout::Layout;
use crate::tensor::{MemSpace, Ptr, Tensor};
use crate::tiler::Tiler;
use crate::*;

/// `MMA_Atom<Op>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmaAtom {
    op: MmaOp,
}

impl MmaAtom {
    /// `MMA_Atom<Op>{}`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// let atom = MmaAtom::new(MmaOp::from_name("SM80_16x8x16_F32F16F16F32_TN").unwrap());
    /// assert_eq!(atom.to_string(), "MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>");
    /// let expected = concat!(
    ///     "MMA_Atom\n",
    ///     "  ThrID:      _32:_1\n",
    ///     "  Shape_MNK:  (_16,_8,_16)\n",
    ///     "  LayoutA_TV: ((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))\n",
    ///     "  LayoutB_TV: ((_4,_8),(_2,_2)):((_16,_1),(_8,_64))\n",
    ///     "  LayoutC_TV: ((_4,_8),(_2,_2)):((_32,_1),(_16,_8))\n",
    /// );
    /// // print(MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>{})
    /// assert_eq!(atom.print(), expected);
    /// ```
    pub fn new(op: MmaOp) -> MmaAtom {
        MmaAtom { op }
    }

    /// The typed form: `MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>()`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// let atom = MmaAtom::of::<SM80_16x8x32_S32S8S8S32_TN>();
    /// assert_eq!(atom, MmaAtom::new(MmaOp::from_name("SM80_16x8x32_S32S8S8S32_TN").unwrap()));
    /// // print(MMA_Atom<SM80_16x8x32_S32S8S8S32_TN>{}): LayoutA_TV
    /// assert_eq!(atom.op().a_layout().to_string(), "((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256))");
    /// ```
    pub fn of<Op: MmaOperation>() -> MmaAtom {
        MmaAtom { op: Op::OP }
    }

    /// The operation.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// let atom = MmaAtom::of::<SM80_16x8x16_F32F16F16F32_TN>();
    /// // print(MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>{}): Shape_MNK
    /// assert_eq!(atom.op().shape_mnk().to_string(), "(_16,_8,_16)");
    /// ```
    pub fn op(&self) -> MmaOp {
        self.op
    }

    /// CuTe's multi-line `print(MMA_Atom)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// let atom = MmaAtom::of::<SM80_16x8x16_F32F16F16F32_TN>();
    /// let expected = concat!(
    ///     "MMA_Atom\n",
    ///     "  ThrID:      _32:_1\n",
    ///     "  Shape_MNK:  (_16,_8,_16)\n",
    ///     "  LayoutA_TV: ((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))\n",
    ///     "  LayoutB_TV: ((_4,_8),(_2,_2)):((_16,_1),(_8,_64))\n",
    ///     "  LayoutC_TV: ((_4,_8),(_2,_2)):((_32,_1),(_16,_8))\n",
    /// );
    /// // print(MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>{})
    /// assert_eq!(atom.print(), expected);
    /// ```
    pub fn print(&self) -> String {
        format!(
            "MMA_Atom\n  ThrID:      {}\n  Shape_MNK:  {}\n  LayoutA_TV: {}\n  LayoutB_TV: {}\n  LayoutC_TV: {}\n",
            self.op.thr_id(),
            self.op.shape_mnk(),
            self.op.a_layout(),
            self.op.b_layout(),
            self.op.c_layout()
        )
    }
}

impl fmt::Display for MmaAtom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MMA_Atom<{}>", self.op)
    }
}

/// `TiledMMA`: the atom, the `(V,M,N,K)` thread layout and the M/N/K permutations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TiledMma {
    atom: MmaAtom,
    thr_layout_vmnk: Layout,
    permutation: [Tiler; 3],
}

/// `make_tiled_mma(atom, atom_layout_mnk, permutation_mnk)`: atoms tiled by `thr_layout`
/// (rank <= 3, padded with `_1:_0`), with optional static permutations of M, N, K.
///
/// ```
/// # use cute_layout::*;
/// # use cute_layout::atom::{mma_op::*, *};
/// let fma = MmaAtom::of::<UniversalFMA<f32>>();
/// let thr = Layout::col_major(&tup![s(16), s(16)]).unwrap(); // Layout<Shape<_16,_16>>{}
/// let mma = make_tiled_mma(fma, &thr, &[]).unwrap();
/// let c = AnyLayout::Plain(Layout::col_major(&tup![s(128), s(128)]).unwrap());
/// // make_tiled_mma(UniversalFMA<float,float,float,float>{}, Layout<Shape<_16,_16>>{})
/// //     .thrfrg_C(make_layout(make_shape(_128{},_128{})))
/// assert_eq!(
///     mma.thrfrg_c(&c).unwrap().to_string(),
///     "((_1,(_16,_16)),(_1,(_8,_8))):((_0,(_1,_128)),(_0,(_16,_2048)))"
/// );
/// // C++ rejects a thread layout of rank above 3 (static_assert "rank-3 AtomLayoutMNK")
/// let rank4 = Layout::col_major(&tup![s(2), s(2), s(1), s(2)]).unwrap();
/// assert!(make_tiled_mma(fma, &rank4, &[]).is_err());
/// ```
pub fn make_tiled_mma(
    atom: MmaAtom,
    thr_layout: &Layout,
    permutation: &[Tiler],
) -> Result<TiledMma> {
    if thr_layout.rank() > 3 || permutation.len() > 3 {
        return Err(algebra(
            "make_tiled_mma",
            format!("TiledMMA requires rank-3 AtomLayoutMNK and PermutationMNK, got {thr_layout} and {} modes", permutation.len()),
        ));
    }
    for p in permutation {
        if !tiler_is_static(p) {
            return Err(algebra(
                "make_tiled_mma",
                format!("TiledMMA requires static permutations of MNK, got {p}"),
            ));
        }
    }
    let mnk = thr_layout.append_to(3, &Layout::trivial());
    let vmnk = tiled_product(&atom.op.thr_id(), &Tiler::Layout(mnk))?;
    let perm = |i: usize| permutation.get(i).cloned().unwrap_or(Tiler::Under);
    Ok(TiledMma {
        atom,
        thr_layout_vmnk: vmnk,
        permutation: [perm(0), perm(1), perm(2)],
    })
}

fn tiler_is_static(t: &Tiler) -> bool {
    match t {
        Tiler::Layout(l) => l.shape().is_static() && l.stride().is_static(),
        Tiler::Int(i) => i.is_static(),
        Tiler::Under => true,
        Tiler::Tuple(v) => v.iter().all(tiler_is_static),
    }
}

/// Which operand of the MMA: `D = A * B + C`. CuTe spells the choice in the function name
/// (`partition_A`, `partition_fragment_C`, `partition_shape_B`); here it is an argument.
///
/// ```
/// # use cute_layout::atom::Operand;
/// assert_eq!(Operand::ALL.map(|o| o.to_string()), ["A", "B", "C"]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A, `(M,K)`.
    A,
    /// B, `(N,K)`.
    B,
    /// C (and D), `(M,N)`.
    C,
}

impl Operand {
    /// The three operands, in CuTe's order.
    pub const ALL: [Operand; 3] = [Operand::A, Operand::B, Operand::C];

    /// The (row, column) modes of MNK this operand spans.
    fn modes(self) -> (usize, usize) {
        match self {
            Operand::A => (0, 2),
            Operand::B => (1, 2),
            Operand::C => (0, 1),
        }
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Operand::A => "A",
            Operand::B => "B",
            Operand::C => "C",
        })
    }
}

impl TiledMma {
    /// The atom.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// # let mma = make_tiled_mma(
    /// #     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    /// #     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(), // Layout<Shape<_2,_2,_1>>{}
    /// #     &[],
    /// # )
    /// # .unwrap();
    /// assert_eq!(mma.atom(), MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>());
    /// ```
    pub fn atom(&self) -> MmaAtom {
        self.atom
    }

    /// `get_thr_layout_vmnk()`: `(V,M,N,K)` -> thread index.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// # let mma = make_tiled_mma(
    /// #     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    /// #     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(), // Layout<Shape<_2,_2,_1>>{}
    /// #     &[],
    /// # )
    /// # .unwrap();
    /// // print(mma): ThrLayoutVMNK
    /// assert_eq!(mma.thr_layout_vmnk().to_string(), "(_32,_2,_2,_1):(_1,_32,_64,_0)");
    /// ```
    pub fn thr_layout_vmnk(&self) -> &Layout {
        &self.thr_layout_vmnk
    }

    /// `size(TiledMMA)`: the number of threads.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// # let mma = make_tiled_mma(
    /// #     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    /// #     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(), // Layout<Shape<_2,_2,_1>>{}
    /// #     &[],
    /// # )
    /// # .unwrap();
    /// // print(size(mma))
    /// assert_eq!(mma.num_threads().unwrap().to_string(), "_128");
    /// ```
    pub fn num_threads(&self) -> Result<Int> {
        self.thr_layout_vmnk.size()
    }

    fn vmnk_size(&self, i: usize) -> Result<Int> {
        self.thr_layout_vmnk.mode(i)?.size()
    }

    /// `permutation_mnk<I>()`: the given permutation, or the atom size times the thread count.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// # let mma = make_tiled_mma(
    /// #     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    /// #     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(), // Layout<Shape<_2,_2,_1>>{}
    /// #     &[],
    /// # )
    /// # .unwrap();
    /// // mma.permutation_mnk<0>(), mma.permutation_mnk<2>(): atom M times 2 threads, atom K times 1
    /// assert_eq!(mma.permutation_mnk(0).unwrap().to_string(), "_32");
    /// assert_eq!(mma.permutation_mnk(2).unwrap().to_string(), "_8");
    /// ```
    pub fn permutation_mnk(&self, i: usize) -> Result<Tiler> {
        match &self.permutation[i] {
            Tiler::Under => {
                let atom = self
                    .atom
                    .op
                    .shape_mnk()
                    .get(i)
                    .and_then(|x| x.as_int().cloned())
                    .unwrap_or(s(1));
                Ok(Tiler::Int(atom.mul(&self.vmnk_size(i + 1)?)?))
            }
            p => Ok(p.clone()),
        }
    }

    /// `tile_size_mnk<I>()` (= `tile_size<I>(mma)`).
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// # let mma = make_tiled_mma(
    /// #     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    /// #     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(), // Layout<Shape<_2,_2,_1>>{}
    /// #     &[],
    /// # )
    /// # .unwrap();
    /// // tile_size<1>(mma)
    /// assert_eq!(mma.tile_size(1).unwrap().to_string(), "_16");
    /// ```
    pub fn tile_size(&self, i: usize) -> Result<Int> {
        match self.permutation_mnk(i)? {
            Tiler::Int(n) => Ok(n),
            Tiler::Layout(l) => l.size(),
            other => Err(algebra(
                "tile_size",
                format!("permutation {other} has no size"),
            )),
        }
    }

    fn atom_tv(&self, op: Operand) -> Layout {
        match op {
            Operand::A => self.atom.op.a_layout(),
            Operand::B => self.atom.op.b_layout(),
            Operand::C => self.atom.op.c_layout(),
        }
    }

    /// `thrfrg_C/A/B(L)`: `((ThrV,(ThrM,ThrN)),(FrgV,(RestM,RestN)))` for C, and likewise with K.
    fn thrfrg(&self, op: Operand, l: &AnyLayout) -> Result<AnyLayout> {
        if l.shape_layout().rank() < 2 {
            return Err(algebra("thrfrg", format!("{l} has rank below 2")));
        }
        let (r, c) = op.modes();
        let t_tile = Tiler::Tuple(vec![self.permutation_mnk(r)?, self.permutation_mnk(c)?]);
        let shape = self.atom.op.shape_mnk();
        let atom_mode = |i: usize| -> Result<Tiler> {
            let n = shape.get(i).cloned().unwrap_or(IntTuple::st(1));
            Ok(Tiler::Layout(Layout::col_major(&n)?))
        };
        let a_tile = Tiler::Tuple(vec![atom_mode(r)?, atom_mode(c)?]);
        let thr_mode = |i: usize| -> Result<Tiler> {
            Ok(Tiler::Layout(Layout::col_major(&IntTuple::Int(
                self.vmnk_size(i)?,
            ))?))
        };
        let thr_tile = Tiler::Tuple(vec![
            Tiler::Under,
            Tiler::Tuple(vec![thr_mode(r + 1)?, thr_mode(c + 1)?]),
        ]);
        let atom_tv = Tiler::Tuple(vec![Tiler::Layout(self.atom_tv(op)), Tiler::Under]);
        l.map(|l| {
            let t = logical_divide(l, &t_tile)?;
            let a = zipped_divide(&t, &a_tile)?;
            let tv = composition_tiler(&a, &atom_tv)?;
            zipped_divide(&tv, &thr_tile)
        })
    }

    /// `thrfrg_C(L)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// let mma = make_tiled_mma(
    ///     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    ///     &Layout::new(tup![s(4), s(2), s(1)], tup![s(1), s(4), s(0)]).unwrap(),
    ///     &[],
    /// )
    /// .unwrap();
    /// let c = AnyLayout::Plain(Layout::col_major(&tup![s(128), s(128)]).unwrap());
    /// // tests/oracle/tiled.tsv: ((ThrV,(ThrM,ThrN)),(FrgV,(RestM,RestN)))
    /// assert_eq!(
    ///     mma.thrfrg_c(&c).unwrap().to_string(),
    ///     "(((_4,_8),(_4,_2)),((_2,_2),(_2,_8))):(((_256,_1),(_16,_1024)),((_128,_8),(_64,_2048)))"
    /// );
    /// ```
    pub fn thrfrg_c(&self, l: &AnyLayout) -> Result<AnyLayout> {
        self.thrfrg(Operand::C, l)
    }

    /// `thrfrg_A(L)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// let mma = make_tiled_mma(
    ///     MmaAtom::of::<SM80_16x8x16_F32F16F16F32_TN>(),
    ///     &Layout::new(tup![s(2), s(2), s(1)], tup![s(1), s(2), s(0)]).unwrap(),
    ///     &[],
    /// )
    /// .unwrap();
    /// let a = AnyLayout::Plain(Layout::new(tup![s(64), s(32)], tup![s(32), s(1)]).unwrap());
    /// // tests/oracle/tiled.tsv: ((ThrV,(ThrM,ThrK)),(FrgV,(RestM,RestK)))
    /// assert_eq!(
    ///     mma.thrfrg_a(&a).unwrap().to_string(),
    ///     "(((_4,_8),(_2,_1)),((_2,_2,_2),(_2,_2))):(((_2,_32),(_512,_0)),((_1,_256,_8),(_1024,_16)))"
    /// );
    /// ```
    pub fn thrfrg_a(&self, l: &AnyLayout) -> Result<AnyLayout> {
        self.thrfrg(Operand::A, l)
    }

    /// `thrfrg_B(L)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// let mma = make_tiled_mma(
    ///     MmaAtom::of::<SM80_16x8x16_F16F16F16F16_TN>(),
    ///     &Layout::new(tup![s(2), s(2), s(1)], tup![s(1), s(2), s(0)]).unwrap(),
    ///     &[],
    /// )
    /// .unwrap();
    /// let b = AnyLayout::Plain(Layout::new(tup![s(64), s(32)], tup![s(32), s(1)]).unwrap());
    /// // tests/oracle/tiled.tsv: ((ThrV,(ThrN,ThrK)),(FrgV,(RestN,RestK)))
    /// assert_eq!(
    ///     mma.thrfrg_b(&b).unwrap().to_string(),
    ///     "(((_4,_8),(_2,_1)),((_2,_2),(_4,_2))):(((_2,_32),(_256,_0)),((_1,_8),(_512,_16)))"
    /// );
    /// ```
    pub fn thrfrg_b(&self, l: &AnyLayout) -> Result<AnyLayout> {
        self.thrfrg(Operand::B, l)
    }

    /// `right_inverse(make_layout(vmnk, complement(vmnk)))` restricted to the threads: thread
    /// index -> logical thread id.
    fn thridx_2_thrid(&self) -> Result<Layout> {
        let vmnk = &self.thr_layout_vmnk;
        let full = Layout::from_modes(vec![vmnk.clone(), complement_default(vmnk)?]);
        let shape = crate::tup![vmnk.size()?, s(1)];
        composition(
            &Layout::new(shape, crate::tup![s(1), s(0)])?,
            &right_inverse(&full)?,
        )
    }

    /// `get_layoutC_TV/A_TV/B_TV()`: (thread index, value) -> coordinate in the tile; A is
    /// broadcast over the N threads and B over the M threads (stride-0 thread modes).
    fn get_layout_tv(&self, op: Operand) -> Result<Layout> {
        let (r, c) = op.modes();
        let shape = crate::tup![self.tile_size(r)?, self.tile_size(c)?];
        let mut tv = self.thrfrg(op, &AnyLayout::Plain(Layout::col_major(&shape)?))?;
        if op != Operand::C {
            let (m, n) = (self.vmnk_size(1)?, self.vmnk_size(2)?);
            let bcast = if op == Operand::A {
                crate::tup![s(1), s(0)]
            } else {
                crate::tup![s(0), s(1)]
            };
            let thr = Layout::new(crate::tup![m, n], bcast)?;
            let tile = Tiler::Tuple(vec![
                Tiler::Under,
                Tiler::Tuple(vec![Tiler::Layout(thr), Tiler::Under]),
            ]);
            tv =
                tv.map(|l| composition_tiler(l, &Tiler::Tuple(vec![tile.clone(), Tiler::Under])))?;
        }
        let idx = Tiler::Tuple(vec![Tiler::Layout(self.thridx_2_thrid()?), Tiler::Under]);
        match tv.map(|l| composition_tiler(l, &idx))? {
            AnyLayout::Plain(l) => Ok(l),
            AnyLayout::Composed(c) => Ok(c.layout_b().clone()),
        }
    }

    /// `get_layoutC_TV()`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// # let mma = make_tiled_mma(
    /// #     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    /// #     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(), // Layout<Shape<_2,_2,_1>>{}
    /// #     &[],
    /// # )
    /// # .unwrap();
    /// // tests/oracle/tiled.tsv: mma.get_layoutC_TV(), (thr_idx,val) -> (m,n)
    /// assert_eq!(
    ///     mma.get_layout_c_tv().unwrap().to_string(),
    ///     "((_4,_8,_2,_2),((_2,_2),(_1,_1))):((_64,_1,_16,_256),((_32,_8),(_0,_0)))"
    /// );
    /// ```
    pub fn get_layout_c_tv(&self) -> Result<Layout> {
        self.get_layout_tv(Operand::C)
    }

    /// `get_layoutA_TV()`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// # let mma = make_tiled_mma(
    /// #     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    /// #     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(), // Layout<Shape<_2,_2,_1>>{}
    /// #     &[],
    /// # )
    /// # .unwrap();
    /// // tests/oracle/tiled.tsv: mma.get_layoutA_TV(), (thr_idx,val) -> (m,k); stride _0 across N
    /// assert_eq!(
    ///     mma.get_layout_a_tv().unwrap().to_string(),
    ///     "((_4,_8,_2,_2),((_2,_2),(_1,_1))):((_32,_1,_16,_0),((_8,_128),(_0,_0)))"
    /// );
    /// ```
    pub fn get_layout_a_tv(&self) -> Result<Layout> {
        self.get_layout_tv(Operand::A)
    }

    /// `get_layoutB_TV()`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// let mma = make_tiled_mma(
    ///     MmaAtom::of::<SM80_16x8x16_F32F16F16F32_TN>(),
    ///     &Layout::new(tup![s(2), s(2), s(1)], tup![s(1), s(2), s(0)]).unwrap(),
    ///     &[],
    /// )
    /// .unwrap();
    /// // tests/oracle/tiled.tsv: mma.get_layoutB_TV(), (thr_idx,val) -> (n,k); stride _0 across M
    /// assert_eq!(
    ///     mma.get_layout_b_tv().unwrap().to_string(),
    ///     "((_4,_8,_2,_2),((_2,_2),(_1,_1))):((_32,_1,_0,_8),((_16,_128),(_0,_0)))"
    /// );
    /// ```
    pub fn get_layout_b_tv(&self) -> Result<Layout> {
        self.get_layout_tv(Operand::B)
    }

    /// `get_slice(thr_idx)`: thread `thr_idx`'s `(v,m,n,k)` coordinate. A symbolic index
    /// (`Int::index("tid")`) is accepted; a known one outside `0..size(mma)` is an
    /// [`Error::ThreadIndex`](crate::Error::ThreadIndex).
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// # let mma = make_tiled_mma(
    /// #     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    /// #     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(), // Layout<Shape<_2,_2,_1>>{}
    /// #     &[],
    /// # )
    /// # .unwrap();
    /// // print(mma.get_slice(37).thr_vmnk_)
    /// assert_eq!(mma.get_slice(&d(37)).unwrap().thr_vmnk(), [d(5), d(1), d(0), s(0)]);
    /// assert!(mma.get_slice(&Int::index("tid")).is_ok());
    /// assert_eq!(
    ///     mma.get_slice(&d(128)).unwrap_err().to_string(),
    ///     "TiledMMA::get_slice: thread index 128 is out of range for _128 threads (0.._128)"
    /// );
    /// ```
    pub fn get_slice(&self, thr_idx: &Int) -> Result<ThrMma> {
        let thr_idx = &super::thread_index("TiledMMA::get_slice", thr_idx, &self.num_threads()?)?;
        let vmnk = self.thr_layout_vmnk.get_flat_coord(thr_idx)?;
        Ok(ThrMma {
            tiled: self.clone(),
            thr_vmnk: vmnk.leaves(),
        })
    }

    /// `partition_shape_C/A/B(mma, shape)`: the shape of one thread's fragment of a tile.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// # let mma = make_tiled_mma(
    /// #     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    /// #     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(), // Layout<Shape<_2,_2,_1>>{}
    /// #     &[],
    /// # )
    /// # .unwrap();
    /// // partition_shape_B(mma, make_shape(_64{},_32{})), partition_shape_C(mma, make_shape(_64{},_64{}))
    /// assert_eq!(mma.partition_shape(Operand::B, &tup![s(64), s(32)]).unwrap().to_string(), "(_2,_4,_4)");
    /// assert_eq!(mma.partition_shape(Operand::C, &tup![s(64), s(64)]).unwrap().to_string(), "((_2,_2),_2,_4)");
    /// ```
    pub fn partition_shape(&self, op: Operand, shape: &IntTuple) -> Result<IntTuple> {
        let tv = self.thrfrg(op, &AnyLayout::Plain(Layout::col_major(shape)?))?;
        let rest = Coord::repeat_under(shape.rank());
        let frag = tv.slice(&Coord::Tuple(vec![
            Coord::Int(s(0)),
            Coord::Tuple(vec![Coord::Under, rest]),
        ]))?;
        Ok(frag.shape_layout().shape().clone())
    }

    /// The permutation as CuTe prints it (`(_,_,_)`).
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// # let mma = make_tiled_mma(
    /// #     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    /// #     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(), // Layout<Shape<_2,_2,_1>>{}
    /// #     &[],
    /// # )
    /// # .unwrap();
    /// // print(mma): PermutationMNK
    /// assert_eq!(mma.permutation_text(), "(_,_,_)");
    /// ```
    pub fn permutation_text(&self) -> String {
        format!(
            "({},{},{})",
            self.permutation[0], self.permutation[1], self.permutation[2]
        )
    }

    /// CuTe's multi-line `print(TiledMMA)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// # let mma = make_tiled_mma(
    /// #     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    /// #     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(), // Layout<Shape<_2,_2,_1>>{}
    /// #     &[],
    /// # )
    /// # .unwrap();
    /// let expected = concat!(
    ///     "TiledMMA\n",
    ///     "  ThrLayoutVMNK:  (_32,_2,_2,_1):(_1,_32,_64,_0)\n",
    ///     "  PermutationMNK: (_,_,_)\n",
    ///     "MMA_Atom\n",
    ///     "  ThrID:      _32:_1\n",
    ///     "  Shape_MNK:  (_16,_8,_8)\n",
    ///     "  LayoutA_TV: ((_4,_8),(_2,_2)):((_16,_1),(_8,_64))\n",
    ///     "  LayoutB_TV: ((_4,_8),_2):((_8,_1),_32)\n",
    ///     "  LayoutC_TV: ((_4,_8),(_2,_2)):((_32,_1),(_16,_8))\n",
    /// );
    /// // print(mma)
    /// assert_eq!(mma.print(), expected);
    /// ```
    pub fn print(&self) -> String {
        format!(
            "TiledMMA\n  ThrLayoutVMNK:  {}\n  PermutationMNK: {}\n{}",
            self.thr_layout_vmnk,
            self.permutation_text(),
            self.atom.print()
        )
    }
}

impl fmt::Display for TiledMma {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "TiledMMA{{ThrLayoutVMNK: {}, PermutationMNK: {}, {}}}",
            self.thr_layout_vmnk,
            self.permutation_text(),
            self.atom
        )
    }
}

/// `ThrMMA`: one thread's view of a TiledMMA.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThrMma {
    tiled: TiledMma,
    thr_vmnk: Vec<Int>,
}

impl ThrMma {
    /// The thread's `(v,m,n,k)` coordinate.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// # let mma = make_tiled_mma(
    /// #     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    /// #     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(), // Layout<Shape<_2,_2,_1>>{}
    /// #     &[],
    /// # )
    /// # .unwrap();
    /// let thr = mma.get_slice(&d(37)).unwrap();
    /// // print(mma.get_slice(37).thr_vmnk_): (5,1,0,_0)
    /// assert_eq!(thr.thr_vmnk(), [d(5), d(1), d(0), s(0)]);
    /// ```
    pub fn thr_vmnk(&self) -> &[Int] {
        &self.thr_vmnk
    }

    /// The TiledMMA.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// # let mma = make_tiled_mma(
    /// #     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    /// #     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(), // Layout<Shape<_2,_2,_1>>{}
    /// #     &[],
    /// # )
    /// # .unwrap();
    /// assert_eq!(mma.get_slice(&d(37)).unwrap().tiled(), &mma);
    /// ```
    pub fn tiled(&self) -> &TiledMma {
        &self.tiled
    }

    /// CuTe's multi-line `print(ThrMMA)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// # let mma = make_tiled_mma(
    /// #     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    /// #     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(), // Layout<Shape<_2,_2,_1>>{}
    /// #     &[],
    /// # )
    /// # .unwrap();
    /// let expected = concat!(
    ///     "TiledMMA\n",
    ///     "  ThrLayoutVMNK:  (_32,_2,_2,_1):(_1,_32,_64,_0)\n",
    ///     "  PermutationMNK: (_,_,_)\n",
    ///     "MMA_Atom\n",
    ///     "  ThrID:      _32:_1\n",
    ///     "  Shape_MNK:  (_16,_8,_8)\n",
    ///     "  LayoutA_TV: ((_4,_8),(_2,_2)):((_16,_1),(_8,_64))\n",
    ///     "  LayoutB_TV: ((_4,_8),_2):((_8,_1),_32)\n",
    ///     "  LayoutC_TV: ((_4,_8),(_2,_2)):((_32,_1),(_16,_8))\n",
    /// );
    /// // print(mma.get_slice(37))
    /// assert_eq!(mma.get_slice(&d(37)).unwrap().print(), format!("ThrMMA\n  Thr VMNK: (5,1,0,_0)\n{expected}"));
    /// ```
    pub fn print(&self) -> String {
        let mut vmnk = String::new();
        let _ = crate::print::write_tuple_into(&mut vmnk, &self.thr_vmnk);
        format!("ThrMMA\n  Thr VMNK: {vmnk}\n{}", self.tiled.print())
    }

    /// `partition_C/A/B(T)`: this thread's `(MMA, MMA_M, MMA_N)` fragment of T.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// # let mma = make_tiled_mma(
    /// #     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    /// #     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(), // Layout<Shape<_2,_2,_1>>{}
    /// #     &[],
    /// # )
    /// # .unwrap();
    /// let s_b = make_tensor(make_smem_ptr::<f32>("sB"), Layout::col_major(&tup![s(64), s(32)]).unwrap());
    /// // mma.get_slice(37).partition_B(sB): (_2,_4,_4):(_256,_16,_512), 65 past sB
    /// let t_cs_b = mma.get_slice(&d(37)).unwrap().partition(Operand::B, &s_b).unwrap(); // (MMA,MMA_N,MMA_K)
    /// assert_eq!(t_cs_b.to_string(), "smem_ptr[32b](sB+65) o (_2,_4,_4):(_256,_16,_512)");
    /// ```
    pub fn partition(&self, op: Operand, t: &Tensor) -> Result<Tensor> {
        let tv = self.tiled.thrfrg(op, t.layout())?;
        let (r, c) = op.modes();
        let thr = Coord::Tuple(vec![
            Coord::Int(self.thr_vmnk[0].clone()),
            Coord::Tuple(vec![
                Coord::Int(self.thr_vmnk[r + 1].clone()),
                Coord::Int(self.thr_vmnk[c + 1].clone()),
            ]),
        ]);
        let rest_rank = tv.shape_layout().mode(1)?.mode(1)?.rank();
        let frag = Coord::Tuple(vec![Coord::Under, Coord::repeat_under(rest_rank)]);
        t.with_layout(tv).slice(&Coord::Tuple(vec![thr, frag]))
    }

    /// `partition_fragment_C/A/B(T)`: a register tensor for this thread's fragment (C compact
    /// column-major; A and B `make_fragment_like` of the partition).
    ///
    /// ```
    /// # use cute_layout::*;
    /// # use cute_layout::atom::{mma_op::*, *};
    /// # let mma = make_tiled_mma(
    /// #     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
    /// #     &Layout::col_major(&tup![s(2), s(2), s(1)]).unwrap(), // Layout<Shape<_2,_2,_1>>{}
    /// #     &[],
    /// # )
    /// # .unwrap();
    /// let s_b = make_tensor(make_smem_ptr::<f32>("sB"), Layout::col_major(&tup![s(64), s(32)]).unwrap());
    /// // mma.get_slice(37).partition_fragment_B(sB).layout()
    /// let t_cr_b = mma.get_slice(&d(37)).unwrap().partition_fragment(Operand::B, &s_b).unwrap();
    /// assert_eq!(t_cr_b.layout().to_string(), "(_2,_4,_4):(_1,_2,_8)");
    /// ```
    pub fn partition_fragment(&self, op: Operand, t: &Tensor) -> Result<Tensor> {
        let part = self.partition(op, t)?;
        let shape_l = part.layout().shape_layout();
        let layout = if op == Operand::C {
            Layout::col_major(shape_l.shape())?
        } else {
            shape_l.fragment_like()?
        };
        let [d, a, b, _] = self.tiled.atom.op.types();
        let elem = match op {
            Operand::A => a,
            Operand::B => b,
            Operand::C => d,
        };
        let ptr = Ptr::new(MemSpace::Rmem, elem, format!("t{op}r{op}"));
        Ok(Tensor::new(ptr, layout))
    }
}

impl fmt::Display for ThrMma {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ThrMMA{{Thr VMNK: ")?;
        crate::print::write_tuple(f, &self.thr_vmnk)?;
        write!(f, ", {}}}", self.tiled)
    }
}
