// SPDX-License-Identifier: Apache-2.0
// NVTX push/pop ranges in the `attnscope` domain, named as the report names things ("tiled", "naive.qk",
// "l2_flush", ...), so Nsight Systems and Nsight Compute show the same names as our reports.
#pragma once
#include <nvtx3/nvToolsExt.h>

#include <string>

namespace attnscope::profiler::cuda {

inline nvtxDomainHandle_t nvtx_domain() {
  static const nvtxDomainHandle_t domain = nvtxDomainCreateA("attnscope");
  return domain;
}

class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name) {
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = name.c_str();
    nvtxDomainRangePushEx(nvtx_domain(), &a);
  }
  ~NvtxRange() { nvtxDomainRangePop(nvtx_domain()); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace attnscope::profiler::cuda
