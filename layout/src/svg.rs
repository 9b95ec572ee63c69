//! Pictures of layouts as SVG: grids of cells whose label and colour are functions of the
//! coordinate. `draw_layout` shows offsets (or shared-memory banks); the TiledCopy / TiledMMA
//! pictures (`atom::draw`) place several [`Panel`]s with thread/value labels.

use std::fmt::Write;

use crate::composed::AnyLayout;
use crate::error::{algebra, Result};
use crate::print_layout::{cell, grid_size};

/// One cell of a picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// The main text (`17`, `T5`).
    pub label: String,
    /// A second, smaller line (`b17`, `V2`), if any.
    pub sublabel: Option<String>,
    /// The fill colour, as an SVG colour (`#a0c4ff`, `hsl(...)`).
    pub fill: String,
    /// Whether the cell is marked (drawn with a thick red border: a bank conflict).
    pub marked: bool,
}

const CELL_W: i64 = 44;
const CELL_H: i64 = 30;
const MARGIN: i64 = 36;
const TITLE_H: i64 = 28;

/// A grid of cells placed on a picture, `row`/`col` cells from the top-left corner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Panel {
    /// The text above the grid (`S`, `A`, ...), empty for none.
    pub caption: String,
    /// The cell row of the panel's top-left corner.
    pub row: i64,
    /// The cell column of the panel's top-left corner.
    pub col: i64,
    /// Rows.
    pub rows: i64,
    /// Columns.
    pub cols: i64,
    /// The cells, row by row.
    pub cells: Vec<Cell>,
}

impl Panel {
    /// A panel whose cell `(m, n)` is `cell_at(m, n)`.
    pub fn new(
        caption: &str,
        (row, col): (i64, i64),
        (rows, cols): (i64, i64),
        mut cell_at: impl FnMut(i64, i64) -> Result<Cell>,
    ) -> Result<Panel> {
        let n = rows
            .checked_mul(cols)
            .filter(|&n| (0..=crate::MAX_CELLS).contains(&n));
        let Some(n) = n else {
            return Err(crate::error::algebra(
                "draw",
                format!(
                    "a {rows}x{cols} panel: extents must be positive and at most {} cells",
                    crate::MAX_CELLS
                ),
            ));
        };
        let mut cells = Vec::with_capacity(n as usize);
        for m in 0..rows {
            for n in 0..cols {
                cells.push(cell_at(m, n)?);
            }
        }
        Ok(Panel {
            caption: caption.to_string(),
            row,
            col,
            rows,
            cols,
            cells,
        })
    }
}

/// An SVG grid of `rows x cols` cells with row and column indices and a title.
pub fn grid_svg(
    title: &str,
    rows: i64,
    cols: i64,
    cell_at: impl FnMut(i64, i64) -> Result<Cell>,
) -> Result<String> {
    Ok(panels_svg(
        title,
        &[Panel::new("", (0, 0), (rows, cols), cell_at)?],
    ))
}

/// An SVG picture of several panels (each with its row and column indices) under a title.
pub fn panels_svg(title: &str, panels: &[Panel]) -> String {
    // Monospace at 13px is about 8px a character; the title must fit.
    let title_w = 8 + 8 * title.chars().count() as i64;
    let right = panels
        .iter()
        .map(|p| p.col.saturating_add(p.cols))
        .max()
        .unwrap_or(0);
    let bottom = panels
        .iter()
        .map(|p| p.row.saturating_add(p.rows))
        .max()
        .unwrap_or(0);
    let width = right
        .saturating_mul(CELL_W)
        .saturating_add(MARGIN + 8)
        .max(title_w);
    let height = bottom
        .saturating_mul(CELL_H)
        .saturating_add(TITLE_H + MARGIN + 8);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace">"#
    );
    let _ = writeln!(
        s,
        r#"<rect width="{width}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="4" y="18" font-size="13">{}</text>"#,
        escape(title)
    );
    // a panel built by hand with a position or extent beyond any picture is left out
    for p in panels.iter().filter(|p| {
        [p.row, p.col, p.rows, p.cols]
            .iter()
            .all(|v| (0..=1 << 20).contains(v))
    }) {
        write_panel(&mut s, p);
    }
    s.push_str("</svg>\n");
    s
}

fn write_panel(s: &mut String, p: &Panel) {
    let (x0, y0) = (MARGIN + p.col * CELL_W, TITLE_H + MARGIN + p.row * CELL_H);
    if !p.caption.is_empty() {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" font-size="13" font-weight="bold">{}</text>"#,
            x0 - 30,
            y0 - 18,
            escape(&p.caption)
        );
    }
    for n in 0..p.cols {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" font-size="11" text-anchor="middle" fill="gray">{n}</text>"#,
            x0 + n * CELL_W + CELL_W / 2,
            y0 - 8
        );
    }
    for m in 0..p.rows {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" font-size="11" text-anchor="end" fill="gray">{m}</text>"#,
            x0 - 6,
            y0 + m * CELL_H + CELL_H / 2 + 4
        );
        for n in 0..p.cols {
            // a panel built by hand may have fewer cells than its extents say
            let Some(c) = usize::try_from(m * p.cols + n)
                .ok()
                .and_then(|i| p.cells.get(i))
            else {
                continue;
            };
            write_cell(s, x0 + n * CELL_W, y0 + m * CELL_H, c);
        }
    }
}

fn write_cell(s: &mut String, x: i64, y: i64, c: &Cell) {
    let (stroke, width) = if c.marked { ("red", 3) } else { ("black", 1) };
    let _ = writeln!(
        s,
        r#"<rect x="{x}" y="{y}" width="{CELL_W}" height="{CELL_H}" fill="{}" stroke="{stroke}" stroke-width="{width}"/>"#,
        c.fill
    );
    let cx = x + CELL_W / 2;
    match &c.sublabel {
        None => {
            let _ = writeln!(
                s,
                r#"<text x="{cx}" y="{}" font-size="12" text-anchor="middle">{}</text>"#,
                y + CELL_H / 2 + 4,
                escape(&c.label)
            );
        }
        Some(sub) => {
            let _ = writeln!(
                s,
                r#"<text x="{cx}" y="{}" font-size="12" text-anchor="middle">{}</text>"#,
                y + 13,
                escape(&c.label)
            );
            let _ = writeln!(
                s,
                r#"<text x="{cx}" y="{}" font-size="9" text-anchor="middle" fill="dimgray">{}</text>"#,
                y + 25,
                escape(sub)
            );
        }
    }
}

/// A palette of `n` distinguishable light colours; colour `i` of it.
pub fn palette(i: i64, n: i64) -> String {
    let n = n.max(1);
    let k = i.rem_euclid(n);
    // Spread hues with a stride coprime to n so neighbours differ strongly.
    let step = if n % 7 == 0 { 5 } else { 7 };
    let hue = (i128::from(k) * i128::from(step) % i128::from(n) * 360 / i128::from(n)) as i64;
    let light = if k % 2 == 0 { 82 } else { 70 };
    format!("hsl({hue},70%,{light}%)")
}

/// What a layout picture shows in each cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shading {
    /// The offset, cells shaded by `offset % 8` (as CuTe's `print_latex`).
    Offsets,
    /// The offset and its 32-bit shared-memory bank for elements of `bits` bits, coloured by bank.
    Banks { bits: i64 },
}

/// `cute draw`: the grid of a rank-2 layout's offsets, or of their banks.
pub fn draw_layout(l: &AnyLayout, shading: Shading) -> Result<String> {
    let (rows, cols) = grid_size("draw", l)?;
    if let Shading::Banks { bits } = shading {
        if !matches!(bits, 8 | 16 | 32 | 64 | 128) {
            return Err(algebra(
                "draw",
                format!("element width {bits} bits is not 8, 16, 32, 64 or 128"),
            ));
        }
    }
    let title = match shading {
        Shading::Offsets => format!("{l}"),
        Shading::Banks { bits } => format!("{l}   (banks of {bits}-bit elements)"),
    };
    grid_svg(&title, rows, cols, |m, n| {
        let off = cell(l, m, n)?;
        Ok(match shading {
            Shading::Offsets => Cell {
                label: off.to_string(),
                sublabel: None,
                fill: GRAYS[off.rem_euclid(8) as usize].to_string(),
                marked: false,
            },
            Shading::Banks { bits } => {
                // in i128: an offset near i64's range must not overflow
                let bank = (i128::from(off) * i128::from(bits) / 32).rem_euclid(32) as i64;
                Cell {
                    label: off.to_string(),
                    sublabel: Some(format!("b{bank}")),
                    fill: palette(bank, 32),
                    marked: false,
                }
            }
        })
    })
}

/// CuTe's `TikzColor_BWx8` shades.
const GRAYS: [&str; 8] = [
    "#ffffff", "#e6e6e6", "#cccccc", "#b3b3b3", "#999999", "#808080", "#666666", "#4d4d4d",
];

fn escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `cute draw --access`: an access pattern (mode 0 = threads) as instructions x the 32 threads of
/// warp `warp`, each cell its offset and bank, coloured by bank, conflicting accesses marked red.
pub fn draw_access(pattern: &AnyLayout, bits: i64, warp: usize) -> Result<String> {
    let cells = crate::access::bank_cells(pattern, bits, warp, 64)?;
    let rows = cells.len() as i64;
    let cols = cells.first().map_or(0, |r| r.len() as i64);
    let title = format!("{pattern}   (warp {warp}, {bits}-bit accesses; rows: instructions, columns: threads; red: bank conflict)");
    grid_svg(&title, rows, cols, |m, n| {
        let c = cells[m as usize][n as usize];
        Ok(Cell {
            label: c.offset.to_string(),
            sublabel: Some(format!("b{}", c.bank)),
            fill: palette(c.bank, 32),
            marked: c.conflict,
        })
    })
}
