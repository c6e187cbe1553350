// SPDX-License-Identifier: Apache-2.0
// Kernel speed on the GPU: tiled (FlashAttention-2-style), Hopper (FlashAttention-3-style, BM_Hopper) and
// naive attention, plus a device-to-device
// copy that measures the HBM bandwidth the naive kernels are judged against, in the same run.
//
// Timing: CUDA events around the launches only (UseManualTime); L2 flushed (256 MiB memset) before every
// iteration, outside the timed region; run with --benchmark_repetitions=N --benchmark_report_aggregates_only
// and read the medians. Counters: TFLOP/s with FLOPs = 4 B H Nq Nkv d (halved when causal); for naive also
// its HBM bytes (each tensor read or written once per kernel) and `x_copy_time` = time / (bytes / copy
// bandwidth measured by BM_CopyBandwidth earlier in this run).
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attnscope/kernels/attention.hpp"
#include "attnscope/kernels/hopper.hpp"
#include "attnscope/kernels/reference.hpp"
#include "attnscope/version.hpp"
#include "gpu_bench_support.hpp"

namespace ak = attnscope::kernels;
using namespace attnscope::bench;

namespace {

void BM_CopyBandwidth(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) << 20;
  DevicePtr src(bytes), dst(bytes);
  if (src.p == nullptr || dst.p == nullptr || cudaMemset(src.p, 1, bytes) != cudaSuccess) {
    state.SkipWithError("cudaMalloc/cudaMemset failed");
    return;
  }
  EventTimer timer;
  double total = 0.0;
  for (auto _ : state) {
    timer.start();
    cudaMemcpyAsync(dst.p, src.p, bytes, cudaMemcpyDeviceToDevice);
    const double s = timer.stop();
    state.SetIterationTime(s);
    total += s;
  }
  if (cudaGetLastError() != cudaSuccess) {
    state.SkipWithError("cudaMemcpyAsync failed");
    return;
  }
  const double bandwidth = 2.0 * static_cast<double>(bytes) * static_cast<double>(state.iterations()) / total;
  g_copy_bandwidth.push_back(bandwidth);
  state.counters["GB_per_s"] = bandwidth * 1e-9;  // read + written
}

// Random normal inputs in the dtype (fixed seed per shape: benchmarks time, tests check).
struct Inputs {
  std::unique_ptr<DevicePtr> q, k, v, o, lse, s;
};

bool make_inputs(const ak::AttentionShape& s, bool naive, Inputs& in) {
  const std::size_t bh = static_cast<std::size_t>(s.batch) * static_cast<std::size_t>(s.heads);
  const std::size_t nq = bh * static_cast<std::size_t>(s.seq_q) * static_cast<std::size_t>(s.head_dim);
  const std::size_t nkv = bh * static_cast<std::size_t>(s.seq_kv) * static_cast<std::size_t>(s.head_dim);
  in.q = std::make_unique<DevicePtr>(nq * 2);
  in.k = std::make_unique<DevicePtr>(nkv * 2);
  in.v = std::make_unique<DevicePtr>(nkv * 2);
  in.o = std::make_unique<DevicePtr>(nq * 2);
  in.lse = std::make_unique<DevicePtr>(bh * static_cast<std::size_t>(s.seq_q) * sizeof(float));
  in.s = std::make_unique<DevicePtr>(
      naive ? bh * static_cast<std::size_t>(s.seq_q) * static_cast<std::size_t>(s.seq_kv) * 2 : 16);
  if (!in.q->p || !in.k->p || !in.v->p || !in.o->p || !in.lse->p || !in.s->p) return false;
  const auto q = random_bits(nq, s.dtype, 1), k = random_bits(nkv, s.dtype, 2),
             v = random_bits(nkv, s.dtype, 3);
  return cudaMemcpy(in.q->p, q.data(), nq * 2, cudaMemcpyHostToDevice) == cudaSuccess &&
         cudaMemcpy(in.k->p, k.data(), nkv * 2, cudaMemcpyHostToDevice) == cudaSuccess &&
         cudaMemcpy(in.v->p, v.data(), nkv * 2, cudaMemcpyHostToDevice) == cudaSuccess;
}

double attention_flops(const ak::AttentionShape& s) {
  const double f = 4.0 * s.batch * s.heads * static_cast<double>(s.seq_q) * s.seq_kv * s.head_dim;
  return s.causal ? f / 2.0 : f;
}

// HBM bytes of the three naive kernels, each tensor once per kernel: qk reads Q, K and writes S; softmax
// reads S and writes P; pv reads P, V and writes O.
double naive_bytes(const ak::AttentionShape& s) {
  const double e = static_cast<double>(ak::dtype_size(s.dtype));
  const double bh = static_cast<double>(s.batch) * s.heads;
  const double q = bh * s.seq_q * s.head_dim * e, kv = bh * s.seq_kv * s.head_dim * e;
  const double sm = bh * static_cast<double>(s.seq_q) * s.seq_kv * e;
  return (q + kv + sm) + (2 * sm) + (sm + kv + q);
}

// Args: 0 tiled / 1 naive, dtype (0 fp16, 1 bf16), d, N, causal, heads, Br, Bc, warps (0: Br / 16).
void BM_Attention(benchmark::State& state) {
  const bool naive = state.range(0) == 1;
  ak::AttentionShape s;
  s.batch = 1;
  s.dtype = state.range(1) == 1 ? ak::DType::bf16 : ak::DType::fp16;
  s.head_dim = static_cast<int>(state.range(2));
  s.seq_q = s.seq_kv = static_cast<int>(state.range(3));
  s.causal = state.range(4) != 0;
  s.heads = static_cast<int>(state.range(5));
  s.scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  // Bc >= 1000 encodes stages 3 (Bc - 1000), so that the benchmark name stays one integer list.
  const int bc_arg = static_cast<int>(state.range(7));
  const int warps_arg = static_cast<int>(state.range(8));
  const ak::TiledConfig config{static_cast<int>(state.range(6)), bc_arg % 1000,
                               warps_arg == 0 ? static_cast<int>(state.range(6)) / 16 : warps_arg,
                               bc_arg >= 1000 ? 3 : 2};
  // Inputs cached per shape: repetitions reuse them (generating 16k-token inputs on the host takes seconds).
  static std::map<std::string, std::unique_ptr<Inputs>> cache;
  const std::string key = std::to_string(naive) + "/" + std::to_string(state.range(1)) + "/" +
                          std::to_string(s.head_dim) + "/" + std::to_string(s.seq_q) + "/" +
                          std::to_string(s.heads);
  auto& slot = cache[key];
  if (!slot) {
    slot = std::make_unique<Inputs>();
    if (!make_inputs(s, naive, *slot)) {
      slot.reset();
      state.SkipWithError("allocating or uploading the inputs failed");
      return;
    }
  }
  const Inputs& in = *slot;
  const ak::DeviceTensors t{in.q->p, in.k->p, in.v->p, in.o->p, static_cast<float*>(in.lse->p), in.s->p};
  const auto launch = [&]() -> ak::Status {
    if (!naive) return ak::launch_tiled(s, config, t, ak::TileWindow{}, nullptr, nullptr);
    if (ak::Status st = ak::launch_naive_qk(s, t, ak::TileWindow{}, nullptr, nullptr); !st) return st;
    if (ak::Status st = ak::launch_naive_softmax(s, t, ak::TileWindow{}, nullptr, nullptr); !st) return st;
    return ak::launch_naive_pv(s, t, ak::TileWindow{}, nullptr, nullptr);
  };
  if (ak::Status st = launch(); !st || cudaDeviceSynchronize() != cudaSuccess) {
    state.SkipWithError(st ? "warm-up launch failed on the device" : st.message.c_str());
    return;
  }
  EventTimer timer;
  double total = 0.0;
  for (auto _ : state) {
    cudaMemsetAsync(flush_buffer(), static_cast<int>(state.iterations() & 0xff), std::size_t{256} << 20);
    timer.start();
    const ak::Status st = launch();
    const double sec = timer.stop();
    if (!st) {
      state.SkipWithError(st.message.c_str());
      return;
    }
    state.SetIterationTime(sec);
    total += sec;
  }
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess) {
    state.SkipWithError(cudaGetErrorString(err));
    return;
  }
  const double per_iter = total / static_cast<double>(state.iterations());
  state.counters["TFLOP_per_s"] = attention_flops(s) / per_iter * 1e-12;
  if (naive) {
    const double bytes = naive_bytes(s);
    state.counters["HBM_bytes"] = bytes;
    state.counters["GB_per_s"] = bytes / per_iter * 1e-9;
    const double bw = copy_bandwidth_median();
    if (bw > 0) state.counters["x_copy_time"] = per_iter / (bytes / bw);
  }
  state.SetLabel(
      std::string(naive ? "naive"
                        : "tiled Br=" + std::to_string(config.br) + " Bc=" + std::to_string(config.bc) +
                              " warps=" + std::to_string(config.warps) +
                              " stages=" + std::to_string(config.stages)) +
      " " + ak::dtype_name(s.dtype) + " d=" + std::to_string(s.head_dim) + " N=" + std::to_string(s.seq_q) +
      " H=" + std::to_string(s.heads) + (s.causal ? " causal" : ""));
}

// The Hopper kernel (kernels/include/attnscope/kernels/hopper.hpp), same protocol as BM_Attention (events
// around the launch only, L2 flushed before every iteration). Args: dtype (0 fp16, 1 bf16), d, N, causal,
// heads, Br, Bc, consumer warpgroups, stages, overlap (0 / 1), ping-pong (0 / 1), persistent (0 / 1).
void BM_Hopper(benchmark::State& state) {
  ak::AttentionShape s;
  s.batch = 1;
  s.dtype = state.range(0) == 1 ? ak::DType::bf16 : ak::DType::fp16;
  s.head_dim = static_cast<int>(state.range(1));
  s.seq_q = s.seq_kv = static_cast<int>(state.range(2));
  s.causal = state.range(3) != 0;
  s.heads = static_cast<int>(state.range(4));
  s.scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  const ak::HopperConfig config{static_cast<int>(state.range(5)),
                                static_cast<int>(state.range(6)),
                                static_cast<int>(state.range(7)),
                                static_cast<int>(state.range(8)),
                                state.range(9) != 0,
                                state.range(10) != 0,
                                state.range(11) != 0};
  static std::map<std::string, std::unique_ptr<Inputs>> cache;
  const std::string key = std::to_string(state.range(0)) + "/" + std::to_string(s.head_dim) + "/" +
                          std::to_string(s.seq_q) + "/" + std::to_string(s.heads);
  auto& slot = cache[key];
  if (!slot) {
    slot = std::make_unique<Inputs>();
    if (!make_inputs(s, false, *slot)) {
      slot.reset();
      state.SkipWithError("allocating or uploading the inputs failed");
      return;
    }
  }
  const Inputs& in = *slot;
  const ak::DeviceTensors t{in.q->p, in.k->p, in.v->p, in.o->p, static_cast<float*>(in.lse->p), nullptr};
  if (ak::Status st = ak::launch_hopper(s, config, t, nullptr);
      !st || cudaDeviceSynchronize() != cudaSuccess) {
    state.SkipWithError(st ? "warm-up launch failed on the device" : st.message.c_str());
    return;
  }
  EventTimer timer;
  double total = 0.0;
  for (auto _ : state) {
    cudaMemsetAsync(flush_buffer(), static_cast<int>(state.iterations() & 0xff), std::size_t{256} << 20);
    timer.start();
    const ak::Status st = ak::launch_hopper(s, config, t, nullptr);
    const double sec = timer.stop();
    if (!st) {
      state.SkipWithError(st.message.c_str());
      return;
    }
    state.SetIterationTime(sec);
    total += sec;
  }
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess) {
    state.SkipWithError(cudaGetErrorString(err));
    return;
  }
  const double per_iter = total / static_cast<double>(state.iterations());
  state.counters["TFLOP_per_s"] = attention_flops(s) / per_iter * 1e-12;
  state.SetLabel("hopper Br=" + std::to_string(config.br) + " Bc=" + std::to_string(config.bc) +
                 " consumers=" + std::to_string(config.consumers) +
                 " stages=" + std::to_string(config.stages) + (config.overlap ? " overlap " : " serial ") +
                 (config.pingpong ? "pingpong " : "") + (config.persistent ? "persistent " : "") +
                 ak::dtype_name(s.dtype) + " d=" + std::to_string(s.head_dim) + " N=" +
                 std::to_string(s.seq_q) + " H=" + std::to_string(s.heads) + (s.causal ? " causal" : ""));
}

// One naive kernel alone (0 qk, 1 softmax, 2 pv) at the llm-4k shape: where the naive time goes.
// Softmax runs in place on what the previous iteration left (probabilities): same bytes, same work.
void BM_NaiveKernel(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  ak::AttentionShape s;
  s.dtype = state.range(1) == 1 ? ak::DType::bf16 : ak::DType::fp16;
  s.head_dim = static_cast<int>(state.range(2));
  s.seq_q = s.seq_kv = static_cast<int>(state.range(3));
  s.heads = static_cast<int>(state.range(4));
  s.scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  Inputs in;
  if (!make_inputs(s, true, in)) {
    state.SkipWithError("allocating or uploading the inputs failed");
    return;
  }
  const ak::DeviceTensors t{in.q->p, in.k->p, in.v->p, in.o->p, static_cast<float*>(in.lse->p), in.s->p};
  // S filled once by qk + softmax so that every kernel sees realistic data.
  if (!ak::launch_naive_qk(s, t, ak::TileWindow{}, nullptr, nullptr) ||
      !ak::launch_naive_softmax(s, t, ak::TileWindow{}, nullptr, nullptr) ||
      cudaDeviceSynchronize() != cudaSuccess) {
    state.SkipWithError("warm-up launch failed");
    return;
  }
  const auto launch = [&]() -> ak::Status {
    if (which == 0) return ak::launch_naive_qk(s, t, ak::TileWindow{}, nullptr, nullptr);
    if (which == 1) return ak::launch_naive_softmax(s, t, ak::TileWindow{}, nullptr, nullptr);
    return ak::launch_naive_pv(s, t, ak::TileWindow{}, nullptr, nullptr);
  };
  EventTimer timer;
  double total = 0.0;
  for (auto _ : state) {
    cudaMemsetAsync(flush_buffer(), static_cast<int>(state.iterations() & 0xff), std::size_t{256} << 20);
    timer.start();
    const ak::Status st = launch();
    const double sec = timer.stop();
    if (!st) {
      state.SkipWithError(st.message.c_str());
      return;
    }
    state.SetIterationTime(sec);
    total += sec;
  }
  const double e = static_cast<double>(ak::dtype_size(s.dtype));
  const double qd = static_cast<double>(s.heads) * s.seq_q * s.head_dim * e;
  const double sm = static_cast<double>(s.heads) * s.seq_q * static_cast<double>(s.seq_kv) * e;
  const double bytes = which == 0 ? 2 * qd + sm : which == 1 ? 2 * sm : sm + 2 * qd;
  const double per_iter = total / static_cast<double>(state.iterations());
  state.counters["HBM_bytes"] = bytes;
  state.counters["GB_per_s"] = bytes / per_iter * 1e-9;
  const double bw = copy_bandwidth_median();
  if (bw > 0) state.counters["x_copy_time"] = per_iter / (bytes / bw);
  state.SetLabel(std::string(which == 0   ? "naive.qk"
                             : which == 1 ? "naive.softmax"
                                          : "naive.pv") +
                 " " + ak::dtype_name(s.dtype) + " d=" + std::to_string(s.head_dim) +
                 " N=" + std::to_string(s.seq_q));
}

void register_all() {
  benchmark::RegisterBenchmark("BM_CopyBandwidth", BM_CopyBandwidth)
      ->Arg(1024)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  const auto add = [](int naive, int bf16, int d, int n, int causal, int heads, int br, int bc,
                      int warps = 0) {
    benchmark::RegisterBenchmark("BM_Attention", BM_Attention)
        ->Args({naive, bf16, d, n, causal, heads, br, bc, warps})
        ->ArgNames({"naive", "bf16", "d", "N", "causal", "H", "Br", "Bc", "W"})
        ->UseManualTime()
        ->MinTime(0.2)
        ->Unit(benchmark::kMillisecond);
  };
  // llm-4k: B=1, H=32, N=4096. Every compiled 16-rows-per-warp tile at fp16 d=64 non-causal (the 286 TFLOP/s
  // target; Br 128 Bc 64 with 8 warps is compiled at stages 3 only at d = 64: 1064 below) ...
  for (const int br : {64, 128}) {
    for (const int bc : {32, 64, 128}) {
      if (br != 128 || bc != 64) add(0, 0, 64, 4096, 0, 32, br, bc);
    }
  }
  // ... and the best candidates elsewhere: d=128, causal, bf16, 16k tokens.
  for (const int bc : {64, 128}) {
    add(0, 0, 64, 4096, 1, 32, 128, bc == 64 ? 1064 : bc);
    add(0, 0, 128, 4096, 0, 32, 128, bc);
    add(0, 0, 128, 4096, 1, 32, 128, bc);
    add(0, 1, 64, 4096, 0, 32, 128, bc == 64 ? 1064 : bc);
    add(0, 1, 128, 4096, 0, 32, 128, bc);
  }
  add(0, 0, 128, 4096, 0, 32, 64, 64);
  add(0, 0, 64, 16384, 0, 32, 128, 1064);
  add(0, 0, 64, 16384, 0, 32, 128, 128);
  add(0, 0, 128, 16384, 0, 32, 128, 64);
  add(0, 0, 64, 16384, 1, 32, 128, 128);
  add(0, 0, 128, 16384, 1, 32, 128, 64);
  // Naive at the same llm-4k shapes.
  add(1, 0, 64, 4096, 0, 32, 0, 0);
  add(1, 0, 64, 4096, 1, 32, 0, 0);
  add(1, 0, 128, 4096, 0, 32, 0, 0);
  add(1, 1, 64, 4096, 0, 32, 0, 0);
  for (const int which : {0, 1, 2}) {
    benchmark::RegisterBenchmark("BM_NaiveKernel", BM_NaiveKernel)
        ->Args({which, 0, 64, 4096, 32})
        ->ArgNames({"kernel", "bf16", "d", "N", "H"})
        ->UseManualTime()
        ->MinTime(0.2)
        ->Unit(benchmark::kMillisecond);
  }
  // Stages 3 (prefetch distance 2 kv tiles) against 2 at the target shape.
  add(0, 0, 64, 4096, 0, 32, 128, 1064);
  add(0, 0, 64, 4096, 0, 32, 128, 1128);
  add(0, 0, 128, 4096, 0, 32, 128, 1064);
  // 4 warps of 32 query rows (Br 128) beside the 8-warp configurations above: llm-4k and 16k.
  for (const int bc : {64, 128, 1064, 1128}) {
    add(0, 0, 64, 4096, 0, 32, 128, bc, 4);
    add(0, 0, 64, 4096, 1, 32, 128, bc, 4);
  }
  for (const int bc : {64, 128, 1064}) add(0, 1, 64, 4096, 0, 32, 128, bc, 4);
  for (const int bc : {32, 64, 1064}) {
    add(0, 0, 128, 4096, 0, 32, 128, bc, 4);
    add(0, 0, 128, 4096, 1, 32, 128, bc, 4);
  }
  add(0, 1, 128, 4096, 0, 32, 128, 64, 4);
  for (const int bc : {64, 128}) {
    add(0, 0, 64, 16384, 0, 32, 128, bc, 4);
    add(0, 0, 64, 16384, 1, 32, 128, bc, 4);
  }
  for (const int bc : {32, 64}) add(0, 0, 128, 16384, 0, 32, 128, bc, 4);
  add(0, 0, 128, 16384, 1, 32, 128, 64, 4);
  // Hopper kernel at llm-4k (B=1, H=32, N=4096): fp16 d 64, fp16 d 64 causal, fp16 d 128, bf16 d 128,
  // fp16 d 64 at N=16384, fp16 d 128 causal, bf16 d 64 and bf16 d 64 causal; every compiled configuration of
  // each (the tiled kernel's rows above are the same-run comparison).
  const auto add_hopper = [](int bf16, int d, int n, int causal) {
    for (const ak::HopperConfig& c :
         ak::compiled_hopper_configs(d, bf16 ? ak::DType::bf16 : ak::DType::fp16)) {
      benchmark::RegisterBenchmark("BM_Hopper", BM_Hopper)
          ->Args({bf16, d, n, causal, 32, c.br, c.bc, c.consumers, c.stages, c.overlap ? 1 : 0,
                  c.pingpong ? 1 : 0, c.persistent ? 1 : 0})
          ->ArgNames({"bf16", "d", "N", "causal", "H", "Br", "Bc", "C", "S", "ov", "pp", "ps"})
          ->UseManualTime()
          ->MinTime(0.2)
          ->Unit(benchmark::kMillisecond);
    }
  };
  add_hopper(0, 64, 4096, 0);
  add_hopper(0, 64, 4096, 1);
  add_hopper(0, 128, 4096, 0);
  add_hopper(1, 128, 4096, 0);
  add_hopper(0, 64, 16384, 0);
  add_hopper(0, 128, 4096, 1);
  add_hopper(1, 64, 4096, 0);
  add_hopper(1, 64, 4096, 1);
  register_backward_benchmarks();
  // The copy again at the end: the bandwidth should not have drifted during the run.
  benchmark::RegisterBenchmark("BM_CopyBandwidth", BM_CopyBandwidth)
      ->Arg(1024)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

std::string driver_version() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (f && std::getline(f, line)) return line;
  int v = 0;
  cudaDriverGetVersion(&v);
  return "CUDA driver API " + std::to_string(v);
}

}  // namespace

int main(int argc, char** argv) {
  cudaDeviceProp prop{};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    std::fprintf(stderr, "attnscope_bench_kernels: no usable CUDA device\n");
    return 77;
  }
  benchmark::AddCustomContext("git_revision", attnscope::kGitRevision);
  benchmark::AddCustomContext("driver", driver_version());
  benchmark::AddCustomContext("device", prop.name);
  benchmark::AddCustomContext("sm_count", std::to_string(prop.multiProcessorCount));
  benchmark::AddCustomContext("flop_convention", "4*B*H*Nq*Nkv*d, halved when causal");
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
