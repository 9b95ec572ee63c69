//! The recipes that are not GEMMs (`transpose`, `transpose-f16`, `row-softmax`) at the command
//! line: `emit` writes every variant, `run` checks the one a problem picks against its float64
//! reference on the GPU and times it beside the device's own copy of the same bytes, `check
//! --cpu` runs them (and the GEMM plans' IR kernels) in the CPU interpreter.

use std::process::ExitCode;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use cute::codegen::cuda::emit;
use cute::codegen::interp;
use cute::codegen::recipes::{self, case, pick, variants_for, Case, Verdict};
use cute::codegen::{CodegenError, GemmPlan, Target};
use cute::runtime::gpu::Gpu;
use cute::runtime::recipe::{check, prepare, time_against_copy};
use cute::runtime::RuntimeError;

use super::text::fail;
use super::text::lines;

/// Whether `name` is a recipe.
pub fn is_recipe(name: &str) -> bool {
    recipes::NAMES.contains(&name)
}

fn label(what: &str) -> String {
    format!("  {:<15}", format!("{what}:"))
}

/// `cute emit RECIPE`: every variant, fastest first, each with its launch requirements.
pub fn emit_command(name: &str, target: Target) -> ExitCode {
    let out = variants_for(name, target).and_then(|vs| {
        vs.iter()
            .map(|k| {
                let e = emit(k)?;
                let reqs: Vec<String> = e
                    .launch
                    .requirements
                    .iter()
                    .map(|r| format!("//   {r}"))
                    .collect();
                Ok(format!(
                    "// variant {} requires:\n{}\n{}",
                    e.name,
                    if reqs.is_empty() {
                        "//   nothing".to_string()
                    } else {
                        reqs.join("\n")
                    },
                    e.source
                ))
            })
            .collect::<Result<Vec<_>, CodegenError>>()
    });
    match out {
        Ok(texts) => {
            print!("{}", texts.join("\n"));
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

pub(super) fn fresh_seed() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
}

/// `cute run RECIPE [--m M --n N] [--arch A]`: build, emit, compile, check on the GPU against
/// the float64 reference, time beside `cuMemcpyDtoD`.
pub fn run(name: &str, m: i64, n: i64, target: Target) -> ExitCode {
    println!("{name} M={m} N={n}");
    let t = Instant::now();
    let built = variants_for(name, target).and_then(|v| Ok((v, case(name, m, n, fresh_seed())?)));
    let (variants, c) = match built {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let Some(i) = pick(&variants, &c) else {
        return fail(format!(
            "{name}: no variant's requirements hold for {m} x {n}"
        ));
    };
    let kernel = match emit(&variants[i]) {
        Ok(k) => k,
        Err(e) => return fail(e),
    };
    println!(
        "{}{:.2} ms, variant {} of {}, {} lines of CUDA",
        label("build + emit"),
        t.elapsed().as_secs_f64() * 1e3,
        kernel.name,
        variants.len(),
        kernel.source.lines().count()
    );
    match super::gpu::compile_step(&kernel, kernel.target.name()) {
        Ok(Some(_)) => {}
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => return fail(e),
    }
    let gpu = match Gpu::open() {
        Ok(g) => g,
        Err(e) => {
            println!(
                "  skipped launch, verification and timing: {}",
                lines(&e.to_string())
            );
            return ExitCode::SUCCESS;
        }
    };
    match on_gpu(&gpu, &variants, &c) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

fn on_gpu(gpu: &Gpu, variants: &[cute::codegen::ir::Kernel], c: &Case) -> Result<(), RuntimeError> {
    let p = prepare(gpu, variants, c)?;
    println!(
        "{}{} ({}), {} ({} index arithmetic), cubin {}",
        label("GPU"),
        gpu.name,
        gpu.arch,
        p.loaded.kernel.name,
        p.width.ctype(),
        p.loaded.provenance
    );
    let v = check(gpu, &p, c)?;
    let (at, got, want) = v.worst.unwrap_or((0, 0.0, 0.0));
    println!(
        "{}{} of {} elements outside |err| <= {:e} + {:e}|ref|; max |err| {:.3e} (element {at}: {got} vs {want})",
        label("check"),
        v.bad,
        v.checked,
        c.abs,
        c.rel,
        v.max_err
    );
    if !v.ok() {
        return Err(RuntimeError::Problem(format!(
            "{} computed a wrong result",
            p.loaded.kernel.name
        )));
    }
    let t = time_against_copy(gpu, &p, c, 20)?;
    let (ours, copy) = t.gbps();
    println!(
        "{}{:.3} ms = {ours:.0} GB/s (read + write); cuMemcpyDtoD of the same bytes {:.3} ms = {copy:.0} GB/s; {:.1}% of the copy",
        label("time"),
        t.kernel_ms,
        t.copy_ms,
        100.0 * ours / copy
    );
    Ok(())
}

/// Sizes `check` runs a recipe at on the GPU: (M, N).
pub const GPU_SIZES: &[(i64, i64)] = &[
    (1, 1),
    (17, 17),
    (127, 127),
    (130, 67),
    (300, 17),
    (64, 1000),
    (1000, 1000),
    (4096, 4096),
];

/// `cute check RECIPE` on the GPU: every size (or the one given), fresh data each; the lines go
/// to `say`, the count of (passed, failed) comes back.
pub fn check_gpu(
    gpu: &Gpu,
    name: &str,
    target: Target,
    one: Option<(i64, i64)>,
    say: &mut dyn FnMut(String),
) -> Result<(usize, usize), RuntimeError> {
    let variants = variants_for(name, target)?;
    let sizes = one.as_ref().map_or(GPU_SIZES, std::slice::from_ref);
    let (mut passed, mut failed) = (0, 0);
    for &(m, n) in sizes {
        let c = case(name, m, n, fresh_seed())?;
        let p = prepare(gpu, &variants, &c)?;
        let v = check(gpu, &p, &c)?;
        if v.ok() {
            passed += 1;
        } else {
            failed += 1;
        }
        say(format!(
            "{} {m} {n} - {} max|err|={:.2e} ({} of {} outside tolerance)",
            p.loaded.kernel.name,
            if v.ok() { "pass" } else { "FAIL" },
            v.max_err,
            v.bad,
            v.checked
        ));
    }
    Ok((passed, failed))
}

/// Sizes `check --cpu` runs a recipe at: (M, N).
pub const CPU_SIZES: &[(i64, i64)] = &[(1, 1), (17, 17), (127, 127), (130, 67)];

/// `cute check --cpu RECIPE`: every size of [`CPU_SIZES`] in the interpreter, fresh data each.
pub fn check_cpu(
    name: &str,
    target: Target,
    say: &mut dyn FnMut(String),
) -> Result<bool, CodegenError> {
    let variants = variants_for(name, target)?;
    let mut all = true;
    for &(m, n) in CPU_SIZES {
        let mut c = case(name, m, n, fresh_seed())?;
        let i = pick(&variants, &c).unwrap_or(variants.len() - 1);
        let t = Instant::now();
        let r = interp::run(&variants[i], &mut c.args)?;
        let v = c.check(c.output());
        all &= v.ok();
        say(format!(
            "{name} {} {m}x{n}: {}",
            variants[i].name,
            outcome(&v, &r, t)
        ));
    }
    Ok(all)
}

/// An interpreter run's verdict: `pass (0 of N elements outside tolerance, max |err| ..; B
/// blocks of T threads, ms)`.
fn outcome(v: &Verdict, r: &interp::Report, t: Instant) -> String {
    format!(
        "{} ({} of {} elements outside tolerance, max |err| {:.2e}; {} blocks of {} threads, {:.0} ms)",
        if v.ok() { "pass" } else { "FAIL" },
        v.bad,
        v.checked,
        v.max_err,
        r.blocks,
        r.threads,
        t.elapsed().as_secs_f64() * 1e3
    )
}

/// The sizes `cute check --cpu` runs a GEMM at: (M, N, K).
pub const GEMM_CPU_SIZES: &[(i64, i64, i64)] =
    &[(1, 1, 1), (17, 17, 17), (127, 127, 127), (130, 67, 33)];

/// `cute check --cpu GEMM`: the plan's IR kernel (`recipes::gemm`) in the interpreter, in each
/// layout, at every size of [`GEMM_CPU_SIZES`] (rounded up to what the kernel's launch requires
/// of M, N and K: `Kernel::fit_mnk`) with `beta = 0` (C poisoned) and `beta = -0.75`, fresh data
/// each.
pub fn check_cpu_gemm(plan: &GemmPlan, say: &mut dyn FnMut(String)) -> Result<bool, CodegenError> {
    let kernel = recipes::gemm(plan)?;
    let mut all = true;
    for &asked in GEMM_CPU_SIZES {
        // a kernel that needs M, N or K a multiple of its vectors runs at the next such size
        let size = kernel.fit_mnk(asked);
        for beta in [0.0, -0.75] {
            let mut c = recipes::gemm_case(plan, size, beta, fresh_seed())?;
            let t = Instant::now();
            let r = interp::run(&kernel, &mut c.args)?;
            let v = c.check(c.output());
            all &= v.ok();
            let (m, n, k) = size;
            let what = format!("{} {} {m}x{n}x{k} beta={beta}", plan.name, plan.layout);
            say(format!("{what}: {}", outcome(&v, &r, t)));
        }
    }
    Ok(all)
}
