// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/model_cache.hpp"

#include <fmt/format.h>

#include "attnscope/profiler/windows.hpp"
#include "attnscope/sim/dataflow.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/simulate.hpp"

namespace attnscope::profiler {

namespace {

sim::SimOptions options_for(vocab::CacheProtocol protocol, bool record_tiles) {
  sim::SimOptions o;
  o.l2_start = protocol == vocab::CacheProtocol::warm ? sim::L2Start::warm : sim::L2Start::cold;
  o.record_tiles = record_tiles;
  return o;
}

std::string run_key(const sim::Workload& w, sim::KernelKind kind, const sim::TileConfig& t,
                    std::string_view kernel, vocab::CacheProtocol protocol, bool record_tiles) {
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}-{}-{}-{}-{}-{}-{}-{}-{}|{}|{}|{}",
                     sim::to_string(kind), kernel, w.batch, w.heads, w.seq_q, w.seq_kv, w.head_dim,
                     sim::to_string(w.dtype), w.causal, w.window, w.alibi, w.scale, t.label(), t.gemm_bm,
                     t.gemm_bn, t.gemm_bk, t.gemm_warps, t.gemm_stages, t.gemm_qk_tiles_per_cta,
                     t.gemm_qk_stages, t.gemm_pv_l2_fetch_bytes, t.softmax_rows_per_cta,
                     vocab::to_string(protocol), record_tiles, t.hopper_label());
}

}  // namespace

std::vector<sim::KernelResult> model_kernels(const sim::GpuSpec& gpu, const sim::Workload& w,
                                             sim::KernelKind kind, const sim::TileConfig& t,
                                             vocab::CacheProtocol protocol, bool record_tiles) {
  if (protocol == vocab::CacheProtocol::flush && sim::kernels_of(kind, w.pass).size() > 1) {
    // Flushed before every kernel: each kernel alone. Run back to back from one cold L2, naive.pv would
    // inherit softmax's dirty lines and tiled_bwd.post the dQ accumulator's, and write them back during its
    // own run (tens of MB the GPU never writes while it runs under this protocol).
    std::vector<sim::KernelResult> out;
    for (const sim::KernelId id : sim::kernels_of(kind, w.pass)) {
      sim::SimOptions o = options_for(protocol, record_tiles);
      o.only = id;
      sim::SimResult r = sim::simulate(gpu, w, kind, t, o);
      for (auto& k : r.kernels) out.push_back(std::move(k));
    }
    return out;
  }
  return sim::simulate(gpu, w, kind, t, options_for(protocol, record_tiles)).kernels;
}

sim::KernelResult model_kernel(const sim::GpuSpec& gpu, const sim::Workload& w, sim::KernelKind kind,
                               const sim::TileConfig& t, std::string_view kernel,
                               vocab::CacheProtocol protocol, bool record_tiles) {
  if (protocol == vocab::CacheProtocol::flush && sim::kernels_of(kind, w.pass).size() > 1) {
    const auto id = sim::parse_kernel_id(kernel);
    if (!id) throw sim::InvalidInput(fmt::format("the model has no kernel '{}'", kernel));
    sim::SimOptions o = options_for(protocol, record_tiles);
    o.only = *id;
    for (auto& k : sim::simulate(gpu, w, kind, t, o).kernels)
      if (k.name == kernel) return std::move(k);
  } else {
    for (auto& k : model_kernels(gpu, w, kind, t, protocol, record_tiles))
      if (k.name == kernel) return std::move(k);
  }
  throw sim::InvalidInput(
      fmt::format("the model ran no kernel '{}' for kind {}", kernel, sim::to_string(kind)));
}

template <typename Run>
ModelCache::Result ModelCache::memo(const std::string& key, const Run& run) {
  std::promise<Result> promise;
  std::shared_future<Result> future;
  bool mine = false;
  {
    std::lock_guard lock(mutex_);
    auto [it, fresh] = runs_.try_emplace(key);
    if (fresh) {
      it->second = promise.get_future().share();
      mine = true;
    }
    future = it->second;
  }
  if (mine) {
    try {
      promise.set_value(std::make_shared<const sim::KernelResult>(run()));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
  }
  return future.get();  // rethrows the run's error
}

std::shared_ptr<const sim::KernelResult> ModelCache::kernel(const sim::Workload& w, sim::KernelKind kind,
                                                            const sim::TileConfig& t, std::string_view kernel,
                                                            vocab::CacheProtocol protocol,
                                                            bool record_tiles) {
  return memo(run_key(w, kind, t, kernel, protocol, record_tiles),
              [&] { return model_kernel(gpu_, w, kind, t, kernel, protocol, record_tiles); });
}

std::shared_ptr<const sim::KernelResult> ModelCache::window(const sim::Workload& w, sim::KernelKind kind,
                                                            const sim::TileConfig& t, const WindowSpec& win) {
  const std::string key =
      fmt::format("window {} {} {} {} {}|", win.kernel, win.batch, win.head, win.q_tile, win.kv_tile) +
      run_key(w, kind, t, win.kernel, vocab::CacheProtocol::flush, false);
  return memo(key, [&] { return model_window(gpu_, w, kind, t, win); });
}

}  // namespace attnscope::profiler
