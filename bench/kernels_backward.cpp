// SPDX-License-Identifier: Apache-2.0
// Backward-pass speed on the GPU: the tiled backward (recomputation) and the naive one (stored P), and a
// whole training step (forward + backward) of each, timed like the forward benchmarks (gpu_bench_support.hpp:
// CUDA events around the launches only, L2 flushed before every iteration).
//
// Counters: TFLOP/s with backward FLOPs = 2.5 x the forward's 4 B H Nq Nkv d (halved when causal): the five
// products of the backward against the forward's two (the convention PyTorch's and FlashAttention's
// benchmarks use, so the numbers compare with bench/sdpa_backward.py's), and for a training step the sum
// of both. A shape the naive kernels cannot hold in HBM is refused by
// ak::check_naive_memory with the bytes it would need: the benchmark is skipped with that message.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>

#include "attnscope/kernels/attention.hpp"
#include "attnscope/kernels/backward.hpp"
#include "gpu_bench_support.hpp"

namespace attnscope::bench {
namespace {

struct BwdInputs {
  std::unique_ptr<DevicePtr> q, k, v, o, lse, d_o, dq, dk, dv, s, ds, workspace;
};

bool make_bwd_inputs(const ak::AttentionShape& s, bool naive, const ak::TiledBwdConfig& c, BwdInputs& in) {
  const std::size_t bh = static_cast<std::size_t>(s.batch) * static_cast<std::size_t>(s.heads);
  const std::size_t nq = bh * static_cast<std::size_t>(s.seq_q) * static_cast<std::size_t>(s.head_dim);
  const std::size_t nkv = bh * static_cast<std::size_t>(s.seq_kv) * static_cast<std::size_t>(s.head_dim);
  const std::size_t nss = naive ? bh * static_cast<std::size_t>(s.seq_q) * static_cast<std::size_t>(s.seq_kv) * 2 : 16;
  for (auto* p : {&in.q, &in.o, &in.d_o, &in.dq}) *p = std::make_unique<DevicePtr>(nq * 2);
  for (auto* p : {&in.k, &in.v, &in.dk, &in.dv}) *p = std::make_unique<DevicePtr>(nkv * 2);
  in.lse = std::make_unique<DevicePtr>(bh * static_cast<std::size_t>(s.seq_q) * sizeof(float));
  in.s = std::make_unique<DevicePtr>(nss);
  in.ds = std::make_unique<DevicePtr>(nss);
  in.workspace = std::make_unique<DevicePtr>(naive ? 16 : ak::tiled_bwd_workspace_bytes(s, c));
  for (const auto* p : {&in.q, &in.k, &in.v, &in.o, &in.lse, &in.d_o, &in.dq, &in.dk, &in.dv, &in.s, &in.ds,
                        &in.workspace}) {
    if ((*p)->p == nullptr) return false;
  }
  const auto q = random_bits(nq, s.dtype, 1), k = random_bits(nkv, s.dtype, 2), v = random_bits(nkv, s.dtype, 3),
             d_o = random_bits(nq, s.dtype, 4);
  return cudaMemcpy(in.q->p, q.data(), nq * 2, cudaMemcpyHostToDevice) == cudaSuccess &&
         cudaMemcpy(in.k->p, k.data(), nkv * 2, cudaMemcpyHostToDevice) == cudaSuccess &&
         cudaMemcpy(in.v->p, v.data(), nkv * 2, cudaMemcpyHostToDevice) == cudaSuccess &&
         cudaMemcpy(in.d_o->p, d_o.data(), nq * 2, cudaMemcpyHostToDevice) == cudaSuccess;
}

double forward_flops(const ak::AttentionShape& s) {
  const double f = 4.0 * s.batch * s.heads * static_cast<double>(s.seq_q) * s.seq_kv * s.head_dim;
  return s.causal ? f / 2.0 : f;
}

// Args: 0 tiled / 1 naive, dtype (0 fp16, 1 bf16), d, N, causal, heads, batch, Bc, Br, what (0 backward
// only, 1 forward + backward).
void BM_Backward(benchmark::State& state) {
  const bool naive = state.range(0) == 1;
  ak::AttentionShape s;
  s.dtype = state.range(1) == 1 ? ak::DType::bf16 : ak::DType::fp16;
  s.head_dim = static_cast<int>(state.range(2));
  s.seq_q = s.seq_kv = static_cast<int>(state.range(3));
  s.causal = state.range(4) != 0;
  s.heads = static_cast<int>(state.range(5));
  s.batch = static_cast<int>(state.range(6));
  s.scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  const ak::TiledBwdConfig config = state.range(7) == 0
                                        ? ak::default_tiled_bwd_config(s.head_dim)
                                        : ak::TiledBwdConfig{static_cast<int>(state.range(7)) % 1000,
                                                             static_cast<int>(state.range(8)),
                                                             state.range(7) >= 1000 ? 3 : 2};
  const bool step = state.range(9) == 1;
  if (naive) {
    if (const ak::Status st = ak::check_naive_memory(s); !st) {
      state.SkipWithError(st.message.c_str());
      return;
    }
  }
  // Inputs cached per (implementation, shape, tile): repetitions reuse them (generating the Figure 2 shape's
  // 67 M-element inputs on the host took seconds per repetition). One entry at a time: the largest shapes
  // need most of the device's memory.
  static std::string cached_key;
  static std::unique_ptr<BwdInputs> cached;
  const std::string key = std::to_string(naive) + "/" + std::to_string(state.range(1)) + "/" +
                          std::to_string(s.head_dim) + "/" + std::to_string(s.seq_q) + "/" +
                          std::to_string(s.heads) + "/" + std::to_string(s.batch) + "/" +
                          std::to_string(config.bc) + "/" + std::to_string(config.br);
  if (!cached || key != cached_key) {
    cached.reset();
    cached = std::make_unique<BwdInputs>();
    cached_key = key;
    if (!make_bwd_inputs(s, naive, config, *cached)) {
      cached.reset();
      state.SkipWithError("allocating or uploading the inputs failed");
      return;
    }
  }
  const BwdInputs& in = *cached;
  const ak::DeviceTensors fwd{in.q->p, in.k->p, in.v->p, in.o->p, static_cast<float*>(in.lse->p), in.s->p};
  ak::BackwardTensors bwd;
  bwd.q = in.q->p;
  bwd.k = in.k->p;
  bwd.v = in.v->p;
  bwd.o = in.o->p;
  bwd.lse = static_cast<const float*>(in.lse->p);
  bwd.d_o = in.d_o->p;
  bwd.p = in.s->p;
  bwd.dq = in.dq->p;
  bwd.dk = in.dk->p;
  bwd.dv = in.dv->p;
  bwd.workspace = in.workspace->p;
  bwd.ds = in.ds->p;
  const auto forward = [&]() -> ak::Status {
    if (!naive) return ak::launch_tiled(s, ak::TiledConfig{}, fwd, ak::TileWindow{}, nullptr, nullptr);
    if (ak::Status st = ak::launch_naive_qk(s, fwd, ak::TileWindow{}, nullptr, nullptr); !st) return st;
    if (ak::Status st = ak::launch_naive_softmax(s, fwd, ak::TileWindow{}, nullptr, nullptr); !st) return st;
    return ak::launch_naive_pv(s, fwd, ak::TileWindow{}, nullptr, nullptr);
  };
  const auto backward = [&]() -> ak::Status {
    return naive ? ak::launch_naive_backward(s, bwd, nullptr) : ak::launch_tiled_backward(s, config, bwd, nullptr);
  };
  // The forward once (its O, LSE and P are the backward's inputs), a warm-up backward.
  if (ak::Status st = forward(); !st) {
    state.SkipWithError(st.message.c_str());
    return;
  }
  if (ak::Status st = backward(); !st || cudaDeviceSynchronize() != cudaSuccess) {
    state.SkipWithError(st ? "warm-up launch failed on the device" : st.message.c_str());
    return;
  }
  EventTimer timer;
  double total = 0.0;
  for (auto _ : state) {
    cudaMemsetAsync(flush_buffer(), static_cast<int>(state.iterations() & 0xff), std::size_t{256} << 20);
    timer.start();
    ak::Status st = step ? forward() : ak::Status{};
    if (st) st = backward();
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
  const double flops = forward_flops(s) * (step ? 3.5 : 2.5);
  state.counters["TFLOP_per_s"] = flops / per_iter * 1e-12;
  state.SetLabel(std::string(naive ? "naive"
                                   : "tiled Bc=" + std::to_string(config.bc) + " Br=" + std::to_string(config.br) +
                                         " stages=" + std::to_string(config.stages)) +
                 (step ? " fwd+bwd " : " bwd ") + ak::dtype_name(s.dtype) + " d=" + std::to_string(s.head_dim) +
                 " N=" + std::to_string(s.seq_q) + " H=" + std::to_string(s.heads) + " B=" + std::to_string(s.batch) +
                 (s.causal ? " causal" : ""));
}

}  // namespace

void register_backward_benchmarks() {
  const auto add = [](int naive, int bf16, int d, int n, int causal, int heads, int batch, int bc, int br,
                      int step, int iterations = 0) {
    auto* b = benchmark::RegisterBenchmark("BM_Backward", BM_Backward)
                  ->Args({naive, bf16, d, n, causal, heads, batch, bc, br, step})
                  ->ArgNames({"naive", "bf16", "d", "N", "causal", "H", "B", "Bc", "Br", "step"})
                  ->UseManualTime()
                  ->Unit(benchmark::kMillisecond);
    if (iterations > 0) {
      b->Iterations(iterations);  // seconds per iteration: a fixed count, repetitions give the median
    } else {
      b->MinTime(0.2);
    }
  };
  // llm-4k (B=1, H=32, N=4096): every compiled tile, fp16 d 64 / 128, causal and not; bf16 at the defaults.
  for (const int causal : {0, 1}) {
    add(0, 0, 64, 4096, causal, 32, 1, 128, 64, 0);
    add(0, 0, 64, 4096, causal, 32, 1, 64, 64, 0);
    add(0, 0, 128, 4096, causal, 32, 1, 128, 32, 0);
    add(0, 0, 128, 4096, causal, 32, 1, 128, 64, 0);
    add(0, 0, 128, 4096, causal, 32, 1, 64, 32, 0);
    add(0, 0, 64, 4096, causal, 32, 1, 1128, 64, 0);  // Bc >= 1000: stages 3 (Bc - 1000)
    add(0, 0, 128, 4096, causal, 32, 1, 1128, 32, 0);
    add(0, 1, 64, 4096, causal, 32, 1, 0, 0, 0);
    add(0, 1, 128, 4096, causal, 32, 1, 0, 0, 0);
    add(1, 0, 64, 4096, causal, 32, 1, 0, 0, 0);
  }
  add(1, 0, 128, 4096, 0, 32, 1, 0, 0, 0);
  // The FlashAttention paper's Figure 2 shape (GPT-2 medium: B=64, H=16, N=1024, d=64), a training step.
  add(0, 0, 64, 1024, 0, 16, 64, 0, 0, 1);
  add(1, 0, 64, 1024, 0, 16, 64, 0, 0, 1);
  add(0, 0, 64, 1024, 0, 16, 64, 0, 0, 0);
  add(1, 0, 64, 1024, 0, 16, 64, 0, 0, 0);
  // Long context: 131072 tokens, B=1, H=8, d=128, a training step; naive is refused (HBM).
  add(0, 0, 128, 131072, 0, 8, 1, 0, 0, 1, 2);
  add(0, 0, 128, 131072, 1, 8, 1, 0, 0, 1, 2);
  add(1, 0, 128, 131072, 0, 8, 1, 0, 0, 1, 1);
}

}  // namespace attnscope::bench
