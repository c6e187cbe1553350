// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER so the target has a source until the report code lands.
namespace attnscope::reports {
int placeholder() { return 0; }
}
