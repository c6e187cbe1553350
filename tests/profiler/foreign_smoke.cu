// SPDX-License-Identifier: Apache-2.0
// A small CUDA program for `attnscope profile -- COMMAND` on a GPU (test_foreign_gpu.cpp): in-place kernels
// whose results are wrong unless every replay of the collector starts from the launch's inputs and the
// program gets its own launch's results back, a kernel taking a struct with pointers by value, a launch
// from a worker thread while the main thread has an NVTX range open, and an "attnscope:" annotation.
// Exits 0 when the results are right, 1 (saying which element) when not, 2 when CUDA fails.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <thread>
#include <vector>

namespace {

struct Args {
  float* y;
  const float* x;
  int n;
};

__global__ void attnscope_smoke_accumulate(float* y, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += x[i];
}

__global__ void attnscope_smoke_struct(Args a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < a.n) a.y[i] += 2.0f * a.x[i];
}

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "foreign_smoke: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main() {
  constexpr int n = 1 << 22;  // 16 MB per array: larger than nothing, small beside any GPU
  float *x = nullptr, *y = nullptr;
  if (!check(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc") ||
      !check(cudaMalloc(&y, n * sizeof(float)), "cudaMalloc"))
    return 2;
  std::vector<float> host(n, 1.0f);
  if (!check(cudaMemcpy(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy x") ||
      !check(cudaMemset(y, 0, n * sizeof(float)), "memset y"))
    return 2;
  const int threads = 256, blocks = (n + threads - 1) / threads;

  nvtxRangePushA("foreign_smoke main");
  nvtxRangePushA("attnscope: B=1 H=1 Nq=128 Nkv=128 d=64 dtype=fp16 causal=0");
  for (int i = 0; i < 3; ++i) attnscope_smoke_accumulate<<<blocks, threads>>>(y, x, n);  // y = 3
  nvtxRangePop();
  if (!check(cudaGetLastError(), "accumulate")) return 2;
  // The worker thread's launches happen while "foreign_smoke main" is open on the main thread.
  std::thread worker([&] {
    nvtxRangePushA("worker");
    for (int i = 0; i < 2; ++i) attnscope_smoke_struct<<<blocks, threads>>>(Args{y, x, n});  // y = 7
    nvtxRangePop();
    check(cudaDeviceSynchronize(), "worker");
  });
  worker.join();
  nvtxRangePop();
  if (!check(cudaGetLastError(), "struct kernel") ||
      !check(cudaMemcpy(host.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost), "copy y"))
    return 2;
  for (int i = 0; i < n; ++i)
    if (host[i] != 7.0f) {
      std::fprintf(stderr, "foreign_smoke: y[%d] = %g, expected 7: the program's memory was changed\n", i,
                   host[i]);
      return 1;
    }
  std::printf("foreign_smoke: results right (y = 7 everywhere)\n");
  cudaFree(x);
  cudaFree(y);
  return 0;
}
