//! Hostile inputs to the public Rust API (called directly, not through expressions).
//!
//! Project rule: no panic on user input; every bad input is an `Err`. Each test calls one API with
//! a hostile value inside `catch_unwind` and asserts that it returns (Ok or Err) instead of
//! panicking.

use std::panic::{catch_unwind, AssertUnwindSafe};

use cute_layout::atom::{
    make_tiled_copy, make_tiled_mma, CopyAtom, CopyOp, MmaAtom, MmaOp, Operand, TiledCopy,
};
use cute_layout::stride::{compact_order, crd2idx_colex};
use cute_layout::svg::{grid_svg, palette, panels_svg, Cell, Panel};
use cute_layout::symbolic::{BinOp, Dyn};
use cute_layout::*;

/// Runs `f`, failing the test (with the panic message) if it panics.
fn no_panic<R>(what: &str, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{what} panicked instead of returning an Err: {msg}");
        }
    }
}

fn lay(shape: IntTuple, stride: IntTuple) -> Layout {
    Layout::new(shape, stride).unwrap()
}

/// A layout, or `None` when its static sizes are negative: `Layout::new` refuses those (as
/// `layout!` does), so they never reach the algebra.
fn try_lay(shape: IntTuple, stride: IntTuple) -> Option<Layout> {
    match Layout::new(shape, stride) {
        Ok(l) => Some(l),
        Err(e) => {
            assert!(e.to_string().contains("negative size"), "{e}");
            None
        }
    }
}

// ---------------------------------------------------------------- symbolic / Int

#[test]
fn dyn_lcm_of_i64_min_does_not_panic() {
    // symbolic.rs lcm: (a / gcd).checked_mul(b).map(i64::abs) -> abs(i64::MIN) overflows.
    let r = no_panic("Dyn::bin(Lcm, i64::MIN, 1)", || {
        Dyn::bin(BinOp::Lcm, &Dyn::Lit(i64::MIN), &Dyn::Lit(1))
    });
    assert!(r.is_err(), "lcm(i64::MIN, 1) does not fit in i64");
}

#[test]
fn dyn_lcm_evaluate_of_i64_min_does_not_panic() {
    let e = Dyn::bin(BinOp::Lcm, &Dyn::symbol("M"), &Dyn::Lit(1)).unwrap();
    let _ = no_panic("Dyn::evaluate(lcm(M,1)) with M = i64::MIN", || {
        e.evaluate(&|_| Some(i64::MIN))
    });
}

// ---------------------------------------------------------------- Swizzle

#[test]
fn swizzle_new_with_i64_min_shift_does_not_panic() {
    // swizzle.rs: `b + m + s.abs()` -> abs(i64::MIN) overflows.
    let r = no_panic("Swizzle::new(0, 0, i64::MIN)", || {
        Swizzle::new(0, 0, i64::MIN)
    });
    assert!(r.is_err());
}

#[test]
fn swizzle_new_with_huge_params_does_not_panic() {
    // swizzle.rs: `b + m + s.abs()` overflows for huge b / m.
    let r = no_panic("Swizzle::new(i64::MAX, i64::MAX, i64::MAX)", || {
        Swizzle::new(i64::MAX, i64::MAX, i64::MAX)
    });
    assert!(r.is_err());
    let r = no_panic("Swizzle::new(0, i64::MAX, 1)", || {
        Swizzle::new(0, i64::MAX, 1)
    });
    assert!(r.is_err());
}

// ---------------------------------------------------------------- crd2idx / idx2crd

#[test]
fn crd2idx_colex_of_empty_tuples_does_not_panic() {
    // stride.rs crd2idx_colex: `flat_c[flat_c.len() - 1]` on an empty coordinate.
    let e = IntTuple::Tuple(vec![]);
    let _ = no_panic("crd2idx_colex((), ())", || crd2idx_colex(&e, &e));
}

#[test]
fn get_flat_coord_with_empty_mode_does_not_panic() {
    // Layout ((),_4):((),_1): each mode goes through crd2idx_colex; the `()` mode panics.
    let l = lay(tup![tup![], s(4)], tup![tup![], s(1)]);
    let _ = no_panic("get_flat_coord on ((),_4):((),_1)", || {
        l.get_flat_coord(&d(1))
    });
}

#[test]
fn local_partition_with_empty_mode_thread_layout_does_not_panic() {
    let t = Tensor::identity(&tup![s(8), s(8)]).unwrap();
    let thr = lay(tup![tup![], s(4)], tup![tup![], s(1)]);
    let _ = no_panic("local_partition with thread layout ((),_4):((),_1)", || {
        t.local_partition(&thr, &d(1), None)
    });
}

#[test]
fn ordered_layout_with_max_order_does_not_panic() {
    // stride.rs compact_order: dynamic order entries get `next += 1` from the largest static one.
    let shape = tup![s(2), s(2)];
    let order = tup![s(i64::MAX), d(0)];
    let _ = no_panic("Layout::ordered((_2,_2), (_i64::MAX, 0))", || {
        Layout::ordered(&shape, &order)
    });
    let _ = no_panic("compact_order((_2,_2), (_i64::MAX, 0))", || {
        compact_order(&shape, &order)
    });
}

#[test]
fn eval_with_extreme_indices_does_not_panic() {
    let l = lay(tup![s(4), s(8)], tup![s(1), s(i64::MAX / 2)]);
    for i in [i64::MIN, -1, 0, 31, 32, i64::MAX] {
        let _ = no_panic("Layout::eval(extreme)", || l.eval(i));
        let _ = no_panic("Layout::get_hier_coord(extreme)", || {
            l.get_hier_coord(&d(i))
        });
        let _ = no_panic("Layout::get_flat_coord(extreme)", || {
            l.get_flat_coord(&d(i))
        });
    }
    assert!(try_lay(tup![s(-3), s(0)], tup![s(i64::MIN), s(-1)]).is_none());
    let neg = lay(tup![d(-3), s(0)], tup![s(i64::MIN), s(-1)]);
    for i in [i64::MIN, -1, 0, 5, i64::MAX] {
        let _ = no_panic("eval on negative/zero shapes", || neg.eval(i));
        let _ = no_panic("get_flat_coord on negative/zero shapes", || {
            neg.get_flat_coord(&d(i))
        });
    }
}

// ---------------------------------------------------------------- algebra

#[test]
fn composition_with_i64_min_stride_does_not_panic() {
    // composition.rs check_stride_divisibility: `r % c` with r = i64::MIN, c = -1.
    assert!(try_lay(tup![s(-1), s(2)], tup![s(1), s(7)]).is_none());
    let a = lay(tup![d(-1), s(2)], tup![s(1), s(7)]);
    let b = lay(IntTuple::st(4), IntTuple::st(i64::MIN));
    let _ = no_panic("composition((_-1,_2):(_1,_7), _4:_i64::MIN)", || {
        composition(&a, &b)
    });
}

#[test]
fn tile_to_shape_with_i64_min_target_does_not_panic() {
    // tile_to_shape.rs: `t % b` with t = i64::MIN, b = -1.
    assert!(try_lay(IntTuple::st(-1), IntTuple::st(1)).is_none());
    let block = lay(IntTuple::Int(d(-1)), IntTuple::st(1));
    let _ = no_panic("tile_to_shape(_-1:_1, _i64::MIN)", || {
        tile_to_shape(
            &block,
            &IntTuple::st(i64::MIN),
            &ModeOrder::Major(Major::Left),
        )
    });
}

#[test]
fn composed_upcast_by_negative_factor_does_not_panic() {
    // composed.rs safe_div: `v % n` with v = i64::MIN, n = -1 (n is not checked positive first).
    let sw = Swizzle::new(1, 0, 1).unwrap();
    let inner = lay(IntTuple::st(4), IntTuple::st(1));
    let AnyLayout::Composed(c) = ComposedLayout::composition(sw, s(i64::MIN), inner) else {
        panic!("expected a composed layout");
    };
    let _ = no_panic("ComposedLayout::upcast(-1) with offset _i64::MIN", || {
        c.upcast(-1)
    });
}

/// Like `no_panic`, but records the failure and carries on (for sweeps).
fn record<R>(fails: &mut Vec<String>, what: String, f: impl FnOnce() -> R) {
    if let Err(e) = catch_unwind(AssertUnwindSafe(f)) {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        fails.push(format!("{what}: {msg}"));
    }
}

#[test]
fn algebra_with_extreme_values_does_not_panic() {
    // A sweep: none of these may panic (errors are fine). Failures are collected, not fatal one by
    // one, so the report lists every call that panicked.
    let vals = [
        i64::MIN,
        i64::MIN + 1,
        -2,
        -1,
        0,
        1,
        2,
        3,
        i64::MAX - 1,
        i64::MAX,
    ];
    let mut layouts = Vec::new();
    for &a in &vals {
        for &b in &vals {
            layouts.extend(try_lay(IntTuple::st(a), IntTuple::st(b)));
            layouts.extend(try_lay(tup![s(a), s(2)], tup![s(b), s(3)]));
            layouts.extend(try_lay(tup![s(2), s(a)], tup![s(1), s(b)]));
            layouts.extend(try_lay(tup![s(a), d(b)], tup![d(b), s(a)]));
            layouts.extend(try_lay(tup![d(a), s(2)], tup![s(b), s(3)]));
            layouts.extend(try_lay(
                tup![Int::symbol("M"), s(a)],
                tup![s(b), Int::symbol("N")],
            ));
        }
    }
    let tile_layouts: Vec<Layout> = vals
        .iter()
        .flat_map(|&a| {
            [
                try_lay(IntTuple::st(a), IntTuple::st(1)),
                try_lay(IntTuple::st(2), IntTuple::st(a)),
            ]
        })
        .flatten()
        .collect();
    let mut fails = Vec::new();
    let f = &mut fails;
    for l in &layouts {
        record(f, format!("coalesce({l})"), || coalesce(l));
        record(f, format!("filter({l})"), || filter(l));
        record(f, format!("complement({l})"), || complement_default(l));
        record(f, format!("right_inverse({l})"), || right_inverse(l));
        record(f, format!("left_inverse({l})"), || left_inverse(l));
        record(f, format!("cosize({l})"), || l.cosize());
        record(f, format!("make_layout_like({l})"), || l.layout_like());
        record(f, format!("make_fragment_like({l})"), || l.fragment_like());
        for &n in &vals {
            record(f, format!("upcast({l}, {n})"), || upcast(l, n));
            record(f, format!("downcast({l}, {n})"), || downcast(l, n));
            record(f, format!("complement({l}, {n})"), || {
                complement(l, &IntTuple::st(n))
            });
            record(f, format!("eval({l}, {n})"), || l.eval(n));
            record(f, format!("get_flat_coord({l}, {n})"), || {
                l.get_flat_coord(&d(n))
            });
        }
        for t in &tile_layouts {
            let tiler = Tiler::Layout(t.clone());
            record(f, format!("composition({l}, {t})"), || composition(l, t));
            record(f, format!("logical_divide({l}, {t})"), || {
                logical_divide(l, &tiler)
            });
            record(f, format!("zipped_divide({l}, {t})"), || {
                zipped_divide(l, &tiler)
            });
            record(f, format!("tiled_divide({l}, {t})"), || {
                tiled_divide(l, &tiler)
            });
            record(f, format!("logical_product({l}, {t})"), || {
                logical_product(l, &tiler)
            });
            record(f, format!("blocked_product({l}, {t})"), || {
                blocked_product(l, t)
            });
            record(f, format!("raked_product({l}, {t})"), || {
                raked_product(l, t)
            });
            record(f, format!("tile_to_shape({t}, {})", l.shape()), || {
                tile_to_shape(t, l.shape(), &ModeOrder::Major(Major::Right))
            });
            record(f, format!("max_common_vector({l}, {t})"), || {
                max_common_vector(l, t)
            });
        }
    }
    // One example per operation.
    let mut seen = std::collections::BTreeMap::new();
    for x in &fails {
        let op = x.split('(').next().unwrap_or("").to_string();
        seen.entry(op).or_insert_with(|| x.clone());
    }
    assert!(
        fails.is_empty(),
        "{} calls panicked; one per operation:\n{}",
        fails.len(),
        seen.values().cloned().collect::<Vec<_>>().join("\n")
    );
}

// ---------------------------------------------------------------- access analysis

#[test]
fn bank_conflicts_of_huge_offset_does_not_panic() {
    // access.rs bank_conflicts_of: `off * words_per_access + j` overflows.
    let _ = no_panic("bank_conflicts_of([[i64::MAX]], 64)", || {
        bank_conflicts_of(&[vec![i64::MAX]], 64)
    });
}

#[test]
fn bank_conflicts_of_layout_with_huge_stride_does_not_panic() {
    let l: AnyLayout = lay(tup![s(32), s(2)], tup![s(1), s(1 << 62)]).into();
    let _ = no_panic("bank_conflicts((_32,_2):(_1,_2^62), 128)", || {
        bank_conflicts(&l, 128)
    });
}

#[test]
fn coalescing_of_layout_with_huge_stride_does_not_panic() {
    // access.rs coalescing: `off * bytes + b` overflows.
    let l: AnyLayout = lay(tup![s(32), s(2)], tup![s(1), s(1 << 62)]).into();
    let _ = no_panic("coalescing((_32,_2):(_1,_2^62), 128)", || {
        coalescing(&l, 128)
    });
}

#[test]
fn bank_cells_and_draw_access_with_huge_stride_do_not_panic() {
    let l: AnyLayout = lay(tup![s(32), s(2)], tup![s(1), s(1 << 62)]).into();
    let _ = no_panic("bank_cells", || bank_cells(&l, 128, 0, 4));
    let _ = no_panic("svg::draw_access", || svg::draw_access(&l, 128, 0));
}

// ---------------------------------------------------------------- svg / print

#[test]
fn svg_palette_with_huge_count_does_not_panic() {
    // svg.rs palette: `k * step % n` and `* 360` overflow for large n.
    let _ = no_panic("palette(i64::MAX - 1, i64::MAX)", || {
        palette(i64::MAX - 1, i64::MAX)
    });
}

#[test]
fn svg_panel_with_huge_extents_does_not_panic() {
    // svg.rs Panel::new: `(rows * cols)` overflows, then an unbounded Vec::with_capacity.
    let r = no_panic("Panel::new with i64::MAX x 2", || {
        Panel::new("", (0, 0), (i64::MAX, 2), |_, _| {
            Err(Error::Eval("stop".into()))
        })
    });
    assert!(r.is_err());
    // No overflow in the product, but 2^62 cells: capacity overflow (the size is never bounded).
    let r = no_panic("grid_svg with 2^31 x 2^31 cells", || {
        grid_svg("", 1 << 31, 1 << 31, |_, _| Err(Error::Eval("stop".into())))
    });
    assert!(r.is_err());
}

#[test]
fn svg_panels_svg_with_inconsistent_panel_does_not_panic() {
    // svg.rs write_panel: `p.cells[(m * p.cols + n) as usize]` with fewer cells than rows*cols.
    let p = Panel {
        caption: "x".into(),
        row: 0,
        col: 0,
        rows: 2,
        cols: 2,
        cells: vec![],
    };
    let _ = no_panic("panels_svg with a 2x2 panel of no cells", || {
        panels_svg("t", &[p])
    });
}

#[test]
fn svg_panels_svg_with_huge_position_does_not_panic() {
    // svg.rs panels_svg: `p.col + p.cols` / `right * CELL_W` overflow.
    let p = Panel {
        caption: String::new(),
        row: i64::MAX,
        col: i64::MAX,
        rows: 0,
        cols: 0,
        cells: vec![Cell {
            label: String::new(),
            sublabel: None,
            fill: String::new(),
            marked: false,
        }],
    };
    let _ = no_panic("panels_svg with a panel at i64::MAX", || {
        panels_svg("t", &[p])
    });
}

#[test]
fn print_layout_and_draw_layout_with_extremes_do_not_panic() {
    for l in [
        lay(tup![s(2), s(2)], tup![s(i64::MAX), s(i64::MIN)]),
        lay(tup![d(-2), s(2)], tup![s(1), s(1)]),
        lay(tup![s(1 << 40), s(1 << 40)], tup![s(1), s(1)]),
        lay(tup![s(i64::MAX), s(2)], tup![s(1), s(1)]),
    ] {
        let a: AnyLayout = l.into();
        let _ = no_panic("print_layout", || print_layout(&a));
        let _ = no_panic("draw_layout", || {
            svg::draw_layout(&a, svg::Shading::Offsets)
        });
        let _ = no_panic("draw_layout banks", || {
            svg::draw_layout(&a, svg::Shading::Banks { bits: 128 })
        });
        let _ = no_panic("Display", || a.to_string());
    }
}

// ---------------------------------------------------------------- atoms

#[test]
fn copy_op_display_with_huge_matrix_count_does_not_panic() {
    // atom/copy_op.rs Display: `matrices * 2` overflows u32.
    let op = CopyOp::LdsmT { matrices: u32::MAX };
    let _ = no_panic("Display of CopyOp::LdsmT { matrices: u32::MAX }", || {
        op.to_string()
    });
}

#[test]
fn copy_atom_new_with_odd_ops_does_not_panic() {
    for op in [
        CopyOp::UniversalCopy { bits: 0 },
        CopyOp::UniversalCopy { bits: u32::MAX },
        CopyOp::CpAsyncCacheAlways { bits: 7 },
        CopyOp::LdsmN { matrices: 0 },
        CopyOp::LdsmN { matrices: 3 },
        CopyOp::LdsmT { matrices: 0 },
    ] {
        for val in [
            ElemType::from_name("float").unwrap(),
            ElemType::from_name("uint128_t").unwrap(),
        ] {
            let _ = no_panic("CopyAtom::new", || CopyAtom::new(op, val));
        }
    }
}

fn universal_copy_atom() -> CopyAtom {
    CopyAtom::new(
        CopyOp::UniversalCopy { bits: 32 },
        ElemType::from_name("float").unwrap(),
    )
    .unwrap()
}

#[test]
fn tiled_copy_retile_with_huge_value_mode_does_not_panic() {
    // atom/tiled_copy.rs retile: `nthr * vn` is an unchecked i64 multiply.
    let tc = make_tiled_copy(
        &universal_copy_atom(),
        &lay(tup![s(32), s(8)], tup![s(1), s(32)]),
        &lay(tup![s(1), s(4)], tup![s(0), s(1)]),
    )
    .unwrap();
    let frag = lay(tup![s(i64::MAX), s(2)], tup![s(1), s(0)]);
    let _ = no_panic("TiledCopy::retile with value mode _i64::MAX", || {
        tc.retile(&frag)
    });
}

#[test]
fn tiled_copy_partition_with_hostile_tensors_does_not_panic() {
    let tc = make_tiled_copy(
        &universal_copy_atom(),
        &lay(tup![s(32), s(8)], tup![s(1), s(32)]),
        &lay(tup![s(1), s(4)], tup![s(0), s(1)]),
    )
    .unwrap();
    let tensors = [
        Tensor::identity(&tup![s(128), s(32)]).unwrap(),
        Tensor::identity(&tup![s(3), s(5)]).unwrap(),
        Tensor::identity(&IntTuple::st(7)).unwrap(),
        Tensor::new(
            Ptr {
                space: MemSpace::Gmem,
                bits: 32,
                name: "A".into(),
                offset: s(i64::MAX),
            },
            lay(tup![s(128), s(32)], tup![s(i64::MAX), s(i64::MIN)]),
        ),
        Tensor::new(
            Ptr {
                space: MemSpace::Smem,
                bits: 0,
                name: "B".into(),
                offset: s(0),
            },
            compose_swizzle(
                Swizzle::new(3, 3, 3).unwrap(),
                &lay(tup![s(128), s(32)], tup![s(32), s(1)]),
            ),
        ),
    ];
    for thr in [d(0), d(-1), d(i64::MAX), d(i64::MIN), Int::symbol("t")] {
        // An out-of-range index is refused (a typed error); a symbolic one partitions.
        let Ok(slice) = no_panic("get_slice", || tc.get_slice(&thr)) else {
            continue;
        };
        for t in &tensors {
            let _ = no_panic("partition_S", || slice.partition_s(t));
            let _ = no_panic("partition_D", || slice.partition_d(t));
            let _ = no_panic("retile", || slice.retile(t));
            let _ = no_panic("recast", || t.recast(8));
            let _ = no_panic("recast", || t.recast(u32::MAX));
            let _ = no_panic("Display", || t.to_string());
        }
    }
}

#[test]
fn tiled_mma_with_empty_mode_thread_layout_does_not_panic() {
    // get_slice -> get_flat_coord -> crd2idx_colex on an empty mode.
    let atom = MmaAtom::new(MmaOp::from_name("SM80_16x8x8_F16F16F16F16_TN").unwrap());
    let thr = lay(tup![tup![], tup![]], tup![tup![], tup![]]);
    let _ = no_panic("make_tiled_mma + get_slice with ((),()):((),())", || {
        make_tiled_mma(atom, &thr, &[]).and_then(|m| m.get_slice(&d(0)))
    });
}

#[test]
fn draw_tiled_mma_with_huge_permutation_does_not_panic() {
    // atom/draw.rs draw_tiled_mma: `(k + 2, 0)` with tile K = i64::MAX.
    let atom = MmaAtom::new(MmaOp::from_name("SM80_16x8x8_F16F16F16F16_TN").unwrap());
    let thr = lay(tup![s(1), s(1), s(1)], tup![s(0), s(0), s(0)]);
    let mma = make_tiled_mma(
        atom,
        &thr,
        &[Tiler::Under, Tiler::Under, Tiler::Int(s(i64::MAX))],
    )
    .unwrap();
    let _ = no_panic("draw_tiled_mma with PermutationK = _i64::MAX", || {
        atom::draw::draw_tiled_mma(&mma)
    });
}

#[test]
fn tiled_mma_partition_with_hostile_tensors_does_not_panic() {
    let atom = MmaAtom::new(MmaOp::from_name("SM80_16x8x8_F16F16F16F16_TN").unwrap());
    let mma = make_tiled_mma(
        atom,
        &lay(tup![s(2), s(2), s(1)], tup![s(1), s(2), s(0)]),
        &[],
    )
    .unwrap();
    let tensors = [
        Tensor::identity(&tup![s(64), s(64)]).unwrap(),
        Tensor::identity(&tup![s(3), s(5)]).unwrap(),
        Tensor::identity(&tup![d(i64::MAX), d(i64::MAX)]).unwrap(),
        Tensor::new(
            Ptr {
                space: MemSpace::Gmem,
                bits: 16,
                name: "A".into(),
                offset: s(0),
            },
            lay(tup![s(64), s(64)], tup![s(i64::MAX), s(-1)]),
        ),
    ];
    for thr in [
        d(0),
        d(-1),
        d(1000),
        d(i64::MAX),
        d(i64::MIN),
        Int::symbol("t"),
    ] {
        let Ok(slice) = no_panic("get_slice", || mma.get_slice(&thr)) else {
            continue;
        };
        for t in &tensors {
            for w in Operand::ALL {
                let _ = no_panic("partition", || slice.partition(w, t));
                let _ = no_panic("partition_fragment", || slice.partition_fragment(w, t));
            }
        }
    }
    for w in Operand::ALL {
        let _ = no_panic("partition_shape", || {
            mma.partition_shape(w, &tup![s(i64::MAX), s(-1)])
        });
    }
}

#[test]
fn local_tile_with_hostile_inputs_does_not_panic() {
    let t = Tensor::identity(&tup![s(128), s(64)]).unwrap();
    let tilers = [
        Tiler::from_shape(&tup![s(32), s(16)]),
        Tiler::from_shape(&tup![s(0), s(16)]),
        Tiler::from_shape(&tup![s(-1), s(i64::MAX)]),
        Tiler::from_shape(&tup![s(i64::MIN)]),
    ];
    let coords = [
        Coord::Tuple(vec![Coord::Int(d(i64::MAX)), Coord::Int(d(-1))]),
        Coord::Tuple(vec![Coord::Under, Coord::Int(d(i64::MIN))]),
        Coord::Tuple(vec![]),
        Coord::Int(d(3)),
    ];
    for tl in &tilers {
        for c in &coords {
            let _ = no_panic("local_tile", || t.local_tile(tl, c, None));
            let _ = no_panic("local_tile proj", || t.local_tile(tl, c, Some(c)));
            let _ = no_panic("slice", || t.slice(c));
        }
    }
}

#[test]
fn draw_tiled_copy_with_negative_thread_count_returns_promptly() {
    // atom/draw.rs owners: the guard `threads.saturating_mul(values) > MAX_CELLS * 64` passes for
    // threads = -1, values = i64::MAX (the product is negative), then `for v in 0..values` runs
    // 2^63 times. TiledCopy::new accepts this layout_tv.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        assert!(try_lay(tup![s(-1), s(i64::MAX)], tup![s(1), s(1)]).is_none());
        let tv = lay(tup![d(-1), s(i64::MAX)], tup![s(1), s(1)]);
        let tc = TiledCopy::new(universal_copy_atom(), tv, tup![s(4), s(4)]);
        let r = tc
            .map(|tc| catch_unwind(AssertUnwindSafe(|| atom::draw::draw_tiled_copy(&tc))).is_ok());
        let _ = tx.send(r);
    });
    let r = rx.recv_timeout(std::time::Duration::from_secs(10)).expect(
        "draw_tiled_copy with TiledLayout_TV (_-1,_i64::MAX):(_1,_1) did not return within 10 s",
    );
    assert!(r.unwrap_or(true), "draw_tiled_copy panicked");
}

#[test]
fn draw_tiled_copy_with_hostile_tilers_does_not_panic() {
    let atom = universal_copy_atom();
    let mut fails = Vec::new();
    for (tv, tiler) in [
        (
            lay(tup![s(4), s(4)], tup![s(4), s(1)]),
            tup![s(i64::MAX), s(2)],
        ),
        (lay(tup![s(4), s(4)], tup![s(4), s(1)]), tup![s(-4), s(-4)]),
        (lay(tup![s(4), s(4)], tup![s(4), s(1)]), tup![s(0), s(4)]),
        (
            lay(tup![s(4), s(4)], tup![s(4), s(1)]),
            tup![Int::symbol("M"), s(4)],
        ),
    ] {
        if let Ok(tc) = TiledCopy::new(atom.clone(), tv.clone(), tiler.clone()) {
            record(
                &mut fails,
                format!("draw_tiled_copy({tv}, {tiler})"),
                || atom::draw::draw_tiled_copy(&tc),
            );
            record(
                &mut fails,
                format!("get_layout_S_MN({tv}, {tiler})"),
                || tc.get_layout_s_mn(),
            );
        }
    }
    assert!(fails.is_empty(), "{fails:#?}");
}
