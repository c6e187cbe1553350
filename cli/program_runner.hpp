// SPDX-License-Identifier: Apache-2.0
// Running another program with the collector injected: finding the program, the collector library and the
// CUPTI library NVTX callbacks go through, building the child's environment, and running it with its
// stdout, stderr and exit status passed through.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attnscope::cli {

// `name` as the shell would run it: a path when it contains '/', else the first executable on PATH. Absent
// when not found or not executable; `why` then says which.
std::optional<std::string> find_program(const std::string& name, std::string& why);

// The folder of the running attnscope binary (/proc/self/exe).
std::string executable_dir();

// The collector library: $ATTNSCOPE_INJECT_LIB, else libattnscope_inject.so next to attnscope. Absent when
// the file is not there; `looked` lists where it looked.
std::optional<std::string> find_inject_library(std::string& looked);

// Why the dynamic loader cannot load the collector (a library it needs is not found, e.g. libcupti), or
// nothing when it can. A missing libcuda.so.1 is no problem of the collector's (no driver here: the program
// cannot use CUDA either) and reads as nothing.
std::optional<std::string> collector_load_problem(const std::string& inject_library);

// The CUPTI library for NVTX_INJECTION64_PATH (CUPTI's NVTX callbacks need NVTX to load it): an existing
// NVTX_INJECTION64_PATH, else $ATTNSCOPE_CUPTI_LIB, else libcupti.so* next to the collector, else the one
// this build linked. Absent when none exists.
std::optional<std::string> find_cupti_library(const std::string& inject_library);

// This process's environment with `set` added (replacing same-named entries) and every entry whose name
// starts with one of `drop_prefixes` removed first.
std::vector<std::string> child_environment(const std::map<std::string, std::string>& set,
                                           const std::vector<std::string>& drop_prefixes);

struct ChildStatus {
  bool exited = false;           // exited normally (else killed by a signal)
  int code = 0;                  // exit status, or the signal number
  std::string describe() const;  // "exited with status 1", "was killed by signal 9 (Killed)"
  bool ok() const { return exited && code == 0; }
};

// Runs `path` with `argv` (argv[0] included) and `env`, sharing stdin, stdout and stderr, and waits for it.
// Interrupts (Ctrl-C) reach the program; attnscope itself ignores them while it waits, so it still reads
// back what was measured. Throws std::runtime_error when the program cannot be started.
ChildStatus run_program(const std::string& path, const std::vector<std::string>& argv,
                        const std::vector<std::string>& env);

}  // namespace attnscope::cli
