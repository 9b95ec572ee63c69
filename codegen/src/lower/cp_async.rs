//! `SM80_CP_ASYNC_CACHE{ALWAYS,GLOBAL}`: a helper per instruction form, its PTX taken from the
//! atom's zero-filling form (`CopyOp::ptx_zfill`), so a failed predicate writes zeros.

use cute_layout::atom::CopyOp;

use crate::writer::Writer;

/// The helper's name and PTX for an atom (`None` for a copy that is not a `cp.async`).
pub fn helper(op: CopyOp) -> Option<(String, String)> {
    let ptx = op.ptx_zfill()?;
    let name = match op {
        CopyOp::CpAsyncCacheAlways { bits } => format!("cute_cp_async_ca{}", bits / 8),
        CopyOp::CpAsyncCacheGlobal { bits } => format!("cute_cp_async_cg{}", bits / 8),
        _ => return None,
    };
    Some((name, ptx))
}

/// The helper's definition.
pub fn define(w: &mut Writer, name: &str, ptx: &str) {
    w.comment(format!(
        "{ptx} (src_bytes below the size zero-fills the rest)"
    ));
    w.open(format!(
        "__device__ __forceinline__ void {name}(void* smem, const void* gmem, int src_bytes)"
    ));
    w.line("const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));");
    w.line(format!(
        "asm volatile(\"{ptx}\\n\" :: \"r\"(s), \"l\"(gmem), \"r\"(src_bytes));"
    ));
    w.close("");
}

/// One `cp.async` of `bytes` bytes, all of them when `pred` holds, none (zeros) otherwise.
pub fn copy(w: &mut Writer, name: &str, bytes: u32, src: &str, dst: &str, pred: Option<&str>) {
    let n = match pred {
        Some(p) => format!("({p}) ? {bytes} : 0"),
        None => bytes.to_string(),
    };
    w.line(format!("{name}(&{dst}, &{src}, {n});"));
}

/// One `cp.async` of `src_bytes` bytes (a C expression), the rest of the vector zero-filled.
pub fn copy_prefix(w: &mut Writer, name: &str, src_bytes: &str, src: &str, dst: &str) {
    w.line(format!("{name}(&{dst}, &{src}, {src_bytes});"));
}

/// `cp.async.commit_group` and `cp.async.wait_group N`.
pub fn commit(w: &mut Writer) {
    w.line("asm volatile(\"cp.async.commit_group;\\n\" ::);");
}

pub fn wait(w: &mut Writer, n: i64) {
    w.line(format!("asm volatile(\"cp.async.wait_group {n};\\n\" ::);"));
}
