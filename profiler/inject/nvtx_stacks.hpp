// SPDX-License-Identifier: Apache-2.0
// The NVTX ranges open in each thread of the program, kept from CUPTI's NVTX callbacks (push and pop, the
// default domain and named domains), so a kernel launch can be matched against --nvtx-include and carry the
// "attnscope:" annotation that announces its shape.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace attnscope::profiler::inject {

struct OpenRanges {
  std::vector<std::string> ranges;  // outermost first
  // "own": the launching thread's ranges; "main+own": the main thread's, then the launching thread's (a
  // launch from another thread while the main thread has ranges open).
  std::string thread = "own";
};

// `domain` is the NVTX domain handle (nullptr: the default domain); pops match pushes of the same domain.
void nvtx_push(const void* domain, std::string message);
void nvtx_pop(const void* domain);

// The calling thread's open ranges. On a thread other than the main one, the main thread's open ranges come
// first, as the outer levels: PyTorch launches the backward pass from autograd worker threads while the
// script's ranges (around backward()) are open on the main thread, and hooks push the annotation on the
// worker thread itself.
OpenRanges open_ranges();

// The innermost range whose message starts with "attnscope:", or "".
std::string innermost_annotation(const std::vector<std::string>& ranges);

}  // namespace attnscope::profiler::inject
