// SPDX-License-Identifier: Apache-2.0
#include "program_runner.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace attnscope::cli {

namespace fs = std::filesystem;

namespace {

bool is_executable_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

std::string name_of(const std::string& entry) {
  return entry.substr(0, entry.find('='));
}

}  // namespace

std::optional<std::string> find_program(const std::string& name, std::string& why) {
  if (name.empty()) {
    why = "the program name is empty";
    return std::nullopt;
  }
  if (name.find('/') != std::string::npos) {
    std::error_code ec;
    if (!fs::exists(name, ec)) {
      why = fmt::format("'{}' does not exist", name);
      return std::nullopt;
    }
    if (!is_executable_file(name)) {
      why = fmt::format("'{}' is not an executable file", name);
      return std::nullopt;
    }
    return name;
  }
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, end - start);
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (is_executable_file(candidate)) return candidate.string();
    start = end + 1;
  }
  why = fmt::format("'{}' is not found on PATH", name);
  return std::nullopt;
}

std::string executable_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : self.parent_path().string();
}

std::optional<std::string> find_inject_library(std::string& looked) {
  if (const char* env = std::getenv("ATTNSCOPE_INJECT_LIB"); env && *env) {
    looked = fmt::format("{} (ATTNSCOPE_INJECT_LIB)", env);
    std::error_code ec;
    if (fs::is_regular_file(env, ec)) return fs::absolute(env, ec).string();
    return std::nullopt;
  }
  const fs::path beside = fs::path(executable_dir()) / "libattnscope_inject.so";
  looked = beside.string();
  std::error_code ec;
  if (fs::is_regular_file(beside, ec)) return beside.string();
  return std::nullopt;
}

std::optional<std::string> collector_load_problem(const std::string& inject_library) {
  // Loading runs no code of the collector's: its entry point is called by the driver, in the program.
  void* handle = ::dlopen(inject_library.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (handle != nullptr) {
    ::dlclose(handle);
    return std::nullopt;
  }
  const char* error = ::dlerror();
  const std::string why = error ? error : "unknown dlopen failure";
  if (why.find("libcuda.so") != std::string::npos) return std::nullopt;
  return why;
}

std::optional<std::string> find_cupti_library(const std::string& inject_library) {
  std::error_code ec;
  for (const char* env : {"NVTX_INJECTION64_PATH", "ATTNSCOPE_CUPTI_LIB"})
    if (const char* v = std::getenv(env); v && *v && fs::is_regular_file(v, ec)) return std::string(v);
  // A packed copy: libcupti.so.N beside the collector (scripts/gpu_foreign.sh ships it there).
  for (const auto& entry : fs::directory_iterator(fs::path(inject_library).parent_path(), ec))
    if (entry.path().filename().string().rfind("libcupti.so", 0) == 0) return entry.path().string();
#ifdef ATTNSCOPE_CUPTI_LIBRARY
  if (fs::is_regular_file(ATTNSCOPE_CUPTI_LIBRARY, ec)) return std::string(ATTNSCOPE_CUPTI_LIBRARY);
#endif
  return std::nullopt;
}

std::vector<std::string> child_environment(const std::map<std::string, std::string>& set,
                                           const std::vector<std::string>& drop_prefixes) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry(*e);
    const std::string name = name_of(entry);
    bool drop = set.count(name) != 0;
    for (const auto& prefix : drop_prefixes) drop |= name.rfind(prefix, 0) == 0;
    if (!drop) env.push_back(entry);
  }
  for (const auto& [name, value] : set) env.push_back(name + "=" + value);
  return env;
}

std::string ChildStatus::describe() const {
  if (exited) return fmt::format("exited with status {}", code);
  const char* name = ::strsignal(code);
  return fmt::format("was killed by signal {} ({})", code, name ? name : "unknown");
}

ChildStatus run_program(const std::string& path, const std::vector<std::string>& argv,
                        const std::vector<std::string>& env) {
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  // The program gets the default action for the interrupts attnscope ignores while it waits.
  posix_spawnattr_t attr;
  if (posix_spawnattr_init(&attr) != 0) throw std::runtime_error("posix_spawnattr_init failed");
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);

  struct sigaction ignore {
  }, old_int{}, old_quit{}, old_term{};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  sigaction(SIGTERM, &ignore, &old_term);
  const auto restore = [&] {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    posix_spawnattr_destroy(&attr);
  };

  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, path.c_str(), nullptr, &attr, args.data(), envp.data());
  if (spawned != 0) {
    restore();
    throw std::runtime_error(fmt::format("cannot start '{}': {}", path, std::strerror(spawned)));
  }
  int status = 0;
  pid_t waited = 0;
  do {
    waited = ::waitpid(pid, &status, 0);
  } while (waited < 0 && errno == EINTR);
  restore();
  if (waited < 0)
    throw std::runtime_error(fmt::format("waiting for '{}' failed: {}", path, std::strerror(errno)));
  ChildStatus s;
  if (WIFEXITED(status)) {
    s.exited = true;
    s.code = WEXITSTATUS(status);
  } else {
    s.exited = false;
    s.code = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }
  return s;
}

}  // namespace attnscope::cli
