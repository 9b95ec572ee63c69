//! `cute bench NAME... --suite`: each kernel (or the FP32 selector, `sgemm`) over the suite's
//! shapes (`select::SUITE`) beside cuBLAS of its dtype in one run: a table of % of cuBLAS, the
//! geometric mean and the worst shape of each kernel, and an SVG chart of % of cuBLAS by shape.

use std::fmt::Write as _;
use std::process::ExitCode;

use clap::error::ErrorKind;
use cute::codegen::gemm::SplitKMode;
use cute::codegen::select;
use cute::runtime::gemm::Problem;
use cute::runtime::gpu::Gpu;
use cute::runtime::tensor_core;
use cute::runtime::{CudaBlas, RuntimeError};

use super::args::{usage_error, BenchArgs};
use super::gpu::gpu_and_blas;
use super::split_k::{time_pick, tuned_table_of};
use super::text::fail;
use super::usage;
use cute::runtime::tuning::selected;

/// One kernel at one shape, timed beside cuBLAS.
pub struct Row {
    /// The kernel (and its layout): one series of the chart.
    pub series: String,
    pub shape: (i64, i64, i64),
    /// What ran: the kernel and its slices of K, for the selector.
    pub what: String,
    pub ms: f64,
    /// The kernel's TFLOP/s and cuBLAS's.
    pub tflops: (f64, f64),
    /// Timed launch to launch (cuBLAS under 10 µs).
    pub launch_to_launch: bool,
}

impl Row {
    /// The kernel's speed in % of cuBLAS's.
    pub fn percent(&self) -> f64 {
        100.0 * self.tflops.0 / self.tflops.1
    }
}

/// `cute bench NAME... --suite [--chart FILE]`.
pub fn bench(a: &BenchArgs) -> ExitCode {
    if let Some(n) = a.names.iter().find(|n| super::recipe::is_recipe(n)) {
        let msg = format!("--suite times GEMMs; {n} is a recipe");
        return usage(usage_error("bench", ErrorKind::ArgumentConflict, msg));
    }
    if a.split.split_k.is_some() || a.split.stream_k {
        let msg = "--suite takes each kernel as it is (sgemm: the selector's split)";
        return usage(usage_error("bench", ErrorKind::ArgumentConflict, msg));
    }
    let (gpu, blas) = match gpu_and_blas(|why| println!("skipped: {why}")) {
        Ok(Some(x)) => x,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => return fail(e),
    };
    println!("# {} ({}), {}; the suite, each kernel beside cuBLAS of its dtype (SGEMM in CUBLAS_PEDANTIC_MATH for FP32, cublasGemmEx for the tensor cores); CUDA events, warm-up of 3 runs and 10 ms, median of 20; † cuBLAS under 10 µs: both timed launch to launch (100 back-to-back launches an event pair)", gpu.name, gpu.arch, a.plan.target());
    let mut rows = Vec::new();
    let mut failed = 0;
    for name in &a.names {
        match series(a, name, &gpu, &blas, &mut rows) {
            Ok(f) => failed += f,
            Err(e) => return fail(e),
        }
    }
    summary(&rows);
    let svg = chart(&rows, &format!("% of cuBLAS by shape, {}", gpu.name));
    match std::fs::write(&a.chart, svg) {
        Ok(()) => println!("chart: {}", a.chart.display()),
        Err(e) => return fail(format!("cannot write {}: {e}", a.chart.display())),
    }
    if failed > 0 {
        eprintln!("error: {failed} shapes failed (their rows say why)");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Times `name` in each layout over the suite, printing a row each (a shape that fails prints
/// its error in its row and the suite goes on); gives the number that failed.
fn series(
    a: &BenchArgs,
    name: &str,
    gpu: &Gpu,
    blas: &CudaBlas,
    rows: &mut Vec<Row>,
) -> Result<usize, RuntimeError> {
    let dtype = select::selector_dtype(name);
    let tc = super::tensor_core::is_tensor_core(name)
        || super::tensor_core::is_tensor_core_selector(name);
    let layouts = if tc {
        super::tensor_core::layouts(&a.plan)
    } else {
        a.plan.layouts(&cute::codegen::GemmLayout::all()[..1])
    };
    let tc_blas = if tc {
        Some(super::tensor_core::blas(gpu)?)
    } else {
        None
    };
    let tuned = dtype.and_then(|_| tuned_table_of(gpu, true));
    println!(
        "\n| kernel | layout | M x N x K | ran | ms | TFLOP/s | cuBLAS TFLOP/s | % of cuBLAS |"
    );
    println!("|---|---|---|---|---:|---:|---:|---:|");
    let mut failed = 0;
    for layout in layouts {
        for &(m, n, k) in select::SUITE {
            // what runs: the named kernel, or the selector's pick and its slices
            let pick =
                dtype.and_then(|d| selected(d, a.plan.target(), tuned.as_ref(), layout, (m, n, k)));
            let (kernel, splits, mode) = pick
                .map_or((name.to_string(), 1, SplitKMode::None), |c| {
                    (c.name, c.splits, c.mode)
                });
            // the slices made (K may cut into fewer than asked)
            let mark = mode.mark();
            let ran = |suffix: String, made: i64| match dtype {
                Some(_) => format!("{kernel}{suffix} / {made}{mark}"),
                None => format!("{kernel}{suffix}"),
            };
            let row = match &tc_blas {
                Some(b) => a
                    .plan
                    .plan(&kernel, layout)
                    .map_err(RuntimeError::from)
                    .and_then(|plan| {
                        let (t, made) = if splits > 1 {
                            let split = (splits, mode);
                            tensor_core::bench_split(gpu, b, &plan, (m, n, k), 20, split)?
                        } else {
                            (tensor_core::bench(gpu, b, &plan, (m, n, k), 20)?, 1)
                        };
                        let what = ran(super::tensor_core::out_suffix(&plan), made);
                        Ok((what, t.kernel_ms, t.tflops(), t.launch_to_launch))
                    }),
                None => Problem::new(m, n, k, layout, 1.0, 0.0).and_then(|q| {
                    let plan = a.plan.plan(&kernel, layout)?;
                    let (t, made) = time_pick(gpu, blas, plan, &q, (splits, mode), 20)?;
                    Ok((
                        ran(String::new(), made),
                        t.kernel_ms,
                        t.tflops(&q),
                        t.launch_to_launch,
                    ))
                }),
            };
            let series = format!("{name} {layout}");
            match row {
                Ok((what, ms, tflops, launch_to_launch)) => {
                    let r = Row {
                        series,
                        shape: (m, n, k),
                        what,
                        ms,
                        tflops,
                        launch_to_launch,
                    };
                    print_row(&r);
                    rows.push(r);
                }
                Err(e) => {
                    failed += 1;
                    let e = super::text::lines(&e.to_string()).replace('\n', " ");
                    println!("| {name} | {layout} | {m} x {n} x {k} | error: {e} | | | | |");
                }
            }
        }
    }
    Ok(failed)
}

fn print_row(r: &Row) {
    let (m, n, k) = r.shape;
    let (name, layout) = r.series.split_once(' ').unwrap_or((&r.series, ""));
    let mark = if r.launch_to_launch { " †" } else { "" };
    println!(
        "| {name} | {layout} | {m} x {n} x {k} | {} | {:.4}{mark} | {:.2} | {:.2} | {:.1}% |",
        r.what,
        r.ms,
        r.tflops.0,
        r.tflops.1,
        r.percent()
    );
}

/// Per series: the geometric mean of % of cuBLAS over its shapes and its worst shape.
fn summary(rows: &[Row]) {
    println!("\n| kernel | shapes | geometric mean, % of cuBLAS | worst shape | its % |");
    println!("|---|---:|---:|---|---:|");
    for s in series_names(rows) {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.series == s).collect();
        let geo = (mine.iter().map(|r| r.percent().ln()).sum::<f64>() / mine.len() as f64).exp();
        if let Some(w) = mine
            .iter()
            .min_by(|x, y| x.percent().total_cmp(&y.percent()))
        {
            let (m, n, k) = w.shape;
            println!(
                "| {s} | {} | {geo:.1}% | {m} x {n} x {k} | {:.1}% |",
                mine.len(),
                w.percent()
            );
        }
    }
}

/// The series in the order they first appear.
fn series_names(rows: &[Row]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for r in rows {
        if !out.contains(&r.series.as_str()) {
            out.push(&r.series);
        }
    }
    out
}

/// The shapes in the order they first appear.
fn shapes(rows: &[Row]) -> Vec<(i64, i64, i64)> {
    let mut out = Vec::new();
    for r in rows {
        if !out.contains(&r.shape) {
            out.push(r.shape);
        }
    }
    out
}

/// Colours of the series, in turn.
const COLOURS: &[&str] = &[
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#edc948", "#9c755f",
];

/// An SVG bar chart of % of cuBLAS: a group of bars per shape, one bar per series, dashed lines
/// at 90% and 100%, the shapes written under their groups, a legend.
pub fn chart(rows: &[Row], title: &str) -> String {
    let names = series_names(rows);
    let shapes = shapes(rows);
    let (bar, gap, left, top, plot_h, bottom) = (12.0, 14.0, 56.0, 40.0, 300.0, 110.0);
    let group = bar * names.len().max(1) as f64 + gap;
    let width = left + group * shapes.len().max(1) as f64 + 20.0;
    let legend_h = 18.0 * names.len() as f64;
    let height = top + plot_h + bottom + legend_h;
    let top_pct = rows
        .iter()
        .map(Row::percent)
        .filter(|p| p.is_finite())
        .fold(120.0_f64, f64::max)
        .min(1000.0);
    let y = |pct: f64| {
        let pct = if pct.is_finite() {
            pct.clamp(0.0, top_pct)
        } else {
            0.0
        };
        top + plot_h * (1.0 - pct / top_pct)
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        s,
        r#"<rect width="100%" height="100%" fill="white"/><text x="{left}" y="22" font-size="14">{}</text>"#,
        escape(title)
    );
    for pct in (0..=top_pct as i64).step_by(25) {
        let py = y(pct as f64);
        let _ = writeln!(
            s,
            r##"<line x1="{left}" x2="{:.1}" y1="{py:.1}" y2="{py:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{pct}%</text>"##,
            width - 20.0,
            left - 4.0,
            py + 4.0
        );
    }
    for (pct, colour) in [(90.0, "#e15759"), (100.0, "#333")] {
        let py = y(pct);
        let _ = writeln!(
            s,
            r#"<line x1="{left}" x2="{:.1}" y1="{py:.1}" y2="{py:.1}" stroke="{colour}" stroke-dasharray="5,3"/>"#,
            width - 20.0
        );
    }
    for (i, shape) in shapes.iter().enumerate() {
        let x0 = left + group * i as f64 + gap / 2.0;
        for (j, name) in names.iter().enumerate() {
            let Some(r) = rows.iter().find(|r| r.series == *name && r.shape == *shape) else {
                continue;
            };
            let (x, py) = (x0 + bar * j as f64, y(r.percent()));
            let _ = writeln!(
                s,
                r#"<rect x="{x:.1}" y="{py:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{} {}x{}x{}: {:.1}%</title></rect>"#,
                bar - 1.0,
                top + plot_h - py,
                COLOURS[j % COLOURS.len()],
                escape(name),
                shape.0,
                shape.1,
                shape.2,
                r.percent()
            );
        }
        let (lx, ly) = (x0 + group / 2.0 - gap / 2.0, top + plot_h + 8.0);
        let _ = writeln!(
            s,
            r#"<text x="{lx:.1}" y="{ly:.1}" transform="rotate(60 {lx:.1} {ly:.1})">{}x{}x{}</text>"#,
            shape.0, shape.1, shape.2
        );
    }
    for (j, name) in names.iter().enumerate() {
        let ly = top + plot_h + bottom + 18.0 * j as f64;
        let _ = writeln!(
            s,
            r#"<rect x="{left}" y="{:.1}" width="12" height="12" fill="{}"/><text x="{:.1}" y="{ly:.1}">{}</text>"#,
            ly - 10.0,
            COLOURS[j % COLOURS.len()],
            left + 18.0,
            escape(name)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(series: &str, shape: (i64, i64, i64), pct: f64) -> Row {
        Row {
            series: series.into(),
            shape,
            what: series.into(),
            ms: 1.0,
            tflops: (pct, 100.0),
            launch_to_launch: false,
        }
    }

    #[test]
    fn the_chart_has_a_bar_per_row_and_a_legend_per_series() {
        let rows = [
            row("sgemm NN", (1, 4096, 4096), 80.0),
            row("sgemm NN", (4096, 4096, 4096), 101.0),
            row("bgemm-sm90 <TN>", (1, 4096, 4096), 250.0),
        ];
        let svg = chart(&rows, "a & b");
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<title>").count(), 3);
        assert!(svg.contains("<title>sgemm NN 1x4096x4096: 80.0%</title>"));
        assert!(svg.contains("bgemm-sm90 &lt;TN&gt;"));
        assert!(svg.contains("a &amp; b"));
        // two shape labels, two legend entries, the 250% bar scales the axis
        assert_eq!(svg.matches("rotate(60").count(), 2);
        assert!(svg.contains(">250%</text>"));
    }

    #[test]
    fn an_empty_or_odd_suite_still_draws() {
        let svg = chart(&[], "none");
        assert!(svg.ends_with("</svg>\n"));
        let odd = [
            row("x NN", (1, 1, 1), f64::NAN),
            row("x NN", (2, 2, 2), 1e9),
        ];
        let svg = chart(&odd, "odd");
        assert!(!svg.contains("NaN\""), "{svg}");
    }
}
