//! The CuTe expression language: parse and evaluate CuTe C++ spelling, print as C++ CuTe prints.
//!
//! The `cute` CLI and the proc-macros are thin fronts over this module.
//!
//! ```
//! # use cute_layout::expr::eval_str;
//! assert_eq!(
//!     eval_str("composition((_6,_2):(_8,_2), (_4,_3):(_3,_1))").unwrap(),
//!     "((_2,_2),_3):((_24,_2),_8)"
//! );
//! assert!(eval_str("composition((_6,_2):(_8,_2)").is_err());
//! ```

mod ast;
mod atom_functions;
mod eval;
mod functions;
mod lexer;
mod parser;
mod printed;
mod tensor_functions;
mod value;

pub use ast::{ArithOp, Expr, TArg};
pub use eval::{eval_expr, eval_in, Env};
pub use functions::FUNCTIONS;
pub use parser::{parse, MAX_DEPTH};
pub use value::Value;

use crate::error::Result;

/// Parses and evaluates one expression.
pub fn eval(src: &str) -> Result<Value> {
    eval_expr(&parse(src)?)
}

/// Parses, evaluates and prints one expression exactly as C++ CuTe's `print` would.
pub fn eval_str(src: &str) -> Result<String> {
    Ok(eval(src)?.to_string())
}

/// Parses and evaluates one expression with the names in `env` bound to integers, and converts the
/// result to `T` (`Layout`, `IntTuple`, `Int`, `TiledCopy`, ...): what `cute!{}` expands to when
/// it mentions Rust variables.
pub fn eval_as<T: FromValue>(src: &str, env: &Env) -> Result<T> {
    T::from_value(eval_in(&parse(src)?, env)?)
}

pub use value::FromValue;
