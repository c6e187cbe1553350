// SPDX-License-Identifier: Apache-2.0
// Element types of attention inputs and outputs: the shared vocabulary's (attnscope/vocab/dtype.hpp),
// under the model's names.
#pragma once
#include "attnscope/vocab/dtype.hpp"

namespace attnscope::sim {

using vocab::bytes_of;
using vocab::DType;
using vocab::parse_dtype;  // "fp16" | "bf16" | "fp32"
using vocab::to_string;

}  // namespace attnscope::sim
