//! A swizzled shared tile partitioned at the symbolic thread index `tid` lowers to C++ that
//! applies the swizzle at run time (`cute_swizzle<B,M,S>(offset)`), and that C++ computes, for
//! every thread and element, what the layout algebra computes for that thread as a number.
//!
//! The emitted index text is read back with the expression language (where `Swizzle<B,M,S>(x)`
//! applies a swizzle), `tid` bound to each thread.

use cute_codegen::cexpr::swizzled_index;
use cute_layout::expr::{eval, eval_in, parse, Value};
use cute_layout::{d, AnyLayout, IntTuple, Tensor};

fn partition(thread: &str) -> Tensor {
    let src = format!(
        "make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>, (_32,_8):(_1,_32), (_4,_1):(_1,_0))\
         .get_slice({thread}).partition_D(make_tensor(make_smem_ptr<float>(sA), composition(Swizzle<3,2,3>, (_128,_32):(_1,_128))))"
    );
    match eval(&src).unwrap() {
        Value::Tensor(t) => t,
        other => panic!("{other}"),
    }
}

#[test]
fn a_swizzled_partition_at_tid_lowers_to_the_swizzle_at_run_time() {
    let sym = partition("tid");
    let AnyLayout::Composed(l) = sym.layout() else {
        panic!("{sym}: the swizzle was lost")
    };
    let size = l.layout_b().size().unwrap().value().unwrap();
    for tid in 0..256 {
        let lit = partition(&tid.to_string());
        let env = [("tid".to_string(), d(tid))];
        for e in 0..size {
            let crd = IntTuple::Int(cute_layout::s(e));
            let text = swizzled_index(l, &crd).unwrap();
            let read = text.replace("cute_swizzle<", "Swizzle<");
            let got = match eval_in(&parse(&read).unwrap(), &env).unwrap() {
                Value::Int(i) => i.value().unwrap(),
                other => panic!("{text}: {other}"),
            };
            let want = match lit.at(&crd).unwrap() {
                cute_layout::Element::Offset(p) => p.offset.value().unwrap(),
                other => panic!("{other}"),
            };
            assert_eq!(got, want, "tid {tid}, element {e}: {text}");
        }
    }
}
