//! The pipelined SIMT mainloop (`sgemm-sm80`, `simt-hier`): gmem -> smem by `cp.async` (or plain
//! vector loads) over several shared-memory stages, smem -> registers double-buffered over the K
//! blocks, a UniversalFMA TiledMMA, and a vectorized epilogue. Every offset is the layout algebra's
//! partition of the plan's tensors for a symbolic thread.

use std::collections::BTreeSet;

use cute_layout::atom::{CopyOp, Operand as MmaOperand};
use cute_layout::{s, tup, AnyLayout, Coord, Int, MemSpace, Tensor, Tiler};

use super::common::{header, params, signature, sym};
use super::frag::{self, aligned_for_all_threads, Frag};
use super::plan::{GemmPlan, Pipelined, Policy};
use super::verify;
use crate::cexpr::c;
use crate::error::Result;
use crate::kernel::{Kernel, LaunchSpec, Requirement};
use crate::writer::Writer;

mod epilogue;
mod trips;

use epilogue::epilogue;
use trips::{k_block_trips, trip_form, Trips};

/// Everything the emission needs, computed once.
struct Parts<'a> {
    p: &'a Pipelined,
    threads: i64,
    /// tAgA / tAsA / tAcA (copy partitions: gmem, smem, coordinates) for A and B.
    copy: [CopyParts; 2],
    /// tCsA, tCsB (MMA reads of smem), tCgC, tCcC.
    mma_a: Frag,
    mma_b: Frag,
    mma_c: Frag,
    c_coord: Tensor,
    /// The stage strides of the shared tiles of A and B (their last mode).
    stage: [i64; 2],
    /// The trip form of a partly unrolled k-block loop, when it applies ([`trip_form`]).
    trips: Option<Trips>,
}

struct CopyParts {
    g: Frag,
    s: Frag,
    coord: Tensor,
    /// Which coordinate the vector mode walks (0: M/N, 1: K).
    vector_dim: usize,
    vector: i64,
    smem_offset: i64,
}

/// The plan's checks (coverage, budgets, banks: `verify::pipelined`; the copies' vectors), with
/// what they computed. Both emitters run them (`gemm::emit_by`).
fn checked<'a>(plan: &GemmPlan, p: &'a Pipelined) -> Result<(verify::Report, Parts<'a>)> {
    let report = verify::pipelined(plan, p)?;
    let parts = partitions(plan, p)?;
    check_copies(plan, &parts)?;
    Ok((report, parts))
}

/// The checks of a pipelined plan, for the IR's kernel of it, and the bank-conflict figures
/// of its shared accesses (warp 0) that they computed, a header line each.
pub fn check(plan: &GemmPlan, p: &Pipelined) -> Result<Vec<String>> {
    let (_, parts) = checked(plan, p)?;
    Ok(bank_notes(&parts))
}

/// Emits a pipelined kernel.
pub fn emit(plan: &GemmPlan) -> Result<Kernel> {
    let Policy::Pipelined(p) = &plan.policy else {
        return Err(plan.error("policy", "not a pipelined plan"));
    };
    let (mut report, mut parts) = checked(plan, p)?;
    parts.trips = trip_form(&parts);
    report.notes.extend(bank_notes(&parts));
    let mut w = Writer::new();
    header(
        &mut w,
        plan,
        &format!(
            "{}x{}x{} CTA tile, {} stages, {} threads",
            p.cta.0, p.cta.1, p.cta.2, p.stages, parts.threads
        ),
    );
    for line in &report.notes {
        w.comment(line);
    }
    helpers(&mut w, p, parts.trips.is_some());
    signature(&mut w, plan, parts.threads, parts.p.min_blocks_per_sm);
    body(&mut w, plan, &parts)?;
    w.close("");
    let grid = |name: &str, t: i64| {
        Int::symbol(name)
            .ceil_div(&s(t))
            .map_err(plan.layout_error("grid"))
    };
    let launch = LaunchSpec {
        grid: [grid("M", p.cta.0)?, grid("N", p.cta.1)?, s(1)],
        block: [parts.threads, 1, 1],
        dynamic_smem_bytes: report.smem_bytes,
        params: params(plan),
        requirements: requirements(plan, p),
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

/// The bank-conflict figures of the fragment reads and the copy writes (warp 0).
fn bank_notes(parts: &Parts) -> Vec<String> {
    let p = parts.p;
    let mut notes = Vec::new();
    for (name, f, stage) in [
        ("tCsA", &parts.mma_a, parts.stage[0]),
        ("tCsB", &parts.mma_b, parts.stage[1]),
    ] {
        let bits = if vectorizable(f, &value_offsets(f), parts.threads, stage) {
            128
        } else {
            32
        };
        if let Some(ways) = verify::bank_ways(f, frag_count(f), p.cta.2, bits) {
            notes.push(format!(
                "bank conflicts of the {name} reads (warp 0, {bits}-bit): max_ways={ways}"
            ));
        }
    }
    for (name, cp) in [("tAsA", &parts.copy[0]), ("tBsB", &parts.copy[1])] {
        let bits = 32 * cp.vector;
        if let Some(ways) = verify::copy_bank_ways(&cp.s, bits) {
            notes.push(format!(
                "bank conflicts of the {name} writes (warp 0, {bits}-bit): max_ways={ways}"
            ));
        }
    }
    notes
}

/// What the runtime checks before a launch: 128-bit aligned matrices and leading dimensions, the
/// divisible sizes of an unpredicated plan, and the buffers' lengths.
fn requirements(plan: &GemmPlan, p: &Pipelined) -> Vec<Requirement> {
    let mut r: Vec<Requirement> = ["ldA", "ldB", "ldC"]
        .into_iter()
        .map(|symbol| Requirement::Divisible {
            symbol: symbol.into(),
            by: 4,
            from: "128-bit vectors along the leading dimension".into(),
        })
        .chain(
            ["A", "B", "C"]
                .into_iter()
                .map(|pointer| Requirement::Aligned {
                    pointer: pointer.into(),
                    bytes: 16,
                    from: "128-bit vector copies".into(),
                }),
        )
        .collect();
    if !p.predicated {
        for (symbol, by) in [("M", p.cta.0), ("N", p.cta.1), ("K", p.cta.2)] {
            r.push(Requirement::Divisible {
                symbol: symbol.into(),
                by,
                from: "the unpredicated tiles".into(),
            });
        }
    }
    r.extend(super::common::buffer_requirements(plan));
    r
}

/// The per-thread partitions of the plan's tensors.
fn partitions<'a>(plan: &GemmPlan, p: &'a Pipelined) -> Result<Parts<'a>> {
    let err = plan.layout_error("partitions");
    let threads = p.mma.num_threads().map_err(&err)?.as_static().unwrap_or(0);
    let (bm, bn, bk) = p.cta;
    let cta = Tiler::from_shape(&tup![s(bm), s(bn), s(bk)]);
    let cta_coord = Coord::Tuple(vec![
        Coord::Int(sym("bm")),
        Coord::Int(sym("bn")),
        Coord::Under,
    ]);
    let step = |keep: [bool; 3]| {
        Coord::Tuple(
            keep.iter()
                .map(|&k| if k { Coord::Int(s(1)) } else { Coord::Under })
                .collect(),
        )
    };
    let mut copy = Vec::new();
    let (smem_b_offset, _) = verify::smem_offsets(p);
    for (which, gl, sl, tc, proj, smem_offset) in [
        (
            "A",
            plan.layout.a_layout(),
            &p.smem_a,
            &p.copy_a,
            step([true, false, true]),
            0,
        ),
        (
            "B",
            plan.layout.b_layout(),
            &p.smem_b,
            &p.copy_b,
            step([false, true, true]),
            smem_b_offset,
        ),
    ] {
        let thr = tc.get_slice(&sym("tid")).map_err(&err)?;
        let (gt, _) = frag::tensor(which, MemSpace::Gmem, &AnyLayout::Plain(gl.clone()));
        let g_tile = gt.local_tile(&cta, &cta_coord, Some(&proj)).map_err(&err)?;
        let g = frag::copy(&thr, &g_tile, None, true).map_err(&err)?;
        let (st, sw) = frag::tensor(&format!("s{which}"), MemSpace::Smem, sl);
        let s_frag = frag::copy(&thr, &st, sw, false).map_err(&err)?;
        let id = Tensor::identity(gl.shape()).map_err(&err)?;
        let c_tile = id.local_tile(&cta, &cta_coord, Some(&proj)).map_err(&err)?;
        let coord = thr.partition_s(&c_tile).map_err(&err)?;
        let v0 = coord.layout().shape_layout().mode(0).map_err(&err)?;
        let vector_dim = v0
            .stride()
            .leaves()
            .iter()
            .find_map(|d| d.as_basis().map(|(_, m)| m))
            .unwrap_or(0);
        let vector = v0.size().map_err(&err)?.as_static().unwrap_or(1);
        copy.push(CopyParts {
            g,
            s: s_frag,
            coord,
            vector_dim,
            vector,
            smem_offset,
        });
    }
    let thr = p.mma.get_slice(&sym("tid")).map_err(&err)?;
    let (sa, swa) = frag::tensor("sA", MemSpace::Smem, &p.smem_a);
    let (sb, swb) = frag::tensor("sB", MemSpace::Smem, &p.smem_b);
    let mma_a = frag::mma(&thr, MmaOperand::A, &sa, swa).map_err(&err)?;
    let mma_b = frag::mma(&thr, MmaOperand::B, &sb, swb).map_err(&err)?;
    let (gc, _) = frag::tensor(
        "C",
        MemSpace::Gmem,
        &AnyLayout::Plain(plan.layout.c_layout()),
    );
    let step_c = step([true, true, false]);
    let c_tile = gc
        .local_tile(&cta, &cta_coord, Some(&step_c))
        .map_err(&err)?;
    let mma_c = frag::mma(&thr, MmaOperand::C, &c_tile, None).map_err(&err)?;
    let cid = Tensor::identity(plan.layout.c_layout().shape()).map_err(&err)?;
    let c_id_tile = cid
        .local_tile(&cta, &cta_coord, Some(&step_c))
        .map_err(&err)?;
    let c_coord = thr.partition(MmaOperand::C, &c_id_tile).map_err(&err)?;
    let [a, b]: [CopyParts; 2] = copy
        .try_into()
        .map_err(|_| plan.error("partitions", "two operands"))?;
    Ok(Parts {
        p,
        threads,
        copy: [a, b],
        mma_a,
        mma_b,
        mma_c,
        c_coord,
        stage: [stage_stride(&p.smem_a), stage_stride(&p.smem_b)],
        trips: None,
    })
}

/// Each copy instruction moves what its `cp.async` moves: the atom is as wide as the
/// partition's vector, the vector is contiguous in global and in shared memory, and every
/// destination (every thread, copy and stage, through the swizzle) and every global source is
/// aligned to the vector.
fn check_copies(plan: &GemmPlan, parts: &Parts) -> Result<()> {
    let p = parts.p;
    for (part, cp, tc, stage) in [
        ("TiledCopy A", &parts.copy[0], &p.copy_a, parts.stage[0]),
        ("TiledCopy B", &parts.copy[1], &p.copy_b, parts.stage[1]),
    ] {
        let v = cp.vector;
        let bits = match tc.atom().op() {
            CopyOp::CpAsyncCacheGlobal { bits } | CopyOp::CpAsyncCacheAlways { bits } => {
                i64::from(bits)
            }
            _ => 0,
        };
        if bits != 32 * v {
            return Err(plan.error(
                part,
                format!("each thread copies {v} values at a time but its atom moves {bits} bits"),
            ));
        }
        let at = |k: i64| [s(k), s(0), s(0), s(0)];
        let contiguous =
            |f: &Frag| (0..v).all(|k| f.rel(&at(k)).ok().and_then(|o| o.as_static()) == Some(k));
        for (mem, f) in [("global", &cp.g), ("shared", &cp.s)] {
            if !contiguous(f) {
                return Err(plan.error(
                    part,
                    format!(
                        "its {v}-value vectors are not contiguous in {mem} memory ({})",
                        f.layout
                    ),
                ));
            }
        }
        let statics: Option<Vec<i64>> = (0..cp.s.mode_size(1))
            .flat_map(|i| (0..cp.s.mode_size(2)).map(move |j| (i, j)))
            .map(|(i, j)| cp.s.rel(&[s(0), s(i), s(j), s(0)]).ok()?.as_static())
            .collect();
        let aligned = statics.is_some_and(|st| {
            (0..parts.threads).all(|tid| {
                frag::base_at(&cp.s.base, tid).is_some_and(|b| {
                    st.iter().all(|&o| {
                        (0..p.stages).all(|pipe| {
                            let x = b + o + pipe * stage;
                            cp.s.swizzle
                                .map_or(Some(x), |sw| sw.apply(x).ok())
                                .is_some_and(|x| (x + cp.smem_offset) % v == 0)
                        })
                    })
                })
            })
        });
        if !aligned || !aligned_for_all_threads(&cp.g.base, v, parts.threads) {
            return Err(plan.error(
                part,
                format!("its {}-byte copies are not aligned to {} bytes for every thread, copy and stage", 4 * v, 4 * v),
            ));
        }
    }
    Ok(())
}

/// The device helpers: cp.async, its fence and wait, the swizzles.
fn helpers(w: &mut Writer, p: &Pipelined, lds: bool) {
    if lds {
        w.comment("ld.shared.v4.f32 at a shared-window byte address (the k-block trips read at immediate offsets)");
        w.open("__device__ __forceinline__ float4 lds128(unsigned addr)");
        w.line("float4 v;");
        w.line("asm volatile(\"ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\\n\" : \"=f\"(v.x), \"=f\"(v.y), \"=f\"(v.z), \"=f\"(v.w) : \"r\"(addr));");
        w.line("return v;");
        w.close("");
    }
    let ops: BTreeSet<(u32, &str)> = [p.copy_a.atom().op(), p.copy_b.atom().op()]
        .iter()
        .filter_map(|op| match *op {
            CopyOp::CpAsyncCacheGlobal { bits } => Some((bits / 8, "cg")),
            CopyOp::CpAsyncCacheAlways { bits } => Some((bits / 8, "ca")),
            _ => None,
        })
        .collect();
    if !ops.is_empty() {
        for (bytes, cache) in &ops {
            w.comment(format!("cp.async.{cache} of {bytes} bytes; src_bytes < {bytes} zero-fills the rest (predication)"));
            w.open(format!("__device__ __forceinline__ void cp_async_{bytes}(float* smem, const float* gmem, int src_bytes)"));
            w.line("const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));");
            w.line(format!("asm volatile(\"cp.async.{cache}.shared.global.L2::128B [%0], [%1], {bytes}, %2;\\n\" :: \"r\"(s), \"l\"(gmem), \"r\"(src_bytes));"));
            w.close("");
        }
        w.open("__device__ __forceinline__ void cp_async_fence()");
        w.line("asm volatile(\"cp.async.commit_group;\\n\" ::);");
        w.close("");
        w.line("template <int N>");
        w.open("__device__ __forceinline__ void cp_async_wait()");
        w.line("asm volatile(\"cp.async.wait_group %0;\\n\" :: \"n\"(N));");
        w.close("");
    }
    for (name, l) in [("A", &p.smem_a), ("B", &p.smem_b)] {
        if let AnyLayout::Composed(cl) = l {
            let sw = cl.layout_a();
            let (b, m, sh) = sw.params();
            // CuTe: the B bits at M + max(S, 0) are XORed into the B bits at M - min(S, 0)
            let (from, to) = (
                i64::from(m) + i64::from(sh.max(0)),
                i64::from(m) - i64::from(sh.min(0)),
            );
            let b = i64::from(b);
            w.comment(format!(
                "s{name}: {sw} (XOR bits [{from},{}) into bits [{to},{}))",
                from + b,
                to + b
            ));
            w.open(format!(
                "__device__ __forceinline__ int swizzle_{name}(int o)"
            ));
            let shift = if sh >= 0 {
                format!(">> {sh}")
            } else {
                format!("<< {}", -i64::from(sh))
            };
            w.line(format!("return o ^ ((o & {}) {shift});", sw.yyy_mask()));
            w.close("");
            w.comment(format!(
                "a swizzle is XOR-linear: swizzle_{name}(base + s) == swizzle_{name}(base) ^ swizzle_{name}(s) when base and s share no bits"
            ));
        }
    }
}

/// The kernel body: declarations, the tile loaders, the prologue, the mainloop, the epilogue.
fn body(w: &mut Writer, plan: &GemmPlan, parts: &Parts) -> Result<()> {
    declarations(w, plan, parts)?;
    fragments(w, parts);
    tile_loaders(w, plan, parts)?;
    prologue(w, plan, parts)?;
    w.open("for (int kt = 0; kt < k_tiles; ++kt)");
    match parts.trips {
        Some(t) => k_block_trips(w, parts, &t),
        None => k_blocks_unrolled(w, plan, parts)?,
    }
    w.close("");
    epilogue(w, plan, parts)
}

/// The shared tiles, the thread and CTA indices, and each thread's copy and MMA partitions.
fn declarations(w: &mut Writer, plan: &GemmPlan, parts: &Parts) -> Result<()> {
    let p = parts.p;
    let bk = p.cta.2;
    match parts.trips {
        Some(t) if t.align > 16 => w.line(format!(
            "extern __shared__ __align__({}) float4 smem_f4[];",
            t.align
        )),
        _ => w.line("extern __shared__ float4 smem_f4[];"),
    };
    w.line("float* smem = reinterpret_cast<float*>(smem_f4);");
    w.line(format!("float* sA = smem;  // {}", p.smem_a));
    w.line(format!(
        "float* sB = smem + {};  // {}",
        parts.copy[1].smem_offset, p.smem_b
    ));
    w.line("const int tid = threadIdx.x;");
    w.line("const int bm = blockIdx.x;");
    w.line("const int bn = blockIdx.y;");
    w.line(format!("const int k_tiles = (K + {}) / {bk};", bk - 1));
    for (which, cp) in [("A", &parts.copy[0]), ("B", &parts.copy[1])] {
        w.comment(format!(
            "t{which}g{which}: {}   t{which}s{which}: {}",
            cp.g.layout, cp.s.layout
        ));
        w.line(format!("const int t{which}g{which} = {};", c(&cp.g.base)));
        w.line(format!("const int t{which}s{which} = {};", c(&cp.s.base)));
        let origin = frag::coord_at(&cp.coord, &[s(0), s(0), s(0), s(0)])
            .map_err(plan.layout_error("coordinates"))?;
        w.line(format!(
            "const int t{which}c{which}_row = {};  // coordinate of this thread's first vector",
            origin[0]
        ));
        w.line(format!("const int t{which}c{which}_k = {};", origin[1]));
    }
    w.comment(format!(
        "tCsA: {}   tCsB: {}",
        parts.mma_a.layout, parts.mma_b.layout
    ));
    w.line(format!("const int tCsA = {};", c(&parts.mma_a.base)));
    w.line(format!("const int tCsB = {};", c(&parts.mma_b.base)));
    Ok(())
}

/// How the fragment reads apply a swizzle (a comment, or the per-phase bases), the accumulators
/// and the register buffers.
fn fragments(w: &mut Writer, parts: &Parts) {
    let p = parts.p;
    for (which, f, stage) in [
        ("A", &parts.mma_a, parts.stage[0]),
        ("B", &parts.mma_b, parts.stage[1]),
    ] {
        let (threads, bk) = (parts.threads, p.cta.2);
        if xor_reads(f, threads, bk, stage) {
            w.comment(format!(
                "tCs{which} reads: swizzle_{which}(tCs{which} + kb*ks + o) == (tCs{which} ^ swizzle_{which}(kb*ks) ^ kb*ks) + kb*ks + o (XOR-linear; the base stays clear of the swizzle's source bits)"
            ));
        } else if let Some(n) = read_phases(f, threads, bk, stage) {
            let k_stride = f.mode_stride(2).unwrap_or(0);
            w.comment(format!(
                "the swizzle of tCs{which} repeats every {n} k blocks: one base per phase"
            ));
            w.line(format!("int tCs{which}_ph[{n}];"));
            w.line("#pragma unroll");
            w.line(format!(
                "for (int j = 0; j < {n}; ++j) tCs{which}_ph[j] = swizzle_{which}(tCs{which} + j * {k_stride});"
            ));
        }
    }
    let (fm, fn_) = (frag_count(&parts.mma_a), frag_count(&parts.mma_b));
    w.line(format!("float acc[{}];", fm * fn_));
    w.line("#pragma unroll");
    w.line(format!(
        "for (int i = 0; i < {}; ++i) acc[i] = 0.0f;",
        fm * fn_
    ));
    w.line(format!(
        "float rA[2][{fm}], rB[2][{fn_}];  // 2-deep register pipeline over the K blocks"
    ));
}

/// The edge copies (predicated plans) and `load_tile`, which copies a k-tile of A and B.
fn tile_loaders(w: &mut Writer, plan: &GemmPlan, parts: &Parts) -> Result<()> {
    let p = parts.p;
    let bk = p.cta.2;
    let operands = [
        Operand {
            which: "A",
            cp: &parts.copy[0],
            stage: parts.stage[0],
            rows: "M",
            tile: ("bm", p.cta.0),
        },
        Operand {
            which: "B",
            cp: &parts.copy[1],
            stage: parts.stage[1],
            rows: "N",
            tile: ("bn", p.cta.1),
        },
    ];
    if p.predicated {
        for op in &operands {
            edge_copy(w, plan, op, bk)?;
        }
    }
    w.comment("copies k-tile `kt` of A and B into shared-memory stage `pipe` (zero-filling outside the matrix)");
    w.open("auto load_tile = [&](int kt, int pipe)");
    for op in &operands {
        copy_tile(w, plan, op, bk)?;
    }
    w.close(";");
    Ok(())
}

/// The first `stages - 1` k-tiles in flight, then the first k block's fragments (and, in
/// trips, the trips' byte addresses).
fn prologue(w: &mut Writer, plan: &GemmPlan, parts: &Parts) -> Result<()> {
    let p = parts.p;
    let stages = p.stages;
    w.line("int k_tile_next = 0;");
    w.line("#pragma unroll 1");
    w.open(format!("for (int pipe = 0; pipe < {}; ++pipe)", stages - 1));
    if p.predicated {
        w.comment(format!(
            "prologue: the first {} k-tiles in flight, by the edge copies (the fast path is inlined once, in the mainloop)",
            stages - 1
        ));
        w.line("if (k_tile_next < k_tiles) { copy_A_edge(k_tile_next, pipe); copy_B_edge(k_tile_next, pipe); }");
    } else {
        w.comment(format!(
            "prologue: the first {} k-tiles in flight",
            stages - 1
        ));
        w.line("if (k_tile_next < k_tiles) load_tile(k_tile_next, pipe);");
    }
    w.line("cp_async_fence();");
    w.line("++k_tile_next;");
    w.close("");
    w.line("int pipe_read = 0;");
    w.line(format!("int pipe_write = {};", stages - 1));
    w.line(format!("cp_async_wait<{}>();", stages - 2));
    w.line("__syncthreads();");
    load_frags(w, plan, parts, "0", "0")?;
    if let Some(t) = parts.trips {
        w.comment(format!(
            "the trips' shared-window byte addresses of this thread's first A and B values: k block kb0 of stage pipe_read ({}-byte aligned smem keeps the XOR of a swizzled read off the base)",
            t.align
        ));
        w.line("unsigned tA_t = static_cast<unsigned>(__cvta_generic_to_shared(&sA[tCsA]));");
        w.line("unsigned tB_t = static_cast<unsigned>(__cvta_generic_to_shared(&sB[tCsB]));");
    }
    Ok(())
}

/// The k blocks of a k-tile, unrolled (all of them, or `k_block_unroll` per trip of the loop
/// when the trip form does not apply): every index below is static once `kb` is.
fn k_blocks_unrolled(w: &mut Writer, plan: &GemmPlan, parts: &Parts) -> Result<()> {
    let (bk, stages) = (parts.p.cta.2, parts.p.stages);
    match parts.p.k_block_unroll {
        Some(n) if n < bk => w.line(format!("#pragma unroll {n}")),
        _ => w.line("#pragma unroll"),
    };
    w.open(format!("for (int kb = 0; kb < {bk}; ++kb)"));
    w.open(format!("if (kb == {})", bk - 1));
    next_stage(w, stages);
    w.close("");
    w.line(format!("const int kb_next = (kb + 1) % {bk};"));
    load_frags(w, plan, parts, "(kb + 1) & 1", "kb_next")?;
    w.open("if (kb == 0)");
    issue_tile(w, stages);
    w.close("");
    outer_product(w, parts, "kb & 1");
    w.close("");
    Ok(())
}

/// Advances `pipe_read` once its copies have landed and every thread is done with the stage.
fn next_stage(w: &mut Writer, stages: i64) {
    w.comment(
        "the next stage is needed: wait for its copies and for every thread to be done reading",
    );
    w.line(format!("pipe_read = (pipe_read + 1) % {stages};"));
    w.line(format!("cp_async_wait<{}>();", stages - 2));
    w.line("__syncthreads();");
}

/// Puts the next k-tile in flight into stage `pipe_write`.
fn issue_tile(w: &mut Writer, stages: i64) {
    w.line("if (k_tile_next < k_tiles) load_tile(k_tile_next, pipe_write);");
    w.line("cp_async_fence();");
    w.line("++k_tile_next;");
    w.line(format!("pipe_write = (pipe_write + 1) % {stages};"));
}

/// The MMA of one k block from register buffer `buf`: the thread's outer product.
fn outer_product(w: &mut Writer, parts: &Parts, buf: &str) {
    let (fm, fn_) = (frag_count(&parts.mma_a), frag_count(&parts.mma_b));
    w.comment(format!("the MMA: {fm}x{fn_} outer product per thread"));
    w.line("#pragma unroll");
    w.open(format!("for (int j = 0; j < {fn_}; ++j)"));
    w.line("#pragma unroll");
    w.open(format!("for (int i = 0; i < {fm}; ++i)"));
    w.line(format!(
        "acc[i + {fm} * j] = fmaf(rA[{buf}][i], rB[{buf}][j], acc[i + {fm} * j]);"
    ));
    w.close("");
    w.close("");
}

/// The stride of the stage (last) mode of a shared tile.
fn stage_stride(l: &AnyLayout) -> i64 {
    let b = l.shape_layout();
    b.mode(b.rank() - 1)
        .ok()
        .and_then(|m| m.stride().as_int().and_then(Int::as_static))
        .unwrap_or(0)
}

/// Values per thread in an MMA fragment (modes 1, excluding K and pipe).
fn frag_count(f: &Frag) -> i64 {
    f.mode_size(1)
}

/// One gmem -> smem copy instruction of a thread: shared index, global index, the coordinate
/// (row, k) of its first element.
struct OneCopy {
    s_idx: String,
    g_idx: String,
    row: String,
    k: String,
}

/// One operand's gmem -> smem copy as the tile loaders see it.
struct Operand<'a> {
    /// "A" or "B".
    which: &'a str,
    cp: &'a CopyParts,
    /// The stride of the shared tile's stage mode.
    stage: i64,
    /// The problem symbol bounding the operand's rows ("M" or "N").
    rows: &'a str,
    /// The block index and the CTA tile's extent along those rows (`("bm", 128)`).
    tile: (&'a str, i64),
}

/// The copies of one operand's k-tile `kt` into stage `pipe`. Predicated plans branch once per
/// tile: a tile wholly inside the matrix (the CTA's rows and the k-tile) copies unpredicated; an
/// edge tile zero-fills what lies outside (`src_bytes` of `cp.async`).
fn copy_tile(w: &mut Writer, plan: &GemmPlan, op: &Operand, bk: i64) -> Result<()> {
    let Operand {
        which,
        cp,
        stage,
        rows,
        tile: (block, tile_rows),
    } = *op;
    let copies = copy_list(plan, which, cp, stage, bk)?;
    let bytes = cp.vector * 4;
    let unpredicated = |w: &mut Writer| {
        for c in &copies {
            w.line(format!(
                "cp_async_{bytes}(&s{which}[{}], &{which}[{}], {bytes});",
                c.s_idx, c.g_idx
            ));
        }
    };
    if !matches!(&plan.policy, Policy::Pipelined(p) if p.predicated) {
        unpredicated(w);
        return Ok(());
    }
    w.open(format!(
        "if ({block} * {tile_rows} + {tile_rows} <= {rows} && kt * {bk} + {bk} <= K)"
    ));
    w.comment("the tile lies inside the matrix");
    unpredicated(w);
    w.reopen("else");
    w.line(format!("copy_{which}_edge(kt, pipe);"));
    w.close("");
    Ok(())
}

/// `copy_A_edge(kt, pipe)` (or B): the copies of a k-tile that may cross the matrix's edge,
/// zero-filling what lies outside (`src_bytes` of `cp.async`); a rolled loop where the algebra
/// gives the offsets as expressions of the loop indices, so the fast path keeps its registers.
fn edge_copy(w: &mut Writer, plan: &GemmPlan, op: &Operand, bk: i64) -> Result<()> {
    let Operand {
        which,
        cp,
        stage,
        rows,
        ..
    } = *op;
    let copies = copy_list(plan, which, cp, stage, bk)?;
    let bytes = cp.vector * 4;
    let (bound, other, pos, opos) = if cp.vector_dim == 1 {
        ("K", rows, "k", "r")
    } else {
        (rows, "K", "r", "k")
    };
    let predicated_copy = |w: &mut Writer, c: &OneCopy| {
        w.line(format!("const int r = {}, k = {};", c.row, c.k));
        w.line(format!(
            "const int n = ({opos} < {other}) ? min(max({bound} - {pos}, 0), {}) : 0;",
            cp.vector
        ));
        w.line(format!(
            "cp_async_{bytes}(&s{which}[{}], n > 0 ? &{which}[{}] : {which}, n * 4);",
            c.s_idx, c.g_idx
        ));
    };
    w.comment(format!(
        "copies k-tile `kt` of {which} into stage `pipe`, zero-filling outside the matrix"
    ));
    w.open(format!("auto copy_{which}_edge = [&](int kt, int pipe)"));
    match rolled_copy(which, cp, stage, bk) {
        Some((c, n1, n2)) if copies.len() > 1 => {
            w.line("#pragma unroll 1");
            w.open(format!("for (int ci = 0; ci < {n1}; ++ci)"));
            w.line("#pragma unroll 1");
            w.open(format!("for (int cj = 0; cj < {n2}; ++cj)"));
            predicated_copy(w, &c);
            w.close("");
            w.close("");
        }
        _ => {
            for c in &copies {
                w.open("");
                predicated_copy(w, c);
                w.close("");
            }
        }
    }
    w.close(";");
    Ok(())
}

/// The copy at fragment coordinate `at` = `(_, i, j, _)` (static, or the loop symbols `ci`, `cj`);
/// its shared index is `s_idx` when given (a split swizzle), else the full expression.
fn one_copy(
    which: &str,
    cp: &CopyParts,
    stage: i64,
    bk: i64,
    at: &[Int],
    s_idx: Option<String>,
) -> cute_layout::Result<OneCopy> {
    let k_mode = cp.g.layout.mode(3)?;
    let k_stride = c(k_mode
        .stride()
        .as_int()
        .ok_or_else(|| cute_layout::Error::Eval("a k-tile stride that is one integer".into()))?);
    let g_rel = c(&cp.g.rel(at)?);
    let s_idx = match s_idx {
        Some(i) => i,
        None => {
            let plain = format!("t{which}s{which} + {} + pipe * {stage}", c(&cp.s.rel(at)?));
            match cp.s.swizzle {
                Some(_) => format!("swizzle_{which}({plain})"),
                None => plain,
            }
        }
    };
    let delta = frag::coord_delta(&cp.coord, at)?;
    Ok(OneCopy {
        s_idx,
        g_idx: format!("t{which}g{which} + {g_rel} + kt * {k_stride}"),
        row: crate::cexpr::add(&format!("t{which}c{which}_row"), &delta[0]),
        k: format!(
            "{} + kt * {bk}",
            crate::cexpr::add(&format!("t{which}c{which}_k"), &delta[1])
        ),
    })
}

/// The copy of iteration `(ci, cj)` as expressions of the loop indices (None when the algebra
/// cannot express a mode's offset symbolically), with the two trip counts.
fn rolled_copy(which: &str, cp: &CopyParts, stage: i64, bk: i64) -> Option<(OneCopy, i64, i64)> {
    let at = [s(0), Int::index("ci"), Int::index("cj"), s(0)];
    let copy = one_copy(which, cp, stage, bk, &at, None).ok()?;
    Some((copy, cp.g.mode_size(1), cp.g.mode_size(2)))
}

/// Every copy instruction of one thread for one k-tile.
fn copy_list(
    plan: &GemmPlan,
    which: &str,
    cp: &CopyParts,
    stage: i64,
    bk: i64,
) -> Result<Vec<OneCopy>> {
    let err = plan.layout_error("copy");
    let (n1, n2) = (cp.g.mode_size(1), cp.g.mode_size(2));
    let coords: Vec<[Int; 4]> = (0..n1)
        .flat_map(|i| (0..n2).map(move |j| [s(0), s(i), s(j), s(0)]))
        .collect();
    let statics = coords
        .iter()
        .map(|at| Ok(cp.s.rel(at)?.as_static().unwrap_or(-1)))
        .collect::<cute_layout::Result<Vec<i64>>>()
        .map_err(&err)?;
    let threads = match &plan.policy {
        Policy::Pipelined(p) => p
            .mma
            .num_threads()
            .ok()
            .and_then(|t| t.as_static())
            .unwrap_or(0),
        _ => 0,
    };
    let split = swizzled_writes(cp.s.swizzle, which, &cp.s.base, &statics, threads, stage);
    coords
        .iter()
        .enumerate()
        .map(|(n, at)| {
            let s_idx = split.as_ref().map(|v| v[n].clone());
            one_copy(which, cp, stage, bk, at, s_idx).map_err(&err)
        })
        .collect()
}

/// Whether a fragment's values load as 128-bit vectors: groups of 4 contiguous, aligned values
/// for every thread, every k block and every stage, and no swizzle.
fn vectorizable(f: &Frag, offs: &[i64], threads: i64, stage: i64) -> bool {
    let k_stride = f.mode_stride(2).unwrap_or(1);
    f.swizzle.is_none_or(|sw| sw.params().1 >= 2)
        && aligned_for_all_threads(&f.base, 4, threads)
        && k_stride % 4 == 0
        && stage % 4 == 0
        && offs
            .chunks(4)
            .all(|g| g.len() == 4 && g[0] % 4 == 0 && g.windows(2).all(|p| p[1] == p[0] + 1))
}

/// The static offsets of a fragment's values (k block 0, stage 0).
fn value_offsets(f: &Frag) -> Vec<i64> {
    (0..frag_count(f))
        .map(|i| {
            f.rel(&[s(0), s(i), s(0), s(0)])
                .ok()
                .and_then(|o| o.as_static())
                .unwrap_or(-1)
        })
        .collect()
}

/// The K extent of the CTA tile.
fn bk_of(plan: &GemmPlan) -> i64 {
    match &plan.policy {
        Policy::Pipelined(p) => p.cta.2,
        _ => 0,
    }
}

/// Whether `Sw(base + s + pipe * stage) == (Sw(base) ^ Sw(s)) + pipe * stage` for every thread,
/// every static offset `s` and every stage: the thread base and `s` share no bits (so the sum is
/// their XOR, and a swizzle is XOR-linear), stay inside a stage, and the stage stride is a multiple
/// of the swizzle's period. Then `Sw(s)` folds to a constant, `Sw(base)` is computed once, and a
/// swizzled access costs one XOR.
fn split_swizzle(
    sw: Option<cute_layout::Swizzle>,
    base: &Int,
    statics: &[i64],
    threads: i64,
    stage: i64,
) -> bool {
    let Some(sw) = sw else { return false };
    if stage <= 0 || stage % verify::swizzle_period(sw) != 0 || statics.iter().any(|&s| s < 0) {
        return false;
    }
    (0..threads).all(|tid| {
        frag::base_at(base, tid)
            .is_some_and(|b| b >= 0 && statics.iter().all(|&s| b & s == 0 && b + s < stage))
    })
}

/// The shared indices `Sw(base + s + pipe * stage)` of a thread's copies in split form, when it
/// is exact for every thread: `swizzle(base) + Sw(s) + pipe * stage` where `Sw(base)` and the
/// folded `Sw(s)` share no bits (the compiler keeps one register and immediate offsets), else
/// `(swizzle(base) ^ Sw(s)) + pipe * stage`. `None` when the split does not hold (or no swizzle).
fn swizzled_writes(
    sw: Option<cute_layout::Swizzle>,
    which: &str,
    base: &Int,
    statics: &[i64],
    threads: i64,
    stage: i64,
) -> Option<Vec<String>> {
    let sw = sw?;
    if !split_swizzle(Some(sw), base, statics, threads, stage) {
        return None;
    }
    let folded: Vec<i64> = statics
        .iter()
        .map(|&x| sw.apply(x).ok())
        .collect::<Option<_>>()?;
    let disjoint = (0..threads).all(|tid| {
        let b = frag::base_at(base, tid).and_then(|b| sw.apply(b).ok());
        b.is_some_and(|b| folded.iter().all(|&f| b & f == 0))
    });
    let name = format!("swizzle_{which}(t{which}s{which})");
    Some(
        folded
            .iter()
            .map(|f| {
                if disjoint {
                    format!("{name} + {f} + pipe * {stage}")
                } else {
                    format!("({name} ^ {f}) + pipe * {stage}")
                }
            })
            .collect(),
    )
}

/// Whether a swizzled fragment's reads take the XOR form `(base ^ F(kb * ks)) + kb * ks + o +
/// pipe * stage`, with `F(x) = Sw(x) ^ x` the bits the swizzle flips for k block `kb`: it holds
/// (checked exhaustively, every thread, k block, vector and stage) when the thread bases and the
/// vector offsets stay clear of the swizzle's source bits. One register per thread, one XOR per
/// k block (an immediate once the k block is static), and the index needs no table, so it also
/// suits a partly unrolled k-block loop.
fn xor_reads(f: &Frag, threads: i64, bk: i64, stage: i64) -> bool {
    let (Some(sw), Some(ks)) = (f.swizzle, f.mode_stride(2)) else {
        return false;
    };
    let firsts: Vec<i64> = value_offsets(f).chunks(4).map(|g| g[0]).collect();
    let stages = f.mode_size(3).max(1);
    (0..threads).all(|tid| {
        let Some(base) = frag::base_at(&f.base, tid) else {
            return false;
        };
        (0..bk).all(|kb| {
            let Ok(flip) = sw.apply(kb * ks).map(|x| x ^ (kb * ks)) else {
                return false;
            };
            firsts.iter().all(|&o| {
                (0..stages).all(|p| {
                    let rest = kb * ks + o + p * stage;
                    sw.apply(base + rest).ok() == Some((base ^ flip) + rest)
                })
            })
        })
    })
}

/// The number of k-block phases `n` after which a swizzled fragment's read offsets repeat, when
/// `Sw(base + kb * ks + o + pipe * stage) == Sw(base + (kb % n) * ks) + (kb / n) * n * ks + o +
/// pipe * stage` holds for every thread, k block, vector and stage (checked exhaustively): the
/// kernel then keeps `n` swizzled bases per thread and every read is a base plus an immediate.
fn read_phases(f: &Frag, threads: i64, bk: i64, stage: i64) -> Option<i64> {
    let sw = f.swizzle?;
    let ks = f.mode_stride(2)?;
    if stage <= 0 {
        return None;
    }
    let n = verify::swizzle_phases(sw, ks, bk)?;
    let firsts: Vec<i64> = value_offsets(f).chunks(4).map(|g| g[0]).collect();
    let stages = f.mode_size(3).max(1);
    let holds = (0..threads).all(|tid| {
        let Some(base) = frag::base_at(&f.base, tid) else {
            return false;
        };
        (0..bk).all(|kb| {
            let Ok(ph) = sw.apply(base + (kb % n) * ks) else {
                return false;
            };
            firsts.iter().all(|&o| {
                (0..stages).all(|p| {
                    let full = sw.apply(base + kb * ks + o + p * stage).ok();
                    full == Some(ph + (kb / n) * n * ks + o + p * stage)
                })
            })
        })
    });
    holds.then_some(n)
}

/// Whether the swizzle leaves every thread's base unchanged.
fn swizzle_fixes(sw: Option<cute_layout::Swizzle>, base: &Int, threads: i64) -> bool {
    let Some(sw) = sw else { return true };
    (0..threads).all(|tid| frag::base_at(base, tid).is_some_and(|b| sw.apply(b).ok() == Some(b)))
}

/// The static offsets `kb * k_stride + o` of every k block of a fragment.
fn fragment_statics(firsts: &[i64], k_stride: i64, bk: i64) -> Vec<i64> {
    (0..bk)
        .flat_map(|kb| firsts.iter().map(move |&o| kb * k_stride + o))
        .collect()
}

/// Loads the register fragments of k-block `kb` from stage `pipe_read` into buffer `buf`.
fn load_frags(w: &mut Writer, plan: &GemmPlan, parts: &Parts, buf: &str, kb: &str) -> Result<()> {
    for (which, f, stage) in [
        ("A", &parts.mma_a, parts.stage[0]),
        ("B", &parts.mma_b, parts.stage[1]),
    ] {
        let err = plan.layout_error("smem -> registers");
        let n = frag_count(f);
        let k_stride = f.mode_stride(2).unwrap_or(0);
        let offs: Vec<i64> = (0..n)
            .map(|i| {
                f.rel(&[s(0), s(i), s(0), s(0)])
                    .map_err(&err)
                    .map(|o| o.as_static().unwrap_or(-1))
            })
            .collect::<Result<_>>()?;
        let swz = f.swizzle.is_some();
        let vec4 = vectorizable(f, &offs, parts.threads, stage);
        let base = format!("tCs{which} + {kb} * {k_stride} + pipe_read * {stage}");
        let firsts: Vec<i64> = offs.chunks(4).map(|g| g[0]).collect();
        let statics = fragment_statics(&firsts, k_stride, bk_of(plan));
        let xor = vec4 && xor_reads(f, parts.threads, bk_of(plan), stage);
        let phases = if vec4 && !xor {
            read_phases(f, parts.threads, bk_of(plan), stage)
        } else {
            None
        };
        let split = vec4 && split_swizzle(f.swizzle, &f.base, &statics, parts.threads, stage);
        // the thread bases below the swizzle's source bits are its fixed points
        let fixed = split && swizzle_fixes(f.swizzle, &f.base, parts.threads);
        if vec4 {
            for (q, g) in offs.chunks(4).enumerate() {
                let idx = if xor {
                    let kbs = format!("{kb} * {k_stride}");
                    format!(
                        "(tCs{which} ^ swizzle_{which}({kbs}) ^ ({kbs})) + {kbs} + {} + pipe_read * {stage}",
                        g[0]
                    )
                } else if let Some(n) = phases {
                    format!("tCs{which}_ph[({kb}) % {n}] + ({kb}) / {n} * {} + {} + pipe_read * {stage}", n * k_stride, g[0])
                } else if split {
                    let b = if fixed {
                        format!("tCs{which}")
                    } else {
                        format!("swizzle_{which}(tCs{which})")
                    };
                    format!(
                        "({b} ^ swizzle_{which}({kb} * {k_stride} + {})) + pipe_read * {stage}",
                        g[0]
                    )
                } else if swz {
                    format!("swizzle_{which}({base} + {})", g[0])
                } else {
                    format!("{base} + {}", g[0])
                };
                w.line(format!(
                    "{{ const float4 v = *reinterpret_cast<const float4*>(&s{which}[{idx}]); r{which}[{buf}][{}] = v.x; r{which}[{buf}][{}] = v.y; r{which}[{buf}][{}] = v.z; r{which}[{buf}][{}] = v.w; }}",
                    4 * q, 4 * q + 1, 4 * q + 2, 4 * q + 3
                ));
            }
        } else {
            for (i, o) in offs.iter().enumerate() {
                let idx = format!("{base} + {o}");
                let idx = if swz {
                    format!("swizzle_{which}({idx})")
                } else {
                    idx
                };
                w.line(format!("r{which}[{buf}][{i}] = s{which}[{idx}];"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::trips::load_frags_trip;
    use super::*;
    use crate::gemm::{GemmLayout, KMajorTile, Major};

    /// Calls `f` with every named pipelined plan's name, layout, policy and partitions, and
    /// again with its K-major tiles in each form (`with_k_major_tile`) where it has one.
    fn each_pipelined(mut f: impl FnMut(&str, GemmLayout, &Pipelined, &Parts)) {
        for name in crate::named::NAMES {
            for layout in GemmLayout::all() {
                let plan = crate::named::plan(name, layout).unwrap();
                if !matches!(plan.policy, Policy::Pipelined(_)) {
                    continue;
                }
                let mut plans = vec![plan.clone()];
                if layout.a == Major::K || layout.b == Major::K {
                    for form in [KMajorTile::Padded, KMajorTile::Swizzled] {
                        plans.push(plan.clone().with_k_major_tile(form).unwrap());
                    }
                }
                for plan in &plans {
                    let Policy::Pipelined(p) = &plan.policy else {
                        unreachable!()
                    };
                    verify::pipelined(plan, p).unwrap();
                    f(name, layout, p, &partitions(plan, p).unwrap());
                }
            }
        }
    }

    /// Brute force over every thread, k block, fragment vector and stage of every named pipelined
    /// kernel: where the split form is emitted, it equals the full swizzle.
    #[test]
    fn split_swizzle_equals_the_full_swizzle() {
        let mut checked = 0;
        each_pipelined(|name, layout, p, parts| {
            for (f, l) in [(&parts.mma_a, &p.smem_a), (&parts.mma_b, &p.smem_b)] {
                let stage = stage_stride(l);
                let k_stride = f.mode_stride(2).unwrap();
                let firsts: Vec<i64> = value_offsets(f).chunks(4).map(|g| g[0]).collect();
                let statics = fragment_statics(&firsts, k_stride, p.cta.2);
                if !split_swizzle(f.swizzle, &f.base, &statics, parts.threads, stage) {
                    continue;
                }
                let sw = f.swizzle.unwrap();
                for tid in 0..parts.threads {
                    let base = frag::base_at(&f.base, tid).unwrap();
                    for kb in 0..p.cta.2 {
                        for &o in &firsts {
                            let st = kb * k_stride + o;
                            for pipe in 0..p.stages {
                                let full = sw.apply(base + st + pipe * stage).unwrap();
                                let split = (sw.apply(base).unwrap() ^ sw.apply(st).unwrap())
                                    + pipe * stage;
                                assert_eq!(full, split, "{name} {layout} tid {tid} kb {kb}");
                            }
                        }
                    }
                }
                checked += 1;
            }
        });
        assert!(
            checked >= 8,
            "the split form should apply to the swizzled K-major kernels"
        );
    }

    /// The copy writes' split form (`Sw(base) + Sw(s)` or `Sw(base) ^ Sw(s)`) against the full
    /// swizzle, for every thread, copy and stage; and the read phases apply where K is swizzled.
    #[test]
    fn split_copy_writes_and_xor_reads_equal_the_full_swizzle() {
        let (mut writes, mut phases) = (0, 0);
        each_pipelined(|name, layout, p, parts| {
            for (f, l) in [(&parts.mma_a, &p.smem_a), (&parts.mma_b, &p.smem_b)] {
                let Some(sw) = f.swizzle else { continue };
                let (bk, stage) = (p.cta.2, stage_stride(l));
                // the fallback holds too
                assert!(read_phases(f, parts.threads, bk, stage).is_some());
                // the emitted XOR form, re-proved: every thread, k block, vector and stage
                assert!(xor_reads(f, parts.threads, bk, stage), "{name} {layout}");
                let ks = f.mode_stride(2).unwrap();
                for tid in 0..parts.threads {
                    let base = frag::base_at(&f.base, tid).unwrap();
                    for kb in 0..bk {
                        let flip = sw.apply(kb * ks).unwrap() ^ (kb * ks);
                        for o in value_offsets(f) {
                            for pipe in 0..p.stages {
                                let rest = kb * ks + o + pipe * stage;
                                let full = sw.apply(base + rest).unwrap();
                                assert_eq!(full, (base ^ flip) + rest, "{name} {layout} tid {tid}");
                            }
                        }
                    }
                }
                phases += 1;
            }
            for (cp, l) in [(&parts.copy[0], &p.smem_a), (&parts.copy[1], &p.smem_b)] {
                let Some(sw) = cp.s.swizzle else { continue };
                let stage = stage_stride(l);
                let (n1, n2) = (cp.s.mode_size(1), cp.s.mode_size(2));
                let statics: Vec<i64> = (0..n1)
                    .flat_map(|i| (0..n2).map(move |j| (i, j)))
                    .map(|(i, j)| {
                        cp.s.rel(&[s(0), s(i), s(j), s(0)])
                            .unwrap()
                            .as_static()
                            .unwrap()
                    })
                    .collect();
                let forms =
                    swizzled_writes(Some(sw), "A", &cp.s.base, &statics, parts.threads, stage)
                        .expect("the K-major copies split");
                let disjoint = !forms[0].contains('^');
                for tid in 0..parts.threads {
                    let base = frag::base_at(&cp.s.base, tid).unwrap();
                    let sb = sw.apply(base).unwrap();
                    for &st in &statics {
                        let ss = sw.apply(st).unwrap();
                        for pipe in 0..p.stages {
                            let full = sw.apply(base + st + pipe * stage).unwrap();
                            let split = if disjoint { sb + ss } else { sb ^ ss } + pipe * stage;
                            assert_eq!(full, split, "{name} {layout} tid {tid}");
                        }
                    }
                }
                writes += 1;
            }
        });
        assert!(
            writes >= 8 && phases >= 8,
            "writes {writes} phases {phases}"
        );
    }

    /// The rolled edge-tile loop computes, for every iteration, the offsets and coordinates of
    /// the unrolled copies (the symbolic `(ci, cj)` expressions evaluated at each pair, with the
    /// problem symbols bound to odd values).
    #[test]
    fn rolled_edge_copies_equal_the_unrolled_ones() {
        let env_at = |i: i64, j: i64| {
            move |n: &str| match n {
                "ci" => Some(i),
                "cj" => Some(j),
                "ldA" => Some(1031),
                "ldB" => Some(517),
                "ldC" => Some(263),
                _ => Some(7),
            }
        };
        let mut rolled = 0;
        each_pipelined(|name, layout, _, parts| {
            for cp in &parts.copy {
                let sym = [s(0), Int::index("ci"), Int::index("cj"), s(0)];
                let (g, sh) = (cp.g.rel(&sym).unwrap(), cp.s.rel(&sym).unwrap());
                let d = cp.coord.coord_delta(&tuple(&sym)).unwrap();
                for i in 0..cp.g.mode_size(1) {
                    for j in 0..cp.g.mode_size(2) {
                        let env = env_at(i, j);
                        let at = [s(0), s(i), s(j), s(0)];
                        let same = |x: &Int, y: &Int| {
                            x.evaluate(&env).is_some() && x.evaluate(&env) == y.evaluate(&env)
                        };
                        assert!(same(&g, &cp.g.rel(&at).unwrap()), "{name} {layout} gmem");
                        assert!(same(&sh, &cp.s.rel(&at).unwrap()), "{name} {layout} smem");
                        let dc = cp.coord.coord_delta(&tuple(&at)).unwrap();
                        assert!(
                            d.iter().zip(&dc).all(|(x, y)| same(x, y)),
                            "{name} {layout}"
                        );
                    }
                }
                rolled += 1;
            }
        });
        assert!(rolled >= 12);
    }

    /// The rolled edge epilogue's offset and coordinate expressions of `(i, j)` equal, at every
    /// pair, those of the unrolled interior stores.
    #[test]
    fn rolled_edge_epilogue_equals_the_unrolled_one() {
        let coords = |t: &Tensor, at: &[Int]| match t.at(&tuple(at)).unwrap() {
            cute_layout::Element::Coord(v) => v,
            cute_layout::Element::Offset(_) => panic!("not a coordinate tensor"),
        };
        let mut checked = 0;
        each_pipelined(|name, layout, _, parts| {
            let sym = [s(0), Int::index("i"), Int::index("j")];
            let (off, crd) = (parts.mma_c.rel(&sym).unwrap(), coords(&parts.c_coord, &sym));
            for i in 0..frag_count(&parts.mma_a) {
                for j in 0..frag_count(&parts.mma_b) {
                    let env = |n: &str| match n {
                        "i" => Some(i),
                        "j" => Some(j),
                        "ldC" => Some(263),
                        _ => Some(7),
                    };
                    let same = |x: &Int, y: &Int| {
                        x.evaluate(&env).is_some() && x.evaluate(&env) == y.evaluate(&env)
                    };
                    let at = [s(0), s(i), s(j)];
                    assert!(
                        same(&off, &parts.mma_c.rel(&at).unwrap()),
                        "{name} {layout}"
                    );
                    let at_crd = coords(&parts.c_coord, &at);
                    assert!(
                        crd.iter().zip(&at_crd).all(|(x, y)| same(x, y)),
                        "{name} {layout}"
                    );
                    checked += 1;
                }
            }
        });
        assert!(checked >= 12 * 32);
    }

    fn tuple(c: &[Int]) -> cute_layout::IntTuple {
        cute_layout::IntTuple::Tuple(c.iter().cloned().map(cute_layout::IntTuple::Int).collect())
    }

    /// Each emitter piece of `sgemm-sm80`, snapshot on its own (NN: an M-major A copied with
    /// 128-bit vectors, a K-major B transposed into a swizzled tile): the PTX helpers, one k-tile's
    /// copies, one k block's fragment loads, and the epilogue with bias, ReLU and a user functor.
    #[test]
    fn emitter_pieces() {
        // swizzled: the pieces of the split and XOR address forms
        let mut plan = crate::named::plan("sgemm-sm80", GemmLayout::parse("NN").unwrap())
            .and_then(|p| p.with_k_major_tile(KMajorTile::Swizzled))
            .unwrap();
        plan.epilogue = crate::gemm::Epilogue {
            bias: Some(crate::gemm::Bias::PerCol),
            relu: true,
            functors: vec!["x = x * 0.5f;".to_string()],
        };
        let Policy::Pipelined(p) = &plan.policy else {
            unreachable!()
        };
        let parts = partitions(&plan, p).unwrap();
        let trips = trip_form(&parts).unwrap();
        let piece = |f: &dyn Fn(&mut Writer)| {
            let mut w = Writer::new();
            f(&mut w);
            w.finish()
        };
        insta::assert_snapshot!("piece_helpers", piece(&|w| helpers(w, p, true)));
        insta::assert_snapshot!(
            "piece_copy_b",
            piece(&|w| {
                let op = Operand {
                    which: "B",
                    cp: &parts.copy[1],
                    stage: parts.stage[1],
                    rows: "N",
                    tile: ("bn", 128),
                };
                edge_copy(w, &plan, &op, 32).unwrap();
                copy_tile(w, &plan, &op, 32).unwrap()
            })
        );
        insta::assert_snapshot!(
            "piece_load_frags",
            piece(&|w| load_frags(w, &plan, &parts, "1", "kb_next").unwrap())
        );
        insta::assert_snapshot!(
            "piece_load_frags_trip",
            piece(&|w| load_frags_trip(w, &parts, &trips, "(kb1 + 1) & 1"))
        );
        insta::assert_snapshot!(
            "piece_epilogue_bias_relu_functor",
            piece(&|w| epilogue(w, &plan, &parts).unwrap())
        );
    }
}
