//! The few-row GEMM (`sgemm-gemv`, `hgemm-gemv`, `bgemm-gemv`): `C = alpha * A * B + beta * C`
//! as cuBLAS's GEMV kernels compute a matrix-vector product, for the shapes where C has a row
//! or a few (LLM decoding: one token against a square weight). There the time is B's bytes, and
//! a tile of 16 or more rows spends its MMAs and its shared-memory round trips on rows C does
//! not have. Here nothing is staged: each warp takes one column `n` of C and a block of
//! [`Gemv::rows`] rows, its lanes stream B's column (K-major: contiguous along K) in 128-bit
//! vectors, `(1, 32 V)` values a step, [`Gemv::in_flight`] steps loaded before the first is read
//! (every warp is resident at once, so only its own loads in flight hide DRAM's latency), read
//! the same k's of A's rows (K-major A in vectors from global memory; M-major A from a shared
//! copy of the trip's k-range that the CTA's threads make once for its warps, k contiguous, so
//! a lane reads it in vectors too), and accumulate in FP32 with
//! `gemm(UniversalFMA)` over the `(ROWS, V)` and `(1, V)` fragments; a butterfly of shuffles
//! sums each row's 32 lane partials, and lane 0 writes the column's rows through the epilogue.
//! The grid is `(ceil(N / WARPS), ceil(M / ROWS))`: any M, N, K are computed (K a multiple of
//! V, the vectors' alignment, checked before the launch), fast where M is at most ROWS.

use cute_layout::atom::{make_tiled_copy, CopyAtom, CopyOp, MmaAtom, MmaOp};
use cute_layout::{s, tup, Coord, ElemType, ElemType::F32, Int, IntTuple, Layout, Tensor, Tiler};

use super::gemm::{LayoutErr, Problem};
use super::gemm_simple::epilogue;
use super::layout_err;
use crate::error::Result;
use crate::gemm::{GemmPlan, Gemv, Major};
use crate::ir::{Cond, EExpr, Kernel, KernelBuilder, Pred, ScalarOp, Unroll};

/// The kernel of a GEMV plan (`plan.policy` is `g`).
pub fn gemv(plan: &GemmPlan, g: &Gemv) -> Result<Kernel> {
    if !(1..=Gemv::MAX_IN_FLIGHT).contains(&g.in_flight) {
        return Err(plan.error(
            "gemv",
            format!(
                "{} vectors of B in flight a lane: 1 to {} hold in registers",
                g.in_flight,
                Gemv::MAX_IN_FLIGHT
            ),
        ));
    }
    match plan.layout.b {
        Major::K => gemv_k(plan, g),
        Major::MN => gemv_n(plan, g),
    }
}

/// B K-major (NN, TN): a warp a column of C, its lanes along K.
fn gemv_k(plan: &GemmPlan, g: &Gemv) -> Result<Kernel> {
    let (name, layout) = (plan.name.as_str(), plan.layout);
    let e = layout_err(name, "gemv");
    // a lane's values a step: one 128-bit vector
    let (rows, warps, v) = (g.rows, g.warps, 128 / i64::from(g.elem.bits()));
    let mut k = KernelBuilder::new(&plan.kernel_name());
    k.doc(&format!(
        "C = alpha * A * B + beta * C, {layout} layout, {} A and B: a warp per column of C and {rows} rows, its lanes along K in {v}-value vectors, FP32 accumulators summed by warp shuffles",
        g.elem
    ));
    let p = Problem::declare_typed(&mut k, plan, g.elem, false, false)?;
    k.target(plan.target).threads(32 * warps).grid([
        p.n.ceil_div(&s(warps)).map_err(&e)?,
        p.m.ceil_div(&s(rows)).map_err(&e)?,
        s(1),
    ]);
    let (tid, bx, by) = (
        KernelBuilder::tid(),
        KernelBuilder::block_idx(0),
        KernelBuilder::block_idx(1),
    );
    let lane = tid.rem(&s(32)).map_err(&e)?;
    // the warp's column of C: block bx's columns, one a warp
    let col = bx
        .mul(&s(warps))
        .and_then(|c| c.add(&tid.div(&s(32))?))
        .map_err(&e)?;
    // a lane's V consecutive k's of each (ROWS or 1, 32 V) chunk: (1,32):(_0,_1) lanes, (1,V)
    // values each, one vector; A and B alike (A from global memory where it is K-major, from
    // the shared copy where it is M-major)
    let lanes = Layout::new(tup![s(1), s(32)], tup![s(0), s(1)]).map_err(&e)?;
    let vals = Layout::new(tup![s(1), s(v)], tup![s(0), s(1)]).map_err(&e)?;
    let atom = universal(v, g.elem).map_err(&e)?;
    let thr = make_tiled_copy(&atom, &lanes, &vals)
        .and_then(|tiled| tiled.get_slice(&lane))
        .map_err(&e)?;
    let (tile_a, tile_b) = (
        Tiler::from_shape(&tup![s(rows), s(32 * v)]),
        Tiler::from_shape(&tup![s(1), s(32 * v)]),
    );
    // the lane's share of chunk c: A (CPY, ROWS, 1) and B (CPY, 1, 1) and their coordinates
    let part_a =
        |t: &Tensor, c: &Int| thr.partition_s(&t.local_tile(&tile_a, &coord(&by, c), None)?);
    let part_b =
        |t: &Tensor, c: &Int| thr.partition_s(&t.local_tile(&tile_b, &coord(&col, c), None)?);
    let shape_a = shape_of(&part_a(&p.a, &s(0)).map_err(&e)?);
    let shape_b = shape_of(&part_b(&p.b, &s(0)).map_err(&e)?);
    let r_a = k.regs("rA", g.elem, Layout::col_major(&shape_a).map_err(&e)?)?;
    let r_b_layout = Layout::col_major(&shape_b).map_err(&e)?;
    // the fragments as the FMA reads them, in FP32: (ROWS,V) of A, (1,V) of B, (ROWS,1) of C
    let f_a = k.regs(
        "fA",
        F32,
        Layout::new(tup![s(rows), s(v)], tup![s(v), s(1)]).map_err(&e)?,
    )?;
    let f_b = k.regs("fB", F32, Layout::col_major(&tup![s(1), s(v)]).map_err(&e)?)?;
    let acc = k.regs(
        "acc",
        F32,
        Layout::col_major(&tup![s(rows), s(1)]).map_err(&e)?,
    )?;
    // fA's registers in rA's order (a lane's V values of a row, then the rows)
    let f_a_copy = f_a.with_layout(Layout::col_major(&shape_a).map_err(&e)?.into());
    k.fill(&acc, 0.0);
    // a trip's IN_FLIGHT steps of B, loaded before the first is read: (CPY, 1, 1) each
    let u = g.in_flight;
    let r_bs = in_flight_regs(&mut k, g, r_b_layout)?;
    let trips = p.k.ceil_div(&s(32 * v * u)).map_err(&e)?;
    k.comment(&format!(
        "stream B's column along K: each lane {v} values a step, {u} steps of B in flight a trip, A's rows at the same k's"
    ));
    let step = |t: &Int, i: i64| t.mul(&s(u)).and_then(|x| x.add(&s(i))).map_err(&e);
    let staged = match layout.a {
        Major::K => None,
        Major::MN => Some(StagedA::new(&mut k, g, &by, 32 * v * u, &e)?),
    };
    // the lane's share of step i of trip t (chunk c along K): from the shared copy, or
    // predicated from global memory
    let load_a = |k: &mut KernelBuilder, i: i64, c: &Int| -> Result<()> {
        match &staged {
            Some(st) => {
                // the chunk's step i: rows 0.. of sA, as part_a takes block by of A
                let here = st.s_a.local_tile(&tile_a, &coord(&s(0), &s(i)), None);
                let src = here.and_then(|x| thr.partition_s(&x)).map_err(&e)?;
                k.copy(&atom, &src, &r_a);
            }
            None => global_a(k, &p, (&atom, &part_a), &r_a, c, &e)?,
        }
        Ok(())
    };
    let stage_a = |k: &mut KernelBuilder, t: &Int| match &staged {
        Some(st) => st.stage(k, &p, t, &e),
        None => Ok(()),
    };
    let ops = Operands {
        atom_b: &atom,
        part_b: &part_b,
        r_bs: &r_bs,
        r_a: &r_a,
        load_a: &load_a,
        stage_a: &stage_a,
        fma: (&f_a_copy, &f_a, &f_b, &f_b),
        acc: &acc,
    };
    k_loop(&mut k, &p, &ops, trips, &step, &e)?;
    warp_sums(&mut k, &acc, rows, &e)?;
    // lane 0 writes the warp's (ROWS,1) block of C
    let tile_c = Tiler::from_shape(&tup![s(rows), s(1)]);
    let part_c = |t: &Tensor| t.local_tile(&tile_c, &coord(&by, &col), None);
    k.if_(
        Cond::Lt(lane, s(1)),
        |k| epilogue(k, plan, &p.output(), &acc, &part_c, true),
        |_| Ok(()),
    )?;
    k.finish()
}

/// B N-major (NT, TT): a CTA takes 32 consecutive columns of C and a block of rows, and its
/// warps, and the lanes within each, split K. A lane reads one 128-bit vector (V columns) of a
/// row of B a step: a warp's 32 lanes are (32 / V) along N by V along K, k fastest, so a warp
/// reads V rows of 32 columns (128 or 64 contiguous bytes each) and warp `w` of the CTA's
/// WARPS takes the V-row blocks w, w + WARPS, ...; the rows' A(m, k) at the lane's k come from
/// cache. Each lane accumulates `(ROWS, 1) x (V, 1) -> (ROWS, V)`; the V lanes of a column
/// group meet by warp shuffles, the warps in shared memory `(ROWS, 32, WARPS)`, and 32 threads
/// sum a column each over the warps and write it through the epilogue. 32 columns a CTA keep a
/// 4096-column C at 128 CTAs of WARPS warps, each lane [`Gemv::in_flight`] vectors in flight.
fn gemv_n(plan: &GemmPlan, g: &Gemv) -> Result<Kernel> {
    let (name, layout) = (plan.name.as_str(), plan.layout);
    let e = layout_err(name, "gemv");
    let (rows, warps, u) = (g.rows, g.warps, g.in_flight);
    let v = 128 / i64::from(g.elem.bits());
    // a warp's lanes: (32 / V) along N by V along K; the CTA's 32 columns
    let (n_lanes, k_lanes) = (32 / v, v);
    let cols = n_lanes * v;
    let mut k = KernelBuilder::new(&plan.kernel_name());
    k.doc(&format!(
        "C = alpha * A * B + beta * C, {layout} layout, {} A and B: {cols} columns of C and {rows} rows a CTA, a lane {v} columns (a 128-bit vector of a row of B), the lanes and the {warps} warps splitting K, their sums met by shuffles and in shared memory",
        g.elem
    ));
    let p = Problem::declare_typed(&mut k, plan, g.elem, false, false)?;
    // two CTAs an SM (64 registers a thread at 16 warps)
    k.target(plan.target)
        .threads(32 * warps)
        .min_blocks_per_sm(2)
        .grid([
            p.n.ceil_div(&s(cols)).map_err(&e)?,
            p.m.ceil_div(&s(rows)).map_err(&e)?,
            s(1),
        ]);
    let (tid, bx, by) = (
        KernelBuilder::tid(),
        KernelBuilder::block_idx(0),
        KernelBuilder::block_idx(1),
    );
    let (lane, warp) = (tid.rem(&s(32)).map_err(&e)?, tid.div(&s(32)).map_err(&e)?);
    let (k_lane, n_lane) = (
        lane.rem(&s(k_lanes)).map_err(&e)?,
        lane.div(&s(k_lanes)).map_err(&e)?,
    );
    // B's (32 columns, V rows) block: lanes (32/V, V):(V, 1), (V, 1) values each
    let lanes = Layout::new(tup![s(n_lanes), s(k_lanes)], tup![s(k_lanes), s(1)]).map_err(&e)?;
    let vals = Layout::new(tup![s(v), s(1)], tup![s(1), s(0)]).map_err(&e)?;
    let (atom_a, atom_b) = (
        universal(1, g.elem).map_err(&e)?,
        universal(v, g.elem).map_err(&e)?,
    );
    let thr_b = make_tiled_copy(&atom_b, &lanes, &vals)
        .and_then(|t| t.get_slice(&lane))
        .map_err(&e)?;
    let (tile_a, tile_b) = (
        Tiler::from_shape(&tup![s(rows), s(k_lanes)]),
        Tiler::from_shape(&tup![s(cols), s(k_lanes)]),
    );
    // the lane's k of the V-row block `blk`: A (ROWS, 1), B (CPY, 1, 1)
    let k_thr = Layout::col_major(&tup![s(1), s(k_lanes)]).map_err(&e)?;
    let part_a = |t: &Tensor, blk: &Int| {
        t.local_tile(&tile_a, &coord(&by, blk), None)?
            .local_partition(&k_thr, &k_lane, None)
    };
    let part_b = |t: &Tensor, blk: &Int| {
        thr_b.partition_s(&t.local_tile(&tile_b, &coord(&bx, blk), None)?)
    };
    let shape_b = shape_of(&part_b(&p.b, &s(0)).map_err(&e)?);
    let r_a = k.regs(
        "rA",
        g.elem,
        Layout::col_major(&tup![s(rows), s(1)]).map_err(&e)?,
    )?;
    let r_bs = in_flight_regs(&mut k, g, Layout::col_major(&shape_b).map_err(&e)?)?;
    // in FP32 as the FMA reads them: (ROWS,1) of A, (V,1) of B, (ROWS,V) of C
    let f_a = k.regs(
        "fA",
        F32,
        Layout::col_major(&tup![s(rows), s(1)]).map_err(&e)?,
    )?;
    let f_b = k.regs("fB", F32, Layout::col_major(&tup![s(v), s(1)]).map_err(&e)?)?;
    let f_b_copy = f_b.with_layout(Layout::col_major(&shape_b).map_err(&e)?.into());
    let acc = k.regs(
        "acc",
        F32,
        Layout::col_major(&tup![s(rows), s(v)]).map_err(&e)?,
    )?;
    k.fill(&acc, 0.0);
    // warp w's V-row blocks: w + WARPS * (IN_FLIGHT * t + i)
    let trips = p.k.ceil_div(&s(k_lanes * warps * u)).map_err(&e)?;
    k.comment(&format!(
        "the lanes and warps split K in blocks of {k_lanes} rows, warp w taking blocks w + {warps} j; {u} vectors of B in flight a lane a trip"
    ));
    let blk = |t: &Int, i: i64| {
        t.mul(&s(u))
            .and_then(|x| x.add(&s(i)))
            .and_then(|x| x.mul(&s(warps)))
            .and_then(|x| x.add(&warp))
            .map_err(&e)
    };
    let load_a =
        |k: &mut KernelBuilder, _: i64, c: &Int| global_a(k, &p, (&atom_a, &part_a), &r_a, c, &e);
    let ops = Operands {
        atom_b: &atom_b,
        part_b: &part_b,
        r_bs: &r_bs,
        r_a: &r_a,
        load_a: &load_a,
        stage_a: &|_, _| Ok(()),
        fma: (&f_a, &f_a, &f_b_copy, &f_b),
        acc: &acc,
    };
    k_loop(&mut k, &p, &ops, trips, &blk, &e)?;
    k.comment(&format!(
        "each value's sum over the {k_lanes} lanes of its columns"
    ));
    for j in 0..rows * v {
        let one = acc.slice(&Coord::Tuple(vec![s(j % rows).into(), s(j / rows).into()]));
        lane_sum(&mut k, &one.map_err(&e)?, &format!("sum{j}"), k_lanes);
    }
    // the warps' sums: sR (ROWS, 32, WARPS):(32, _1, 32 ROWS)
    let s_r = k.smem(
        "sR",
        F32,
        Layout::new(
            tup![s(rows), s(cols), s(warps)],
            tup![s(cols), s(1), s(rows * cols)],
        )
        .map_err(&e)?,
    );
    let x = cute_layout::X;
    let slab = |w: &Int| s_r.slice(&Coord::Tuple(vec![x.clone(), x.clone(), w.clone().into()]));
    let mine = slab(&warp)
        .and_then(|t| {
            t.local_tile(
                &Tiler::from_shape(&tup![s(rows), s(v)]),
                &coord(&s(0), &n_lane),
                None,
            )
        })
        .map_err(&e)?; // (ROWS, V)
    let f32_copy = universal(1, F32).map_err(&e)?;
    k.comment("the first lane of each column group writes the warp's sums");
    k.if_(
        Cond::Lt(k_lane.clone(), s(1)),
        |k| {
            k.copy(&f32_copy, &acc, &mine);
            Ok(())
        },
        |_| Ok(()),
    )?;
    k.sync();
    // thread c < 32 sums column c over the warps and writes it
    let thr = Layout::col_major(&tup![s(1), s(cols)]).map_err(&e)?;
    let sum = k.regs(
        "sum",
        F32,
        Layout::col_major(&tup![s(rows), s(1)]).map_err(&e)?,
    )?;
    let tile_c = Tiler::from_shape(&tup![s(rows), s(cols)]);
    let part_c = |t: &Tensor| {
        t.local_tile(&tile_c, &coord(&by, &bx), None)?
            .local_partition(&thr, &tid, None)
    };
    k.if_(
        Cond::Lt(tid.clone(), s(cols)),
        |k| {
            k.fill(&sum, 0.0);
            for w in 0..warps {
                let theirs = slab(&s(w))
                    .and_then(|t| t.local_partition(&thr, &tid, None))
                    .map_err(&e)?;
                k.map(
                    &sum,
                    &[&sum, &theirs],
                    EExpr::Binary(
                        ScalarOp::Add,
                        Box::new(EExpr::arg(0)),
                        Box::new(EExpr::arg(1)),
                    ),
                    None,
                );
            }
            epilogue(k, plan, &p.output(), &sum, &part_c, true)
        },
        |_| Ok(()),
    )?;
    k.finish()
}

/// Each of the `rows` accumulators summed over the warp's 32 lanes (a butterfly of shuffles),
/// every lane left with the sums.
fn warp_sums(k: &mut KernelBuilder, acc: &Tensor, rows: i64, e: &LayoutErr<'_>) -> Result<()> {
    k.comment("each row's sum over the warp's lanes");
    for r in 0..rows {
        let one = acc
            .slice(&Coord::Tuple(vec![s(r).into(), cute_layout::X]))
            .map_err(e)?; // (1)
        lane_sum(k, &one, &format!("sum{r}"), 32);
    }
    Ok(())
}

/// The value `one` summed over groups of `across` consecutive lanes (a butterfly of shuffles
/// into `var`), every lane of a group left with the sum.
fn lane_sum(k: &mut KernelBuilder, one: &Tensor, var: &str, across: i64) {
    k.reduce(var, ScalarOp::Add, one);
    k.shuffle(var, ScalarOp::Add, across);
    k.map(one, &[], EExpr::var(var), None);
}

/// The pieces of the K loop: B's copy atom, its partition of a step (`(tensor, step coordinate
/// along K) -> the thread's share`) and its IN_FLIGHT registers; A's load of step `i` of a trip
/// (chunk `c` along K) into its registers, and the staging of a trip's A (`t`: nothing where A
/// is read from global memory); the FP32 fragments (A as the conversion writes it and as the
/// FMA reads it, then B the same), and the accumulators.
type Part<'a> = &'a dyn Fn(&Tensor, &Int) -> cute_layout::Result<Tensor>;
type LoadA<'a> = &'a dyn Fn(&mut KernelBuilder, i64, &Int) -> Result<()>;
type StageA<'a> = &'a dyn Fn(&mut KernelBuilder, &Int) -> Result<()>;
struct Operands<'a> {
    atom_b: &'a CopyAtom,
    part_b: Part<'a>,
    r_bs: &'a [Tensor],
    r_a: &'a Tensor,
    load_a: LoadA<'a>,
    stage_a: StageA<'a>,
    fma: (&'a Tensor, &'a Tensor, &'a Tensor, &'a Tensor),
    acc: &'a Tensor,
}

/// The K loop of both forms: `trips` rolled trips, each loading its IN_FLIGHT steps of B
/// (`step(t, i)`: the coordinate along K of step `i` of trip `t`) before the first is read,
/// staging the trip's A where it is staged, then for each step A's values at the same k's,
/// both widened to FP32, and `gemm(UniversalFMA)` into the accumulators. Every global copy is
/// predicated by the identity tensor's coordinates (zero past M, N or K).
fn k_loop(
    k: &mut KernelBuilder,
    p: &Problem,
    o: &Operands<'_>,
    trips: Int,
    step: &dyn Fn(&Int, i64) -> Result<Int>,
    e: &LayoutErr<'_>,
) -> Result<()> {
    let (f_a_in, f_a, f_b_in, f_b) = o.fma;
    k.for_("t", trips, Unroll::None, |k, t| {
        for (i, r_b) in (0..).zip(o.r_bs) {
            let c = step(&t, i)?;
            let pred = Pred {
                coord: (o.part_b)(&p.id_b, &c).map_err(e)?,
                bounds: vec![p.n.clone(), p.k.clone()],
            };
            k.fill(r_b, 0.0);
            k.copy_if(o.atom_b, pred, &(o.part_b)(&p.b, &c).map_err(e)?, r_b);
        }
        (o.stage_a)(k, &t)?;
        for (i, r_b) in (0..).zip(o.r_bs) {
            let c = step(&t, i)?;
            (o.load_a)(k, i, &c)?;
            k.map(f_a_in, &[o.r_a], EExpr::arg(0), None);
            k.map(f_b_in, &[r_b], EExpr::arg(0), None);
            k.gemm(
                &MmaAtom::new(MmaOp::universal_fma(F32, F32, F32, F32)),
                f_a,
                f_b,
                o.acc,
            );
        }
        Ok(())
    })?;
    Ok(())
}

/// The thread's share of A at chunk `c` along K (`part(A, c)`) into `r` by `atom`, zero past M
/// and K.
fn global_a(
    k: &mut KernelBuilder,
    p: &Problem,
    (atom, part): (&CopyAtom, Part<'_>),
    r: &Tensor,
    c: &Int,
    e: &LayoutErr<'_>,
) -> Result<()> {
    let pred = Pred {
        coord: part(&p.id_a, c).map_err(e)?,
        bounds: vec![p.m.clone(), p.k.clone()],
    };
    k.fill(r, 0.0);
    k.copy_if(atom, pred, &part(&p.a, c).map_err(e)?, r);
    Ok(())
}

/// M-major A staged for a CTA's warps (B K-major): each trip the CTA's threads copy A's
/// `(ROWS, KC)` chunk (KC = the trip's k's, `32 V IN_FLIGHT`) from global memory, `ROWS`
/// threads down each column of A so a warp reads `32 / ROWS` whole columns' rows, through
/// registers (zero past M and K) into `sA (ROWS, KC):(KC + PAD, _1)`, k contiguous, whose 32
/// bytes of padding a row put a warp's `ROWS x 32 / ROWS` writes in distinct banks; the warps
/// then read it as K-major A, in 128-bit vectors. Read from global memory directly, each warp
/// would load its rows a value at a time, a 32-byte sector for every value or two, and each of
/// the CTA's warps all of them again.
struct StagedA {
    /// `(ROWS, KC):(KC + PAD, _1)` in shared memory.
    s_a: Tensor,
    /// The thread's slice of the CTA's copy of the chunk, and its registers.
    copy: cute_layout::atom::ThrCopy,
    regs: Tensor,
    atom: CopyAtom,
    /// The chunk `(ROWS, KC)` and the CTA's block of rows.
    tile: Tiler,
    by: Int,
}

impl StagedA {
    fn new(k: &mut KernelBuilder, g: &Gemv, by: &Int, kc: i64, e: &LayoutErr<'_>) -> Result<Self> {
        let (rows, threads) = (g.rows, 32 * g.warps);
        let pad = 32 / i64::from(g.elem.bits() / 8).max(1);
        let s_a = k.smem(
            "sA",
            g.elem,
            Layout::new(tup![s(rows), s(kc)], tup![s(kc + pad), s(1)]).map_err(e)?,
        );
        // (ROWS, THREADS / ROWS):(1, ROWS): consecutive threads down a column of A
        let thr = Layout::new(tup![s(rows), s(threads / rows)], tup![s(1), s(rows)]).map_err(e)?;
        let val = Layout::col_major(&tup![s(1), s(1)]).map_err(e)?;
        let atom = universal(1, g.elem).map_err(e)?;
        let copy = make_tiled_copy(&atom, &thr, &val)
            .and_then(|t| t.get_slice(&KernelBuilder::tid()))
            .map_err(e)?;
        let frag = shape_of(&copy.partition_d(&s_a).map_err(e)?);
        let regs = k.regs("rS", g.elem, Layout::col_major(&frag).map_err(e)?)?;
        Ok(StagedA {
            s_a,
            copy,
            regs,
            atom,
            tile: Tiler::from_shape(&tup![s(rows), s(kc)]),
            by: by.clone(),
        })
    }

    /// Trip `t`'s chunk into `sA`, between barriers (the warps done with the last chunk before,
    /// every value written after).
    fn stage(&self, k: &mut KernelBuilder, p: &Problem, t: &Int, e: &LayoutErr<'_>) -> Result<()> {
        k.comment("A's chunk of this trip into shared memory, once for the CTA's warps");
        let chunk = |x: &Tensor| x.local_tile(&self.tile, &coord(&self.by, t), None);
        let src = chunk(&p.a)
            .and_then(|x| self.copy.partition_s(&x))
            .map_err(e)?;
        let pred = Pred {
            coord: chunk(&p.id_a)
                .and_then(|x| self.copy.partition_s(&x))
                .map_err(e)?,
            bounds: vec![p.m.clone(), p.k.clone()],
        };
        let dst = self.copy.partition_d(&self.s_a).map_err(e)?;
        k.fill(&self.regs, 0.0);
        k.copy_if(&self.atom, pred, &src, &self.regs);
        k.sync();
        k.copy(&self.atom, &self.regs, &dst);
        k.sync();
        Ok(())
    }
}

/// `UniversalCopy` of `values` elements of `elem` at once (one 128-bit vector, or one value).
fn universal(values: i64, elem: ElemType) -> cute_layout::Result<CopyAtom> {
    let bits = u32::try_from(values).unwrap_or(0) * elem.bits();
    CopyAtom::new(CopyOp::UniversalCopy { bits }, elem)
}

/// `(x, y)`.
fn coord(x: &Int, y: &Int) -> Coord {
    Coord::Tuple(vec![x.clone().into(), y.clone().into()])
}

/// The registers of B's [`Gemv::in_flight`] steps of a trip, `rB0`, `rB1`, ..., each `layout`.
fn in_flight_regs(k: &mut KernelBuilder, g: &Gemv, layout: Layout) -> Result<Vec<Tensor>> {
    (0..g.in_flight)
        .map(|i| k.regs(&format!("rB{i}"), g.elem, layout.clone()))
        .collect()
}

/// The shape of a partitioned tensor (its fragment's).
fn shape_of(t: &Tensor) -> IntTuple {
    t.layout().shape_layout().shape().clone()
}
