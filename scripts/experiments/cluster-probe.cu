// scripts/experiments/cluster-probe.cu: how many clusters of 1-16 CTAs of a gemm_wgmma-sized block
// (384 threads, 200 or 100 KB of shared memory) this GPU holds at once; GPC sizes bound clusters.
// nvcc -arch=sm_90a -o /tmp/cluster-probe scripts/experiments/cluster-probe.cu && /tmp/cluster-probe
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
// Every call is checked: a failed setup would otherwise print plausible-looking counts.
#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)
__global__ void probe(int* p) { if (p) p[0] = 1; }
int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  CHECK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  CHECK(cudaFuncSetAttribute(probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  for (int smem : {200 * 1024, 100 * 1024}) for (int size : {1, 2, 4, 8, 16}) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(size * 64); cfg.blockDim = dim3(384); cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr; attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = size; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
    cfg.attrs = &attr; cfg.numAttrs = 1;
    int n = -1; cudaError_t e = cudaOccupancyMaxActiveClusters(&n, probe, &cfg);
    printf("smem %d KB cluster %2d: max active clusters %d (%d CTAs) %s\n", smem / 1024, size, n, n * size, cudaGetErrorString(e));
  }
}
