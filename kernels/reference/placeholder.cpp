// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER so the target has a source until the kernels land.
namespace attnscope::kernels {
int placeholder() { return 0; }
}
