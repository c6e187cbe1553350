// SPDX-License-Identifier: Apache-2.0
#include "device_info.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <fstream>
#include <regex>
#include <string>

#include "attnscope/profiler/error.hpp"
#include "checked_call.hpp"

namespace attnscope::profiler::cuda {

namespace {

// The driver's version string from the kernel module ("580.159.04"), or "".
std::string driver_version_from_proc() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  std::smatch m;
  if (std::regex_search(line, m, std::regex(R"((\d+\.\d+(\.\d+)?))"))) return m[1];
  return "";
}

// The few NVML entry points we need, declared by their stable C ABI and loaded at run time.
struct Nvml {
  using Init = int (*)();
  using Handle = int (*)(unsigned, void**);
  using Clock = int (*)(void*, int, unsigned*);
  using DriverVersion = int (*)(char*, unsigned);
  void* lib = nullptr;
  Init init = nullptr;
  Handle handle = nullptr;
  Clock clock = nullptr;
  DriverVersion driver = nullptr;

  Nvml() {
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    init = reinterpret_cast<Init>(dlsym(lib, "nvmlInit_v2"));
    handle = reinterpret_cast<Handle>(dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
    clock = reinterpret_cast<Clock>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    driver = reinterpret_cast<DriverVersion>(dlsym(lib, "nvmlSystemGetDriverVersion"));
    if (!init || !handle || !clock || !driver || init() != 0) {
      dlclose(lib);
      lib = nullptr;
    }
  }
  ~Nvml() {
    if (lib) dlclose(lib);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
};

constexpr int kNvmlClockSm = 1;   // NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;  // NVML_CLOCK_MEM

}  // namespace

CUcontext open_device() {
  int driver = 0;
  cudaDriverGetVersion(&driver);
  if (driver == 0)
    throw ProfilerError(ErrorCode::no_cuda_device,
                        "no NVIDIA driver found (libcuda could not be loaded), so no GPU to profile: use "
                        "`attnscope simulate` for the model's prediction without a GPU");
  if (driver < CUDART_VERSION)
    throw ProfilerError(
        ErrorCode::driver_too_old,
        fmt::format("the NVIDIA driver supports CUDA {}.{} but attnscope was built with CUDA {}.{}: "
                    "update the driver (CUDA 13 needs R580 or newer)",
                    driver / 1000, driver % 1000 / 10, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10));
  int count = 0;
  ATTNSCOPE_CUDA(cudaGetDeviceCount(&count));
  if (count == 0)
    throw ProfilerError(
        ErrorCode::no_cuda_device,
        "no CUDA device found: use `attnscope simulate` for the model's prediction without a GPU");
  ATTNSCOPE_CUDA(cudaSetDevice(0));
  ATTNSCOPE_CUDA(cudaFree(nullptr));  // creates the primary context
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status{};
  ATTNSCOPE_CUDA(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &status));
  if (!fn || status != cudaDriverEntryPointSuccess)
    throw ProfilerError(ErrorCode::cuda_error, "the driver has no cuCtxGetCurrent entry point");
  CUcontext context = nullptr;
  const auto get_current = reinterpret_cast<CUresult (*)(CUcontext*)>(fn);
  if (get_current(&context) != CUDA_SUCCESS || context == nullptr)
    throw ProfilerError(ErrorCode::cuda_error, "could not get the CUDA context of device 0");
  return context;
}

DeviceInfo describe_device() {
  DeviceInfo info;
  cudaDeviceProp prop{};
  ATTNSCOPE_CUDA(cudaGetDeviceProperties(&prop, 0));
  info.name = prop.name;
  info.sm_count = prop.multiProcessorCount;
  info.l2_bytes = prop.l2CacheSize;
  int runtime = 0;
  ATTNSCOPE_CUDA(cudaRuntimeGetVersion(&runtime));
  info.cuda_runtime = fmt::format("{}.{}", runtime / 1000, runtime % 1000 / 10);
  info.driver = driver_version_from_proc();
  if (info.driver.empty()) {
    Nvml nvml;
    char text[96] = {};
    if (nvml.lib && nvml.driver(text, sizeof text) == 0) info.driver = text;
  }
  if (info.driver.empty()) {
    int driver = 0;
    cudaDriverGetVersion(&driver);
    info.driver = fmt::format("CUDA driver API {}.{}", driver / 1000, driver % 1000 / 10);
  }
  return info;
}

void read_clocks(DeviceInfo& info) {
  Nvml nvml;
  if (!nvml.lib) return;
  void* device = nullptr;
  if (nvml.handle(0, &device) != 0) return;
  unsigned mhz = 0;
  if (nvml.clock(device, kNvmlClockSm, &mhz) == 0) info.sm_clock_mhz = mhz;
  if (nvml.clock(device, kNvmlClockMem, &mhz) == 0) info.mem_clock_mhz = mhz;
}

}  // namespace attnscope::profiler::cuda
