//! The `cute` command line: its grammar ([`args`]), the algebra commands ([`algebra`]), `emit`
//! ([`emit`]), the GPU commands ([`gpu`]) and the escaping of user text in what it prints
//! ([`text`]).

pub mod algebra;
pub mod args;
pub mod emit;
pub mod gpu;
pub mod recipe;
pub mod split_k;
pub mod stream_k;
pub mod suite;
pub mod tensor_core;
pub mod text;
pub mod tune;

use std::io::Write;
use std::process::ExitCode;

use clap::builder::Styles;
use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches};

use args::{Cli, Command};

/// The grammar without colours: its errors hold no escape sequences but the user's, which
/// [`usage`] escapes.
pub fn plain_command() -> clap::Command {
    Cli::command().styles(Styles::plain())
}

/// Prints a clap error or help text and gives its exit status: help and `--version` on standard
/// output (status 0), errors on standard error with control characters escaped (status 2).
/// Errors should come from [`plain_command`], or escape sequences of clap's styling are escaped
/// too.
pub fn usage(e: clap::Error) -> ExitCode {
    let code = u8::try_from(e.exit_code()).unwrap_or(2);
    if !e.use_stderr() {
        let _ = e.print();
        return ExitCode::from(code);
    }
    let mut text = e.render().ansi().to_string();
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        text = format!("error: a command is required\n\n{text}");
    }
    let _ = write!(std::io::stderr(), "{}", text::lines(&text));
    ExitCode::from(code)
}

/// Parses the arguments and runs the command.
pub fn main() -> ExitCode {
    // Help is coloured on a terminal; errors come from the plain grammar (see `usage`).
    let parsed = Cli::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    match parsed {
        Ok(cli) => run(cli.command),
        Err(e) if !e.use_stderr() => usage(e),
        Err(e) => {
            let plain = plain_command()
                .try_get_matches()
                .and_then(|m| Cli::from_arg_matches(&m));
            usage(plain.err().unwrap_or(e))
        }
    }
}

fn run(command: Command) -> ExitCode {
    match command {
        Command::Eval(a) => algebra::eval_command(&a.exprs),
        Command::PrintLayout(a) => algebra::print_layout_command(&a.exprs),
        Command::Print(a) => algebra::print_command(&a.exprs),
        Command::Emit(a) => emit::emit_command(&a),
        Command::Run(a) => gpu::run(&a),
        Command::Check(a) => gpu::check_all(&a),
        Command::Bench(a) => gpu::bench_all(&a),
        Command::Tune(a) => tune::tune(&a),
        Command::BankConflicts(a) => algebra::access_command(&a, true),
        Command::Coalescing(a) => algebra::access_command(&a, false),
        Command::Draw(a) => algebra::draw_command(&a),
        Command::Completions(a) => {
            let mut cmd = Cli::command();
            clap_complete::generate(a.shell, &mut cmd, "cute", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
    }
}
