//! Proc-macros for CuTe literals and expressions checked at Rust compile time.
//!
//! Not yet implemented: `layout!`, `shape!`, `cute!` arrive with issue 5, as thin fronts over
//! `cute_layout::expr`, the same evaluator the `cute` CLI uses.
