//! Global semaphores (CUTLASS's `Semaphore`, `GenericBarrier`): CTAs of one launch handing an
//! output tile to each other, as serial split-K's slices do. Thread 0 spins on the integer with
//! a GPU-scope acquire load, and the CTA's barrier after it passes the acquired writes on to
//! every thread; a release is the CTA's barrier, then thread 0's fence and GPU-scope release
//! store (cumulative over what the barrier ordered before it).

/// `cute_semaphore_wait` / `cute_semaphore_release`.
pub const SEMAPHORE_FNS: &str = r#"__device__ __forceinline__ void cute_semaphore_wait(const int* s, int v) {
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    int x;
    do {
      asm volatile("ld.global.acquire.gpu.b32 %0, [%1];\n" : "=r"(x) : "l"(s) : "memory");
    } while (x != v);
  }
  __syncthreads();
}
__device__ __forceinline__ void cute_semaphore_release(int* s, int v) {
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    __threadfence();
    asm volatile("st.global.release.gpu.b32 [%0], %1;\n" :: "l"(s), "r"(v) : "memory");
  }
}"#;

/// The call of a wait (`release` false) or a release of the semaphore at `at` (`&Sem[i]`)
/// with the value `v` (C++ text of an integer).
pub fn call(release: bool, at: &str, v: &str) -> String {
    let f = if release { "release" } else { "wait" };
    format!("cute_semaphore_{f}({at}, static_cast<int>({v}));")
}
