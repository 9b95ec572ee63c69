//! `Layout`: a shape and a congruent stride, a function from coordinates to offsets.
//!
//! Queries (`size`, `cosize`, `rank`, `depth`, `get<I..>`, `select<I..>`) and constructors
//! (`make_layout`, `make_ordered_layout`, `make_layout_like`) live here; each algebra operation has
//! its own file.

use std::fmt;

use crate::error::{algebra, Result};
use crate::int::{s, Int};
use crate::int_tuple::{inner_product, IntTuple};
use crate::stride::{compact_major, compact_order, Major};

/// A CuTe layout `shape:stride`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    shape: IntTuple,
    stride: IntTuple,
}

impl Layout {
    /// `make_layout(shape, stride)`: fails, as the `layout!` macro does, when the two are not
    /// congruent or a static size is negative. (A dynamic size is a run-time value and is not
    /// checked, as in C++.)
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::new(tup![s(4), s(3)], tup![s(3), s(1)]).unwrap();
    /// // print(make_layout(make_shape(_4{},_3{}), make_stride(_3{},_1{})))
    /// assert_eq!(l.to_string(), "(_4,_3):(_3,_1)");
    /// assert_eq!(
    ///     Layout::new(tup![s(4), s(3)], tup![s(1)]).unwrap_err().to_string(),
    ///     "make_layout: shape (_4,_3) and stride (_1) are not congruent (rank mismatch)"
    /// );
    /// assert_eq!(
    ///     Layout::new(tup![s(-4), s(3)], tup![s(1), s(4)]).unwrap_err().to_string(),
    ///     "make_layout: negative size _-4 in shape (_-4,_3)"
    /// );
    /// ```
    pub fn new(shape: impl Into<IntTuple>, stride: impl Into<IntTuple>) -> Result<Layout> {
        let (shape, stride) = (shape.into(), stride.into());
        if !shape.congruent(&stride) {
            return Err(algebra(
                "make_layout",
                format!("shape {shape} and stride {stride} are not congruent (rank mismatch)"),
            ));
        }
        check_sizes("make_layout", &shape)?;
        Ok(Layout { shape, stride })
    }

    /// `make_layout(shape, stride)` as C++ CuTe takes it: congruent, any sizes (C++ prints
    /// `(_3,_-4):(_3,_4)`; the typed constructor [`Layout::new`] refuses the negative size as the
    /// macros do). The expression language builds its layouts here.
    pub(crate) fn congruent(shape: IntTuple, stride: IntTuple) -> Result<Layout> {
        if !shape.congruent(&stride) {
            return Err(algebra(
                "make_layout",
                format!("shape {shape} and stride {stride} are not congruent (rank mismatch)"),
            ));
        }
        Ok(Layout { shape, stride })
    }

    /// Builds a layout whose congruence the caller has established.
    pub(crate) fn raw(shape: IntTuple, stride: IntTuple) -> Layout {
        debug_assert!(shape.congruent(&stride), "{shape} vs {stride}");
        Layout { shape, stride }
    }

    /// `Layout<_1,_0>{}`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// // print(make_layout(_1{}))
    /// assert_eq!(Layout::trivial().to_string(), "_1:_0");
    /// assert_eq!(Layout::col_major(&IntTuple::st(1))?, Layout::trivial());
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn trivial() -> Layout {
        Layout::raw(IntTuple::st(1), IntTuple::st(0))
    }

    /// `make_layout(L0, L1, ...)`: concatenates layouts as modes (one layout gives a rank-1 layout).
    ///
    /// ```
    /// # use cute_layout::*;
    /// let a = Layout::new(tup![s(8), s(4)], tup![s(4), s(1)])?; // (_8,_4):(_4,_1)
    /// // print(make_layout(a))
    /// assert_eq!(Layout::from_modes(vec![a.clone()]).to_string(), "((_8,_4)):((_4,_1))");
    /// assert_eq!(Layout::from_modes(a.modes()), a);
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn from_modes(modes: Vec<Layout>) -> Layout {
        let (shape, stride) = modes.into_iter().map(|l| (l.shape, l.stride)).unzip();
        Layout::raw(IntTuple::Tuple(shape), IntTuple::Tuple(stride))
    }

    /// `shape(L)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::new(tup![s(2), tup![s(3), s(4)]], tup![s(1), tup![s(2), s(6)]])?;
    /// assert_eq!(l.shape().to_string(), "(_2,(_3,_4))");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn shape(&self) -> &IntTuple {
        &self.shape
    }

    /// `stride(L)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::new(tup![s(2), tup![s(3), s(4)]], tup![s(1), tup![s(2), s(6)]])?;
    /// assert_eq!(l.stride().to_string(), "(_1,(_2,_6))");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn stride(&self) -> &IntTuple {
        &self.stride
    }

    /// `rank(L)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::new(tup![s(2), tup![s(3), s(4)]], tup![s(1), tup![s(2), s(6)]])?;
    /// assert_eq!(l.rank(), 2); // C++ prints _2
    /// assert_eq!(Layout::new(d(8), d(1))?.rank(), 1); // rank(8:1) is _1
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn rank(&self) -> usize {
        self.shape.rank()
    }

    /// `depth(L)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::new(tup![s(2), tup![s(3), s(4)]], tup![s(1), tup![s(2), s(6)]])?;
    /// assert_eq!(l.depth(), 2); // C++ prints _2
    /// assert_eq!(Layout::new(d(8), d(1))?.depth(), 0); // depth(8:1) is _0
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn depth(&self) -> usize {
        self.shape.depth()
    }

    /// `size(L)`: the size of the domain.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::new(tup![d(8), tup![s(3), d(4)]], tup![s(1), tup![d(8), d(24)]])?;
    /// assert_eq!(l.size()?.to_string(), "96"); // (8,(_3,4)):(_1,(8,24))
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn size(&self) -> Result<Int> {
        self.shape.product()
    }

    /// `cosize(L)`: one past the largest offset, `sum((s_i - 1) * |d_i|) + 1`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::new(tup![s(4), s(2)], tup![s(2), s(1)])?;
    /// assert_eq!(l.cosize()?.to_string(), "_8"); // (_4,_2):(_2,_1)
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn cosize(&self) -> Result<Int> {
        let m1 = self.shape.map_leaves(&mut |x| x.sub(&s(1)))?;
        let abs = self.stride.map_leaves(&mut |x| x.abs())?;
        inner_product(&m1, &abs)?.add(&s(1))
    }

    /// The modes as layouts (an integer-shaped layout is its own single mode).
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::new(tup![s(2), tup![s(3), s(4)]], tup![s(1), tup![s(2), s(6)]])?;
    /// let modes: Vec<String> = l.modes().iter().map(Layout::to_string).collect();
    /// assert_eq!(modes, ["_2:_1", "(_3,_4):(_2,_6)"]); // get<0>(l), get<1>(l)
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn modes(&self) -> Vec<Layout> {
        self.shape
            .modes()
            .into_iter()
            .zip(self.stride.modes())
            .map(|(a, b)| Layout::raw(a, b))
            .collect()
    }

    /// `get<i>(L)` / `layout<i>(L)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::new(tup![s(2), tup![s(3), s(4)]], tup![s(1), tup![s(2), s(6)]])?;
    /// assert_eq!(l.mode(1)?.to_string(), "(_3,_4):(_2,_6)"); // layout<1>(l)
    /// assert!(l.mode(2).is_err());
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn mode(&self, i: usize) -> Result<Layout> {
        match (self.shape.get(i), self.stride.get(i)) {
            (Some(a), Some(b)) => Ok(Layout::raw(a.clone(), b.clone())),
            _ => Err(algebra(
                "get",
                format!(
                    "mode {i} out of range for rank-{} layout {self}",
                    self.rank()
                ),
            )),
        }
    }

    /// `get<I0,I1,...>(L)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::new(tup![s(2), tup![s(3), s(4)]], tup![s(1), tup![s(2), s(6)]])?;
    /// assert_eq!(l.get(&[1, 0])?.to_string(), "_3:_2"); // get<1,0>(l)
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn get(&self, path: &[usize]) -> Result<Layout> {
        path.iter().try_fold(self.clone(), |l, &i| l.mode(i))
    }

    /// `select<I...>(L)`: a layout of the chosen modes, in the given order.
    ///
    /// ```
    /// # use cute_layout::*;
    /// // (_2,_3,4):(_1,_2,6)
    /// let l = Layout::new(tup![s(2), s(3), d(4)], tup![s(1), s(2), d(6)])?;
    /// assert_eq!(l.select(&[2, 0])?.to_string(), "(4,_2):(6,_1)"); // select<2,0>(l)
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn select(&self, idx: &[usize]) -> Result<Layout> {
        Ok(Layout::from_modes(
            idx.iter().map(|&i| self.mode(i)).collect::<Result<_>>()?,
        ))
    }

    /// `take<B,E>(L)`: modes `[b, e)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// // (_2,_3,4):(_1,_2,6)
    /// let l = Layout::new(tup![s(2), s(3), d(4)], tup![s(1), s(2), d(6)])?;
    /// assert_eq!(l.take(1, 3)?.to_string(), "(_3,4):(_2,6)"); // take<1,3>(l)
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn take(&self, b: usize, e: usize) -> Result<Layout> {
        if b >= e || e > self.rank() {
            return Err(algebra(
                "take",
                format!(
                    "range [{b},{e}) is empty or out of bounds for rank {}",
                    self.rank()
                ),
            ));
        }
        self.select(&(b..e).collect::<Vec<_>>())
    }

    /// `flatten(L)`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::new(
    ///     tup![s(2), tup![s(3), tup![s(4), d(5)]]],
    ///     tup![s(1), tup![s(2), tup![s(6), d(24)]]],
    /// )?; // (_2,(_3,(_4,5))):(_1,(_2,(_6,24)))
    /// assert_eq!(l.flatten().to_string(), "(_2,_3,_4,5):(_1,_2,_6,24)");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn flatten(&self) -> Layout {
        Layout::raw(self.shape.flatten(), self.stride.flatten())
    }

    /// `append<n>(L, x)`: pads with `x` (default `_1:_0`) up to rank `n`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::new(tup![s(4), s(2)], tup![s(1), s(4)])?; // (_4,_2):(_1,_4)
    /// let padded = l.append_to(3, &Layout::trivial()); // append<3>(l, Layout<_1,_0>{})
    /// assert_eq!(padded, Layout::new(tup![s(4), s(2), s(1)], tup![s(1), s(4), s(0)])?);
    /// assert_eq!(l.append_to(2, &Layout::trivial()), l);
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn append_to(&self, n: usize, x: &Layout) -> Layout {
        Layout::raw(
            crate::int_tuple::append_to(&self.shape, n, &x.shape),
            crate::int_tuple::append_to(&self.stride, n, &x.stride),
        )
    }

    /// `make_layout(shape, LayoutLeft{})` / `make_layout(shape, LayoutRight{})`: compact
    /// column-major or row-major; static `_1` modes get stride `_0`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::compact(&tup![s(4), tup![s(2), s(3)]], Major::Left)?;
    /// assert_eq!(l.to_string(), "(_4,(_2,_3)):(_1,(_4,_8))");
    /// assert_eq!(Layout::compact(&tup![d(4), d(3)], Major::Left)?.to_string(), "(4,3):(_1,4)");
    /// let r = Layout::compact(&tup![s(4), s(3)], Major::Right)?; // LayoutRight
    /// assert_eq!(r.to_string(), "(_4,_3):(_3,_1)");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn compact(shape: &IntTuple, major: Major) -> Result<Layout> {
        check_sizes("make_layout", shape)?;
        Ok(Layout::raw(
            shape.clone(),
            compact_major(major, shape, &s(1))?,
        ))
    }

    /// `make_layout(shape)`, column-major.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::col_major(&tup![d(4), s(3), d(2)])?; // make_layout(make_shape(4, _3{}, 2))
    /// assert_eq!(l.to_string(), "(4,_3,2):(_1,4,12)");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn col_major(shape: &IntTuple) -> Result<Layout> {
        Layout::compact(shape, Major::Left)
    }

    /// `make_ordered_layout(shape, order)`: compact, strides increasing in the order given.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let shape = tup![s(2), s(2), s(2), s(2)];
    /// let l = Layout::ordered(&shape, &tup![s(0), s(2), s(3), s(1)])?;
    /// assert_eq!(l.to_string(), "(_2,_2,_2,_2):(_1,_4,_8,_2)");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn ordered(shape: &IntTuple, order: &IntTuple) -> Result<Layout> {
        Layout::new(shape.clone(), compact_order(shape, order)?)
    }

    /// `make_layout_like(L)`: compact, with the mode order of L's strides; static `_0` strides kept.
    ///
    /// ```
    /// # use cute_layout::*;
    /// let l = Layout::new(tup![s(2), s(2), s(2), s(2)], tup![s(0), s(2), s(4), s(1)])?;
    /// assert_eq!(l.layout_like()?.to_string(), "(_2,_2,_2,_2):(_0,_2,_4,_1)");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn layout_like(&self) -> Result<Layout> {
        let shape = crate::int_tuple::filter_zeros(&self.stride, &self.shape)?;
        Ok(Layout::raw(
            self.shape.clone(),
            compact_order(&shape, &self.stride)?,
        ))
    }

    /// `make_fragment_like(L)`: mode 0 compact column-major (static `_0` strides kept), the other
    /// modes ordered like L, when L is static of rank > 1; otherwise `make_layout(shape(L))`.
    ///
    /// ```
    /// # use cute_layout::*;
    /// // (CPY,CPY_M,CPY_K) -> smem offset: ((_4,_1),_2,_4):((_1,_0),_1024,_4)
    /// let l = Layout::new(
    ///     tup![tup![s(4), s(1)], s(2), s(4)],
    ///     tup![tup![s(1), s(0)], s(1024), s(4)],
    /// )?;
    /// assert_eq!(l.fragment_like()?.to_string(), "((_4,_1),_2,_4):((_1,_0),_16,_4)");
    /// # Ok::<(), cute_layout::Error>(())
    /// ```
    pub fn fragment_like(&self) -> Result<Layout> {
        let r = self.rank();
        if r <= 1 || !self.shape.is_static() {
            return Layout::col_major(&self.shape);
        }
        let m0 = self.mode(0)?;
        let s0 = crate::int_tuple::filter_zeros(&m0.stride, &m0.shape)?;
        let atom = Layout::raw(m0.shape.clone(), compact_major(Major::Left, &s0, &s(1))?);
        let rest = self.take(1, r)?;
        let rest = Layout::ordered(&rest.shape, &rest.stride)?;
        crate::product::tiled_product(&atom, &crate::tiler::Tiler::Layout(rest))
    }
}

/// What the `shape!` and `layout!` macros refuse in a shape: a negative static size.
/// The most modes (leaves) an operation builds in one layout: beyond it an operation fails
/// naming the bound instead of exhausting memory (26 nested compositions of `(4,4):(1,4)` by
/// `(_2,_2):(_1,_2)` would double the rank 26 times: dynamic extents of 1 are not dropped, as in
/// C++ CuTe).
pub const MAX_MODES: usize = 1 << 16;

fn check_sizes(op: &'static str, shape: &IntTuple) -> Result<()> {
    match shape
        .leaves()
        .into_iter()
        .find(|i| i.as_static().is_some_and(|x| x < 0))
    {
        Some(neg) => Err(algebra(op, format!("negative size {neg} in shape {shape}"))),
        None => Ok(()),
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.shape, self.stride)
    }
}
