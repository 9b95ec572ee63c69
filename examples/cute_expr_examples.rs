//! The main job for now: evaluates the examples of `shared/cute-expr.md` and prints each next to
//! the output C++ CuTe gives for it.
//!
//! Run with `cargo run --release --example cute_expr_examples`. Exits non-zero when an example
//! disagrees with C++ CuTe.

use std::process::ExitCode;

use cute::layout::expr::eval_str;

/// (expression, what C++ CuTe prints for it), from shared/cute-expr.md.
const EXAMPLES: &[(&str, &str)] = &[
    ("composition((_6,_2):(_8,_2), (_4,_3):(_3,_1))", "((_2,_2),_3):((_24,_2),_8)"),
    ("complement((_2,_2):(_1,_6), _24)", "(_3,_2):(_2,_12)"),
    (
        "logical_divide((4096,1024):(_1,4096), (_128,_32))",
        "((_128,32),(_32,32)):((_1,_128),(4096,131072))",
    ),
    ("composition(Swizzle<3,4,3>, (_8,_64):(_64,_1))", "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)"),
    (
        "make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>, (_32,_8):(_1,_32), (_4,_1):(_1,_0)).tidfrg_D((_128,_32,_3):(_1,_128,_4096))",
        "(_256,(_4,_1),(_1,_4,_3)):(_4,(_1,_0),(_0,_1024,_4096))",
    ),
    (
        "make_tiled_mma(MMA_Atom<UniversalFMA<float,float,float,float>>, (_16,_16):(_1,_16)).thrfrg_C((_128,_128):(_1,_128))",
        "((_1,(_16,_16)),(_1,(_8,_8))):((_0,(_1,_128)),(_0,(_16,_2048)))",
    ),
];

fn main() -> ExitCode {
    let (mut matched, mut failed) = (0, 0);
    for (expr, expected) in EXAMPLES {
        println!("{expr}");
        match eval_str(expr) {
            Ok(got) if got == *expected => {
                println!("  => {got}   (matches C++ CuTe)\n");
                matched += 1;
            }
            Ok(got) => {
                println!("  => {got}\n  C++ CuTe prints {expected}\n");
                failed += 1;
            }
            Err(e) => {
                println!("  error: {e}\n  C++ CuTe prints {expected}\n");
                failed += 1;
            }
        }
    }
    println!("{matched} match C++ CuTe, {failed} differ");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
