// SPDX-License-Identifier: Apache-2.0
#include "l2_flush.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "attnscope/profiler/error.hpp"
#include "driver_call.hpp"

// The fatbin of profiler/src/cuda/device_kernels.cu (generated at build time by embed_binary.cmake).
extern "C" const unsigned char attnscope_l2_flush_fatbin[];
extern "C" const std::size_t attnscope_l2_flush_fatbin_size;

namespace attnscope::profiler::inject {

namespace {

// Launch shapes of device_kernels.cu's l2_flush_read and l2_discard, so the flush is the same work.
constexpr unsigned kFlushBlocks = 2048;
constexpr unsigned kFlushThreads = 256;

// The kernels sit in an anonymous namespace, so their mangled names carry a per-file id: found by the
// unmangled part of the name among the module's functions.
CUfunction function_named(CUmodule module, std::string_view part) {
  unsigned count = 0;
  ATTNSCOPE_CU(cuModuleGetFunctionCount(&count, module));
  std::vector<CUfunction> functions(count);
  ATTNSCOPE_CU(cuModuleEnumerateFunctions(functions.data(), count, module));
  for (CUfunction f : functions) {
    const char* name = nullptr;
    ATTNSCOPE_CU(cuFuncGetName(&name, f));
    if (name != nullptr && std::string_view(name).find(part) != std::string_view::npos) {
      // Enumerated handles may not be loaded yet under lazy loading: load now, not inside a measured pass.
      ATTNSCOPE_CU(cuFuncLoad(f));
      return f;
    }
  }
  throw ProfilerError(ErrorCode::cuda_error,
                      fmt::format("the embedded flush module has no kernel named *{}*", part));
}

}  // namespace

L2Flush::L2Flush(std::size_t l2_bytes, std::size_t multiple) {
  ATTNSCOPE_CU(cuModuleLoadData(&module_, attnscope_l2_flush_fatbin));
  read_ = function_named(module_, "attnscope_l2_flush_read");
  discard_ = function_named(module_, "attnscope_l2_discard");
  bytes_ = multiple * std::max<std::size_t>(l2_bytes, 1 << 20);
  ATTNSCOPE_CU(cuMemAlloc(&buffer_, bytes_));
  // Zeros: the read kernel's never-taken store depends on it.
  ATTNSCOPE_CU(cuMemsetD8(buffer_, 0, bytes_));
  ATTNSCOPE_CU(cuCtxSynchronize());
}

L2Flush::~L2Flush() {
  // Nothing useful to do about failures while tearing down.
  if (buffer_ != 0) cuMemFree(buffer_);
  if (module_ != nullptr) cuModuleUnload(module_);
}

void L2Flush::run(CUstream stream) const {
  CUdeviceptr buffer = buffer_;
  std::size_t vectors = bytes_ / 16;  // uint4 elements
  std::size_t lines = bytes_ / 128;
  void* read_args[] = {&buffer, &vectors, &buffer};
  ATTNSCOPE_CU(cuLaunchKernel(read_, kFlushBlocks, 1, 1, kFlushThreads, 1, 1, 0, stream, read_args, nullptr));
  void* discard_args[] = {&buffer, &lines};
  ATTNSCOPE_CU(
      cuLaunchKernel(discard_, kFlushBlocks, 1, 1, kFlushThreads, 1, 1, 0, stream, discard_args, nullptr));
}

std::string L2Flush::describe() const {
  return fmt::format(
      "L2 flush before every pass: a kernel reads a {:.0f} MB buffer with ordinary loads (every dirty line "
      "is "
      "written back during the flush), then discard.global.L2 leaves L2 empty and clean (the same kernels as "
      "attnscope's own measurements)",
      static_cast<double>(bytes_) / 1e6);
}

}  // namespace attnscope::profiler::inject
