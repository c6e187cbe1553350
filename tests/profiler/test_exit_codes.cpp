// SPDX-License-Identifier: Apache-2.0
// Each profiler error has its own exit code of `attnscope profile` (cli/exit_codes.hpp).
#include <gtest/gtest.h>

#include <set>

#include "attnscope/profiler/error.hpp"
#include "attnscope/profiler/gpu_session.hpp"
#include "exit_codes.hpp"

namespace attnscope::cli {
int exit_code_for(profiler::ErrorCode code);  // cli/cmd_profile.cpp
}

using namespace attnscope;
using profiler::ErrorCode;

TEST(ExitCodes, EachProfilerErrorMapsToItsOwnCode) {
  EXPECT_EQ(cli::exit_code_for(ErrorCode::no_cuda_device), cli::kNoCudaDevice);
  EXPECT_EQ(cli::exit_code_for(ErrorCode::driver_too_old), cli::kDriverTooOld);
  EXPECT_EQ(cli::exit_code_for(ErrorCode::no_counter_permission), cli::kNoCounterPermission);
  EXPECT_EQ(cli::exit_code_for(ErrorCode::metric_unsupported), cli::kMetricUnsupported);
  EXPECT_EQ(cli::exit_code_for(ErrorCode::config_not_compiled), cli::kConfigNotCompiled);
  EXPECT_EQ(cli::exit_code_for(ErrorCode::bad_input), cli::kBadInput);
  EXPECT_EQ(cli::exit_code_for(ErrorCode::io_error), cli::kIoError);
  EXPECT_EQ(cli::exit_code_for(ErrorCode::cuda_error), cli::kFailure);
  EXPECT_EQ(cli::exit_code_for(ErrorCode::cupti_error), cli::kFailure);
  // The five failures a user must be able to tell apart (no device, old driver, no counter permission,
  // unsupported metric, configuration not compiled) get distinct exit codes.
  std::set<int> distinct;
  for (auto c : {ErrorCode::no_cuda_device, ErrorCode::driver_too_old, ErrorCode::no_counter_permission,
                 ErrorCode::metric_unsupported, ErrorCode::config_not_compiled})
    distinct.insert(cli::exit_code_for(c));
  EXPECT_EQ(distinct.size(), 5u);
}

TEST(ExitCodes, BuildWithoutCudaSaysUseSimulate) {
  if (profiler::built_with_cuda())
    GTEST_SKIP() << "this build has CUDA; the no-CUDA session is not linked in";
  try {
    profiler::GpuSession s(profiler::SessionOptions{});
    FAIL() << "a session opened without CUDA";
  } catch (const profiler::ProfilerError& e) {
    EXPECT_EQ(e.code(), ErrorCode::no_cuda_device);
    EXPECT_NE(std::string(e.what()).find("attnscope simulate"), std::string::npos);
  }
}
