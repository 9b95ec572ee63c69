//! Pictures of TiledCopy and TiledMMA: which thread and value owns each element of the tile
//! (`T5 V2`, coloured by thread), as CuTe's `print_latex` / `print_svg` show them, without TeX.

use super::{TiledCopy, TiledMma};
use crate::error::{algebra, Result};
use crate::layout::Layout;
use crate::print_layout::MAX_CELLS;
use crate::svg::{palette, panels_svg, Cell, Panel};

/// The owner `(thread, value)` of each element of a `rows x cols` column-major tile under a
/// (thread, value) -> index layout; the first owner wins, as in CuTe's pictures.
fn owners(tv: &Layout, rows: i64, cols: i64) -> Result<Vec<Option<(i64, i64)>>> {
    if rows <= 0 || cols <= 0 {
        return Err(algebra(
            "draw",
            format!("a {rows}x{cols} tile: extents must be positive"),
        ));
    }
    if rows.saturating_mul(cols) > MAX_CELLS {
        return Err(algebra(
            "draw",
            format!("a {rows}x{cols} tile has more than {MAX_CELLS} cells"),
        ));
    }
    let known =
        |x: Option<i64>| x.ok_or_else(|| algebra("draw", format!("{tv} has symbolic sizes")));
    let threads = known(tv.mode(0)?.size()?.value())?;
    let values = known(tv.mode(1)?.size()?.value())?;
    if threads <= 0 || values <= 0 || threads.saturating_mul(values) > MAX_CELLS * 64 {
        return Err(algebra(
            "draw",
            format!("{tv} has {threads}x{values} (thread, value) pairs, too many to draw"),
        ));
    }
    let mut out = vec![None; (rows * cols) as usize];
    for v in 0..values {
        for t in 0..threads {
            let idx = tv.eval(t + threads * v)?;
            if (0..rows * cols).contains(&idx) && out[idx as usize].is_none() {
                out[idx as usize] = Some((t, v));
            }
        }
    }
    Ok(out)
}

fn owner_cell(owner: Option<(i64, i64)>) -> Cell {
    match owner {
        Some((t, v)) => Cell {
            label: format!("T{t}"),
            sublabel: Some(format!("V{v}")),
            fill: palette(t, 32),
            marked: false,
        },
        None => Cell {
            label: String::new(),
            sublabel: None,
            fill: "white".into(),
            marked: false,
        },
    }
}

/// A panel of a TV layout over a column-major tile; `transpose` draws it as `cols x rows`.
fn tv_panel(
    caption: &str,
    at: (i64, i64),
    tv: &Layout,
    (rows, cols): (i64, i64),
    transpose: bool,
) -> Result<Panel> {
    let own = owners(tv, rows, cols)?;
    let size = if transpose {
        (cols, rows)
    } else {
        (rows, cols)
    };
    Panel::new(caption, at, size, |r, c| {
        let (m, n) = if transpose { (c, r) } else { (r, c) };
        Ok(owner_cell(own[(m + rows * n) as usize]))
    })
}

fn static_size(what: &str, x: crate::Result<crate::Int>) -> Result<i64> {
    x?.value()
        .ok_or_else(|| algebra("draw", format!("{what} is not static")))
}

/// `cute draw` of a TiledCopy: the source (S) and destination (D) tiles side by side.
///
/// ```
/// # use cute_layout::*;
/// # use cute_layout::atom::{copy_op::*, draw::draw_tiled_copy, *};
/// let atom = CopyAtom::of::<UniversalCopy<uint64_t>, f32>().unwrap();
/// let thr = Layout::col_major(&tup![s(4), s(8)]).unwrap();
/// let val = Layout::col_major(&tup![s(2), s(1)]).unwrap();
/// let tc = make_tiled_copy(&atom, &thr, &val).unwrap();
/// // An SVG picture (C++ CuTe's print_svg draws the same ownership with other markup, so there is
/// // no C++ string to compare): every thread labels its cells in both tiles.
/// let svg = draw_tiled_copy(&tc).unwrap();
/// assert!(svg.starts_with("<svg"));
/// assert!(svg.contains(">T31<"));
/// ```
pub fn draw_tiled_copy(tc: &TiledCopy) -> Result<String> {
    let t = tc.tiler();
    if t.rank() != 2 {
        return Err(algebra(
            "draw",
            format!("the TiledCopy's tile {t} is not rank 2"),
        ));
    }
    let rows = static_size("the tile", t.modes()[0].product())?;
    let cols = static_size("the tile", t.modes()[1].product())?;
    let s = tv_panel("S", (1, 0), &tc.get_layout_s_tv()?, (rows, cols), false)?;
    let d = tv_panel(
        "D",
        (1, cols + 2),
        &tc.get_layout_d_tv()?,
        (rows, cols),
        false,
    )?;
    Ok(panels_svg(
        &format!("{} {}", tc.atom(), tc.layout_tv()),
        &[s, d],
    ))
}

/// `cute draw` of a TiledMMA: A (M x K) on the left, B (K x N) on top, C (M x N) below B.
///
/// ```
/// # use cute_layout::*;
/// # use cute_layout::atom::{mma_op::*, draw::draw_tiled_mma, *};
/// let mma = make_tiled_mma(
///     MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
///     &Layout::col_major(&tup![s(1), s(1), s(1)]).unwrap(),
///     &[],
/// )
/// .unwrap();
/// // An SVG of A, B and C (no C++ string to compare, as for draw_tiled_copy).
/// let svg = draw_tiled_mma(&mma).unwrap();
/// assert!(svg.starts_with("<svg"));
/// assert!(svg.contains(">T31<"));
/// ```
pub fn draw_tiled_mma(mma: &TiledMma) -> Result<String> {
    let m = static_size("tile M", mma.tile_size(0))?;
    let n = static_size("tile N", mma.tile_size(1))?;
    let k = static_size("tile K", mma.tile_size(2))?;
    if [m, n, k]
        .iter()
        .any(|&x| !(1..=crate::MAX_CELLS).contains(&x))
    {
        return Err(algebra(
            "draw",
            format!(
                "a {m}x{n}x{k} TiledMMA tile: extents must be positive and small enough to draw"
            ),
        ));
    }
    let a = tv_panel("A", (k + 2, 0), &mma.get_layout_a_tv()?, (m, k), false)?;
    let b = tv_panel("B", (1, k + 2), &mma.get_layout_b_tv()?, (n, k), true)?;
    let c = tv_panel("C", (k + 2, k + 2), &mma.get_layout_c_tv()?, (m, n), false)?;
    Ok(panels_svg(
        &format!("{} {}", mma.atom(), mma.thr_layout_vmnk()),
        &[a, b, c],
    ))
}
