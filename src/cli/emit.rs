//! `cute emit NAME` / `cute emit --list`: the CUDA C++ of a named kernel on standard output, an
//! error on standard error (so `cute emit ... > kernel.cu` never writes one into the file).

use std::process::ExitCode;

use cute::codegen::cuda::IndexWidth;
use cute::codegen::{named, recipes};

use super::args::EmitArgs;
use super::text::fail;
use super::usage;

pub fn emit_command(a: &EmitArgs) -> ExitCode {
    if let Err(e) = a.plan.check("emit", a.name.as_deref().as_slice()) {
        return usage(e);
    }
    let tensor_core = a
        .name
        .as_deref()
        .is_some_and(super::tensor_core::is_tensor_core);
    let layout = match a.plan.one_layout("emit") {
        // the tensor-core GEMMs are TN so far
        Ok(_) if tensor_core && a.plan.layout.is_empty() => super::tensor_core::layouts(&a.plan)[0],
        Ok(l) => l,
        Err(e) => return usage(e),
    };
    let Some(name) = a.name.as_deref().filter(|_| !a.list) else {
        for n in named::NAMES
            .iter()
            .chain(named::TENSOR_CORE_NAMES)
            .chain(named::GEMV_NAMES)
            .chain(recipes::NAMES)
        {
            println!("{n}");
        }
        return ExitCode::SUCCESS;
    };
    if super::recipe::is_recipe(name) {
        return super::recipe::emit_command(name, a.plan.target());
    }
    // Verified and written for --arch (what fits its SMs), as `run` compiles it.
    match a
        .plan
        .plan(name, layout)
        .and_then(|p| a.plan.emit(&p, IndexWidth::I32))
    {
        Ok(k) => {
            print!("{}", k.source);
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}
