//! `cute run`, `cute check`, `cute bench`: generated kernels compiled, launched, verified against
//! a float64 reference and timed against cuBLAS. Without a GPU (or NVRTC) every step that can run
//! does, and the rest is reported as skipped.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use cute::codegen::cuda::IndexWidth;
use cute::codegen::gemm::Policy;
use cute::codegen::named::{plan, NAMES};
use cute::codegen::{CodegenError, GemmLayout, GemmPlan, Kernel};
use cute::runtime::api::Gemm;
use cute::runtime::bench::bench;
use cute::runtime::cache::{self, Provenance};
use cute::runtime::check::check;
use cute::runtime::gemm::{check_problem, pedantic, Problem};
use cute::runtime::gpu::Gpu;
use cute::runtime::nvrtc::{self, Compiled};
use cute::runtime::{CudaBlas, RuntimeError};

use super::args::{BenchArgs, CheckArgs, PlanOpts, RunArgs};
use super::text::fail;
use super::text::lines;
use super::usage;

/// One kernel of a `check` or `bench` run: planned and emitted before the GPU is looked for, so
/// a plan that cannot be built is an error on any machine.
struct Planned {
    name: String,
    layout: GemmLayout,
    plan: GemmPlan,
    kernel: Kernel,
}

impl Planned {
    /// Compiled for its target (or found in the cache) and loaded.
    fn load<'g>(&self, gpu: &'g Gpu) -> Result<Gemm<'g>, RuntimeError> {
        Gemm::from_kernel(gpu, self.plan.clone(), &self.kernel)
    }
}

/// Every name x layout, planned and emitted.
fn plan_all(
    names: &[String],
    layouts: &[GemmLayout],
    o: &PlanOpts,
    width: IndexWidth,
) -> Result<Vec<Planned>, CodegenError> {
    let mut out = Vec::new();
    for name in names {
        for &layout in layouts {
            let plan = o.plan(name, layout)?;
            let kernel = o.emit(&plan, width)?;
            out.push(Planned {
                name: name.clone(),
                layout,
                plan,
                kernel,
            });
        }
    }
    Ok(out)
}

/// The index width the one size asked for needs in any of the layouts (32-bit without one:
/// the default sizes fit).
fn width_of(one: Option<(i64, i64, i64)>, layouts: &[GemmLayout]) -> IndexWidth {
    let needs = |&(m, n, k): &(i64, i64, i64), l: GemmLayout| {
        Problem::new(m, n, k, l, 1.0, 0.0).map_or(IndexWidth::I32, |p| p.index_width())
    };
    match one {
        Some(size) if layouts.iter().any(|&l| needs(&size, l) == IndexWidth::I64) => {
            IndexWidth::I64
        }
        _ => IndexWidth::I32,
    }
}

/// `  label:` padded so the values line up.
pub(super) fn label(what: &str) -> String {
    format!("  {:<15}", format!("{what}:"))
}

/// The compile step's line: where the cubin came from (compiled, with the time, or which cache)
/// and ptxas's report.
pub fn compile_line(arch: &str, c: &Compiled, p: &Provenance) -> String {
    format!(
        "{}{p}, {} registers, {} bytes spilled",
        label(&format!("NVRTC {arch}")),
        c.registers.map_or("?".into(), |r| r.to_string()),
        c.spill_bytes
            .map_or("? (no ptxas report)".into(), |r| r.to_string())
    )
}

/// The GPU step's line: the device and the loaded function; the cubin's provenance is the one
/// the compile step reported (carried with the cubin, not looked up again).
pub fn gpu_line(device: &str, device_arch: &str, regs: Option<i32>, p: &Provenance) -> String {
    format!(
        "{}{device} ({device_arch}), {} registers per thread (from the loaded function), cubin {p}",
        label("GPU"),
        regs.map_or("?".into(), |r| r.to_string()),
    )
}

/// `cute run NAME [--m M --n N --k K] [--layout L] [--arch A]`: the main job.
pub fn run(a: &RunArgs) -> ExitCode {
    if let Err(e) = a.plan.check("run", &[a.name.as_str()]) {
        return usage(e);
    }
    if a.split.split_k.is_some() {
        if let Err(e) = super::split_k::refuse("run", &[a.name.as_str()]) {
            return usage(e);
        }
    }
    if a.split.stream_k {
        if let Err(e) = super::stream_k::refuse("run", &[a.name.as_str()]) {
            return usage(e);
        }
    }
    if super::recipe::is_recipe(&a.name) {
        let (m, n) = (a.size.m.unwrap_or(8192), a.size.n.unwrap_or(8192));
        return super::recipe::run(&a.name, m, n, a.plan.target());
    }
    if super::tensor_core::is_tensor_core(&a.name) {
        return super::tensor_core::run(a);
    }
    if super::tensor_core::is_tensor_core_selector(&a.name) {
        return super::tensor_core::run_selected(a);
    }
    let layout = match a.plan.one_layout("run") {
        Ok(l) => l,
        Err(e) => return usage(e),
    };
    let (m, n, k) = a.size.one(4096).unwrap_or((4096, 4096, 4096));
    let problem = match Problem::new(m, n, k, layout, 1.0, 0.0) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    println!("{} {layout} M={m} N={n} K={k}", a.name);
    let picked = super::split_k::pick(a, layout, (m, n, k));
    let name = &picked.name;
    if picked.mode == cute::codegen::gemm::SplitKMode::Stream {
        return super::stream_k::run(a, name, layout, &problem);
    }
    if let Some(split) = picked.split {
        return super::split_k::run(a, &picked, split, layout, &problem);
    }
    let t = Instant::now();
    let (gplan, kernel) = match a
        .plan
        .plan(name, layout)
        .and_then(|p| Ok((p.clone(), a.plan.emit(&p, problem.index_width())?)))
    {
        Ok(pk) => pk,
        Err(e) => return fail(e),
    };
    println!(
        "{}{:.2} ms, {} lines of CUDA",
        label("plan + emit"),
        t.elapsed().as_secs_f64() * 1e3,
        kernel.source.lines().count()
    );
    if let Err(e) = check_problem(&kernel, &problem) {
        return fail(e);
    }
    let arch = kernel.target.name();
    let compiled = match compile_step(&kernel, arch) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let Some((gpu, blas)) = (match gpu_for_run() {
        Ok(g) => g,
        Err(e) => return fail(e),
    }) else {
        return ExitCode::SUCCESS;
    };
    let loaded = match compiled {
        Some((c, p)) => gpu.load_compiled(&kernel, c, p),
        None => gpu.load_for(&kernel, arch),
    };
    match loaded.and_then(|l| on_gpu(&gpu, &blas, Gemm::from_loaded(&gpu, gplan, l), &problem)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

/// Compiles through the cache and prints the compile line, or prints why it was skipped (no
/// NVRTC) and gives `None`.
pub(super) fn compile_step(
    kernel: &Kernel,
    arch: &str,
) -> Result<Option<(Compiled, Provenance)>, RuntimeError> {
    if let Err(e) = nvrtc::available() {
        println!("  skipped compile: {}", lines(&e.to_string()));
        return Ok(None);
    }
    let (c, p) = cache::compile_timed(&kernel.name, &kernel.source, arch)?;
    println!("{}", compile_line(arch, &c, &p));
    Ok(Some((c, p)))
}

/// `run`'s GPU and cuBLAS, or `None` after saying that the launch, verification and timing
/// were skipped, and why.
pub(super) fn gpu_for_run() -> Result<Option<(Gpu, CudaBlas)>, RuntimeError> {
    gpu_and_blas(|why| println!("  skipped launch, verification and timing: {why}"))
}

/// The GPU and cuBLAS (pedantic FP32), or `None` after telling `skipped` why, on a machine
/// without a GPU.
pub(super) fn gpu_and_blas(
    skipped: impl FnOnce(String),
) -> Result<Option<(Gpu, CudaBlas)>, RuntimeError> {
    let gpu = match Gpu::open() {
        Ok(g) => g,
        Err(e) => {
            skipped(lines(&e.to_string()).into_owned());
            return Ok(None);
        }
    };
    let blas = CudaBlas::new(gpu.stream.clone())
        .map_err(RuntimeError::cublas("creating a cuBLAS handle"))?;
    pedantic(&blas)?;
    Ok(Some((gpu, blas)))
}

fn on_gpu(gpu: &Gpu, blas: &CudaBlas, gemm: Gemm, p: &Problem) -> Result<(), RuntimeError> {
    let loaded = gemm.loaded();
    println!(
        "{}",
        gpu_line(
            &gpu.name,
            &gpu.arch,
            loaded.func.num_regs().ok(),
            &loaded.provenance
        )
    );
    check_betas(&loaded.kernel.name, &mut |beta| {
        let q = Problem { beta, ..*p };
        check(gpu, blas, loaded, &q, &gemm.plan().epilogue, 1)
    })?;
    let t = bench(gpu, blas, loaded, p, 20)?;
    let (ours, theirs) = t.tflops(p);
    println!(
        "{}{:.3} ms = {ours:.1} TFLOP/s; cuBLAS SGEMM (pedantic FP32) {:.3} ms = {theirs:.1} TFLOP/s; {:.1}% of cuBLAS",
        label("time"),
        t.kernel_ms,
        t.cublas_ms,
        100.0 * ours / theirs
    );
    Ok(())
}

/// `run`'s checks with beta 0 and 0.5, a line each; a wrong result of `what` is an error.
pub(super) fn check_betas(
    what: &str,
    check: &mut dyn FnMut(f32) -> Result<cute::runtime::check::Outcome, RuntimeError>,
) -> Result<(), RuntimeError> {
    for beta in [0.0f32, 0.5] {
        let out = check(beta)?;
        println!(
            "  check beta={beta}: {} (worst |error|/tolerance {:.3} at {})",
            out.verdict(),
            out.worst,
            out.worst_at()
        );
        if !out.pass {
            return Err(RuntimeError::Problem(format!(
                "{what} computed a wrong result"
            )));
        }
    }
    Ok(())
}

/// Sizes of the correctness matrix: (M, N, K).
pub(super) const CHECK_SIZES: &[(i64, i64, i64)] = &[
    (1, 1, 1),
    (17, 17, 17),
    (127, 127, 127),
    (1000, 1000, 1000),
    (1024, 1024, 1024),
    (4096, 4096, 4096),
    (300, 17, 1000),
    (64, 1000, 127),
];

/// The file of `check --report`, opened before anything runs so a path that cannot be written
/// is an error at once.
struct Report {
    path: PathBuf,
    file: File,
}

impl Report {
    fn create(path: &Path) -> Result<Report, String> {
        File::create(path)
            .map(|file| Report {
                path: path.to_path_buf(),
                file,
            })
            .map_err(|e| format!("cannot write the report {}: {e}", path.display()))
    }

    fn write(mut self, lines: &[String]) -> Result<(), String> {
        let text = lines.join("\n") + "\n";
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.sync_all())
            .map_err(|e| format!("cannot write the report {}: {e}", self.path.display()))
    }
}

/// What `check` prints, kept for its report.
#[derive(Default)]
struct Said(Vec<String>);

impl Said {
    fn say(&mut self, line: String) {
        println!("{line}");
        self.0.push(line);
    }

    fn fail(&mut self, e: impl std::fmt::Display) -> ExitCode {
        self.say(format!("error: {}", lines(&e.to_string())));
        ExitCode::FAILURE
    }
}

/// `cute check [NAME...] [--layout L]... [--m M --n N --k K] [--report FILE]`.
pub fn check_all(a: &CheckArgs) -> ExitCode {
    let named: Vec<&str> = a.names.iter().map(String::as_str).collect();
    if let Err(e) = a.plan.check("check", &named) {
        return usage(e);
    }
    if a.cpu && a.size.one(1).is_some() {
        return usage(super::args::usage_error(
            "check",
            clap::error::ErrorKind::ArgumentConflict,
            "--cpu runs the interpreter at its own small sizes (a GEMM at 1, 17, 127 and \
             130x67x33); --m/--n/--k size the GPU check",
        ));
    }
    let report = match a.report.as_deref().map(Report::create).transpose() {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let mut said = Said::default();
    let code = if a.cpu {
        check_cpu(a, &mut said)
    } else {
        check_matrix(a, &mut said)
    };
    match report.map(|r| r.write(&said.0)) {
        Some(Err(e)) => fail(e),
        _ => code,
    }
}

/// The GPU of a check, its header line said (`columns` name what each line holds), or `None`
/// when there is none (the skip said).
fn check_gpu(a: &CheckArgs, columns: &str, said: &mut Said) -> Option<Gpu> {
    match Gpu::open() {
        Ok(gpu) => {
            said.say(format!(
                "# cute check on {} ({}), {}: {columns}",
                gpu.name,
                gpu.arch,
                a.plan.target()
            ));
            Some(gpu)
        }
        Err(e) => {
            said.say(format!("skipped: {}", lines(&e.to_string())));
            None
        }
    }
}

/// `cute check hgemm-sm80 ...` on the GPU.
fn check_tensor_core(a: &CheckArgs, names: &[String], said: &mut Said) -> ExitCode {
    let Some(gpu) = check_gpu(a, "kernel layout M N K beta result", said) else {
        return ExitCode::SUCCESS;
    };
    match super::tensor_core::check(&gpu, names, &a.plan, a.size.one(1), &mut |l| said.say(l)) {
        Ok((passed, failed)) => {
            said.say(format!("# {passed} passed, {failed} failed"));
            super::algebra::status(failed == 0)
        }
        Err(e) => said.fail(e),
    }
}

/// `cute check RECIPE...` on the GPU.
fn check_recipes(a: &CheckArgs, names: &[String], said: &mut Said) -> ExitCode {
    let Some(gpu) = check_gpu(a, "kernel M N - result worst", said) else {
        return ExitCode::SUCCESS;
    };
    let one = a.size.one(1).map(|(m, n, _)| (m, n));
    let (mut passed, mut failed) = (0, 0);
    for name in names {
        match super::recipe::check_gpu(&gpu, name, a.plan.target(), one, &mut |l| said.say(l)) {
            Ok((p, f)) => {
                passed += p;
                failed += f;
            }
            Err(e) => return said.fail(e),
        }
    }
    said.say(format!("# {passed} passed, {failed} failed"));
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `cute check --cpu [NAME...]`: every kernel (the named GEMMs in each layout asked for, then
/// the recipes) as its IR kernel in the CPU interpreter.
fn check_cpu(a: &CheckArgs, said: &mut Said) -> ExitCode {
    let names: Vec<String> = if let (true, Some(d)) = (a.names.is_empty(), a.plan.dtype) {
        d.gemms().iter().map(|s| s.to_string()).collect()
    } else if a.names.is_empty() {
        NAMES
            .iter()
            .chain(cute::codegen::recipes::NAMES)
            .map(|s| s.to_string())
            .collect()
    } else {
        a.names.clone()
    };
    said.say(format!(
        "# cute check --cpu, {}: the CPU interpreter against float64 references",
        a.plan.target()
    ));
    let mut all = true;
    for name in &names {
        let result = if super::recipe::is_recipe(name) {
            super::recipe::check_cpu(name, a.plan.target(), &mut |l| said.say(l))
        } else {
            let layouts = if super::tensor_core::is_tensor_core(name) {
                super::tensor_core::layouts(&a.plan)
            } else {
                a.plan.layouts(&GemmLayout::all())
            };
            layouts.into_iter().try_fold(true, |ok, layout| {
                let plan = a.plan.plan(name, layout)?;
                Ok(super::recipe::check_cpu_gemm(&plan, &mut |l| said.say(l))? && ok)
            })
        };
        match result {
            Ok(ok) => all &= ok,
            Err(e) => return said.fail(e),
        }
    }
    if all {
        ExitCode::SUCCESS
    } else {
        said.say("error: a kernel computed a wrong result".into());
        ExitCode::FAILURE
    }
}

/// The kernels of a `check`: those named, else every one (with --k-block-unroll or
/// --k-major-tile, every one that has a k-block loop).
fn check_names(a: &CheckArgs) -> Vec<String> {
    if !a.names.is_empty() {
        return a.names.clone();
    }
    if let Some(d) = a.plan.dtype {
        return d.gemms().iter().map(|s| s.to_string()).collect();
    }
    let pipelined = |n: &&str| {
        plan(n, GemmLayout::all()[0]).is_ok_and(|p| matches!(p.policy, Policy::Pipelined(_)))
    };
    NAMES
        .iter()
        .filter(|n| {
            (a.plan.k_block_unroll.is_none() && a.plan.k_major_tile.is_none()) || pipelined(n)
        })
        .map(|s| s.to_string())
        .collect()
}

fn check_matrix(a: &CheckArgs, said: &mut Said) -> ExitCode {
    let (tc, rest): (Vec<String>, Vec<String>) = check_names(a)
        .into_iter()
        .partition(|n| super::tensor_core::is_tensor_core(n));
    if !tc.is_empty() {
        let code = check_tensor_core(a, &tc, said);
        if rest.is_empty() || code != ExitCode::SUCCESS {
            return code;
        }
    }
    let (recipes, gemms): (Vec<String>, Vec<String>) =
        rest.into_iter().partition(|n| super::recipe::is_recipe(n));
    if !recipes.is_empty() {
        let code = check_recipes(a, &recipes, said);
        if gemms.is_empty() || code != ExitCode::SUCCESS {
            return code;
        }
    }
    let layouts = a.plan.layouts(&GemmLayout::all());
    let planned = match plan_all(&gemms, &layouts, &a.plan, width_of(a.size.one(1), &layouts)) {
        Ok(p) => p,
        Err(e) => return said.fail(e),
    };
    let (gpu, blas) = match gpu_and_blas(|why| said.say(format!("skipped: {why}"))) {
        Ok(Some(x)) => x,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => return said.fail(e),
    };
    said.say(format!(
        "# cute check on {} ({}), {}: kernel layout M N K beta result worst",
        gpu.name,
        gpu.arch,
        a.plan.target()
    ));
    let one = a.size.one(1);
    let sizes = one.as_ref().map_or(CHECK_SIZES, std::slice::from_ref);
    let (mut passed, mut failed) = (0, 0);
    for p in &planned {
        let gemm = match p.load(&gpu) {
            Ok(g) => g,
            Err(e) => return said.fail(e),
        };
        for (i, &asked) in sizes.iter().enumerate() {
            // the matrix's sizes rounded up to what the kernel requires of M, N and K (a
            // GEMV's vectors); a size given with --m/--n/--k is checked as given
            let (m, n, k) = match one {
                Some(_) => asked,
                None => gemm.loaded().kernel.launch.fit_mnk(asked),
            };
            if p.name.starts_with("naive") && m.saturating_mul(n).saturating_mul(k) > 1 << 31 {
                continue;
            }
            for beta in [0.0f32, 0.5] {
                let problem = match Problem::new(m, n, k, p.layout, 1.5, beta) {
                    Ok(q) => q,
                    Err(e) => return said.fail(e),
                };
                let (line, pass) = check_one(&gpu, &blas, &gemm, p, &problem, i as u64);
                if pass {
                    passed += 1;
                } else {
                    failed += 1;
                }
                said.say(line);
            }
        }
    }
    said.say(format!("{passed} passed, {failed} failed"));
    super::algebra::status(failed == 0)
}

/// One check's line, and whether it passed.
fn check_one(
    gpu: &Gpu,
    blas: &CudaBlas,
    gemm: &Gemm,
    p: &Planned,
    q: &Problem,
    salt: u64,
) -> (String, bool) {
    let (name, layout, m, n, k, beta) = (&p.name, p.layout, q.m, q.n, q.k, q.beta);
    match check(gpu, blas, gemm.loaded(), q, &gemm.plan().epilogue, salt) {
        Ok(out) => (
            format!(
                "{name} {layout} {m} {n} {k} {beta} {} {:.3} ({})",
                out.verdict(),
                out.worst,
                out.worst_at()
            ),
            out.pass,
        ),
        Err(e) => (
            format!(
                "{name} {layout} {m} {n} {k} {beta} ERROR {}",
                lines(&e.to_string())
            ),
            false,
        ),
    }
}

/// `cute bench NAME... [--layout L]... [--m M --n N --k K]`: TFLOP/s and % of cuBLAS at
/// 1024..8192 and a non-square size, or at the one size given.
pub fn bench_all(a: &BenchArgs) -> ExitCode {
    let named: Vec<&str> = a.names.iter().map(String::as_str).collect();
    if let Err(e) = a.plan.check("bench", &named) {
        return usage(e);
    }
    let default = [
        (1024, 1024, 1024),
        (2048, 2048, 2048),
        (4096, 4096, 4096),
        (8192, 8192, 8192),
        (8192, 2048, 4096),
    ];
    let one = a.size.one(1);
    let sizes = one.as_ref().map_or(&default[..], std::slice::from_ref);
    if a.split.stream_k {
        if let Err(e) = super::stream_k::refuse("bench", &named) {
            return usage(e);
        }
    }
    if a.suite {
        return super::suite::bench(a);
    }
    if let Some(n) = a
        .names
        .iter()
        .find(|n| super::tensor_core::is_tensor_core_selector(n))
    {
        let msg = format!("{n} (the selector) is benched over the suite: cute bench {n} --suite, or cute run {n} --m M --n N --k K");
        return usage(super::args::usage_error(
            "bench",
            clap::error::ErrorKind::ArgumentConflict,
            msg,
        ));
    }
    if a.names.iter().any(|n| n == super::args::SELECTOR) {
        return super::split_k::bench_selected(a, sizes);
    }
    if a.names
        .iter()
        .any(|n| super::tensor_core::is_tensor_core(n))
    {
        return super::tensor_core::bench(a);
    }
    if let Some(split) = a.split.split_k {
        return super::split_k::bench(a, split, sizes);
    }
    if a.split.stream_k {
        return super::stream_k::bench(a, sizes);
    }
    let layouts = a.plan.layouts(&GemmLayout::all()[..1]);
    let planned = match plan_all(
        &a.names,
        &layouts,
        &a.plan,
        width_of(a.size.one(1), &layouts),
    ) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let (gpu, blas) = match gpu_and_blas(|why| println!("skipped: {why}")) {
        Ok(Some(x)) => x,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => return fail(e),
    };
    let arch = a.plan.target();
    println!("# {} ({}), {arch}; cuBLAS SGEMM in CUBLAS_PEDANTIC_MATH (pure FP32); CUDA events, warm-up of 3 runs and 10 ms, median of 20", gpu.name, gpu.arch);
    println!("| kernel | layout | M x N x K | ms | TFLOP/s | cuBLAS TFLOP/s | % of cuBLAS |");
    println!("|---|---|---|---:|---:|---:|---:|");
    for p in &planned {
        let gemm = match p.load(&gpu) {
            Ok(g) => g,
            Err(e) => return fail(e),
        };
        for &(m, n, k) in sizes {
            let q = match Problem::new(m, n, k, p.layout, 1.0, 0.0) {
                Ok(q) => q,
                Err(e) => return fail(e),
            };
            match bench(&gpu, &blas, gemm.loaded(), &q, 20) {
                Ok(t) => {
                    let (ours, theirs) = t.tflops(&q);
                    println!(
                        "| {} | {} | {m} x {n} x {k} | {:.3} | {ours:.1} | {theirs:.1} | {:.1}% |",
                        p.name,
                        p.layout,
                        t.kernel_ms,
                        100.0 * ours / theirs
                    );
                }
                Err(e) => return fail(e),
            }
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;
    use cute::runtime::cache::Source;
    use std::time::Duration;

    fn compiled() -> Compiled {
        Compiled {
            cubin: vec![0],
            arch: "sm_90a".into(),
            log: String::new(),
            registers: Some(127),
            spill_bytes: Some(0),
        }
    }

    /// The compile line and the GPU line print the one provenance the compile produced: after a
    /// fresh compile neither says "cache", after a cache hit both name the cache.
    #[test]
    fn the_compile_and_gpu_lines_agree_on_where_the_cubin_came_from() {
        let fresh = Provenance::new(Source::Compiled, Duration::from_millis(171));
        let c = compile_line("sm_90a", &compiled(), &fresh);
        assert_eq!(
            c,
            "  NVRTC sm_90a:  compiled in 171 ms, 127 registers, 0 bytes spilled"
        );
        let g = gpu_line("NVIDIA H200", "sm_90a", Some(127), &fresh);
        assert_eq!(
            g,
            "  GPU:           NVIDIA H200 (sm_90a), 127 registers per thread (from the loaded function), cubin compiled in 171 ms"
        );
        for (source, words) in [
            (Source::Memory, "from the memory cache"),
            (Source::Disk, "from the disk cache"),
        ] {
            let p = Provenance::new(source, Duration::from_millis(3));
            let c = compile_line("sm_80", &compiled(), &p);
            let g = gpu_line("A100", "sm_80", None, &p);
            assert!(c.starts_with("  NVRTC sm_80:   from"), "{c}");
            assert!(c.contains(words) && g.contains(words), "{c}\n{g}");
            assert!(
                !c.contains("compiled") && !g.contains("compiled"),
                "{c}\n{g}"
            );
        }
    }
}
