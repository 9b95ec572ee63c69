// How many clusters of 1, 2 and 4 CTAs of the SM90 GEMMs' shape (384 threads, 229376 bytes of
// dynamic shared memory) the GPU holds at once: cudaOccupancyMaxActiveClusters. A persistent
// grid of more clusters than this runs a second wave.
// nvcc -arch=sm_90a -o max_clusters tools/gpu/max_clusters.cu && ./max_clusters
#include <cstdio>
#include <cuda_runtime.h>

__global__ void k384() {}

int main() {
  cudaFuncSetAttribute(k384, cudaFuncAttributeMaxDynamicSharedMemorySize, 229376);
  cudaFuncSetAttribute(k384, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (int c : {1, 2, 4}) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(c * 64, 1, 1);
    cfg.blockDim = dim3(384, 1, 1);
    cfg.dynamicSmemBytes = 229376;
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = c;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    int n = 0;
    cudaError_t e = cudaOccupancyMaxActiveClusters(&n, k384, &cfg);
    printf("SMs %d, cluster %d: %d clusters at once (%d CTAs) %s\n", sms, c, n, n * c,
           cudaGetErrorString(e));
  }
  return 0;
}
