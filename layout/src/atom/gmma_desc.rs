//! The GMMA shared-memory layout atoms (`GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>`)
//! and the matrix descriptor a `wgmma` reads a shared tile through (`make_gmma_desc<Major>`,
//! `GmmaDescriptor`), derived from the tile's layout by the algebra and checked as CuTe checks it.
//!
//! An atom is 8 rows of 16, 32, 64 or 128 contiguous bytes (K-major: rows along M/N, bytes along
//! K; MN-major: the transpose) under `Swizzle<B,4,3>` applied to the byte address
//! (`smem_ptr_flag`): B = 0 (no swizzle, "interleave"), 1, 2 or 3 for 32-, 64- or 128-byte rows.
//! A descriptor names the tile's start address, its swizzle mode and two byte strides between
//! 8-row "core matrix" groups (LBO and SBO), each in 16-byte units in 14 bits.

use std::fmt;

use super::gmma::GmmaMajor;
use crate::composed::{AnyLayout, ComposedLayout};
use crate::error::{algebra, Result};
use crate::int::s;
use crate::layout::Layout;
use crate::numeric::ElemType;
use crate::swizzle::Swizzle;
use crate::tiler::Tiler;
use crate::tup;

/// The swizzle of a GMMA layout atom: the bytes of one of its 8 rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GmmaSwizzle {
    /// `INTER`: 16-byte rows, no swizzle.
    Inter,
    /// `SW32`: 32-byte rows, `Swizzle<1,4,3>`.
    Sw32,
    /// `SW64`: 64-byte rows, `Swizzle<2,4,3>`.
    Sw64,
    /// `SW128`: 128-byte rows, `Swizzle<3,4,3>`.
    Sw128,
}

impl GmmaSwizzle {
    /// `Swizzle<B,4,3>`'s B.
    fn bits(self) -> i64 {
        match self {
            GmmaSwizzle::Inter => 0,
            GmmaSwizzle::Sw32 => 1,
            GmmaSwizzle::Sw64 => 2,
            GmmaSwizzle::Sw128 => 3,
        }
    }

    /// CuTe's name part (`SW128`).
    pub fn name(self) -> &'static str {
        match self {
            GmmaSwizzle::Inter => "INTER",
            GmmaSwizzle::Sw32 => "SW32",
            GmmaSwizzle::Sw64 => "SW64",
            GmmaSwizzle::Sw128 => "SW128",
        }
    }

    /// The descriptor's `layout_type` (SWIZZLE_NONE 0, 128B 1, 64B 2, 32B 3).
    fn layout_type(self) -> u64 {
        match self {
            GmmaSwizzle::Inter => 0,
            GmmaSwizzle::Sw128 => 1,
            GmmaSwizzle::Sw64 => 2,
            GmmaSwizzle::Sw32 => 3,
        }
    }
}

/// `GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>`: in bits `Sw<B,4,3> o smem_ptr_flag o
/// (8, 128*2^B):(128*2^B, 1)` (K-major) or its transpose (MN-major), upcast to `elem`.
///
/// ```
/// # use cute_layout::atom::{gmma_layout_atom, GmmaMajor, GmmaSwizzle};
/// # use cute_layout::ElemType;
/// let a = gmma_layout_atom(GmmaMajor::K, GmmaSwizzle::Sw128, ElemType::F16)?;
/// // print(GMMA::Layout_K_SW128_Atom<half_t>{})
/// assert_eq!(a.to_string(), "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)");
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn gmma_layout_atom(major: GmmaMajor, sw: GmmaSwizzle, elem: ElemType) -> Result<AnyLayout> {
    let bits = i64::from(elem.bits());
    let row_bits = 128 << sw.bits();
    if bits == 0 || row_bits % bits != 0 {
        return Err(algebra(
            "GMMA layout atom",
            format!(
                "{elem}: {bits}-bit elements do not divide a {}-byte row",
                row_bits / 8
            ),
        ));
    }
    let v = row_bits / bits; // values per row
    let inner = match major {
        GmmaMajor::K => Layout::new(tup![s(8), s(v)], tup![s(v), s(1)])?,
        GmmaMajor::MN => Layout::new(tup![s(v), s(8)], tup![s(1), s(v)])?,
    };
    let swz = Swizzle::new(sw.bits(), 4, 3)?;
    Ok(ComposedLayout::smem_ptr_flag(swz, elem.bits(), inner))
}

/// A `wgmma` shared-memory matrix descriptor (`GmmaDescriptor`), its fields as the hardware
/// reads them (addresses and offsets in 16-byte units).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GmmaDescriptor {
    /// Start address >> 4 (14 bits).
    pub start_address: u16,
    /// Leading dimension byte offset >> 4 (14 bits).
    pub leading_byte_offset: u16,
    /// Stride dimension byte offset >> 4 (14 bits).
    pub stride_byte_offset: u16,
    /// Base offset (3 bits; 0 for tiles aligned to their swizzle's repeat).
    pub base_offset: u8,
    /// The swizzle mode.
    pub swizzle: GmmaSwizzle,
}

impl GmmaDescriptor {
    /// The 64-bit value (`desc_`).
    pub fn bits(&self) -> u64 {
        u64::from(self.start_address)
            | u64::from(self.leading_byte_offset) << 16
            | u64::from(self.stride_byte_offset) << 32
            | u64::from(self.base_offset) << 49
            | self.swizzle.layout_type() << 62
    }

    /// C++ CuTe's `print(GmmaDescriptor)`.
    pub fn print(&self) -> String {
        let ty = match self.swizzle {
            GmmaSwizzle::Inter => "INTERLEAVE",
            GmmaSwizzle::Sw32 => "B32",
            GmmaSwizzle::Sw64 => "B64",
            GmmaSwizzle::Sw128 => "B128",
        };
        format!(
            "GmmaDescriptor: 0x{:016x}\n  start_addr :  0x{:04x}\n  leading_off:  0x{:04x} ({})\n  stride_off :  0x{:04x} ({})\n  base_offset:  0x{:01x}\n  layout_type:  0x{:01x} ({ty})\n",
            self.bits(),
            self.start_address,
            self.leading_byte_offset,
            self.leading_byte_offset,
            self.stride_byte_offset,
            self.stride_byte_offset,
            self.base_offset,
            self.swizzle.layout_type(),
        )
    }
}

impl fmt::Display for GmmaDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GmmaDescriptor{{0x{:016x}}}", self.bits())
    }
}

const OP: &str = "make_gmma_desc";

/// `make_gmma_desc<Major>(tensor)`: the descriptor of a rank-2 shared tile of `elem_bits`-bit values whose
/// layout is a GMMA atom tiled (`Sw<B,4,3> o smem_ptr_flag o (MN,K)`), starting `start_bytes`
/// into shared memory. The tile is recast to 16-byte units and divided into CuTe's canonical
/// form, `((8,m),(2,k))` K-major or `((W,m),(8,k))` MN-major (W the swizzle's 16-byte chunks per
/// row); its strides must be the canonical ones and give LBO and SBO. A layout no descriptor
/// expresses is an error naming the failed condition (C++ CuTe's static_asserts, and offsets
/// beyond the descriptor's 14 bits, which C++ truncates).
///
/// ```
/// # use cute_layout::atom::{gmma_layout_atom, make_gmma_desc, GmmaMajor, GmmaSwizzle};
/// # use cute_layout::{composition, tile_to_shape, tup, s, ElemType, Layout, ModeOrder, Major};
/// let atom = gmma_layout_atom(GmmaMajor::K, GmmaSwizzle::Sw128, ElemType::F16)?;
/// let tile = atom.map(|l| tile_to_shape(l, &tup![s(64), s(64)], &ModeOrder::Major(Major::Left)))?;
/// // the (64,16) block of one k16 step: composition(tile, make_layout((_64,_16)))
/// let block = Layout::new(tup![s(64), s(16)], tup![s(1), s(64)])?;
/// let tile = tile.map(|l| composition(l, &block))?;
/// let d = make_gmma_desc(GmmaMajor::K, 16, &tile, 0)?;
/// // 8 rows of 128 bytes between core-matrix groups: SBO 1024 bytes = 64 units
/// assert_eq!((d.leading_byte_offset, d.stride_byte_offset), (1, 64));
/// assert_eq!(d.bits(), 0x4000_0040_0001_0000);
/// # Ok::<(), cute_layout::Error>(())
/// ```
pub fn make_gmma_desc(
    major: GmmaMajor,
    elem_bits: u32,
    layout: &AnyLayout,
    start_bytes: i64,
) -> Result<GmmaDescriptor> {
    let (sw, inner) = match layout {
        AnyLayout::Composed(c) if c.smem_ptr_bits() == Some(elem_bits) => (c.layout_a(), c.layout_b()),
        other => {
            return Err(algebra(
                OP,
                format!("{other}: expected a GMMA layout of {elem_bits}-bit values (Sw<B,4,3> o smem_ptr[{elem_bits}b] o (MN,K)), a GMMA::Layout_*_Atom tiled"),
            ))
        }
    };
    let swizzle = match sw.params() {
        (0, 4, 3) => GmmaSwizzle::Inter,
        (1, 4, 3) => GmmaSwizzle::Sw32,
        (2, 4, 3) => GmmaSwizzle::Sw64,
        (3, 4, 3) => GmmaSwizzle::Sw128,
        _ => {
            return Err(algebra(
                OP,
                format!("{sw}: a descriptor's swizzle is Sw<0..3,4,3> (16-byte chunks of 8 rows)"),
            ))
        }
    };
    if inner.rank() != 2 || !inner.shape().is_static() || !inner.stride().is_static() {
        return Err(algebra(
            OP,
            format!("{inner}: a descriptor describes a static rank-2 (MN,K) tile"),
        ));
    }
    if start_bytes < 0 || start_bytes % 16 != 0 {
        return Err(algebra(
            OP,
            format!("start address {start_bytes}: a descriptor's tile starts on 16 bytes"),
        ));
    }
    let bits = i64::from(elem_bits);
    if bits == 0 || 128 % bits != 0 {
        return Err(algebra(
            OP,
            format!("{bits}-bit elements: a descriptor's elements divide 16 bytes"),
        ));
    }
    let u = crate::upcast(inner, 128 / bits)?; // the tile in 16-byte units
    let w = 1i64 << sw.params().0;
    let (lbo, sbo) = match major {
        GmmaMajor::MN => canonical_mn(&u, swizzle, w, bits)?,
        GmmaMajor::K => canonical_k(&u, swizzle, w)?,
    };
    let field = |what: &str, v: i64| -> Result<u16> {
        u16::try_from(v)
            .ok()
            .filter(|&x| x < 1 << 14)
            .ok_or_else(|| {
                algebra(
                    OP,
                    format!("{what} {v} (16-byte units) does not fit the descriptor's 14 bits"),
                )
            })
    };
    Ok(GmmaDescriptor {
        start_address: field("start address", (start_bytes >> 4) & 0x3fff)?,
        leading_byte_offset: field("leading byte offset", lbo)?,
        stride_byte_offset: field("stride byte offset", sbo)?,
        base_offset: 0,
        swizzle,
    })
}

/// The static stride of mode `(i, j)` of a canonical `((a,b),(c,d))` layout.
fn stride_at(l: &Layout, i: usize, j: usize) -> Result<i64> {
    l.mode(i)?
        .mode(j)?
        .stride()
        .as_int()
        .and_then(|x| x.as_static())
        .ok_or_else(|| algebra(OP, format!("{l}: mode ({i},{j}) is not a static leaf")))
}

/// `logical_divide(u, (t0, t1))`, required to be `((_,_),(_,_))`.
fn canonical(u: &Layout, t0: i64, t1: i64, what: &str) -> Result<Layout> {
    let tile = Tiler::Tuple(vec![
        Tiler::Layout(Layout::new(s(t0), s(1))?),
        Tiler::Layout(Layout::new(s(t1), s(1))?),
    ]);
    let c = crate::logical_divide(u, &tile)?;
    let profile = tup![tup![s(1), s(1)], tup![s(1), s(1)]];
    if !c.shape().congruent(&profile) {
        return Err(algebra(OP, format!("{u} (16-byte units) divides into {c}, not a canonical GMMA {what} layout ((_,_),(_,_))")));
    }
    Ok(c)
}

/// K-major: `((8,m),(2,k))` in 16-byte units; rows W apart, the K chunks 1 apart (swizzled).
fn canonical_k(u: &Layout, swizzle: GmmaSwizzle, w: i64) -> Result<(i64, i64)> {
    let size = |i: usize| {
        u.mode(i)
            .and_then(|m| m.size())
            .ok()
            .and_then(|x| x.as_static())
    };
    if size(0).is_none_or(|n| n % 8 != 0) {
        return Err(algebra(
            OP,
            format!("{u}: a K-major tile's MN size is a multiple of 8 rows"),
        ));
    }
    if !matches!(size(1), Some(2 | 4)) {
        return Err(algebra(
            OP,
            format!("{u}: a K-major tile's K is 32 bytes (2 units; 4 for sparse)"),
        ));
    }
    let c = canonical(u, 8, 2, "K-major")?;
    if stride_at(&c, 0, 0)? != w {
        return Err(algebra(
            OP,
            format!(
                "{c}: rows of a K-major {} tile are {w} units apart",
                swizzle.name()
            ),
        ));
    }
    let s10 = stride_at(&c, 1, 0)?;
    if swizzle != GmmaSwizzle::Inter && s10 != 1 {
        return Err(algebra(
            OP,
            format!("{c}: the K chunks of a swizzled K-major tile are 1 unit apart"),
        ));
    }
    Ok((s10, stride_at(&c, 0, 1)?))
}

/// MN-major: `((W,m),(8,k))` in 16-byte units; K-size 32 bytes' worth of values.
fn canonical_mn(u: &Layout, swizzle: GmmaSwizzle, w: i64, bits: i64) -> Result<(i64, i64)> {
    let k = u
        .mode(1)
        .and_then(|m| m.size())
        .ok()
        .and_then(|x| x.as_static());
    if !matches!(k, Some(k) if k == 256 / bits || k == 128 / bits || k == 512 / bits) {
        return Err(algebra(
            OP,
            format!(
                "{u}: an MN-major tile's K is {} values (32 bytes; 16 or 64 for sparse)",
                256 / bits
            ),
        ));
    }
    let c = canonical(u, w, 8, "MN-major")?;
    if swizzle != GmmaSwizzle::Inter && stride_at(&c, 0, 0)? != 1 {
        return Err(algebra(
            OP,
            format!("{c}: the 16-byte chunks of a swizzled MN-major row are 1 unit apart"),
        ));
    }
    if stride_at(&c, 1, 0)? != w {
        return Err(algebra(
            OP,
            format!(
                "{c}: the 8 K rows of an MN-major {} tile are {w} units apart",
                swizzle.name()
            ),
        ));
    }
    let (s01, s11) = (stride_at(&c, 0, 1)?, stride_at(&c, 1, 1)?);
    Ok(match swizzle {
        GmmaSwizzle::Inter => (s11, s01),
        _ => (s01, s11),
    })
}
