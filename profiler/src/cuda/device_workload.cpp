// SPDX-License-Identifier: Apache-2.0
#include "device_workload.hpp"

#include <fmt/format.h>

#include <cstring>
#include <random>
#include <vector>

#include "attnscope/kernels/reference.hpp"
#include "attnscope/profiler/error.hpp"
#include "attnscope/sim/dataflow.hpp"
#include "attnscope/vocab/geometry.hpp"
#include "attnscope/vocab/kernel.hpp"
#include "checked_call.hpp"
#include "device_kernels.hpp"
#include "kernel_shape.hpp"
#include "nvtx_range.hpp"

namespace attnscope::profiler::cuda {

namespace {

ElementType to_element(kernels::DType t) {
  return t == kernels::DType::fp16   ? ElementType::fp16
         : t == kernels::DType::bf16 ? ElementType::bf16
                                     : ElementType::fp32;
}

void* allocate(std::size_t bytes) {
  void* p = nullptr;
  ATTNSCOPE_CUDA(cudaMalloc(&p, bytes));
  return p;
}

// Inputs for ncu runs: the same distribution generated on the host, so the only kernels are the measured
// ones.
void host_fill(void* device, std::size_t count, kernels::DType type, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const std::size_t elem = kernels::dtype_size(type);
  std::vector<unsigned char> host(count * elem);
  for (std::size_t i = 0; i < count; ++i) {
    const float v = uniform(rng);
    if (type == kernels::DType::fp32) {
      std::memcpy(&host[i * elem], &v, sizeof v);
    } else {
      const std::uint16_t bits = kernels::to_dtype_bits(v, type);
      std::memcpy(&host[i * elem], &bits, sizeof bits);
    }
  }
  ATTNSCOPE_CUDA(cudaMemcpy(device, host.data(), host.size(), cudaMemcpyHostToDevice));
}

std::string config_list(int head_dim, kernels::DType dtype) {
  std::string s;
  for (const auto& c : kernels::compiled_tiled_configs(head_dim, dtype))
    s += fmt::format("{}--br {} --bc {} --warps {} --stages {}", s.empty() ? "" : "; ", c.br, c.bc, c.warps,
                     c.stages);
  return s.empty() ? "none" : s;
}

// The compiled Hopper configurations as the flags that select them.
std::string hopper_config_list(int head_dim, kernels::DType dtype) {
  std::string s;
  for (const auto& c : kernels::compiled_hopper_configs(head_dim, dtype)) {
    // The persistent builds are benchmarked (bench/) but have no model yet, so no flag selects them here.
    if (c.persistent) continue;
    s += fmt::format("{}--hopper-bc {} --hopper-consumers {} --hopper-stages {} --hopper-schedule {}",
                     s.empty() ? "" : "; ", c.bc, c.consumers, c.stages,
                     c.pingpong && c.overlap ? "pingpong"
                     : c.pingpong            ? "serial-pingpong"
                     : c.overlap             ? "overlap"
                                             : "serial");
  }
  return s.empty() ? "none" : s;
}

}  // namespace

void check_launch(const kernels::Status& status, const std::string& kernel) {
  if (status) return;
  const std::string msg = fmt::format("{}: {}", kernel, status.message);
  switch (status.code) {
    case kernels::StatusCode::ok:
      return;
    case kernels::StatusCode::bad_shape:
    case kernels::StatusCode::misaligned:
      throw ProfilerError(ErrorCode::bad_input, msg);
    case kernels::StatusCode::config_not_compiled:
      throw ProfilerError(ErrorCode::config_not_compiled, msg);
    case kernels::StatusCode::unsupported_device:
      throw ProfilerError(ErrorCode::cuda_error, msg);
    case kernels::StatusCode::cuda_error:
      throw ProfilerError(ErrorCode::cuda_error, msg);
  }
  throw ProfilerError(ErrorCode::cuda_error, msg);
}

DeviceWorkload::DeviceWorkload(const sim::Workload& w, sim::KernelKind kind, const sim::TileConfig& tiles,
                               std::uint64_t seed, bool fill_on_host, cudaStream_t stream)
    : stream_(stream) {
  shape_ = kernel_shape_of(w);
  tiled_.br = tiles.br;
  tiled_.bc = tiles.bc;
  tiled_.warps = tiles.warps;
  tiled_.stages = tiles.stages;
  hopper_ = tiles.hopper();
  if (kind == sim::KernelKind::hopper && kernels::hopper_smem_bytes(shape_, hopper_) == 0)
    throw ProfilerError(
        ErrorCode::config_not_compiled,
        fmt::format("the Hopper kernel is not compiled for {} at head dim {} {}; compiled: {}",
                    tiles.hopper_label(), shape_.head_dim, kernels::dtype_name(shape_.dtype),
                    hopper_config_list(shape_.head_dim, shape_.dtype)));
  if (kind == sim::KernelKind::tiled && shape_.general_mask() &&
      kernels::tiled_smem_bytes(shape_, tiled_) == 0) {
    const vocab::TiledConfig c = vocab::general_mask_tiled_config(shape_.head_dim);
    throw ProfilerError(
        ErrorCode::config_not_compiled,
        fmt::format("the tiled kernel's sliding-window / ALiBi variant is compiled for --br {} "
                    "--bc {} --warps {} --stages {} at head dim {} only (asked: --br {} --bc {} "
                    "--warps {} --stages {}); leave the tile flags out to run it",
                    c.br, c.bc, c.warps, c.stages, shape_.head_dim, tiled_.br, tiled_.bc, tiled_.warps,
                    tiled_.stages));
  }
  if (kind == sim::KernelKind::tiled && kernels::tiled_smem_bytes(shape_, tiled_) == 0)
    throw ProfilerError(
        ErrorCode::config_not_compiled,
        fmt::format("the tiled kernel is not compiled for --br {} --bc {} --warps {} --stages {} at "
                    "head dim {} {}; compiled: {}",
                    tiled_.br, tiled_.bc, tiled_.warps, tiled_.stages, shape_.head_dim,
                    kernels::dtype_name(shape_.dtype), config_list(shape_.head_dim, shape_.dtype)));

  const std::size_t elem = kernels::dtype_size(shape_.dtype);
  const std::size_t bh = static_cast<std::size_t>(shape_.batch) * static_cast<std::size_t>(shape_.heads);
  const std::size_t q_count =
      bh * static_cast<std::size_t>(shape_.seq_q) * static_cast<std::size_t>(shape_.head_dim);
  const std::size_t kv_count =
      bh * static_cast<std::size_t>(shape_.seq_kv) * static_cast<std::size_t>(shape_.head_dim);
  q_ = allocate(q_count * elem);
  k_ = allocate(kv_count * elem);
  v_ = allocate(kv_count * elem);
  o_ = allocate(q_count * elem);
  lse_ = static_cast<float*>(allocate(bh * static_cast<std::size_t>(shape_.seq_q) * sizeof(float)));
  if (kind == sim::KernelKind::naive)
    s_ = allocate(bh * static_cast<std::size_t>(shape_.seq_q) * static_cast<std::size_t>(shape_.seq_kv) *
                  elem);
  NvtxRange range("fill_inputs");
  if (fill_on_host) {
    host_fill(q_, q_count, shape_.dtype, seed);
    host_fill(k_, kv_count, shape_.dtype, seed + 1);
    host_fill(v_, kv_count, shape_.dtype, seed + 2);
  } else {
    fill_uniform(q_, q_count, to_element(shape_.dtype), seed, stream_);
    fill_uniform(k_, kv_count, to_element(shape_.dtype), seed + 1, stream_);
    fill_uniform(v_, kv_count, to_element(shape_.dtype), seed + 2, stream_);
    ATTNSCOPE_CUDA(cudaGetLastError());
    ATTNSCOPE_CUDA(cudaStreamSynchronize(stream_));
  }
  if (shape_.alibi) {
    const std::vector<float> slopes = kernels::alibi_slopes(shape_.heads);
    alibi_slopes_ = static_cast<float*>(allocate(slopes.size() * sizeof(float)));
    ATTNSCOPE_CUDA(
        cudaMemcpy(alibi_slopes_, slopes.data(), slopes.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  tensors_ = {q_, k_, v_, o_, lse_, s_, alibi_slopes_};
  if (w.pass == sim::Pass::fwd) return;

  // The backward: dO random, gradients and scratch allocated; its tile from the model's TileConfig.
  const vocab::TiledBwdConfig b = tiles.tiled_bwd(w.head_dim);
  tiled_bwd_ = kernels::TiledBwdConfig{b.bc, b.br, b.stages};
  d_o_ = allocate(q_count * elem);
  dq_ = allocate(q_count * elem);
  dk_ = allocate(kv_count * elem);
  dv_ = allocate(kv_count * elem);
  if (kind == sim::KernelKind::naive)
    ds_ = allocate(bh * static_cast<std::size_t>(shape_.seq_q) * static_cast<std::size_t>(shape_.seq_kv) *
                   elem);
  else
    workspace_ = allocate(kernels::tiled_bwd_workspace_bytes(shape_, tiled_bwd_));
  if (fill_on_host) {
    host_fill(d_o_, q_count, shape_.dtype, seed + 3);
  } else {
    fill_uniform(d_o_, q_count, to_element(shape_.dtype), seed + 3, stream_);
    ATTNSCOPE_CUDA(cudaGetLastError());
  }
  backward_.q = q_;
  backward_.k = k_;
  backward_.v = v_;
  backward_.o = o_;
  backward_.lse = lse_;
  backward_.d_o = d_o_;
  backward_.p = s_;
  backward_.dq = dq_;
  backward_.dk = dk_;
  backward_.dv = dv_;
  backward_.workspace = workspace_;
  backward_.ds = ds_;
  backward_.alibi_slopes = alibi_slopes_;
  if (w.pass == sim::Pass::bwd) {  // the forward the backward reads, once, outside any measurement
    NvtxRange fwd("forward_for_backward");
    for (const sim::KernelId id : sim::kernels_of(kind, sim::Pass::fwd))
      launch(std::string(vocab::to_string(id)), nullptr);
  }
  ATTNSCOPE_CUDA(cudaStreamSynchronize(stream_));
}

DeviceWorkload::~DeviceWorkload() {
  for (void* p : {q_, k_, v_, o_, s_, static_cast<void*>(lse_), static_cast<void*>(alibi_slopes_), d_o_, dq_,
                  dk_, dv_, ds_, workspace_})
    if (p) cudaFree(p);
}

void DeviceWorkload::run(const std::string& kernel, const kernels::AttentionShape& shape,
                         const kernels::DeviceTensors& t, const kernels::TileWindow& window,
                         kernels::TileTiming* timeline) {
  NvtxRange range(kernel);
  kernels::Status s;
  if (kernel == "tiled") {
    s = kernels::launch_tiled(shape, tiled_, t, window, timeline, stream_);
  } else if (kernel == "hopper") {
    s = kernels::launch_hopper(shape, hopper_, t, window, timeline, stream_);
  } else if (kernel == "naive.qk") {
    s = kernels::launch_naive_qk(shape, t, window, timeline, stream_);
  } else if (kernel == "naive.softmax") {
    s = kernels::launch_naive_softmax(shape, t, window, timeline, stream_);
  } else if (kernel == "naive.pv") {
    s = kernels::launch_naive_pv(shape, t, window, timeline, stream_);
  } else if (const auto id = vocab::parse_kernel_id(kernel); id && vocab::pass_of(*id) == vocab::Pass::bwd) {
    // The backward kernels run whole: no tile windows; tiled_bwd has an instrumented build for its
    // timeline (timeline_compiled says which), the launcher refuses a timeline of the others.
    const bool whole = window.q_tile_begin == 0 && window.q_tile_end == -1 && window.kv_tile_begin == 0 &&
                       window.kv_tile_end == -1;
    if (!whole)
      throw ProfilerError(ErrorCode::bad_input,
                          kernel + ": tile windows of the backward kernels are not available");
    if (backward_.d_o == nullptr)
      throw ProfilerError(ErrorCode::bad_input, kernel + ": the workload's pass has no backward");
    s = kernels::launch_backward_kernel(*id, shape, tiled_bwd_, backward_, stream_, timeline);
  } else {
    throw ProfilerError(ErrorCode::bad_input, "unknown kernel '" + kernel + "'");
  }
  check_launch(s, kernel);
}

void DeviceWorkload::launch(const std::string& kernel, kernels::TileTiming* timeline) {
  run(kernel, shape_, tensors_, kernels::TileWindow{}, timeline);
}

void DeviceWorkload::launch_window(const WindowSpec& w) {
  const std::size_t elem = kernels::dtype_size(shape_.dtype);
  const std::size_t slice = static_cast<std::size_t>(w.batch) * static_cast<std::size_t>(shape_.heads) +
                            static_cast<std::size_t>(w.head);
  const auto nq = static_cast<std::size_t>(shape_.seq_q);
  const auto nkv = static_cast<std::size_t>(shape_.seq_kv);
  const auto d = static_cast<std::size_t>(shape_.head_dim);
  auto at = [](const void* base, std::size_t bytes) {
    return static_cast<void*>(static_cast<char*>(const_cast<void*>(base)) + bytes);
  };
  kernels::DeviceTensors t;
  t.q = at(q_, slice * nq * d * elem);
  t.k = at(k_, slice * nkv * d * elem);
  t.v = at(v_, slice * nkv * d * elem);
  t.o = at(o_, slice * nq * d * elem);
  t.lse = lse_ + slice * nq;
  t.s = s_ ? at(s_, slice * nq * nkv * elem) : nullptr;
  t.alibi_slopes = alibi_slopes_ ? alibi_slopes_ + w.head : nullptr;
  kernels::AttentionShape one = shape_;
  one.batch = 1;
  one.heads = 1;
  kernels::TileWindow window;
  window.q_tile_begin = w.q_tile;
  window.q_tile_end = w.q_tile + 1;
  if (w.kernel == "tiled" || w.kernel == "hopper" || w.kernel == "naive.qk") {
    window.kv_tile_begin = w.kv_tile;
    window.kv_tile_end = w.kv_tile + 1;
  }
  run(w.kernel, one, t, window, nullptr);
}

std::size_t DeviceWorkload::timeline_capacity(const std::string& kernel) const {
  if (kernel == vocab::to_string(vocab::KernelId::tiled_bwd))
    return kernels::tiled_bwd_timeline_capacity(shape_, tiled_bwd_);
  if (kernel == "hopper") return kernels::hopper_timeline_capacity(shape_, hopper_, kernels::TileWindow{});
  return kernels::timeline_capacity(kernel.c_str(), shape_, tiled_, kernels::TileWindow{});
}

bool DeviceWorkload::timeline_compiled(const std::string& kernel) const {
  if (shape_.general_mask()) return false;  // the sliding-window / ALiBi variants have no timeline build
  if (const auto id = vocab::parse_kernel_id(kernel); id && vocab::pass_of(*id) == vocab::Pass::bwd)
    return *id == vocab::KernelId::tiled_bwd &&
           kernels::tiled_bwd_instrumented_compiled(shape_.head_dim, shape_.dtype, tiled_bwd_);
  if (kernel == "tiled") return kernels::tiled_instrumented_compiled(shape_.head_dim, shape_.dtype, tiled_);
  if (kernel == "hopper")
    return kernels::hopper_instrumented_compiled(shape_.head_dim, shape_.dtype, hopper_);
  return true;
}

}  // namespace attnscope::profiler::cuda
