//! Bad kernel programs: each is a typed error naming the statement and the failed condition
//! (from `finish`, before any CUDA exists), and plans that pass the static checks but compute the
//! wrong thing are caught by the CPU interpreter.

use cute_codegen::interp::{run, Arg, HostBuffer};
use cute_codegen::ir::{EExpr, Kernel, KernelBuilder, Pred};
use cute_codegen::{CodegenError, Target};
use cute_layout::atom::{make_tiled_copy, CopyAtom, CopyOp};
use cute_layout::{compose_swizzle, s, tup, ElemType::F32, Layout, Swizzle, Tensor};

fn atom(bits: u32) -> CopyAtom {
    CopyAtom::new(CopyOp::UniversalCopy { bits }, F32).unwrap()
}

/// A 32x32 tile of X copied through shared memory into Y by 32x32 threads, element by element:
/// written by rows of threads, read back by columns. `read_layout` is how the read side sees
/// the shared tile, `sync` whether a barrier separates them, `thr_out` the output's thread
/// layout.
fn through_smem(sync: bool, read_swizzled: bool, thr_out: Layout) -> Result<Kernel, CodegenError> {
    let mut k = KernelBuilder::new("t");
    let x = k.gmem(
        "X",
        F32,
        false,
        Layout::col_major(&tup![s(32), s(32)]).unwrap(),
    );
    let y = k.gmem(
        "Y",
        F32,
        true,
        Layout::col_major(&tup![s(32), s(32)]).unwrap(),
    );
    k.threads(1024);
    let sw = Swizzle::new(3, 0, 3).unwrap();
    let plain = Layout::col_major(&tup![s(32), s(32)]).unwrap();
    let sa = k.smem("sA", F32, compose_swizzle(sw, &plain));
    let tid = KernelBuilder::tid();
    let one = Layout::col_major(&tup![s(1), s(1)]).unwrap();
    let rows = make_tiled_copy(
        &atom(32),
        &Layout::col_major(&tup![s(32), s(32)]).unwrap(),
        &one,
    )
    .unwrap();
    let cols = make_tiled_copy(&atom(32), &thr_out, &one).unwrap();
    let (tr, tc) = (rows.get_slice(&tid).unwrap(), cols.get_slice(&tid).unwrap());
    k.copy(
        &atom(32),
        &tr.partition_s(&x).unwrap(),
        &tr.partition_d(&sa).unwrap(),
    );
    if sync {
        k.sync();
    }
    let seen = if read_swizzled {
        sa.clone()
    } else {
        sa.with_layout(plain.into())
    };
    let r = k
        .regs(
            "r",
            F32,
            Layout::col_major(&tup![s(1), s(1), s(1)]).unwrap(),
        )
        .unwrap();
    k.copy(&atom(32), &tc.partition_s(&seen).unwrap(), &r);
    k.copy(&atom(32), &r, &tc.partition_d(&y).unwrap());
    k.finish()
}

fn row_major_threads() -> Layout {
    Layout::new(tup![s(32), s(32)], tup![s(32), s(1)]).unwrap()
}

fn message(r: Result<Kernel, CodegenError>) -> String {
    match r {
        Ok(k) => panic!("{} was accepted", k.name),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_shared_read_before_the_barrier_is_refused() {
    let m = message(through_smem(false, true, row_major_threads()));
    assert!(
        m.starts_with("kernel t: body[1] copy(UniversalCopy<uint32_t>) sA -> r:"),
        "{m}"
    );
    assert!(
        m.contains("reads sA after the write at body[0]") && m.contains("no __syncthreads()"),
        "{m}"
    );
    through_smem(true, true, row_major_threads()).expect("with the barrier it checks");
}

fn run_through(k: &Kernel) -> Result<Vec<f64>, CodegenError> {
    let xs: Vec<f64> = (0..1024).map(f64::from).collect();
    let mut args = vec![
        Arg::Buffer(HostBuffer::from_values(F32, &xs)),
        Arg::Buffer(HostBuffer::from_values(F32, &[f64::NAN; 1024])),
    ];
    run(k, &mut args)?;
    let Arg::Buffer(y) = &args[1] else {
        unreachable!()
    };
    Ok(y.data.clone())
}

#[test]
fn the_interpreter_catches_plans_the_checks_pass() {
    // right: Y = X through the swizzled tile
    let good = through_smem(true, true, row_major_threads()).unwrap();
    let y = run_through(&good).unwrap();
    assert!(y.iter().enumerate().all(|(i, v)| *v == i as f64));
    // the read side forgets the swizzle: every check passes, the values land in the wrong places
    let wrong = through_smem(true, false, row_major_threads()).unwrap();
    let y = run_through(&wrong).unwrap();
    let misplaced = y
        .iter()
        .enumerate()
        .filter(|(i, v)| **v != *i as f64)
        .count();
    assert!(
        misplaced > 0,
        "the interpreter's output shows the missing swizzle"
    );
    // two threads per output element (a thread layout with a 0 stride): a write-write race
    let half = Layout::new(tup![s(32), s(32)], tup![s(32), s(0)]).unwrap();
    match through_smem(true, true, half).and_then(|k| run_through(&k)) {
        Err(e) => assert!(e.to_string().contains("written by two threads"), "{e}"),
        Ok(_) => panic!("two writers of one element went unnoticed"),
    }
}

#[test]
fn a_misaligned_vector_is_refused() {
    let mut k = KernelBuilder::new("v");
    let x = k.gmem("X", F32, false, Layout::col_major(&tup![s(1024)]).unwrap());
    let y = k.gmem("Y", F32, true, Layout::col_major(&tup![s(1024)]).unwrap());
    k.threads(32);
    // thread t moves X(4t+1 .. 4t+4): 128-bit vectors one element off their boundary
    let off = KernelBuilder::tid().mul(&s(4)).unwrap().add(&s(1)).unwrap();
    let src = Tensor::new(
        cute_layout::Ptr {
            offset: off.clone(),
            ..ptr(&x)
        },
        Layout::col_major(&tup![s(4)]).unwrap(),
    );
    let r = k
        .regs("r", F32, Layout::col_major(&tup![s(4)]).unwrap())
        .unwrap();
    k.copy(&atom(128), &src, &r);
    let dst = Tensor::new(
        cute_layout::Ptr {
            offset: off,
            ..ptr(&y)
        },
        Layout::col_major(&tup![s(4)]).unwrap(),
    );
    k.copy(&atom(128), &r, &dst);
    let m = message(k.finish());
    assert!(
        m.starts_with("kernel v: body[0] copy(UniversalCopy<uint128_t>) X -> r:"),
        "{m}"
    );
    assert!(m.contains("need not be 16-byte aligned"), "{m}");
}

fn ptr(t: &Tensor) -> cute_layout::Ptr {
    match t.engine() {
        cute_layout::Engine::Ptr(p) => p.clone(),
        _ => unreachable!(),
    }
}

#[test]
fn shared_memory_beyond_the_target_is_refused() {
    let build = |t: Target| {
        let mut k = KernelBuilder::new("big");
        k.target(t).threads(128);
        k.smem("sA", F32, Layout::col_major(&tup![s(200 * 256)]).unwrap()); // 200 KiB
        k.finish()
    };
    let m = message(build(Target::sm80()));
    assert!(
        m.starts_with("kernel big: shared memory: 204800 bytes exceed the"),
        "{m}"
    );
    assert!(m.contains("sm_80"), "{m}");
    build(Target::sm90a()).expect("an H100/H200 holds 200 KiB per block");
}

#[test]
fn an_epilogue_of_the_wrong_type_is_refused() {
    let mut k = KernelBuilder::new("e");
    let m = k.param_int("M");
    let y = k.gmem("Y", F32, true, Layout::col_major(&tup![s(32)]).unwrap());
    k.threads(32);
    let t = y
        .local_partition(
            &Layout::col_major(&tup![s(32)]).unwrap(),
            &KernelBuilder::tid(),
            None,
        )
        .unwrap();
    let c = Tensor::identity(&tup![s(32)])
        .unwrap()
        .local_partition(
            &Layout::col_major(&tup![s(32)]).unwrap(),
            &KernelBuilder::tid(),
            None,
        )
        .unwrap();
    // `M` is an integer parameter, not a float scalar
    k.map(
        &t,
        &[],
        EExpr::param("M") * EExpr::c(2.0),
        Some(Pred {
            coord: c,
            bounds: vec![m],
        }),
    );
    let msg = message(k.finish());
    assert!(
        msg.starts_with(
            "kernel e: body[0] map  -> Y: expression: the parameter M is Int, not a scalar"
        ),
        "{msg}"
    );
}

/// A barrier under a condition on the thread index: the threads of the other branch never reach
/// it (a hang on the GPU). Refused by `finish`, naming the statement.
#[test]
fn a_barrier_under_a_condition_on_the_thread_index_is_refused() {
    use cute_codegen::ir::Cond;
    let mut k = KernelBuilder::new("t");
    let m = k.param_int("M");
    k.threads(256);
    let r = k.if_(
        Cond::Lt(KernelBuilder::tid(), m),
        |k| {
            k.sync();
            Ok(())
        },
        |_| Ok(()),
    );
    let e = r.map(|_| ()).and_then(|()| k.finish().map(|_| ()));
    let msg = match e {
        Ok(()) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    assert!(
        msg.contains("__syncthreads() under a condition on the thread index"),
        "{msg}"
    );
    assert!(msg.contains("if"), "{msg}");
}

/// A cluster that does not divide a static grid, one of more than 8 CTAs, one on a target
/// without clusters, and a cluster-wide statement in a kernel without a cluster: each refused
/// by `finish`; a dynamic grid the cluster does not divide is refused by the interpreter (and
/// by the runtime's launch, `cute_runtime::launch::grid`).
#[test]
fn a_cluster_that_does_not_divide_the_grid_is_refused() {
    let build = |t: Target, grid: cute_layout::Int, cluster: [i64; 3], barrier: bool| {
        let mut k = KernelBuilder::new("c");
        k.param_int("N");
        k.target(t).threads(128).grid([grid, s(1), s(1)]);
        if cluster != [1, 1, 1] {
            k.cluster(cluster);
        }
        if barrier {
            k.cluster_sync();
        }
        k.finish()
    };
    let m = message(build(Target::sm90a(), s(3), [2, 1, 1], true));
    assert!(
        m.contains("launch: a cluster of 2 CTAs along x does not divide the grid's 3"),
        "{m}"
    );
    let m = message(build(Target::sm90a(), s(16), [16, 1, 1], true));
    assert!(m.contains("1 to 8 CTAs"), "{m}");
    let m = message(build(Target::sm80(), s(2), [2, 1, 1], false));
    assert!(m.contains("sm_80 has no thread-block clusters"), "{m}");
    let m = message(build(Target::sm90a(), s(2), [1, 1, 1], true));
    assert!(
        m.contains("a cluster barrier in a kernel without a cluster"),
        "{m}"
    );
    let n = cute_layout::Int::symbol("N");
    let k = build(Target::sm90a(), n, [2, 1, 1], true).expect("a dynamic grid checks at launch");
    let e = run(&k, &mut [Arg::Int(3)]).unwrap_err().to_string();
    assert!(
        e.contains("a cluster of 2 CTAs along x does not divide the grid's 3"),
        "{e}"
    );
    run(&k, &mut [Arg::Int(4)]).expect("4 CTAs in 2 clusters");
}

/// `elect.sync` is a condition of its own, reached by whole warps: inside a conjunction it is
/// refused by `finish`; under a condition that splits a warp the interpreter refuses it. Each
/// warp's elected thread writes its warp's element of Y.
#[test]
fn elect_sync_needs_whole_warps() {
    use cute_codegen::ir::Cond;
    let build = |outer: Cond, inner: Cond| {
        let mut k = KernelBuilder::new("e");
        let y = k.gmem("Y", F32, true, Layout::col_major(&tup![s(1)]).unwrap());
        k.target(Target::sm90a()).threads(64);
        let r = k
            .regs("r", F32, Layout::col_major(&tup![s(1)]).unwrap())
            .unwrap();
        k.fill(&r, 1.0);
        let mut p = ptr(&y);
        p.offset = KernelBuilder::tid().div(&s(32)).unwrap(); // the warp's element
        let dst = Tensor::from_engine(cute_layout::Engine::Ptr(p), y.layout().clone());
        k.if_(
            outer,
            |k| {
                k.if_(
                    inner,
                    |k| {
                        k.copy(&atom(32), &r, &dst);
                        Ok(())
                    },
                    |_| Ok(()),
                )?;
                Ok(())
            },
            |_| Ok(()),
        )
        .unwrap();
        k.finish()
    };
    let tid = KernelBuilder::tid();
    let all = Cond::Lt(tid.clone(), s(64));
    let conj = Cond::And(Box::new(all.clone()), Box::new(Cond::Elect));
    let m = message(build(all.clone(), conj));
    assert!(m.contains("elect.sync inside a conjunction"), "{m}");
    let y = || vec![Arg::Buffer(HostBuffer::from_values(F32, &[0.0, 0.0]))];
    let k = build(all, Cond::Elect).expect("one thread of each warp");
    let mut args = y();
    run(&k, &mut args).unwrap();
    let Arg::Buffer(out) = &args[0] else {
        unreachable!()
    };
    assert_eq!(out.data, vec![1.0, 1.0]);
    let k = build(Cond::Lt(tid, s(16)), Cond::Elect).expect("the checks cannot see the split");
    let e = run(&k, &mut y()).unwrap_err().to_string();
    assert!(
        e.contains("elect.sync is warp-collective: thread 16 of warp 0 does not take part"),
        "{e}"
    );
}
