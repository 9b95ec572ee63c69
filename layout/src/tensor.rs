//! Tensors: a pointer (or, for coordinate tensors, an origin coordinate) and a layout.
//!
//! Tensors here are views the code generator lowers: the pointer is a named kernel parameter in a
//! memory space (`gmem_ptr[32b](A)`), offsets and strides may be symbolic (`ldA`). Coordinate
//! tensors (`make_identity_tensor`) map each element to its coordinate through basis strides
//! (`_1@0`, `_1@1`) and are what predication of partial tiles is built on.
//!
//! C++ CuTe prints a pointer's address where this prints its name and element offset:
//! `gmem_ptr[32b](0x7f...)` there is `gmem_ptr[32b](A)` here, and the doc examples' expected
//! strings are C++'s (`tests/oracle/cute-atoms-api.txt`) with that one substitution.

use std::fmt;

use crate::composed::AnyLayout;
use crate::coord::{Coord, Step};
use crate::error::{algebra, Result};
use crate::int::{s, Int};
use crate::int_tuple::IntTuple;
use crate::layout::Layout;
use crate::numeric::{ElemType, Numeric};
use crate::stride::idx2crd;
use crate::tiler::Tiler;

/// Where a tensor's data lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemSpace {
    /// Global memory (`gmem_ptr`).
    Gmem,
    /// Shared memory (`smem_ptr`).
    Smem,
    /// Registers (`rmem_ptr`).
    Rmem,
}

/// A typed pointer: a named base (a kernel parameter or buffer) plus an element offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ptr {
    /// The memory space.
    pub space: MemSpace,
    /// The element width in bits.
    pub bits: u32,
    /// The base, as the code generator names it (`A`, `sA`).
    pub name: String,
    /// The offset from the base, in elements.
    pub offset: Int,
}

impl Ptr {
    /// A pointer to elements of type `elem` in `space`, named `name` (a kernel parameter or
    /// buffer), at offset 0.
    ///
    /// ```
    /// # use cute_layout::{ElemType, MemSpace, Ptr};
    /// // print(make_smem_ptr((half_t*)p)): smem_ptr[16b](0x...)
    /// assert_eq!(Ptr::new(MemSpace::Smem, ElemType::F16, "sA").to_string(), "smem_ptr[16b](sA)");
    /// ```
    pub fn new(space: MemSpace, elem: ElemType, name: impl Into<String>) -> Ptr {
        Ptr {
            space,
            bits: elem.bits(),
            name: name.into(),
            offset: s(0),
        }
    }
}

/// `make_gmem_ptr<T>(p)`: a global-memory pointer to `T`, named `name`.
///
/// ```
/// # use cute_layout::make_gmem_ptr;
/// // print(make_gmem_ptr((float*)p)): gmem_ptr[32b](0x...)
/// assert_eq!(make_gmem_ptr::<f32>("A").to_string(), "gmem_ptr[32b](A)");
/// ```
pub fn make_gmem_ptr<T: Numeric>(name: &str) -> Ptr {
    Ptr::new(MemSpace::Gmem, T::TYPE, name)
}

/// `make_smem_ptr<T>(p)`: a shared-memory pointer to `T`, named `name`.
///
/// ```
/// # use cute_layout::{half_t, make_smem_ptr};
/// // print(make_smem_ptr((half_t*)p)): smem_ptr[16b](0x...)
/// assert_eq!(make_smem_ptr::<half_t>("sA").to_string(), "smem_ptr[16b](sA)");
/// ```
pub fn make_smem_ptr<T: Numeric>(name: &str) -> Ptr {
    Ptr::new(MemSpace::Smem, T::TYPE, name)
}

/// `make_rmem_ptr<T>(p)`: a register (local) pointer to `T`, named `name`. C++ CuTe returns a
/// raw pointer unchanged here (anything that is not gmem or smem is rmem), so it prints as
/// `ptr[8b](...)`, like the register fragments of `partition_fragment_C`.
///
/// ```
/// # use cute_layout::make_rmem_ptr;
/// // print(make_rmem_ptr((int8_t*)p)): ptr[8b](0x...)
/// assert_eq!(make_rmem_ptr::<i8>("tCrC").to_string(), "ptr[8b](tCrC)");
/// ```
pub fn make_rmem_ptr<T: Numeric>(name: &str) -> Ptr {
    Ptr::new(MemSpace::Rmem, T::TYPE, name)
}

/// `make_tensor(ptr, layout)`: the tensor `ptr o layout`.
///
/// ```
/// # use cute_layout::*;
/// let t = make_tensor(make_gmem_ptr::<f32>("A"), Layout::col_major(&tup![s(4), s(8)]).unwrap());
/// // print(make_tensor(make_gmem_ptr(A), make_layout(make_shape(_4{},_8{}))))
/// assert_eq!(t.to_string(), "gmem_ptr[32b](A) o (_4,_8):(_1,_4)");
/// ```
pub fn make_tensor(ptr: Ptr, layout: impl Into<AnyLayout>) -> Tensor {
    Tensor::new(ptr, layout)
}

/// `make_identity_tensor(shape)`: the coordinate tensor whose element at `c` is `c` (basis
/// strides `_1@0`, `_1@1`, ...), what predication compares against the problem size.
///
/// ```
/// # use cute_layout::*;
/// // print(make_identity_tensor(make_shape(6, 10)))
/// let id = make_identity_tensor(&tup![d(6), d(10)]).unwrap();
/// assert_eq!(id.to_string(), "ArithTuple(_0,_0) o (6,10):(_1@0,_1@1)");
/// ```
pub fn make_identity_tensor(shape: &IntTuple) -> Result<Tensor> {
    Tensor::identity(shape)
}

/// `local_tile(tensor, tiler, coord[, proj])`: the tile of `tensor` at `coord`; a projection
/// such as `Step<_1,X,_1>` ([`make_step`](crate::make_step)) first drops the tiler and
/// coordinate modes marked [`X`](crate::X). See [`Tensor::local_tile`].
///
/// ```
/// # use cute_layout::*;
/// let g_a = make_tensor(make_gmem_ptr::<f32>("A"), Layout::col_major(&tup![d(256), d(64)]).unwrap());
/// let tiler = Tiler::from_shape(&tup![s(128), s(128), s(8)]);
/// let coord = Coord::Tuple(vec![d(1).into(), d(0).into(), Coord::Under]);
/// let proj = make_step([s(1).into(), X, s(1).into()]);
/// // local_tile(gA, make_shape(_128{},_128{},_8{}), make_coord(1,0,_), Step<_1,X,_1>{}):
/// // (_128,_8,8):(_1,256,2048), 128 elements past A
/// let g_t = local_tile(&g_a, &tiler, &coord, Some(&proj)).unwrap();
/// assert_eq!(g_t.to_string(), "gmem_ptr[32b](A+128) o (_128,_8,8):(_1,256,2048)");
/// ```
pub fn local_tile(
    tensor: &Tensor,
    tiler: &Tiler,
    coord: &Coord,
    proj: Option<&Step>,
) -> Result<Tensor> {
    tensor.local_tile(tiler, coord, proj)
}

/// `local_partition(tensor, thr_layout, thr_idx[, proj])`: the elements thread `thr_idx` of
/// `thr_layout` owns when the threads are tiled over the tensor. See [`Tensor::local_partition`].
///
/// ```
/// # use cute_layout::*;
/// let s_a = make_tensor(make_smem_ptr::<f32>("sA"), Layout::col_major(&tup![s(16), s(8)]).unwrap());
/// let thr = Layout::col_major(&tup![s(2), s(4)]).unwrap();
/// // local_partition(sA, Layout<Shape<_2,_4>>{}, 5): (_8,_2):(_2,_64), 33 elements past sA
/// let part = local_partition(&s_a, &thr, &d(5), None).unwrap();
/// assert_eq!(part.to_string(), "smem_ptr[32b](sA+33) o (_8,_2):(_2,_64)");
/// ```
pub fn local_partition(
    tensor: &Tensor,
    thr_layout: &Layout,
    thr_idx: &Int,
    proj: Option<&Step>,
) -> Result<Tensor> {
    tensor.local_partition(thr_layout, thr_idx, proj)
}

/// What a tensor's layout offsets: memory, or a coordinate space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Engine {
    /// A pointer into memory.
    Ptr(Ptr),
    /// The origin of a coordinate tensor (`ArithTuple(_0,_0)`).
    Coord(Vec<Int>),
}

/// A tensor: an engine and a layout, `engine o layout`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tensor {
    engine: Engine,
    layout: AnyLayout,
}

/// An element of a tensor: an offset from the pointer, or a coordinate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Element {
    /// `ptr + offset` (in elements).
    Offset(Ptr),
    /// The coordinate a coordinate tensor holds.
    Coord(Vec<Int>),
}

impl Tensor {
    /// `make_tensor(ptr, layout)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let t = Tensor::new(make_gmem_ptr::<f32>("A"), Layout::col_major(&tup![s(4), s(8)]).unwrap());
    /// // print(make_tensor(make_gmem_ptr(A), make_layout(make_shape(_4{},_8{}))))
    /// assert_eq!(t.to_string(), "gmem_ptr[32b](A) o (_4,_8):(_1,_4)");
    /// ```
    pub fn new(ptr: Ptr, layout: impl Into<AnyLayout>) -> Tensor {
        Tensor {
            engine: Engine::Ptr(ptr),
            layout: layout.into(),
        }
    }

    /// `make_identity_tensor(shape)`: the coordinate tensor `ArithTuple(_0,...) o shape:(_1@0,_1@1,...)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// // print(make_identity_tensor(make_shape(_4{},_8{})))
    /// let id = Tensor::identity(&tup![s(4), s(8)]).unwrap();
    /// assert_eq!(id.to_string(), "ArithTuple(_0,_0) o (_4,_8):(_1@0,_1@1)");
    /// ```
    pub fn identity(shape: &IntTuple) -> Result<Tensor> {
        if shape.depth() > 1 {
            return Err(algebra(
                "make_identity_tensor",
                format!("{shape} is nested; coordinate tensors of nested shapes are not supported"),
            ));
        }
        let stride = match shape {
            IntTuple::Int(_) => IntTuple::Int(Int::basis(0)),
            IntTuple::Tuple(v) => IntTuple::from_ints((0..v.len()).map(Int::basis).collect()),
        };
        let layout = Layout::new(shape.clone(), stride)?;
        Ok(Tensor {
            engine: Engine::Coord(vec![s(0); shape.rank()]),
            layout: layout.into(),
        })
    }

    /// A tensor over any engine: a pointer, or the origin of a coordinate tensor (what a printed
    /// `ArithTuple(_0,_0) o (_4,_8):(_1@0,_1@1)` reads back as).
    pub fn from_engine(engine: Engine, layout: impl Into<AnyLayout>) -> Tensor {
        Tensor {
            engine,
            layout: layout.into(),
        }
    }

    /// The layout.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # let t = make_tensor(make_gmem_ptr::<f32>("A"), Layout::col_major(&tup![s(4), s(8)]).unwrap()); // (_4,_8):(_1,_4)
    /// assert_eq!(t.layout().to_string(), "(_4,_8):(_1,_4)");
    /// ```
    pub fn layout(&self) -> &AnyLayout {
        &self.layout
    }

    /// The engine.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # let t = make_tensor(make_gmem_ptr::<f32>("A"), Layout::col_major(&tup![s(4), s(8)]).unwrap()); // (_4,_8):(_1,_4)
    /// let Engine::Ptr(p) = t.engine() else { unreachable!() };
    /// // print(t.data()): gmem_ptr[32b](0x...)
    /// assert_eq!(p.to_string(), "gmem_ptr[32b](A)");
    /// ```
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The same engine with another layout (a layout operation applied to the tensor).
    ///
    /// ```
    /// # use cute_layout::*;
    /// # let t = make_tensor(make_gmem_ptr::<f32>("A"), Layout::col_major(&tup![s(4), s(8)]).unwrap()); // (_4,_8):(_1,_4)
    /// let flat = t.with_layout(Layout::col_major(&IntTuple::st(32)).unwrap().into());
    /// // print(make_tensor(t.data(), make_layout(_32{})))
    /// assert_eq!(flat.to_string(), "gmem_ptr[32b](A) o _32:_1");
    /// ```
    pub fn with_layout(&self, layout: AnyLayout) -> Tensor {
        Tensor {
            engine: self.engine.clone(),
            layout,
        }
    }

    /// Applies a layout operation to the tensor's layout (composed layouts forward to B).
    ///
    /// ```
    /// # use cute_layout::*;
    /// # let t = make_tensor(make_gmem_ptr::<f32>("A"), Layout::col_major(&tup![s(4), s(8)]).unwrap()); // (_4,_8):(_1,_4)
    /// // print(coalesce(t.layout()))
    /// assert_eq!(t.map_layout(coalesce).unwrap().to_string(), "gmem_ptr[32b](A) o _32:_1");
    /// ```
    pub fn map_layout(&self, f: impl FnOnce(&Layout) -> Result<Layout>) -> Result<Tensor> {
        Ok(self.with_layout(self.layout.map(f)?))
    }

    /// The engine moved by the offset of an integer coordinate of this tensor's layout.
    fn advanced(&self, c: &IntTuple, offset_of_ptr: Int) -> Result<Engine> {
        match &self.engine {
            Engine::Ptr(p) => {
                let mut p = p.clone();
                p.offset = p.offset.add(&offset_of_ptr)?;
                Ok(Engine::Ptr(p))
            }
            Engine::Coord(origin) => {
                let AnyLayout::Plain(l) = &self.layout else {
                    return Err(algebra("slice", "a coordinate tensor has a plain layout"));
                };
                let delta = crd2coord(l, c, origin.len())?;
                let sum = origin
                    .iter()
                    .zip(&delta)
                    .map(|(a, b)| a.add(b))
                    .collect::<Result<_>>()?;
                Ok(Engine::Coord(sum))
            }
        }
    }

    /// `tensor(c)` with `_`: the sub-tensor, its engine advanced by the offset of the integer
    /// coordinates.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # let t = make_tensor(make_gmem_ptr::<f32>("A"), Layout::col_major(&tup![s(4), s(8)]).unwrap()); // (_4,_8):(_1,_4)
    /// // t(_, 2): (_4):(_1), 8 elements past A
    /// let col = t.slice(&Coord::Tuple(vec![X, d(2).into()])).unwrap();
    /// assert_eq!(col.to_string(), "gmem_ptr[32b](A+8) o (_4):(_1)");
    /// ```
    pub fn slice(&self, c: &Coord) -> Result<Tensor> {
        let (layout, off) = match &self.engine {
            Engine::Ptr(_) => self.layout.slice_and_offset(c)?,
            Engine::Coord(_) => (self.layout.slice(c)?, s(0)),
        };
        Ok(Tensor {
            engine: self.advanced(&c.zeroed(), off)?,
            layout,
        })
    }

    /// `tensor(c)` without `_`: the element's place.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # let t = make_tensor(make_gmem_ptr::<f32>("A"), Layout::col_major(&tup![s(4), s(8)]).unwrap()); // (_4,_8):(_1,_4)
    /// // &t(2,3) - A: 14
    /// assert_eq!(t.at(&tup![d(2), d(3)]).unwrap().to_string(), "gmem_ptr[32b](A+14)");
    /// // make_identity_tensor(make_shape(_4{},_8{}))(2,3)
    /// let id = make_identity_tensor(&tup![s(4), s(8)]).unwrap();
    /// assert_eq!(id.at(&tup![d(2), d(3)]).unwrap().to_string(), "(2,3)");
    /// ```
    pub fn at(&self, c: &IntTuple) -> Result<Element> {
        match &self.engine {
            Engine::Ptr(_) => {
                if let AnyLayout::Composed(cl) = &self.layout {
                    // C++ returns a swizzled pointer here; the port does not model one
                    cl.unflagged("tensor element")?;
                }
                let off = self.layout.crd2idx(c)?;
                match self.advanced(c, off)? {
                    Engine::Ptr(p) => Ok(Element::Offset(p)),
                    Engine::Coord(_) => unreachable!("a pointer engine stays a pointer"),
                }
            }
            Engine::Coord(_) => match self.advanced(c, s(0))? {
                Engine::Coord(v) => Ok(Element::Coord(v)),
                Engine::Ptr(_) => unreachable!("a coordinate engine stays a coordinate"),
            },
        }
    }

    /// For a coordinate tensor: the coordinate offset its layout gives `c`, without the origin
    /// (`tensor.at(c)` is the origin plus this).
    ///
    /// ```
    /// # use cute_layout::*;
    /// let id = make_identity_tensor(&tup![d(8), d(8)]).unwrap();
    /// let tile = Tiler::from_shape(&tup![s(4), s(4)]);
    /// // local_tile(make_identity_tensor(make_shape(8,8)), make_shape(_4{},_4{}), make_coord(1,1))
    /// let c_tile = local_tile(&id, &tile, &Coord::Tuple(vec![d(1).into(), d(1).into()]), None).unwrap();
    /// assert_eq!(c_tile.to_string(), "ArithTuple(4,4) o (_4,_4):(_1@0,_1@1)");
    /// // c_tile(1,2) is (5,6): the origin (4,4) plus the delta (1,2)
    /// assert_eq!(c_tile.at(&tup![d(1), d(2)]).unwrap().to_string(), "(5,6)");
    /// assert_eq!(c_tile.coord_delta(&tup![d(1), d(2)]).unwrap(), [d(1), d(2)]);
    /// ```
    pub fn coord_delta(&self, c: &IntTuple) -> Result<Vec<Int>> {
        match (&self.engine, &self.layout) {
            (Engine::Coord(origin), AnyLayout::Plain(l)) => crd2coord(l, c, origin.len()),
            _ => Err(algebra("coord_delta", "not a coordinate tensor")),
        }
    }

    /// `recast<T>(tensor)`: the same data seen as elements of `bits` bits.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # let t = make_tensor(make_gmem_ptr::<f32>("A"), Layout::col_major(&tup![s(4), s(8)]).unwrap()); // (_4,_8):(_1,_4)
    /// // recast<half_t>(t): gmem_ptr[16b](...) o (_8,_8):(_1,_8)
    /// assert_eq!(t.recast(16).unwrap().to_string(), "gmem_ptr[16b](A) o (_8,_8):(_1,_8)");
    /// ```
    pub fn recast(&self, bits: u32) -> Result<Tensor> {
        let Engine::Ptr(p) = &self.engine else {
            return Err(algebra("recast", "a coordinate tensor has no element type"));
        };
        if bits == 0 || p.bits == 0 {
            return Err(algebra("recast", "element widths must be positive"));
        }
        let (old, new) = (i64::from(p.bits), i64::from(bits));
        let layout = match &self.layout {
            _ if old == new => self.layout.clone(),
            AnyLayout::Plain(l) if new > old && new % old == 0 => {
                crate::upcast(l, new / old)?.into()
            }
            AnyLayout::Plain(l) if old % new == 0 => crate::downcast(l, old / new)?.into(),
            AnyLayout::Composed(c) if new > old && new % old == 0 => c.upcast(new / old)?,
            AnyLayout::Composed(c) if old % new == 0 => c.downcast(old / new)?,
            _ => {
                return Err(algebra(
                    "recast",
                    format!("{old}-bit and {bits}-bit elements do not divide"),
                ))
            }
        };
        let offset = p.offset.mul(&s(old))?.div(&s(new))?;
        let ptr = Ptr {
            bits,
            offset,
            ..p.clone()
        };
        Ok(Tensor {
            engine: Engine::Ptr(ptr),
            layout,
        })
    }
}

/// The coordinate a coordinate layout (basis strides) gives an integer coordinate.
fn crd2coord(l: &Layout, c: &IntTuple, rank: usize) -> Result<Vec<Int>> {
    let leaves = idx2crd(c, l.shape())?.leaves();
    let mut out = vec![s(0); rank];
    for (ci, di) in leaves.iter().zip(l.stride().leaves()) {
        let term = ci.mul(&di)?;
        match term.as_basis() {
            Some((v, m)) if m < rank => out[m] = out[m].add(v)?,
            Some(_) => {
                return Err(algebra(
                    "slice",
                    format!("{di} is outside the coordinate space"),
                ))
            }
            None if term.is_constant(0) => {}
            None => {
                return Err(algebra(
                    "slice",
                    format!("stride {di} of a coordinate layout is not a basis"),
                ))
            }
        }
    }
    Ok(out)
}

/// The tensor algebra of CuTe's `tensor_impl.hpp`.
impl Tensor {
    /// `zipped_divide(tensor, tiler)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # let t = make_tensor(make_gmem_ptr::<f32>("A"), Layout::col_major(&tup![s(4), s(8)]).unwrap()); // (_4,_8):(_1,_4)
    /// // zipped_divide(t, make_shape(_2{},_4{}))
    /// let z = t.zipped_divide(&Tiler::from_shape(&tup![s(2), s(4)])).unwrap();
    /// assert_eq!(z.to_string(), "gmem_ptr[32b](A) o ((_2,_4),(_2,_2)):((_1,_4),(_2,_16))");
    /// ```
    pub fn zipped_divide(&self, t: &Tiler) -> Result<Tensor> {
        self.map_layout(|l| crate::zipped_divide(l, t))
    }

    /// `inner_partition(tensor, tiler, coord)`: tile, then index the rest mode with `coord`,
    /// keeping the tile.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # let t = make_tensor(make_gmem_ptr::<f32>("A"), Layout::col_major(&tup![s(4), s(8)]).unwrap()); // (_4,_8):(_1,_4)
    /// // inner_partition(t, make_shape(_2{},_4{}), make_coord(1,1)): (_2,_4):(_1,_4), 18 past A
    /// let at = Coord::Tuple(vec![d(1).into(), d(1).into()]);
    /// let p = t.inner_partition(&Tiler::from_shape(&tup![s(2), s(4)]), &at).unwrap();
    /// assert_eq!(p.to_string(), "gmem_ptr[32b](A+18) o (_2,_4):(_1,_4)");
    /// ```
    pub fn inner_partition(&self, t: &Tiler, coord: &Coord) -> Result<Tensor> {
        let tiled = self.zipped_divide(t)?;
        let (r0, r1) = tile_ranks(&tiled)?;
        let rest = match coord {
            Coord::Tuple(v) => Coord::Tuple(pad(v, r1)),
            c => c.clone(),
        };
        tiled.slice(&Coord::Tuple(vec![Coord::repeat_under(r0), rest]))
    }

    /// `outer_partition(tensor, tiler, coord)`: tile, then index the tile mode with `coord`,
    /// keeping the rest.
    ///
    /// ```
    /// # use cute_layout::*;
    /// # let t = make_tensor(make_gmem_ptr::<f32>("A"), Layout::col_major(&tup![s(4), s(8)]).unwrap()); // (_4,_8):(_1,_4)
    /// // outer_partition(t, make_shape(_2{},_4{}), make_coord(1,1)): (_2,_2):(_2,_16), 5 past A
    /// let at = Coord::Tuple(vec![d(1).into(), d(1).into()]);
    /// let p = t.outer_partition(&Tiler::from_shape(&tup![s(2), s(4)]), &at).unwrap();
    /// assert_eq!(p.to_string(), "gmem_ptr[32b](A+5) o (_2,_2):(_2,_16)");
    /// ```
    pub fn outer_partition(&self, t: &Tiler, coord: &Coord) -> Result<Tensor> {
        let tiled = self.zipped_divide(t)?;
        let (r0, r1) = tile_ranks(&tiled)?;
        let first = match coord {
            Coord::Tuple(v) => Coord::Tuple(pad(v, r0)),
            c => c.clone(),
        };
        tiled.slice(&Coord::Tuple(vec![first, Coord::repeat_under(r1)]))
    }

    /// `local_tile(tensor, tiler, coord[, proj])`: the tile at `coord` (`inner_partition`); a
    /// projection such as `Step<_1,X,_1>` first drops the tiler and coordinate modes marked `X`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let g_a = make_tensor(make_gmem_ptr::<f32>("A"), Layout::col_major(&tup![d(256), d(64)]).unwrap()); // (M,K)
    /// let cta_tiler = Tiler::from_shape(&tup![s(128), s(128), s(8)]); // (BLK_M,BLK_N,BLK_K)
    /// let cta_coord = Coord::Tuple(vec![d(1).into(), d(0).into(), X]); // (m,n,k)
    /// // local_tile(gA, cta_tiler, cta_coord, Step<_1,X,_1>{}): (_128,_8,8):(_1,256,2048), 128 past A
    /// let g_t = g_a.local_tile(&cta_tiler, &cta_coord, Some(&make_step([s(1).into(), X, s(1).into()]))).unwrap();
    /// assert_eq!(g_t.to_string(), "gmem_ptr[32b](A+128) o (_128,_8,8):(_1,256,2048)"); // (BLK_M,BLK_K,k)
    /// // the same tile without a projection: local_tile(gA, make_shape(_128{},_8{}), make_coord(1,_))
    /// let mk = Tiler::from_shape(&tup![s(128), s(8)]);
    /// assert_eq!(g_a.local_tile(&mk, &Coord::Tuple(vec![d(1).into(), X]), None).unwrap(), g_t);
    /// ```
    pub fn local_tile(&self, t: &Tiler, coord: &Coord, proj: Option<&Step>) -> Result<Tensor> {
        match proj {
            None => self.inner_partition(t, coord),
            Some(p) => self.inner_partition(&dice_tiler(p, t)?, &dice_coord(p, coord)?),
        }
    }

    /// `local_partition(tensor, thr_layout, idx[, proj])`: the elements thread `idx` of
    /// `thr_layout` owns when the threads are tiled over the tensor (`outer_partition` by the
    /// thread layout's shape at the thread's flat coordinate).
    ///
    /// ```
    /// # use cute_layout::*;
    /// let s_a = make_tensor(make_smem_ptr::<f32>("sA"), Layout::col_major(&tup![s(16), s(8)]).unwrap());
    /// let thr = Layout::col_major(&tup![s(2), s(4)]).unwrap(); // (m,n) -> thr_idx
    /// // local_partition(sA, Layout<Shape<_2,_4>>{}, 5, Step<_1,X>{}): (_8,_8):(_2,_16), 1 past sA
    /// let p = s_a.local_partition(&thr, &d(5), Some(&make_step([s(1).into(), X]))).unwrap();
    /// assert_eq!(p.to_string(), "smem_ptr[32b](sA+1) o (_8,_8):(_2,_16)");
    /// ```
    pub fn local_partition(&self, thr: &Layout, idx: &Int, proj: Option<&Step>) -> Result<Tensor> {
        let shape = thr.shape().product_each()?;
        let coord = Coord::from(&thr.get_flat_coord(&idx.as_index()?)?);
        let (tiler, coord) = match proj {
            None => (Tiler::from_shape(&shape), coord),
            Some(p) => {
                let t = Tiler::from_shape(&shape);
                (dice_tiler(p, &t)?, dice_coord(p, &coord)?)
            }
        };
        self.outer_partition(&tiler, &coord)
    }
}

/// (rank of the tile mode, rank of the rest mode) of a zipped tensor.
fn tile_ranks(t: &Tensor) -> Result<(usize, usize)> {
    let l = t.layout.shape_layout();
    Ok((l.mode(0)?.rank(), l.mode(1)?.rank()))
}

/// `append<n>(coord, _)`.
fn pad(v: &[Coord], n: usize) -> Vec<Coord> {
    let mut v = v.to_vec();
    while v.len() < n {
        v.push(Coord::Under);
    }
    v
}

/// `dice(proj, tiler)`: the tiler modes under an integer of the projection.
fn dice_tiler(p: &Coord, t: &Tiler) -> Result<Tiler> {
    let (Coord::Tuple(pv), Tiler::Tuple(tv)) = (p, t) else {
        return Err(algebra(
            "local_tile",
            format!("projection {p} and tiler {t} must be tuples"),
        ));
    };
    if pv.len() != tv.len() {
        return Err(algebra(
            "local_tile",
            format!("projection {p} and tiler {t} have different ranks"),
        ));
    }
    let kept: Vec<Tiler> = pv
        .iter()
        .zip(tv)
        .filter(|(pi, _)| !matches!(pi, Coord::Under))
        .map(|(_, ti)| ti.clone())
        .collect();
    Ok(Tiler::Tuple(kept))
}

/// `dice(proj, coord)`: the coordinate modes under an integer of the projection.
fn dice_coord(p: &Coord, c: &Coord) -> Result<Coord> {
    let (Coord::Tuple(pv), Coord::Tuple(cv)) = (p, c) else {
        return Err(algebra(
            "local_tile",
            format!("projection {p} and coordinate {c} must be tuples"),
        ));
    };
    if pv.len() != cv.len() {
        return Err(algebra(
            "local_tile",
            format!("projection {p} and coordinate {c} have different ranks"),
        ));
    }
    let kept = pv
        .iter()
        .zip(cv)
        .filter(|(pi, _)| !matches!(pi, Coord::Under))
        .map(|(_, ci)| ci.clone())
        .collect();
    Ok(Coord::Tuple(kept))
}

impl fmt::Display for MemSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MemSpace::Gmem => "gmem",
            MemSpace::Smem => "smem",
            MemSpace::Rmem => "rmem",
        })
    }
}

impl fmt::Display for Ptr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.space {
            // C++'s make_rmem_ptr leaves a raw pointer raw: `ptr[32b](...)`.
            MemSpace::Rmem => write!(f, "ptr[{}b]({}", self.bits, self.name)?,
            space => write!(f, "{space}_ptr[{}b]({}", self.bits, self.name)?,
        }
        match (&self.offset, self.offset.value()) {
            (_, Some(0)) => {}
            (Int::Dynamic(_), Some(v)) if v < 0 => write!(f, "{v}")?,
            _ => write!(f, "+{}", self.offset)?,
        }
        f.write_str(")")
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Engine::Ptr(p) => write!(f, "{p}"),
            Engine::Coord(v) => {
                f.write_str("ArithTuple")?;
                crate::print::write_tuple(f, v)
            }
        }
    }
}

impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // a layout whose swizzle acts on the smem pointer: C++ moves the swizzle into the
        // pointer (`Sw<3,4,3>_smem_ptr[16b](sA) o (_8,_64):(_64,_1)`)
        if let AnyLayout::Composed(c) = &self.layout {
            if c.smem_ptr_bits().is_some() {
                return write!(f, "{}_{} o {}", c.layout_a(), self.engine, c.layout_b());
            }
        }
        write!(f, "{} o {}", self.engine, self.layout)
    }
}

impl fmt::Display for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Element::Offset(p) => write!(f, "{p}"),
            Element::Coord(v) => crate::print::write_tuple(f, v),
        }
    }
}
