// SPDX-License-Identifier: Apache-2.0
#include "launch_call.hpp"

#include <cupti.h>  // the driver API parameter structs (generated_cuda_meta.h) need its typedefs first
#include <cupti_driver_cbid.h>
#include <cxxabi.h>

#include <cstdlib>

#include "driver_call.hpp"

namespace attnscope::profiler::inject {

namespace {

// cuLaunchKernel and cuLaunchCooperativeKernel share their leading fields; the per-thread-stream forms have
// the same parameter structs as the plain ones.
template <typename Params>
LaunchCall classic(LaunchApi api, const Params& p) {
  LaunchCall c;
  c.api = api;
  c.function = p.f;
  c.grid = {p.gridDimX, p.gridDimY, p.gridDimZ};
  c.block = {p.blockDimX, p.blockDimY, p.blockDimZ};
  c.dynamic_smem = p.sharedMemBytes;
  c.stream = p.hStream;
  c.kernel_params = p.kernelParams;
  return c;
}

LaunchCall extended(const CUlaunchConfig* config, CUfunction f, void** params, void** extra) {
  LaunchCall c;
  c.api = LaunchApi::kernel_ex;
  c.function = f;
  if (config != nullptr) {
    c.config = *config;
    c.grid = {config->gridDimX, config->gridDimY, config->gridDimZ};
    c.block = {config->blockDimX, config->blockDimY, config->blockDimZ};
    c.dynamic_smem = config->sharedMemBytes;
    c.stream = config->hStream;
  }
  c.kernel_params = params;
  c.extra = extra;
  return c;
}

// In the per-thread-stream forms, stream 0 is the calling thread's default stream.
LaunchCall per_thread(LaunchCall c) {
  if (c.stream == nullptr) c.stream = CU_STREAM_PER_THREAD;
  return c;
}

}  // namespace

const std::vector<CUpti_CallbackId>& launch_callback_ids() {
  static const std::vector<CUpti_CallbackId> ids = {
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
  };
  return ids;
}

std::optional<LaunchCall> LaunchCall::from_callback(CUpti_CallbackId cbid, const void* params) {
  if (params == nullptr) return std::nullopt;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: {
      const auto& p = *static_cast<const cuLaunchKernel_params*>(params);
      LaunchCall c = classic(LaunchApi::kernel, p);
      c.extra = p.extra;
      return c;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      const auto& p = *static_cast<const cuLaunchKernel_ptsz_params*>(params);
      LaunchCall c = classic(LaunchApi::kernel, p);
      c.extra = p.extra;
      return per_thread(c);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: {
      const auto& p = *static_cast<const cuLaunchKernelEx_params*>(params);
      return extended(p.config, p.f, p.kernelParams, p.extra);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto& p = *static_cast<const cuLaunchKernelEx_ptsz_params*>(params);
      return per_thread(extended(p.config, p.f, p.kernelParams, p.extra));
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      return classic(LaunchApi::cooperative, *static_cast<const cuLaunchCooperativeKernel_params*>(params));
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      return per_thread(classic(LaunchApi::cooperative,
                                *static_cast<const cuLaunchCooperativeKernel_ptsz_params*>(params)));
    default:
      return std::nullopt;
  }
}

CUresult LaunchCall::relaunch(CUstream on) const {
  switch (api) {
    case LaunchApi::kernel:
      return cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2], dynamic_smem,
                            on, kernel_params, extra);
    case LaunchApi::kernel_ex: {
      CUlaunchConfig c = config;
      c.hStream = on;
      return cuLaunchKernelEx(&c, function, kernel_params, extra);
    }
    case LaunchApi::cooperative:
      return cuLaunchCooperativeKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                       dynamic_smem, on, kernel_params);
  }
  return CUDA_ERROR_INVALID_VALUE;
}

std::string demangle(const std::string& mangled) {
  int status = 0;
  char* text = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || text == nullptr) return mangled;
  std::string out(text);
  std::free(text);
  return out;
}

FunctionInfo describe_function(CUfunction function, const char* symbol_name) {
  FunctionInfo info;
  // A launch may pass a CUkernel (a library kernel, CUDA 12+) where a CUfunction is expected; the function
  // attribute and parameter queries want the context's CUfunction for it.
  CUfunction f = function;
  int registers = 0;
  CUresult r = cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
  if (r != CUDA_SUCCESS) {
    CUfunction loaded = nullptr;
    if (cuKernelGetFunction(&loaded, reinterpret_cast<CUkernel>(function)) == CUDA_SUCCESS && loaded) {
      f = loaded;
      r = cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
    }
  }
  ATTNSCOPE_CU(r);
  info.registers_per_thread = registers;
  int smem = 0;
  ATTNSCOPE_CU(cuFuncGetAttribute(&smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
  info.static_smem_bytes = smem;
  int local = 0;
  ATTNSCOPE_CU(cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f));
  info.local_bytes_per_thread = local;

  const char* name = nullptr;
  if (cuFuncGetName(&name, f) == CUDA_SUCCESS && name != nullptr && *name != '\0')
    info.mangled = name;
  else if (symbol_name != nullptr)
    info.mangled = symbol_name;
  else
    info.mangled = "<unnamed kernel>";
  info.demangled = demangle(info.mangled);

  std::vector<KernelParam> params;
  for (std::size_t i = 0;; ++i) {
    KernelParam p;
    const CUresult q = cuFuncGetParamInfo(f, i, &p.offset, &p.size);
    if (q == CUDA_SUCCESS) {
      params.push_back(p);
      continue;
    }
    // Past the last parameter the driver answers CUDA_ERROR_INVALID_VALUE; anything else (an old driver, a
    // function it cannot describe) leaves the layout unknown.
    if (q == CUDA_ERROR_INVALID_VALUE) {
      info.params = std::move(params);
    } else {
      info.params_problem = std::string("cuFuncGetParamInfo: ") + driver_error_text(q);
    }
    break;
  }
  return info;
}

std::optional<std::vector<std::uint64_t>> parameter_words(const LaunchCall& call, const FunctionInfo& info) {
  return parameter_words(call.kernel_params, call.extra, info.params);
}

}  // namespace attnscope::profiler::inject
