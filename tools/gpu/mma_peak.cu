// The SM's mma.sync and ldmatrix ceilings on this GPU, measured: every warp issues
// m16n8k16 F32 += F16*F16 (or BF16) MMAs from registers in a loop, INDEP independent
// accumulators deep; then the same with ldmatrix.x4 feeding them from shared memory in the ratio
// of a 64x64 warp tile (8 ldmatrix.x4 per 32 MMAs). CUDA events, median of 10.
#include <cstdio>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

template <int INDEP, bool LDSM>
__global__ void mma_loop(float* out, int iters) {
  __shared__ __align__(128) unsigned short s[64 * 64 * 2];
  for (int i = threadIdx.x; i < 64 * 64 * 2; i += blockDim.x) s[i] = (unsigned short)(i * 7);
  __syncthreads();
  float d[INDEP][4];
  for (int i = 0; i < INDEP; ++i) for (int j = 0; j < 4; ++j) d[i][j] = 0.f;
  unsigned a[INDEP / 4 + 1][4];
  for (int g = 0; g <= INDEP / 4; ++g) for (int j = 0; j < 4; ++j) a[g][j] = threadIdx.x * (g + j + 1);
  const unsigned b0 = threadIdx.x * 11, b1 = threadIdx.x * 13;
  unsigned base = (unsigned)__cvta_generic_to_shared(s) + (threadIdx.x % 32) * 16 * 8;
  for (int it = 0; it < iters; ++it) {
    if (LDSM) {
      // 8 ldmatrix.x4 per 32 MMAs: one per 4 MMAs
      #pragma unroll
      for (int g = 0; g < INDEP / 4; ++g) {
        unsigned addr = base ^ ((it * 16 + g * 32) & 0x70);
        asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(a[g][0]), "=r"(a[g][1]), "=r"(a[g][2]), "=r"(a[g][3]) : "r"(addr));
      }
    }
    #pragma unroll
    for (int i = 0; i < INDEP; ++i) {
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                   : "+f"(d[i][0]), "+f"(d[i][1]), "+f"(d[i][2]), "+f"(d[i][3])
                   : "r"(a[i / 4][0]), "r"(a[i / 4][1]), "r"(a[i / 4][2]), "r"(a[i / 4][3]), "r"(b0), "r"(b1));
    }
  }
  float t = 0.f;
  for (int i = 0; i < INDEP; ++i) for (int j = 0; j < 4; ++j) t += d[i][j];
  if (t == 12345.f) out[threadIdx.x] = t;
}

template <int INDEP, bool LDSM>
void measure(int blocks, int threads, int iters, const char* what) {
  float* out;
  cudaMalloc(&out, 4096);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int w = 0; w < 3; ++w) mma_loop<INDEP, LDSM><<<blocks, threads>>>(out, iters);
  std::vector<float> ms;
  for (int r = 0; r < 10; ++r) {
    cudaEventRecord(e0);
    mma_loop<INDEP, LDSM><<<blocks, threads>>>(out, iters);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float t;
    cudaEventElapsedTime(&t, e0, e1);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  double flops = 2.0 * 16 * 8 * 16 * INDEP * (double)iters * (threads / 32) * blocks;
  printf("%-44s blocks %4d threads %4d: %.3f ms, %.1f TFLOP/s\n", what, blocks, threads, ms[5],
         flops / (ms[5] * 1e-3) / 1e12);
  cudaFree(out);
}

int main() {
  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  measure<8, false>(sms, 256, 20000, "mma.sync f16->f32, 8 warps/SM, 8 indep");
  measure<16, false>(sms, 256, 10000, "mma.sync f16->f32, 8 warps/SM, 16 indep");
  measure<32, false>(sms, 256, 5000, "mma.sync f16->f32, 8 warps/SM, 32 indep");
  measure<8, false>(sms, 512, 20000, "mma.sync f16->f32, 16 warps/SM, 8 indep");
  measure<16, false>(sms, 128, 10000, "mma.sync f16->f32, 4 warps/SM, 16 indep");
  measure<32, true>(sms, 256, 5000, "ldmatrix.x4 + mma.sync (1:4), 8 warps/SM");
  return 0;
}
