//! SM90 asynchronous pipelines: TMA loads (`SM90_TMA_LOAD`: `cp.async.bulk.tensor` of a
//! tensor map's box into shared memory, completing on an mbarrier's transaction count) and
//! stores (`SM90_TMA_STORE`: a shared tile into a box, in bulk groups), the
//! mbarriers that order them (init, arrive, arrive with expected transactions, wait on a phase
//! parity), and the warp-specialization instructions around them (`bar.sync` of some warps,
//! `setmaxnreg`, `fence.mbarrier_init`). The kernel passes a tensor map as a
//! `const __grid_constant__` parameter of CUDA's 128-byte, 64-byte aligned `CUtensorMap`
//! layout, declared here (no headers).

use crate::writer::Writer;

/// The parameter type of a tensor map (`CUtensorMap`: 16 opaque 64-bit words).
pub const TENSOR_MAP_TYPE: &str =
    "struct __align__(64) cute_tensor_map { unsigned long long opaque[16]; };";

/// The mbarrier helpers (on a barrier's generic address; `cute_smem_u32` converts it).
pub const MBARRIER_FNS: &str = r#"__device__ __forceinline__ void cute_mbar_init(unsigned long long* b, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" :: "r"(cute_smem_u32(b)), "r"(count) : "memory");
}
__device__ __forceinline__ void cute_mbar_arrive_expect_tx(unsigned long long* b, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" :: "r"(cute_smem_u32(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void cute_mbar_arrive(unsigned long long* b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" :: "r"(cute_smem_u32(b)) : "memory");
}
__device__ __forceinline__ void cute_mbar_wait(unsigned long long* b, unsigned parity) {
  asm volatile("{\n.reg .pred p;\nWAIT:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra WAIT;\n}\n" :: "r"(cute_smem_u32(b)), "r"(parity) : "memory");
}"#;

/// The remote arrive of a cluster (`ClusterBarrier::arrive(cta_id)`): the barrier at `b`'s
/// place in the shared memory of the cluster's CTA `cta`, with the default release at CTA
/// scope, as CUTLASS arrives. A release at cluster scope (`.release.cluster`) waits for the
/// thread's memory operations to be visible to the whole cluster: on an H100 it made the
/// consumer warp that releases each stage late for its next wgmma, and hgemm-sm90-cluster 26%
/// slower than without a cluster (2026-12-06, `reports/2026-12-06-h100-issue16-cluster.txt`).
pub const MBARRIER_CLUSTER_FN: &str = r#"__device__ __forceinline__ void cute_mbar_arrive_cluster(unsigned long long* b, unsigned cta) {
  asm volatile("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\nmbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" :: "r"(cute_smem_u32(b)), "r"(cta) : "memory");
}"#;

/// `elect.sync` over the whole warp: true in the one thread it elects.
pub const ELECT_ONE_FN: &str = r#"__device__ __forceinline__ bool cute_elect_one() {
  unsigned elected = 0;
  asm volatile("{\n.reg .b32 lane;\n.reg .pred p;\nelect.sync lane|p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}\n" : "=r"(elected));
  return elected != 0;
}"#;

/// The name of the TMA load helper of a rank (`cute_tma_load_2d`).
pub fn load_name(rank: usize) -> String {
    format!("cute_tma_load_{rank}d")
}

/// The TMA load helper of a rank: the box at `c0..` into the shared byte address `dst`,
/// completing on the mbarrier at `bar`.
pub fn load_fn(rank: usize) -> String {
    load_helper(rank, false)
}

/// The name of the multicast TMA load helper of a rank (`cute_tma_load_multicast_2d`).
pub fn load_multicast_name(rank: usize) -> String {
    format!("cute_tma_load_multicast_{rank}d")
}

/// The multicast TMA load helper of a rank (`SM90_TMA_LOAD_MULTICAST`): the box at `c0..`
/// into the shared byte address `dst` of every CTA of the cluster in `mask`, completing on
/// the mbarrier at `bar`'s place in each.
pub fn load_multicast_fn(rank: usize) -> String {
    load_helper(rank, true)
}

fn load_helper(rank: usize, multicast: bool) -> String {
    let coords: Vec<String> = (0..rank).map(|i| format!("int c{i}")).collect();
    let slots: Vec<String> = (0..rank).map(|i| format!("%{}", i + 2)).collect();
    let ins: Vec<String> = (0..rank).map(|i| format!("\"r\"(c{i})")).collect();
    let (name, mask_param, suffix, mask_in) = match multicast {
        false => (load_name(rank), "", String::new(), ""),
        true => (
            load_multicast_name(rank),
            "unsigned short mask, ",
            format!(
                ".multicast::cluster [%0], [%1, {{{}}}], [%{}], %{}",
                slots.join(", "),
                rank + 2,
                rank + 3
            ),
            ", \"h\"(mask)",
        ),
    };
    let operands = match multicast {
        false => format!(" [%0], [%1, {{{}}}], [%{}]", slots.join(", "), rank + 2),
        true => suffix,
    };
    format!(
        "__device__ __forceinline__ void {name}(unsigned dst, const cute_tensor_map* map, unsigned long long* bar, {mask_param}{}) {{\n  \
         asm volatile(\"cp.async.bulk.tensor.{rank}d.shared::cluster.global.mbarrier::complete_tx::bytes{operands};\\n\" :: \"r\"(dst), \"l\"(reinterpret_cast<unsigned long long>(map)), {}, \"r\"(cute_smem_u32(bar)){mask_in} : \"memory\");\n}}",
        coords.join(", "),
        ins.join(", ")
    )
}

/// The name of the TMA store helper of a rank (`cute_tma_store_2d`).
pub fn store_name(rank: usize) -> String {
    format!("cute_tma_store_{rank}d")
}

/// The TMA store helper of a rank (`SM90_TMA_STORE`): the shared tile at byte address `src`
/// into the box at `c0..` of the map, out-of-bounds elements dropped, in this thread's bulk
/// group.
pub fn store_fn(rank: usize) -> String {
    let coords: Vec<String> = (0..rank).map(|i| format!("int c{i}")).collect();
    let slots: Vec<String> = (0..rank).map(|i| format!("%{}", i + 2)).collect();
    let ins: Vec<String> = (0..rank).map(|i| format!("\"r\"(c{i})")).collect();
    format!(
        "__device__ __forceinline__ void {}(const cute_tensor_map* map, unsigned src, {}) {{\n  \
         asm volatile(\"cp.async.bulk.tensor.{rank}d.global.shared::cta.bulk_group [%0, {{{}}}], [%1];\\n\" :: \"l\"(reinterpret_cast<unsigned long long>(map)), \"r\"(src), {} : \"memory\");\n}}",
        store_name(rank),
        coords.join(", "),
        slots.join(", "),
        ins.join(", ")
    )
}

/// `cp.async.bulk.commit_group`.
pub fn bulk_commit(w: &mut Writer) {
    w.line("asm volatile(\"cp.async.bulk.commit_group;\\n\" ::: \"memory\");");
}

/// `cp.async.bulk.wait_group.read n`.
pub fn bulk_wait_read(w: &mut Writer, n: i64) {
    w.line(format!(
        "asm volatile(\"cp.async.bulk.wait_group.read {n};\\n\" ::: \"memory\");"
    ));
}

/// `bar.sync id, threads`.
pub fn named_barrier(w: &mut Writer, id: i64, threads: i64) {
    w.line(format!(
        "asm volatile(\"bar.sync {id}, {threads};\\n\" ::: \"memory\");"
    ));
}

/// `setmaxnreg.{inc,dec}.sync.aligned.u32 regs`.
pub fn setmaxnreg(w: &mut Writer, inc: bool, regs: i64) {
    let dir = if inc { "inc" } else { "dec" };
    w.line(format!(
        "asm volatile(\"setmaxnreg.{dir}.sync.aligned.u32 {regs};\\n\" ::: \"memory\");"
    ));
}

/// `barrier.cluster.arrive.release` + `barrier.cluster.wait.acquire` (every thread).
pub fn cluster_barrier(w: &mut Writer) {
    w.line("asm volatile(\"barrier.cluster.arrive.release.aligned;\\nbarrier.cluster.wait.acquire.aligned;\\n\" ::: \"memory\");");
}

/// `fence.mbarrier_init.release.cluster`.
pub fn fence_mbarrier_init(w: &mut Writer) {
    w.line("asm volatile(\"fence.mbarrier_init.release.cluster;\\n\" ::: \"memory\");");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_2d_load_binds_two_coordinates_and_the_barrier() {
        let f = load_fn(2);
        assert!(f.contains("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"), "{f}");
        assert!(f.contains("int c0, int c1)"), "{f}");
    }

    #[test]
    fn the_multicast_load_names_the_ctas() {
        let f = load_multicast_fn(2);
        assert!(f.contains("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;"), "{f}");
        assert!(f.contains("\"h\"(mask)"), "{f}");
    }

    #[test]
    fn the_2d_store_reads_the_tile_into_the_box() {
        let f = store_fn(2);
        assert!(
            f.contains(
                "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
            ),
            "{f}"
        );
        assert!(
            f.contains(
                "cute_tma_store_2d(const cute_tensor_map* map, unsigned src, int c0, int c1)"
            ),
            "{f}"
        );
    }
}
