//! The named plans of the seed kernels, reachable by name (`cute emit NAME`).

use cute_layout::{s, tup, Layout};

use crate::error::{CodegenError, Result};
use crate::gemm::{Epilogue, GemmLayout, GemmPlan, Policy};

/// The names, in the order `cute emit --list` prints them.
pub const NAMES: &[&str] = &["naive-rows", "naive-cols", "tiled-16", "tiled-32"];

/// The plan called `name` for a layout.
pub fn plan(name: &str, layout: GemmLayout) -> Result<GemmPlan> {
    let col = |m: i64, n: i64, sm: i64, sn: i64| {
        Layout::new(tup![s(m), s(n)], tup![s(sm), s(sn)]).map_err(|source| CodegenError::Layout {
            plan: name.to_string(),
            part: "thread layout",
            source,
        })
    };
    let policy = match name {
        // Consecutive threads take consecutive columns (n): C stores are strided.
        "naive-rows" => Policy::Naive { tile: (8, 32), thr: col(8, 32, 32, 1)? },
        // Consecutive threads take consecutive rows (m): C (column-major) stores coalesce.
        "naive-cols" => Policy::Naive { tile: (32, 8), thr: col(32, 8, 1, 32)? },
        "tiled-16" => Policy::SmemTiled { tile: 16 },
        "tiled-32" => Policy::SmemTiled { tile: 32 },
        _ => return Err(CodegenError::Unknown(name.to_string())),
    };
    Ok(GemmPlan { name: name.to_string(), layout, policy, epilogue: Epilogue::linear() })
}
