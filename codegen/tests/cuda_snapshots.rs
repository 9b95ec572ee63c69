//! Snapshot tests of the emitted CUDA: every named kernel in the NN layout, and the flagship
//! `sgemm-sm80` in all four layouts. A change to the emitter shows up as a reviewable diff of the
//! CUDA it writes (`cargo insta review`); `cute-runtime`'s tests compile the same sources with
//! NVRTC.

use cute_codegen::{emit, named, GemmLayout};

fn source(name: &str, layout: &str) -> String {
    let layout = GemmLayout::parse(layout).expect("a BLAS layout");
    let plan = named::plan(name, layout).expect("a named plan");
    let k = emit(&plan).expect("the named plans emit");
    let l = &k.launch;
    let grid: Vec<String> = l.grid.iter().map(ToString::to_string).collect();
    let reqs: Vec<String> = l.requirements.iter().map(ToString::to_string).collect();
    format!(
        "// launch {}: grid ({}), block {:?}, {} bytes of dynamic smem, requires [{}]\n{}",
        k.name,
        grid.join(", "),
        l.block,
        l.dynamic_smem_bytes,
        reqs.join(", "),
        k.source
    )
}

#[test]
fn named_kernels_nn() {
    for name in named::NAMES {
        insta::assert_snapshot!(format!("{name}_NN"), source(name, "NN"));
    }
}

#[test]
fn sgemm_sm80_every_layout() {
    for layout in ["NT", "TN", "TT"] {
        insta::assert_snapshot!(format!("sgemm-sm80_{layout}"), source("sgemm-sm80", layout));
    }
}
