//! The one producer of CUDA text for IR kernels: a checked [`crate::ir::Kernel`] becomes
//! self-contained CUDA C++ (no headers) and its launch. Integers print through [`CInt`] (always
//! parenthesised, only operations CUDA has), elementwise expressions through [`CExpr`], copies
//! and MMAs through the atoms' lowerings (`crate::lower`), shape comments from the tensors the
//! kernel binds (`// tAgA: ...`).
//!
//! Index arithmetic is done in `cute_idx`, `int` or `long long` as [`IndexWidth`] says: the
//! runtime picks the 32-bit build when every buffer of a launch fits in `2^31 - 1` elements and
//! the 64-bit one otherwise.

mod cexpr;
mod elem_loop;
mod stmt;

pub(crate) use stmt::fma_order;

pub use cexpr::{needs_gcd, CExpr, CInt, Names};

use std::collections::BTreeSet;

use cute_layout::ElemType;

use crate::error::Result;
use crate::ir::{Kernel, Stmt};
use crate::kernel::{self, LaunchSpec};
use crate::lower::{self, Needs};
use crate::writer::Writer;

/// The width of index arithmetic in a generated kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexWidth {
    /// `int`: every offset of the launch below 2^31.
    I32,
    /// `long long`.
    I64,
}

impl IndexWidth {
    /// The C type.
    pub fn ctype(self) -> &'static str {
        match self {
            IndexWidth::I32 => "int",
            IndexWidth::I64 => "long long",
        }
    }
}

/// The C type that holds an element (16- and 8-bit floats as their bits: the kernels need no
/// headers; TF32 as its 32 bits, `unsigned`, the register type CuTe's SM80 and SM90 TF32 MMAs
/// take, so `ldmatrix` writes and `mma.sync` reads a TF32 fragment without a conversion).
pub fn ctype(e: ElemType) -> &'static str {
    use ElemType::*;
    match e {
        F64 => "double",
        F32 => "float",
        Tf32 => "unsigned",
        F16 | Bf16 | U16 => "unsigned short",
        I16 => "short",
        I32 => "int",
        U32 => "unsigned int",
        I64 => "long long",
        U64 => "unsigned long long",
        I8 | I4 => "signed char",
        U8 | U4 | U1 | E4M3 | E5M2 => "unsigned char",
        U128 => "uint4",
    }
}

/// Lowers a kernel with 32-bit index arithmetic.
pub fn emit(k: &Kernel) -> Result<kernel::Kernel> {
    emit_with(k, IndexWidth::I32)
}

/// Lowers a kernel (checked again first: a `Kernel`'s fields are public).
pub fn emit_with(k: &Kernel, width: IndexWidth) -> Result<kernel::Kernel> {
    let mut requirements = k.requirements.clone();
    for r in crate::passes::verify(k)? {
        if !requirements.iter().any(|q| q.condition() == r.condition()) {
            requirements.push(r);
        }
    }
    write(k, width, requirements)
}

/// Lowers a kernel just checked by `KernelBuilder::finish` (its requirements already hold what
/// the checks found), without checking it again: the recipes' path.
pub(crate) fn emit_finished(k: &Kernel, width: IndexWidth) -> Result<kernel::Kernel> {
    write(k, width, k.requirements.clone())
}

fn write(
    k: &Kernel,
    width: IndexWidth,
    requirements: Vec<kernel::Requirement>,
) -> Result<kernel::Kernel> {
    let mut needs = Needs {
        pairs: crate::passes::paired_registers(k),
        viewed: crate::passes::accumulator_pairs(k),
        tensor_map: k
            .params
            .iter()
            .any(|p| matches!(p.ty, crate::ir::ParamType::TensorMap { .. })),
        ..Needs::default()
    };
    let mut body = Writer::new();
    body.indent_to(1);
    declarations(k, width, (&needs.pairs, &needs.viewed), &mut body);
    stmt::body(k, &k.body, &mut body, &mut needs)?;
    let mut w = Writer::new();
    header(k, width, &mut w);
    helpers(&needs, &mut w);
    let decls: Vec<String> = k
        .params
        .iter()
        .map(|p| p.declaration(width.ctype()))
        .collect();
    let bounds = match k.min_blocks_per_sm {
        1 => k.threads().to_string(),
        n => format!("{}, {n}", k.threads()),
    };
    let cluster = match k.cluster {
        [1, 1, 1] => String::new(),
        [x, y, z] => format!("__cluster_dims__({x}, {y}, {z}) "),
    };
    w.line(format!(
        "extern \"C\" __global__ void {cluster}__launch_bounds__({bounds}) {}({}) {{",
        k.name,
        decls.join(", ")
    ));
    w.raw(&body.finish());
    w.line("}");
    Ok(kernel::Kernel {
        target: k.target,
        name: k.name.clone(),
        source: w.finish(),
        launch: LaunchSpec {
            grid: k.grid.clone(),
            block: k.block,
            dynamic_smem_bytes: smem_bytes(k),
            params: k.params.clone(),
            requirements,
            index: width,
            tensor_maps: k.tensor_maps.clone(),
            cluster: k.cluster,
        },
    })
}

/// Where each shared buffer starts in dynamic shared memory, and the total, in bytes.
pub fn smem_layout(k: &Kernel) -> (Vec<i64>, i64) {
    let mut offs = Vec::new();
    let mut total = 0i64;
    for b in &k.smem {
        let n = b.elements().unwrap_or(0);
        let bytes = ceil_to(n.saturating_mul(i64::from(b.elem.bits())), 8) / 8;
        if b.reuses {
            // over the buffers before it, from the start
            offs.push(0);
            total = total.max(bytes);
            continue;
        }
        let align = b.align.max(1);
        total = ceil_to(total, align);
        offs.push(total);
        total = total.saturating_add(bytes);
    }
    (offs, total)
}

/// `x` rounded up to a multiple of `m` (`m >= 1`).
pub(crate) fn ceil_to(x: i64, m: i64) -> i64 {
    x.saturating_add(m - 1) / m * m
}

fn smem_bytes(k: &Kernel) -> i64 {
    smem_layout(k).1
}

fn header(k: &Kernel, width: IndexWidth, w: &mut Writer) {
    match k.doc.as_str() {
        "" => w.comment(&k.name),
        doc => w.comment(format!("{}: {doc}", k.name)),
    };
    w.comment(format!(
        "Generated by cute-codegen from CuTe values for {}; index arithmetic in {}. No headers.",
        k.target.name(),
        width.ctype()
    ));
    let smem = smem_bytes(k);
    if smem > 0 {
        let opt_in = if smem > 48 * 1024 {
            " (above 48 KiB: the launch opts in)"
        } else {
            ""
        };
        w.comment(format!("shared memory: {smem} bytes{opt_in}"));
    }
    for note in &k.notes {
        w.comment(note);
    }
    if let Some(note) = k
        .target
        .occupancy_note(k.threads(), k.min_blocks_per_sm, smem)
    {
        w.comment(note);
    }
    w.line(format!("typedef {} cute_idx;", width.ctype()));
    w.line("");
}

fn helpers(needs: &Needs, w: &mut Writer) {
    if needs.tensor_map {
        w.line(lower::tma::TENSOR_MAP_TYPE);
        w.line("");
    }
    if needs.swizzle {
        w.block(crate::cexpr::SWIZZLE_FN);
        w.line("");
    }
    if needs.gcd {
        w.block(
            "__device__ __forceinline__ cute_idx cute_gcd(cute_idx a, cute_idx b) { while (b != 0) { cute_idx t = a % b; a = b; b = t; } return a < 0 ? -a : a; }\n\
             __device__ __forceinline__ cute_idx cute_lcm(cute_idx a, cute_idx b) { return a == 0 || b == 0 ? 0 : a / cute_gcd(a, b) * b; }",
        );
        w.line("");
    }
    if needs.half {
        w.block(
            "__device__ __forceinline__ float cute_h2f(unsigned short h) { float f; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h)); return f; }\n\
             __device__ __forceinline__ unsigned short cute_f2h(float f) { unsigned short h; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(f)); return h; }",
        );
        w.line("");
    }
    if needs.bfloat {
        w.block(
            "__device__ __forceinline__ float cute_bf2f(unsigned short h) { return __uint_as_float(static_cast<unsigned>(h) << 16); }\n\
             __device__ __forceinline__ unsigned short cute_f2bf(float f) { unsigned short h; asm(\"cvt.rn.bf16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(f)); return h; }",
        );
        w.line("");
    }
    if needs.lds {
        w.block(lower::universal::LDS_FNS);
        w.line("");
    }
    for (name, ptx) in &needs.cp_async {
        lower::cp_async::define(w, name, ptx);
        w.line("");
    }
    if needs.pack16 {
        w.block(lower::mma_sync::PACK16_FN);
        w.line("");
    }
    for def in needs.fns.values() {
        w.block(def.trim_end());
        w.line("");
    }
}

fn declarations(
    k: &Kernel,
    width: IndexWidth,
    (pairs, viewed): (&BTreeSet<String>, &BTreeSet<String>),
    w: &mut Writer,
) {
    let ty = width.ctype();
    w.line(format!("const {ty} tid = threadIdx.x;"));
    for (v, d) in [("bx", "x"), ("by", "y"), ("bz", "z")] {
        if uses(k, v) {
            w.line(format!("const {ty} {v} = blockIdx.{d};"));
        }
    }
    if !k.smem.is_empty() {
        let align = k.smem.iter().map(|b| b.align).max().unwrap_or(128).max(128);
        w.line(format!(
            "extern __shared__ __align__({align}) unsigned char smem_raw[];"
        ));
        let (offs, _) = smem_layout(k);
        for (b, off) in k.smem.iter().zip(offs) {
            let reuse = if b.reuses {
                ", over the buffers before it"
            } else {
                ""
            };
            w.comment(format!("{}: {} ({}){reuse}", b.name, b.layout, b.elem));
            let t = ctype(b.elem);
            w.line(format!(
                "{t}* {} = reinterpret_cast<{t}*>(smem_raw + {off});",
                b.name
            ));
        }
    }
    for b in &k.mbarriers {
        w.line(format!(
            "__shared__ __align__(8) unsigned long long {}[{}]; // mbarriers of {} arrivals",
            b.name, b.len, b.count
        ));
    }
    for r in &k.regs {
        if viewed.contains(&r.name) {
            let (n, t) = (r.size / 2, ctype(r.elem));
            w.line(format!(
                "unsigned {}_pairs[{n}]; // {} {}, two per register (a wgmma accumulator)",
                r.name, r.size, r.elem
            ));
            w.line(format!(
                "{t}* {} = reinterpret_cast<{t}*>({}_pairs);",
                r.name, r.name
            ));
        } else if pairs.contains(&r.name) {
            let n = r.size / 2;
            w.line(format!(
                "unsigned {}[{n}]; // {} {}, two per register",
                r.name, r.size, r.elem
            ));
        } else {
            w.line(format!("{} {}[{}];", ctype(r.elem), r.name, r.size));
        }
    }
    let scalars = scalars(&k.body);
    if !scalars.is_empty() {
        w.line(format!("float {};", scalars.join(", ")));
    }
}

/// Whether any integer of the kernel reads `name` (the block indices are declared only when
/// used, so an unused one is no warning).
fn uses(k: &Kernel, name: &str) -> bool {
    let mut found = false;
    let mut look = |i: &cute_layout::Int| found |= crate::ir::sym::names(i).contains(name);
    k.grid.iter().for_each(&mut look);
    crate::ir::visit_ints(&k.body, &mut look);
    found
}

/// The per-thread scalars (`Let`, `Reduce`), in order of first definition.
fn scalars(body: &[Stmt]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |v: &String| {
        if !out.contains(v) {
            out.push(v.clone());
        }
    };
    crate::ir::visit_stmts(body, &mut |s| match s {
        Stmt::Let { var, .. } | Stmt::Reduce { var, .. } => add(var),
        _ => {}
    });
    out
}
