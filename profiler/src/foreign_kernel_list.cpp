// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/foreign_kernel_list.hpp"

#include <map>
#include <nlohmann/json.hpp>

#include "attnscope/profiler/recognize.hpp"

namespace attnscope::profiler {

std::string kernel_list_json(const std::vector<ForeignLaunchRecord>& launches, const DeviceInfo& device,
                             const std::string& command_line) {
  using nlohmann::json;
  json kernels = json::array();
  std::map<std::string, std::size_t> index;  // mangled name -> position in `kernels`
  for (const auto& r : launches) {
    const ForeignLaunch& l = r.launch;
    const auto [it, first] = index.try_emplace(l.mangled_name, kernels.size());
    if (!first) {
      auto& k = kernels[it->second];
      k["launches"] = k["launches"].get<std::uint64_t>() + 1;
      continue;
    }
    kernels.push_back({{"function", short_kernel_name(l.demangled_name)},
                       {"demangled", l.demangled_name},
                       {"mangled", l.mangled_name},
                       {"launches", 1},
                       {"first_launch", l.launch_index},
                       {"grid", l.grid},
                       {"block", l.block},
                       {"registers_per_thread", l.registers_per_thread},
                       {"static_smem_bytes", l.static_smem_bytes},
                       {"dynamic_smem_bytes", l.dynamic_smem_bytes},
                       {"local_bytes_per_thread", l.local_bytes_per_thread},
                       {"nvtx_ranges", l.nvtx_ranges}});
  }
  const json doc = {{"command", command_line}, {"device", device.name}, {"kernels", std::move(kernels)}};
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace attnscope::profiler
