//! What every GEMM kernel shares: the signature, the problem symbols, offsets from layouts, the
//! epilogue.

use cute_layout::{ElemType::F32, Int, IntTuple, Layout};

use super::plan::{Bias, Epilogue, GemmPlan};
use crate::cexpr::c;
use crate::error::Result;
use crate::kernel::{Kernel, LaunchSpec, Param, Requirement};
use crate::writer::Writer;

/// The parameters of every GEMM kernel, in order.
pub fn params(plan: &GemmPlan) -> Vec<Param> {
    let mut p = vec![
        Param::int("M"),
        Param::int("N"),
        Param::int("K"),
        Param::scalar("alpha", F32),
        Param::input("A", F32),
        Param::int("ldA"),
        Param::input("B", F32),
        Param::int("ldB"),
        Param::scalar("beta", F32),
        Param::output("C", F32),
        Param::int("ldC"),
    ];
    if plan.epilogue.bias.is_some() {
        p.push(Param::input("bias", F32));
    }
    p
}

/// What every kernel of the plan needs of its buffers beyond the problem's matrices: a fused
/// bias of one value per row (`M`) or per column (`N`).
pub(crate) fn buffer_requirements(plan: &GemmPlan) -> Vec<Requirement> {
    match plan.epilogue.bias {
        Some(Bias::PerRow) => vec![Requirement::Length {
            buffer: "bias".into(),
            symbol: "M".into(),
        }],
        Some(Bias::PerCol) => vec![Requirement::Length {
            buffer: "bias".into(),
            symbol: "N".into(),
        }],
        None => Vec::new(),
    }
}

/// `extern "C" __global__ void name(params) {`, opened.
pub fn signature(w: &mut Writer, plan: &GemmPlan, threads: i64, min_blocks: i64) {
    let decls: Vec<String> = params(plan).iter().map(|p| p.declaration("int")).collect();
    let bounds = if min_blocks > 1 {
        format!("{threads}, {min_blocks}")
    } else {
        threads.to_string()
    };
    w.line(format!(
        "extern \"C\" __global__ void __launch_bounds__({bounds})"
    ));
    w.open(format!("{}({})", plan.kernel_name(), decls.join(", ")));
}

/// What is pasted into the CUDA as written: the kernel name must be a C identifier, and each
/// epilogue functor a balanced statement list (it is placed inside its own `{ }` scope, within
/// the store's guard, and must stay there).
pub fn check_names(plan: &GemmPlan) -> Result<()> {
    let name = plan.kernel_name();
    let ident = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ident {
        return Err(plan.error(
            "name",
            format!(
                "the kernel name '{name}' is not a C identifier (letters, digits, '_' and '-')"
            ),
        ));
    }
    for f in &plan.epilogue.functors {
        if !balanced(f) {
            return Err(plan.error(
                "epilogue",
                format!("the functor `{f}` must be plain statements (no literals, comments or preprocessor lines) whose (), [] and {{}} balance"),
            ));
        }
    }
    Ok(())
}

/// Whether a functor is plain C++ statements whose brackets balance: no literals, comments,
/// line continuations or preprocessor lines (each could carry a bracket past the check, or
/// rewrite the kernel around it), and never closing more than it opened.
fn balanced(code: &str) -> bool {
    let plain = |c: char| {
        c.is_ascii_alphanumeric()
            || c.is_ascii_whitespace()
            || "_.()[]{}+-*/%<>=!&|^~?:;,".contains(c)
    };
    if !code.chars().all(plain) || code.contains("//") || code.contains("/*") {
        return false;
    }
    let mut stack = Vec::new();
    for c in code.chars() {
        match c {
            '(' | '[' | '{' => stack.push(c),
            ')' | ']' | '}' => {
                let open = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                if stack.pop() != Some(open) {
                    return false;
                }
            }
            _ => {}
        }
    }
    stack.is_empty()
}

/// A symbol standing for a runtime index (`tid`, `bm`, `k`).
pub fn sym(name: &str) -> Int {
    Int::symbol(name)
}

/// The C++ offset of `layout` at a coordinate of C++ expressions (symbols).
pub fn offset(layout: &Layout, coord: &[Int]) -> cute_layout::Result<String> {
    let c_t = IntTuple::Tuple(coord.iter().cloned().map(IntTuple::Int).collect());
    Ok(c(&layout.crd2idx(&c_t)?))
}

/// The epilogue for one output element whose coordinates are the C++ expressions `m`, `n`:
/// `x = alpha*acc (+ beta*C)`, bias, ReLU, functors, guarded by `guard` (a C++ condition, or
/// empty for none). The read of C is skipped when `beta == 0`.
pub fn store_element(
    w: &mut Writer,
    epi: &Epilogue,
    guard: &str,
    m: &str,
    n: &str,
    acc: &str,
    c_off: &str,
) {
    if !guard.is_empty() {
        w.open(format!("if ({guard})"));
    } else {
        w.open("");
    }
    w.line(format!("float x = alpha * {acc};"));
    w.line(format!("if (beta != 0.0f) x = fmaf(beta, C[{c_off}], x);"));
    transform(w, epi, m, n);
    w.line(format!("C[{c_off}] = x;"));
    w.close("");
}

/// Bias, ReLU and the user functors on `x`.
pub fn transform(w: &mut Writer, epi: &Epilogue, m: &str, n: &str) {
    match epi.bias {
        Some(Bias::PerRow) => {
            w.line(format!("x += bias[{m}];"));
        }
        Some(Bias::PerCol) => {
            w.line(format!("x += bias[{n}];"));
        }
        None => {}
    }
    if epi.relu {
        w.line("x = fmaxf(x, 0.0f);");
    }
    for f in &epi.functors {
        w.open("");
        w.line(format!("const int m_ = {m}, n_ = {n}; (void)m_; (void)n_;"));
        w.line(f);
        w.close("");
    }
}

/// The header comment of a kernel.
pub fn header(w: &mut Writer, plan: &GemmPlan, what: &str) {
    w.comment(format!(
        "{}: C = alpha * A * B + beta * C, {} layout, {what}",
        plan.kernel_name(),
        plan.layout
    ));
    w.comment(format!(
        "A: {}   B: {}   C: {}",
        plan.layout.a_layout(),
        plan.layout.b_layout(),
        plan.layout.c_layout()
    ));
    w.comment("Generated by cute-codegen from CuTe layouts; every index below was computed by the layout algebra.");
}

/// The kernel of a plan without shared memory: a `(tile_m, tile_n)` CTA tile over a
/// `ceil(M/tile_m) x ceil(N/tile_n)` grid of `threads`, no requirements.
pub fn plain_kernel(plan: &GemmPlan, w: Writer, tile: (i64, i64), threads: i64) -> Result<Kernel> {
    let grid = |sym: &str, t: i64| {
        Int::symbol(sym)
            .ceil_div(&cute_layout::s(t))
            .map_err(plan.layout_error("grid"))
    };
    let launch = LaunchSpec {
        grid: [grid("M", tile.0)?, grid("N", tile.1)?, cute_layout::s(1)],
        block: [threads, 1, 1],
        dynamic_smem_bytes: 0,
        params: params(plan),
        requirements: buffer_requirements(plan),
        index: crate::cuda::IndexWidth::I32,
        tensor_maps: Vec::new(),
        cluster: [1, 1, 1],
    };
    Ok(Kernel {
        name: plan.kernel_name(),
        source: w.finish(),
        launch,
        target: plan.target,
    })
}

#[cfg(test)]
mod tests {
    use super::balanced;

    #[test]
    fn functor_brackets() {
        for ok in [
            "x = x * 0.5f;",
            "x = fmaxf(x, 1.0f) + (m_ + 1) * 1e-3f;",
            "if (x < 0.0f) { x = -x; }",
            "x = m_ == n_ ? x : 0.0f;",
        ] {
            assert!(balanced(ok), "{ok}");
        }
        for bad in [
            "x = x * 2.0f; }",
            "} x = 0.0f; {",
            "x = (x;",
            "x = a[1);",
            // literals, comments, continuations and the preprocessor can hide brackets
            "x += 1.0f; // a note",
            "x += 1.0f; /* ) */",
            "x = x; // note \\",
            "x += 1'0; } } { float x = 0.0f; { x += 1'0;",
            "#define x 0.0f",
            "const char* s = \"}\";",
        ] {
            assert!(!balanced(bad), "{bad}");
        }
    }
}
