// SPDX-License-Identifier: Apache-2.0
// main() for every test labelled `gpu`: without a usable CUDA device the whole executable reports itself
// skipped (exit 77, which CTest counts as skipped, not passed) and says why.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char** argv) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::printf("SKIPPED: no CUDA device present (%s); GPU tests run on a machine with an NVIDIA GPU\n",
                err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
