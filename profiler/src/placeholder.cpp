// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER so the target has a source until the profiler lands.
namespace attnscope::profiler {
int placeholder() { return 0; }
}
