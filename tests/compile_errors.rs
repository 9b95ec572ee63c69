//! Compile-time checks of the proc-macros: each file in tests/ui/ either compiles (pass.rs) or
//! fails with the error message checked in beside it (`*.stderr`, reviewed when accepted).

#[test]
fn macro_errors_are_compile_errors_with_spans() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass.rs");
    t.compile_fail("tests/ui/rank_mismatch.rs");
    t.compile_fail("tests/ui/divisibility.rs");
    t.compile_fail("tests/ui/unknown_function.rs");
    t.compile_fail("tests/ui/unknown_atom.rs");
    t.compile_fail("tests/ui/copy_values_do_not_fit.rs");
    t.compile_fail("tests/ui/double_colon.rs");
    t.compile_fail("tests/ui/negative_size.rs");
    t.compile_fail("tests/ui/unbalanced.rs");
    t.compile_fail("tests/ui/brace_not_an_expression.rs");
    t.compile_fail("tests/ui/brace_type_error.rs");
    t.compile_fail("tests/ui/brace_rank_mismatch.rs");
    t.compile_fail("tests/ui/field_outside_braces.rs");
}
