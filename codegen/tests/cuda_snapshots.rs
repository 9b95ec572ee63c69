//! Snapshot tests of the emitted CUDA: every named kernel in the NN layout and the flagship
//! `sgemm-sm80` in all four layouts, for the default target (sm_90a), and `sgemm-sm80` NN for
//! sm_80, where two CTAs of 96 KiB do not fit an SM. A change to the emitter shows up as a
//! reviewable diff of the CUDA it writes (`cargo insta review`); `cute-runtime`'s tests compile
//! the same sources with NVRTC.

use cute_codegen::{emit, named, GemmLayout, Target};

fn source(name: &str, layout: &str) -> String {
    source_for(name, layout, &Target::default())
}

fn source_for(name: &str, layout: &str, target: &Target) -> String {
    let layout = GemmLayout::parse(layout).expect("a BLAS layout");
    let plan = named::plan_for(name, layout, target).expect("a named plan");
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

/// For the A100 the recipe builds one CTA per SM (`__launch_bounds__(256)`, no occupancy note);
/// the rest of the kernel is sm_90a's.
#[test]
fn sgemm_sm80_nn_for_sm_80() {
    insta::assert_snapshot!(
        "sgemm-sm80_NN_sm_80",
        source_for("sgemm-sm80", "NN", &Target::sm80())
    );
}
