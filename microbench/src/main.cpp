// SPDX-License-Identifier: Apache-2.0
// attnscope-microbench: runs the GPU microbenchmarks (all, or those named with --only) and writes one JSON
// file with the device, each benchmark's parameters, and the median, min and max of its repetitions.
//
//   attnscope-microbench --out microbench.json [--only NAME[,NAME...]] [--quick] [--list]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <exception>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness.hpp"

namespace mb = attnscope::microbench;

namespace {

void usage() {
  std::cout << "usage: attnscope-microbench --out FILE.json [--only NAME[,NAME...]] [--quick] [--list]\n"
               "  --out FILE    where the JSON results go (required unless --list)\n"
               "  --only NAMES  run only these benchmarks (comma-separated; --list names them)\n"
               "  --quick       three repetitions per measurement instead of the full count (a smoke run)\n"
               "  --list        print the benchmarks and what each measures, run nothing\n";
}

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::cerr << "attnscope-microbench: " << what << ": " << cudaGetErrorName(e) << " ("
            << cudaGetErrorString(e) << ")\n";
  return false;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out;
  std::set<std::string> only;
  bool quick = false, list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) {
      out = argv[++i];
    } else if (a == "--only" && i + 1 < argc) {
      std::stringstream ss(argv[++i]);
      for (std::string name; std::getline(ss, name, ',');)
        if (!name.empty()) only.insert(name);
    } else if (a == "--quick") {
      quick = true;
    } else if (a == "--list") {
      list = true;
    } else if (a == "--help" || a == "-h") {
      usage();
      return 0;
    } else {
      std::cerr << "attnscope-microbench: unknown argument '" << a << "'\n";
      usage();
      return 2;
    }
  }

  std::vector<mb::Benchmark> all;
  mb::add_compute_benchmarks(all);  // sm_clock first: it also brings the clock up under load
  mb::add_smem_benchmarks(all);
  mb::add_memory_benchmarks(all);
  mb::add_launch_benchmarks(all);
  mb::add_wgmma_benchmarks(all);
  mb::add_wgmma_overlap_benchmarks(all);
  mb::add_partial_sector_benchmarks(all);
  mb::add_latency_benchmarks(all);
  // bulk_copy last: the newest instructions here, so the one most likely to fail.
  std::stable_partition(all.begin(), all.end(), [](const mb::Benchmark& b) { return b.name != "bulk_copy"; });
  if (list) {
    for (const auto& b : all) std::cout << b.name << "\n    " << b.what << "\n";
    return 0;
  }
  if (out.empty()) {
    usage();
    return 2;
  }
  for (const std::string& name : only) {
    bool found = false;
    for (const auto& b : all) found = found || b.name == name;
    if (!found) {
      std::cerr << "attnscope-microbench: no benchmark named '" << name << "' (--list names them)\n";
      return 2;
    }
  }

  int dev = 0, driver = 0, runtime = 0;
  cudaDeviceProp prop{};
  if (!ok(cudaSetDevice(dev), "cudaSetDevice") ||
      !ok(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties") ||
      !ok(cudaDriverGetVersion(&driver), "cudaDriverGetVersion") ||
      !ok(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion"))
    return 1;
  int clock_khz = 0, mem_clock_khz = 0, bus_bits = 0, l2 = 0, smem_optin = 0;
  if (!ok(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev), "clock rate") ||
      !ok(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, dev), "memory clock rate") ||
      !ok(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev), "bus width") ||
      !ok(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev), "L2 size") ||
      !ok(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "smem opt-in"))
    return 1;

  mb::Recorder rec;
  rec.device({{"name", prop.name},
              {"compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
              {"driver_version", driver},
              {"runtime_version", runtime},
              {"sm_count", prop.multiProcessorCount},
              {"l2_bytes", l2},
              {"global_memory_bytes", static_cast<double>(prop.totalGlobalMem)},
              {"smem_per_block_optin", smem_optin},
              {"smem_per_sm", static_cast<double>(prop.sharedMemPerMultiprocessor)},
              {"regs_per_sm", prop.regsPerMultiprocessor},
              {"attr_sm_clock_khz", clock_khz},
              {"attr_memory_clock_khz", mem_clock_khz},
              {"memory_bus_bits", bus_bits},
              {"started_utc", utc_now()},
              {"quick", quick ? "yes" : "no"}});
  mb::progress("attnscope-microbench: " + std::string(prop.name) + ", " +
               std::to_string(prop.multiProcessorCount) + " SMs, L2 " + std::to_string(l2) + " B, driver " +
               std::to_string(driver) + ", runtime " + std::to_string(runtime) + ", attribute SM clock " +
               std::to_string(clock_khz) + " kHz");

  mb::Context ctx;
  ctx.device = dev;
  ctx.sm_count = prop.multiProcessorCount;
  ctx.l2_bytes = l2;
  ctx.smem_per_block_optin = smem_optin;
  ctx.quick = quick;
  ctx.rec = &rec;
  int errors = 0;
  const auto t_all = std::chrono::steady_clock::now();
  for (const auto& b : all) {
    if (!only.empty() && only.count(b.name) == 0) continue;
    mb::progress("== " + b.name + ": " + b.what);
    rec.describe(b.name, b.what);
    const auto t0 = std::chrono::steady_clock::now();
    try {
      b.run(ctx);
      // A fault that the benchmark's own checks missed shows here.
      const cudaError_t e = cudaDeviceSynchronize();
      if (e != cudaSuccess)
        throw std::runtime_error(std::string("after the benchmark: ") + cudaGetErrorString(e));
    } catch (const std::exception& ex) {
      ++errors;
      rec.check(b.name, "ran to the end", false, ex.what());
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rec.elapsed(b.name, s);
    mb::progress("   (" + std::to_string(s) + " s)");
    // Written after every benchmark: a run killed later still leaves what it measured.
    if (!rec.write(out)) {
      std::cerr << "attnscope-microbench: cannot write " << out << "\n";
      return 1;
    }
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_all).count();
  mb::progress("total " + std::to_string(total) +
               " s; failed checks: " + std::to_string(rec.failed_checks()));
  if (!rec.write(out)) {
    std::cerr << "attnscope-microbench: cannot write " << out << "\n";
    return 1;
  }
  mb::progress("wrote " + out);
  return errors > 0 || rec.failed_checks() > 0 ? 1 : 0;
}
