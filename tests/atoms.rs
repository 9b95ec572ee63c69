//! The atoms of issue 13 and the typed API around them, against `tests/oracle/cute-atoms-api.txt`
//! (printed by C++ CuTe, `tools/oracle/atoms_api.cpp`): `Copy_Atom<DefaultCopy, T>` and the
//! AutoVectorizingCopy family, the SM75 MMAs and the SM80 8-bit integer MMAs (their multi-line
//! prints, from the typed Rust API and from the expression language), TiledMMAs built on them,
//! `make_tiled_copy_A/B/C`, pointers, tensors, `Step<_1,X,_1>` and `get_slice`.
//!
//! Partitions of pointer tensors are compared as `layout +offset` (the offset of their pointer
//! from the tensor's base), as the oracle program prints them.

use std::collections::HashMap;
use std::path::Path;

use cute::layout::atom::copy_op::{
    uint128_t, uint32_t, uint64_t, AutoVectorizingCopy, AutoVectorizingCopyWithAssumedAlignment,
    DefaultCopy, SM75_U16x8_LDSM_T, SM75_U32x2_LDSM_N, SM75_U32x4_LDSM_N, UniversalCopy,
    SM80_CP_ASYNC_CACHEGLOBAL,
};
use cute::layout::atom::mma_op::*;
use cute::layout::atom::{
    make_tiled_copy, make_tiled_copy_A, make_tiled_copy_B, make_tiled_copy_C, make_tiled_mma,
    CopyAtom, CopyOp, CopyOperation, MmaAtom, MmaOp, MmaOperation, Operand, TiledCopy, TiledMma,
};
use cute::layout::expr::{eval, eval_str};
use cute::layout::*;

/// The `@@ name` blocks of the oracle file.
fn oracle() -> HashMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/cute-atoms-api.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = HashMap::new();
    let mut name = String::new();
    for line in text.split_inclusive('\n') {
        match line.strip_prefix("@@ ") {
            Some(n) => name = n.trim_end().to_string(),
            None => out
                .entry(name.clone())
                .or_insert_with(String::new)
                .push_str(line),
        }
    }
    out
}

/// Compares `got` with the oracle block `name`, recording it as checked.
struct Checker {
    oracle: HashMap<String, String>,
    checked: Vec<String>,
}

impl Checker {
    fn new() -> Checker {
        Checker {
            oracle: oracle(),
            checked: Vec::new(),
        }
    }

    fn check(&mut self, name: &str, got: impl Into<String>) {
        let expected = self
            .oracle
            .get(name)
            .unwrap_or_else(|| panic!("no oracle block {name}"));
        assert_eq!(&got.into(), expected, "{name}");
        self.checked.push(name.to_string());
    }

    /// A one-line value: the block without its newline.
    fn line(&mut self, name: &str, got: impl std::fmt::Display) {
        self.check(name, format!("{got}\n"));
    }

    /// A pointer tensor: `layout +offset`.
    fn part(&mut self, name: &str, t: &Tensor) {
        let Engine::Ptr(p) = t.engine() else {
            panic!("{name}: not a pointer tensor")
        };
        // C++ prints a pointer difference: a number, static or not.
        let off = p.offset.value().expect("a known offset");
        self.check(name, format!("{} +{off}\n", t.layout()));
    }
}

fn lay(shape: IntTuple) -> Layout {
    Layout::col_major(&shape).unwrap()
}

/// `Layout<Shape<_2,_2,_1>>{}`.
fn thr_2x2x1() -> Layout {
    lay(tup![s(2), s(2), s(1)])
}

/// The typed operation types against their CuTe names: each type's `OP` prints its name.
macro_rules! typed_mma_names {
    ($($t:ident),* $(,)?) => {
        vec![$((stringify!($t), <$t as MmaOperation>::OP)),*]
    };
}

#[test]
fn mma_atoms_print_as_cpp_cute_typed_and_evaluated() {
    let mut c = Checker::new();
    let typed = typed_mma_names![
        SM75_16x8x8_F32F16F16F32_TN,
        SM75_16x8x8_F16F16F16F16_TN,
        SM75_8x8x16_S32S8S8S32_TN,
        SM80_8x8x16_S32S8S8S32_TN,
        SM80_8x8x16_S32S8S8S32_TN_SATURATE,
        SM80_16x8x16_S32S8S8S32_TN,
        SM80_16x8x16_S32S8S8S32_TN_SATURATE,
        SM80_16x8x32_S32S8S8S32_TN,
        SM80_16x8x32_S32S8S8S32_TN_SATURATE,
        SM80_8x8x16_S32S8U8S32_TN,
        SM80_8x8x16_S32S8U8S32_TN_SATURATE,
        SM80_16x8x16_S32S8U8S32_TN,
        SM80_16x8x16_S32S8U8S32_TN_SATURATE,
        SM80_16x8x32_S32S8U8S32_TN,
        SM80_16x8x32_S32S8U8S32_TN_SATURATE,
        SM80_8x8x16_S32U8S8S32_TN,
        SM80_8x8x16_S32U8S8S32_TN_SATURATE,
        SM80_16x8x16_S32U8S8S32_TN,
        SM80_16x8x16_S32U8S8S32_TN_SATURATE,
        SM80_16x8x32_S32U8S8S32_TN,
        SM80_16x8x32_S32U8S8S32_TN_SATURATE,
        SM80_8x8x16_S32U8U8S32_TN,
        SM80_8x8x16_S32U8U8S32_TN_SATURATE,
        SM80_16x8x16_S32U8U8S32_TN,
        SM80_16x8x16_S32U8U8S32_TN_SATURATE,
        SM80_16x8x32_S32U8U8S32_TN,
        SM80_16x8x32_S32U8U8S32_TN_SATURATE,
    ];
    assert_eq!(typed.len(), 27);
    for (name, op) in typed {
        assert_eq!(op.to_string(), name);
        assert_eq!(MmaOp::from_name(name), Some(op), "{name}");
        let block = format!("print MMA_Atom<{name}>");
        c.check(&block, MmaAtom::new(op).print());
        c.check(
            &block,
            eval(&format!("MMA_Atom<{name}>")).unwrap().print().unwrap(),
        );
        c.check(&block, eval(name).unwrap().print().unwrap());
    }
    let fma = MmaAtom::of::<UniversalFMA<f32, half_t, half_t, f32>>();
    let block = "print MMA_Atom<UniversalFMA<float,half_t,half_t,float>>";
    c.check(block, fma.print());
    c.check(
        block,
        eval("MMA_Atom<UniversalFMA<float,half_t,half_t,float>>")
            .unwrap()
            .print()
            .unwrap(),
    );
}

#[test]
fn integer_mma_types_and_ptx_follow_the_cutlass_headers() {
    // ValTypeD/A/B/C of mma_traits_sm80.hpp; the instruction strings of mma_sm80.hpp.
    use ElemType::{I32, I8, U8};
    let cases = [
        (
            "SM80_8x8x16_S32S8S8S32_TN",
            [I32, I8, I8, I32],
            "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0,%1}, {%2}, {%3}, {%4,%5};",
        ),
        (
            "SM80_16x8x16_S32U8S8S32_TN_SATURATE",
            [I32, U8, I8, I32],
            "mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32.satfinite {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};",
        ),
        (
            "SM80_16x8x32_S32U8U8S32_TN",
            [I32, U8, U8, I32],
            "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};",
        ),
        (
            "SM75_16x8x8_F32F16F16F32_TN",
            [ElemType::F32, ElemType::F16, ElemType::F16, ElemType::F32],
            "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};",
        ),
        (
            "SM75_8x8x16_S32S8S8S32_TN",
            [I32, I8, I8, I32],
            "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0,%1}, {%2}, {%3}, {%4,%5};",
        ),
    ];
    for (name, types, ptx) in cases {
        let op = MmaOp::from_name(name).unwrap();
        assert_eq!(op.types(), types, "{name}");
        assert_eq!(op.ptx().unwrap(), ptx, "{name}");
        assert_eq!(op.saturates(), name.ends_with("_SATURATE"), "{name}");
    }
}

#[test]
fn copy_atoms_print_as_cpp_cute_typed_and_evaluated() {
    let mut c = Checker::new();
    let typed: [(&str, CopyAtom); 8] = [
        (
            "DefaultCopy, float",
            CopyAtom::of::<DefaultCopy, f32>().unwrap(),
        ),
        (
            "DefaultCopy, int8_t",
            CopyAtom::of::<DefaultCopy, i8>().unwrap(),
        ),
        (
            "AutoVectorizingCopy, half_t",
            CopyAtom::of::<AutoVectorizingCopy, half_t>().unwrap(),
        ),
        (
            "AutoVectorizingCopyWithAssumedAlignment<64>, float",
            CopyAtom::of::<AutoVectorizingCopyWithAssumedAlignment<64>, f32>().unwrap(),
        ),
        (
            "UniversalCopy<uint32_t>, int8_t",
            CopyAtom::of::<UniversalCopy<uint32_t>, i8>().unwrap(),
        ),
        (
            "SM75_U32x4_LDSM_N, uint8_t",
            CopyAtom::of::<SM75_U32x4_LDSM_N, u8>().unwrap(),
        ),
        (
            "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, int8_t",
            CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, i8>().unwrap(),
        ),
        (
            "UniversalCopy<uint64_t>, int32_t",
            CopyAtom::of::<UniversalCopy<uint64_t>, i32>().unwrap(),
        ),
    ];
    for (args, atom) in typed {
        let block = format!("print Copy_Atom<{args}>");
        c.check(&block, atom.print().unwrap());
        let evaluated = eval(&format!("Copy_Atom<{args}>")).unwrap();
        c.check(&block, evaluated.print().unwrap());
        // The name a Rust user writes is the one C++ writes.
        assert_eq!(atom.to_string(), format!("Copy_Atom<{args}>"));
    }
    assert_eq!(
        DefaultCopy::OP,
        CopyOp::from_name("AutoVectorizingCopyWithAssumedAlignment", Some("8")).unwrap()
    );
    assert!(eval("Copy_Atom<AutoVectorizingCopyWithAssumedAlignment<12>, float>").is_err());
}

#[test]
fn tiled_mmas_on_the_new_atoms_agree_with_cpp_cute() {
    let mut c = Checker::new();
    for (name, (m, n, k)) in [
        ("SM75_16x8x8_F32F16F16F32_TN", (16, 8, 8)),
        ("SM75_8x8x16_S32S8S8S32_TN", (8, 8, 16)),
        ("SM80_8x8x16_S32S8S8S32_TN", (8, 8, 16)),
        ("SM80_16x8x16_S32S8S8S32_TN", (16, 8, 16)),
        ("SM80_16x8x32_S32S8S8S32_TN", (16, 8, 32)),
        ("SM80_16x8x32_S32U8S8S32_TN_SATURATE", (16, 8, 32)),
    ] {
        let atom = MmaAtom::new(MmaOp::from_name(name).unwrap());
        let mma = make_tiled_mma(atom, &thr_2x2x1(), &[]).unwrap();
        c.check(&format!("print tiled {name}"), mma.print() + "\n");
        let evaluated = eval(&format!("make_tiled_mma({name}, make_layout((_2,_2,_1)))")).unwrap();
        c.check(
            &format!("print tiled {name}"),
            evaluated.print().unwrap() + "\n",
        );
        c.line(
            &format!("get_layoutA_TV {name}"),
            mma.get_layout_a_tv().unwrap(),
        );
        c.line(
            &format!("get_layoutB_TV {name}"),
            mma.get_layout_b_tv().unwrap(),
        );
        c.line(
            &format!("get_layoutC_TV {name}"),
            mma.get_layout_c_tv().unwrap(),
        );
        for (op, shape) in [
            (Operand::A, tup![s(4 * m), s(2 * k)]),
            (Operand::B, tup![s(4 * n), s(2 * k)]),
            (Operand::C, tup![s(4 * m), s(4 * n)]),
        ] {
            c.line(
                &format!("partition_shape_{op} {name}"),
                mma.partition_shape(op, &shape).unwrap(),
            );
        }
    }
}

fn int8_mma() -> TiledMma {
    make_tiled_mma(
        MmaAtom::of::<SM80_16x8x32_S32S8S8S32_TN>(),
        &thr_2x2x1(),
        &[],
    )
    .unwrap()
}

fn half_mma() -> TiledMma {
    make_tiled_mma(
        MmaAtom::of::<SM80_16x8x16_F32F16F16F32_TN>(),
        &thr_2x2x1(),
        &[Tiler::Int(s(32)), Tiler::Int(s(32)), Tiler::Int(s(16))],
    )
    .unwrap()
}

#[test]
fn make_tiled_copy_a_b_c_agree_with_cpp_cute() {
    let mut c = Checker::new();
    let (mma8, mmah) = (int8_mma(), half_mma());
    let cp_a = make_tiled_copy_A(&CopyAtom::of::<SM75_U32x4_LDSM_N, i8>().unwrap(), &mma8).unwrap();
    c.check("print make_tiled_copy_A ldsm int8", cp_a.print().unwrap());
    let s_a = AnyLayout::Plain(Layout::compact(&tup![s(32), s(32)], stride::Major::Right).unwrap());
    c.line(
        "tidfrg_S make_tiled_copy_A ldsm int8",
        cp_a.tidfrg_s(&s_a).unwrap(),
    );
    let cp_b = make_tiled_copy_B(&CopyAtom::of::<SM75_U32x2_LDSM_N, i8>().unwrap(), &mma8).unwrap();
    c.check("print make_tiled_copy_B ldsm int8", cp_b.print().unwrap());
    let cp_c = make_tiled_copy_C(
        &CopyAtom::of::<UniversalCopy<uint64_t>, i32>().unwrap(),
        &mma8,
    )
    .unwrap();
    c.check("print make_tiled_copy_C int32", cp_c.print().unwrap());
    let cp_ah =
        make_tiled_copy_A(&CopyAtom::of::<SM75_U32x4_LDSM_N, half_t>().unwrap(), &mmah).unwrap();
    c.check("print make_tiled_copy_A ldsm half", cp_ah.print().unwrap());
    let cp_bh =
        make_tiled_copy_B(&CopyAtom::of::<SM75_U16x8_LDSM_T, half_t>().unwrap(), &mmah).unwrap();
    c.check(
        "print make_tiled_copy_B ldsm_t half",
        cp_bh.print().unwrap(),
    );
    let cp_cd = make_tiled_copy_C(&CopyAtom::of::<DefaultCopy, f32>().unwrap(), &mmah).unwrap();
    c.line(
        "get_layoutS_TV make_tiled_copy_C default",
        cp_cd.get_layout_s_tv().unwrap(),
    );
    let s_c = make_tensor(make_smem_ptr::<f32>("S"), lay(tup![s(32), s(32)]));
    let part = cp_cd.get_slice(&d(5)).unwrap().partition_s(&s_c).unwrap();
    c.part("make_tiled_copy_C default partition_S 5", &part);

    // The expression language builds the same copies.
    let mma8_src = "make_tiled_mma(MMA_Atom<SM80_16x8x32_S32S8S8S32_TN>, make_layout((_2,_2,_1)))";
    for (f, atom, block) in [
        (
            "make_tiled_copy_A",
            "Copy_Atom<SM75_U32x4_LDSM_N, int8_t>",
            "print make_tiled_copy_A ldsm int8",
        ),
        (
            "make_tiled_copy_B",
            "Copy_Atom<SM75_U32x2_LDSM_N, int8_t>",
            "print make_tiled_copy_B ldsm int8",
        ),
        (
            "make_tiled_copy_C",
            "Copy_Atom<UniversalCopy<uint64_t>, int32_t>",
            "print make_tiled_copy_C int32",
        ),
    ] {
        let v = eval(&format!("{f}({atom}, {mma8_src})")).unwrap();
        c.check(block, v.print().unwrap());
    }
}

#[test]
fn default_copy_tiles_like_cpp_cute() {
    let mut c = Checker::new();
    let tc = make_tiled_copy(
        &CopyAtom::of::<DefaultCopy, f32>().unwrap(),
        &lay(tup![s(32), s(8)]),
        &lay(tup![s(4), s(1)]),
    )
    .unwrap();
    c.check("print tiled_copy DefaultCopy", tc.print().unwrap());
    c.line(
        "tidfrg_S tiled_copy DefaultCopy",
        tc.tidfrg_s(&AnyLayout::Plain(lay(tup![s(128), s(32)])))
            .unwrap(),
    );
}

fn seed_copy() -> TiledCopy {
    make_tiled_copy(
        &CopyAtom::of::<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, f32>().unwrap(),
        &lay(tup![s(32), s(8)]),
        &lay(tup![s(4), s(1)]),
    )
    .unwrap()
}

fn tf32_mma() -> TiledMma {
    make_tiled_mma(
        MmaAtom::of::<SM80_16x8x8_F32TF32TF32F32_TN>(),
        &thr_2x2x1(),
        &[],
    )
    .unwrap()
}

#[test]
fn typed_tiled_copy_and_tiled_mma_queries_agree_with_cpp_cute() {
    let mut c = Checker::new();
    let tc = seed_copy();
    c.line("size tiled_copy", tc.num_threads().unwrap());
    let (mk, thr) = tc.get_layout_s_mn().unwrap();
    c.line("get_layoutS_MN tiled_copy", format!("({mk},{thr})"));
    c.check(
        "print ThrCopy 3",
        tc.get_slice(&d(3)).unwrap().print().unwrap(),
    );
    let tci = TiledCopy::new(
        CopyAtom::of::<UniversalCopy<uint128_t>, f32>().unwrap(),
        Layout::new(tup![s(256), s(4)], tup![s(4), s(1)]).unwrap(),
        tup![s(128), s(8)],
    )
    .unwrap();
    c.line(
        "tidfrg_D make_tiled_copy_impl",
        tci.tidfrg_d(&AnyLayout::Plain(lay(tup![s(128), s(32)])))
            .unwrap(),
    );
    let mma = tf32_mma();
    let tc_c = make_tiled_copy_C(
        &CopyAtom::of::<UniversalCopy<uint64_t>, f32>().unwrap(),
        &mma,
    )
    .unwrap();
    let frag = Layout::new(
        tup![tup![s(2), s(2)], s(4), s(8)],
        tup![tup![s(1), s(2)], s(4), s(16)],
    )
    .unwrap();
    c.line("TiledCopy::retile copy_C", tc_c.retile(&frag).unwrap());

    c.line("size tiled_mma sm80", mma.num_threads().unwrap());
    c.line("permutation_mnk<0> sm80", mma.permutation_mnk(0).unwrap());
    c.line("permutation_mnk<2> sm80", mma.permutation_mnk(2).unwrap());
    c.line("tile_size<1> sm80", mma.tile_size(1).unwrap());
    c.line(
        "partition_shape_B sm80",
        mma.partition_shape(Operand::B, &tup![s(64), s(32)])
            .unwrap(),
    );
    c.line(
        "partition_shape_C sm80",
        mma.partition_shape(Operand::C, &tup![s(64), s(64)])
            .unwrap(),
    );
    let thr = mma.get_slice(&d(37)).unwrap();
    c.check("print ThrMMA sm80 37", thr.print() + "\n");
    c.check(
        "print ThrMMA sm80 37",
        eval(
            "make_tiled_mma(SM80_16x8x8_F32TF32TF32F32_TN, make_layout((_2,_2,_1))).get_slice(37)",
        )
        .unwrap()
        .print()
        .unwrap()
            + "\n",
    );
    let mut vmnk = String::new();
    for (i, x) in thr.thr_vmnk().iter().enumerate() {
        vmnk += if i == 0 { "(" } else { "," };
        vmnk += &x.to_string();
    }
    c.line("thr_vmnk sm80 37", vmnk + ")");
    let s_b = make_tensor(make_smem_ptr::<f32>("S"), lay(tup![s(64), s(32)]));
    c.part(
        "partition_B sm80 37",
        &thr.partition(Operand::B, &s_b).unwrap(),
    );
    c.line(
        "partition_fragment_B sm80 37",
        thr.partition_fragment(Operand::B, &s_b).unwrap().layout(),
    );
}

#[test]
fn pointers_tensors_and_steps_agree_with_cpp_cute() {
    let mut c = Checker::new();
    // C++ prints the address where the port prints the pointer's name.
    let named = |cpp: &str, name: &str| cpp.replace("(nil)", name);
    let want = |c: &Checker, block: &str, name: &str| named(&c.oracle[block], name);
    assert_eq!(
        format!("{}\n", make_gmem_ptr::<f32>("A")),
        want(&c, "make_gmem_ptr float", "A")
    );
    assert_eq!(
        format!("{}\n", make_smem_ptr::<half_t>("A")),
        want(&c, "make_smem_ptr half_t", "A")
    );
    assert_eq!(
        format!("{}\n", make_rmem_ptr::<i8>("A")),
        want(&c, "make_rmem_ptr int8_t", "A")
    );
    let t = make_tensor(make_gmem_ptr::<f32>("A"), lay(tup![s(4), s(8)]));
    assert_eq!(format!("{t}\n"), want(&c, "make_tensor gmem (_4,_8)", "A"));
    c.line(
        "make_identity_tensor (_4,_8)",
        make_identity_tensor(&tup![s(4), s(8)]).unwrap(),
    );
    c.line(
        "make_identity_tensor (M=6,N=10)",
        make_identity_tensor(&tup![d(6), d(10)]).unwrap(),
    );
    c.part(
        "tensor slice (_,2)",
        &t.slice(&Coord::Tuple(vec![X, d(2).into()])).unwrap(),
    );
    let Element::Offset(p) = t.at(&tup![d(2), d(3)]).unwrap() else {
        panic!("a pointer tensor's element is an offset")
    };
    c.line("tensor at (2,3)", format!("+{}", p.offset));
    let id = make_identity_tensor(&tup![s(4), s(8)]).unwrap();
    c.line("identity at (2,3)", id.at(&tup![d(2), d(3)]).unwrap());
    let tile = local_tile(
        &make_identity_tensor(&tup![d(8), d(8)]).unwrap(),
        &Tiler::from_shape(&tup![s(4), s(4)]),
        &Coord::Tuple(vec![d(1).into(), d(1).into()]),
        None,
    )
    .unwrap();
    c.line("identity local_tile (1,1)", &tile);
    c.line(
        "identity local_tile (1,1) at (1,2)",
        tile.at(&tup![d(1), d(2)]).unwrap(),
    );
    c.line(
        "coalesce tensor (_4,_8) col-major",
        t.map_layout(coalesce).unwrap().layout(),
    );
    let flat = t.with_layout(Layout::col_major(&IntTuple::st(32)).unwrap().into());
    assert_eq!(
        format!("{flat}\n"),
        want(&c, "make_tensor(t.data(), make_layout(_32))", "A")
    );
    let h = t.recast(16).unwrap();
    c.line("recast<half_t> layout", h.layout());
    let Engine::Ptr(hp) = h.engine() else {
        panic!("recast keeps the pointer")
    };
    assert_eq!(format!("{hp}\n"), want(&c, "recast<half_t> data", "A"));
    let row = make_tensor(
        make_gmem_ptr::<f32>("A"),
        Layout::compact(&tup![s(4), s(8)], stride::Major::Right).unwrap(),
    );
    c.line(
        "coalesce tensor layout",
        row.map_layout(coalesce).unwrap().layout(),
    );
    let tiler = Tiler::from_shape(&tup![s(2), s(4)]);
    let at11 = Coord::Tuple(vec![d(1).into(), d(1).into()]);
    c.part(
        "zipped_divide tensor (_2,_4)",
        &t.zipped_divide(&tiler).unwrap(),
    );
    c.part(
        "inner_partition tensor (_2,_4) (1,1)",
        &t.inner_partition(&tiler, &at11).unwrap(),
    );
    c.part(
        "outer_partition tensor (_2,_4) (1,1)",
        &t.outer_partition(&tiler, &at11).unwrap(),
    );
    let g_a = make_tensor(make_gmem_ptr::<f32>("A"), lay(tup![d(256), d(64)]));
    let proj = make_step([s(1).into(), X, s(1).into()]);
    c.line("Step<_1,X,_1>", &proj);
    c.part(
        "local_tile gA Step<_1,X,_1>",
        &local_tile(
            &g_a,
            &Tiler::from_shape(&tup![s(128), s(128), s(8)]),
            &Coord::Tuple(vec![d(1).into(), d(0).into(), X]),
            Some(&proj),
        )
        .unwrap(),
    );
    c.part(
        "local_tile gA (_128,_8) (1,_)",
        &local_tile(
            &g_a,
            &Tiler::from_shape(&tup![s(128), s(8)]),
            &Coord::Tuple(vec![d(1).into(), X]),
            None,
        )
        .unwrap(),
    );
    let s_a = make_tensor(make_smem_ptr::<f32>("A"), lay(tup![s(16), s(8)]));
    let thr = lay(tup![s(2), s(4)]);
    c.part(
        "local_partition sA (_2,_4) 5",
        &local_partition(&s_a, &thr, &d(5), None).unwrap(),
    );
    c.part(
        "local_partition sA (_2,_4) 5 Step<_1,X>",
        &local_partition(&s_a, &thr, &d(5), Some(&make_step([s(1).into(), X]))).unwrap(),
    );
    c.line("repeat<3>(_)", Coord::repeat_under(3));
    let under2 = Coord::Tuple(vec![X, d(2).into()]);
    c.line("has_underscore (_,2)", u8::from(under2.has_underscore()));
    c.line(
        "slice (_,2) (4,8)",
        slice(&under2, &tup![d(4), d(8)]).unwrap(),
    );
    c.line(
        "dice (_,2) (4,8)",
        dice(&under2, &tup![d(4), d(8)]).unwrap(),
    );
    let l = lay(tup![s(4), s(8)]);
    c.line("slice (_,2) (_4,_8)", l.slice(&under2).unwrap());
    c.line("dice (_,2) (_4,_8)", l.dice(&under2).unwrap());
    c.line(
        "crd2idx (2,3) (_4,_8)",
        l.crd2idx(&tup![d(2), d(3)]).unwrap(),
    );
    c.line(
        "crd2idx (_2,_3) (_4,_8)",
        l.crd2idx(&tup![s(2), s(3)]).unwrap(),
    );
    let r = Layout::compact(&tup![s(4), s(8)], stride::Major::Right).unwrap();
    c.line("(_4,_8):(_8,_1) at 13", r.eval(13).unwrap());
    let h = Layout::new(tup![tup![s(2), s(2)], s(8)], tup![tup![s(1), s(2)], s(4)]).unwrap();
    c.line("get_hier_coord 13", h.get_hier_coord(&d(13)).unwrap());
    c.line("get_flat_coord 13", h.get_flat_coord(&d(13)).unwrap());
    c.line(
        "SrcLayout SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>",
        <SM80_CP_ASYNC_CACHEGLOBAL<uint128_t> as CopyOperation>::OP.src_layout(),
    );
    let ldsm = <SM75_U32x4_LDSM_N as CopyOperation>::OP;
    c.line("ThrID SM75_U32x4_LDSM_N", ldsm.thr_id());
    c.line("SrcLayout SM75_U32x4_LDSM_N", ldsm.src_layout());
    c.line("DstLayout SM75_U32x4_LDSM_N", ldsm.dst_layout());
    c.line("RefLayout SM75_U32x4_LDSM_N", ldsm.ref_layout());
}

#[test]
fn every_oracle_block_is_checked() {
    // Each test above runs its own Checker; this lists what they cover together.
    let o = oracle();
    let covered = [
        "print MMA_Atom<",
        "print Copy_Atom<",
        "print tiled ",
        "get_layout",
        "partition_shape_",
        "make_tiled_copy",
        "tiled_copy DefaultCopy",
        "size tiled_",
        "get_layoutS_MN",
        "ThrCopy",
        "make_tiled_copy_impl",
        "TiledCopy::retile",
        "permutation_mnk",
        "tile_size",
        "ThrMMA",
        "thr_vmnk",
        "partition_B",
        "partition_fragment_B",
        "make_",
        "tensor ",
        "identity",
        "recast",
        "coalesce",
        "zipped_divide",
        "inner_partition",
        "outer_partition",
        "local_tile",
        "local_partition",
        "Step<",
        "repeat<3>",
        "has_underscore",
        "slice",
        "dice",
        "crd2idx",
        "(_4,_8):(_8,_1) at 13",
        "get_hier_coord",
        "get_flat_coord",
        "SrcLayout",
        "DstLayout",
        "RefLayout",
        "ThrID",
    ];
    for name in o.keys() {
        assert!(
            covered
                .iter()
                .any(|p| name.starts_with(p) || name.contains(p)),
            "oracle block {name} is not compared by any test"
        );
    }
}

#[test]
fn get_slice_refuses_known_indices_out_of_range_and_accepts_symbols() {
    let (tc, mma) = (seed_copy(), tf32_mma());
    for bad in [d(-1), d(256), s(1000)] {
        let e = tc.get_slice(&bad).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("TiledCopy::get_slice: thread index {bad} is out of range for _256 threads (0.._256)")
        );
        assert!(matches!(
            e,
            Error::ThreadIndex {
                op: "TiledCopy::get_slice",
                ..
            }
        ));
    }
    for bad in [d(128), s(-3)] {
        let e = mma.get_slice(&bad).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("TiledMMA::get_slice: thread index {bad} is out of range for _128 threads (0.._128)")
        );
    }
    // a symbol given as a thread index is taken as an index (it may be 0)
    let tid = Int::symbol("tid");
    assert_eq!(tc.get_slice(&tid).unwrap().thr_idx(), &Int::index("tid"));
    assert!(mma.get_slice(&tid).is_ok());
    assert!(tc.get_slice(&d(255)).is_ok() && mma.get_slice(&s(127)).is_ok());
    // The expression language reports the same error.
    let tc_src = "make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>, make_layout((_32,_8)), make_layout((_4,_1)))";
    assert_eq!(
        eval_str(&format!("({tc_src}).get_slice(256)"))
            .unwrap_err()
            .to_string(),
        "TiledCopy::get_slice: thread index 256 is out of range for _256 threads (0.._256)"
    );
}

#[test]
fn make_tiled_mma_refuses_a_shape_as_cpp_cute_does() {
    // C++: make_tiled_mma(SM80_16x8x8_F32TF32TF32F32_TN{}, make_shape(_2{},_2{},_1{})) does not
    // compile ("logical_product: Too many modes in tiler"); Layout<Shape<_2,_2,_1>>{} does.
    let e = eval_str("make_tiled_mma(SM80_16x8x8_F32TF32TF32F32_TN, (_2,_2,_1))").unwrap_err();
    assert!(
        e.to_string().contains("write make_layout((_2,_2,_1))"),
        "{e}"
    );
    assert!(e.to_string().contains("Too many modes in tiler"), "{e}");
    assert_eq!(
        eval_str("make_tiled_mma(SM80_16x8x8_F32TF32TF32F32_TN, make_layout((_2,_2,_1)))").unwrap(),
        eval_str("make_tiled_mma(SM80_16x8x8_F32TF32TF32F32_TN, (_2,_2,_1):(_1,_2,_0))").unwrap()
    );
}

#[test]
fn constructors_refuse_what_the_macros_refuse() {
    // shape!((_-4,_3)) and layout!((_-4,_3):(_1,_4)) are compile errors (tests/ui/negative_size);
    // the constructors refuse the same input at run time.
    let neg = tup![s(-4), s(3)];
    for e in [
        Layout::new(neg.clone(), tup![s(1), s(4)]).unwrap_err(),
        Layout::col_major(&neg).unwrap_err(),
        Layout::compact(&neg, Major::Right).unwrap_err(),
        Layout::ordered(&neg, &tup![s(0), s(1)]).unwrap_err(),
        make_identity_tensor(&neg).unwrap_err(),
    ] {
        assert_eq!(
            e.to_string(),
            "make_layout: negative size _-4 in shape (_-4,_3)"
        );
    }
    assert_eq!(
        Layout::new(tup![s(4), s(3)], tup![s(1)])
            .unwrap_err()
            .to_string(),
        "make_layout: shape (_4,_3) and stride (_1) are not congruent (rank mismatch)"
    );
    // Dynamic sizes are run-time values: not checked (the macros let them through too).
    assert!(Layout::new(tup![d(-4), s(3)], tup![s(1), s(4)]).is_ok());
    // A TiledCopy's TV layout is (thread, value).
    let atom = CopyAtom::of::<UniversalCopy<uint32_t>, f32>().unwrap();
    let e = TiledCopy::new(atom, lay(IntTuple::st(32)), tup![s(32)]);
    assert_eq!(
        e.unwrap_err().to_string(),
        "make_tiled_copy: TiledLayout_TV _32:_1 is not rank 2 (thread, value)"
    );
}

#[test]
fn cute_print_prints_the_new_atoms_as_cpp_cute() {
    let c = Checker::new();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cute"))
        .args([
            "print",
            "MMA_Atom<SM80_16x8x32_S32S8S8S32_TN>",
            "Copy_Atom<DefaultCopy, float>",
            "MMA_Atom<SM75_16x8x8_F32F16F16F32_TN>",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let expected = [
        "print MMA_Atom<SM80_16x8x32_S32S8S8S32_TN>",
        "print Copy_Atom<DefaultCopy, float>",
        "print MMA_Atom<SM75_16x8x8_F32F16F16F32_TN>",
    ]
    .map(|b| c.oracle[b].clone())
    .concat();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
}
