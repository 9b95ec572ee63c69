//! The `cute` command line (`cute --help`; each command's `--help` has examples):
//!
//! - `cute eval EXPR...` prints each expression's value exactly as C++ CuTe's `print` would; with
//!   no EXPR it reads expressions from standard input, one per line.
//! - `cute print-layout`, `cute print`, `cute draw`, `cute bank-conflicts`, `cute coalescing`:
//!   tables, prints, pictures and access analyses of CuTe values.
//! - `cute emit`, `cute run`, `cute check`, `cute bench`: the named GEMM kernels as CUDA,
//!   compiled with NVRTC, checked and timed on the GPU.
//! - `cute completions bash|zsh|fish`: the shell completion script.

#[path = "../cli/mod.rs"]
mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    // A closed pipe (`cute emit ... | head`) ends the process quietly, as for any Unix filter,
    // instead of a panic in `println!`.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    cli::main()
}
