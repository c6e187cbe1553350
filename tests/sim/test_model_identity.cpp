// SPDX-License-Identifier: Apache-2.0
// Speed work on the model must not change what it predicts. This test simulates a fixed set of workloads
// (llm-4k and vit-b16, naive and tiled, causal and not, several tilings, H200/H100/A100, cold and warm L2,
// a tile window, no L2 reuse) and compares every kernel's totals, scalar results and every per-tile record
// with the committed reference in tests/data/sim/model_fingerprints.json, field by field through a 64-bit
// FNV-1a digest (doubles by their bit pattern: "identical", not "close").
//
// A deliberate change of the model's semantics changes the reference. Regenerate it with the changed model
// and commit it with the change:
//   ATTNSCOPE_WRITE_FINGERPRINTS=tests/data/sim/model_fingerprints.json build/tests/sim/sim_identity_test
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "attnscope/sim/simulate.hpp"

namespace attnscope::sim {
namespace {

// 64-bit FNV-1a over the values fed to it, each as its 8 bytes.
class Digest {
 public:
  void add(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      hash_ ^= (v >> (8 * i)) & 0xFFu;
      hash_ *= 0x100000001B3ull;
    }
  }
  void add(double v) { add(std::bit_cast<std::uint64_t>(v)); }
  void add(std::int64_t v) { add(static_cast<std::uint64_t>(v)); }
  void add(int v) { add(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))); }
  void add(const LevelBytes& b) {
    for (std::uint64_t v :
         {b.hbm_read, b.hbm_write, b.l2_read, b.l2_write, b.l2_hit, b.smem_read, b.smem_write})
      add(v);
  }
  std::string hex() const {
    std::ostringstream s;
    s << std::hex << std::setw(16) << std::setfill('0') << hash_;
    return s.str();
  }

 private:
  std::uint64_t hash_ = 0xCBF29CE484222325ull;
};

struct Case {
  std::string name;
  std::string gpu;
  Workload workload;
  KernelKind kind = KernelKind::tiled;
  TileConfig tiles;
  SimOptions options;
};

TileConfig tiling(int br, int bc, int warps, int stages, LaunchOrder order = LaunchOrder::q_tile_fastest) {
  TileConfig t;
  t.br = br;
  t.bc = bc;
  t.warps = warps;
  t.stages = stages;
  t.order = order;
  return t;
}

std::vector<Case> cases() {
  const Workload llm = preset("llm-4k");
  Workload llm_causal = llm;
  llm_causal.causal = true;
  Workload llm_d128 = llm;
  llm_d128.head_dim = 128;
  // The naive kernels at the llm-4k shape per head, on 4 of its 32 heads: a second each at full size.
  Workload llm_4heads = llm;
  llm_4heads.heads = 4;
  Workload llm_4heads_causal = llm_4heads;
  llm_4heads_causal.causal = true;
  const Workload vit = preset("vit-b16");
  Workload vit_causal = vit;
  vit_causal.causal = true;
  SimOptions warm;
  warm.l2_start = L2Start::warm;
  SimOptions no_reuse;
  no_reuse.l2_reuse = false;
  SimOptions window;
  window.window = TileWindow{4, 12, 8, 40};
  SimOptions no_records;
  no_records.record_tiles = false;
  const TileConfig dflt;
  return {
      {"h200 llm-4k tiled default", "h200", llm, KernelKind::tiled, dflt, {}},
      {"h200 llm-4k tiled causal Br64 Bc32 w4 s3",
       "h200",
       llm_causal,
       KernelKind::tiled,
       tiling(64, 32, 4, 3),
       {}},
      {"h200 llm-4k tiled Br32 Bc16 w2 s1", "h200", llm, KernelKind::tiled, tiling(32, 16, 2, 1), no_records},
      {"h200 llm-4k tiled d128 Br128 Bc32 w8 s2 warm", "h200", llm_d128, KernelKind::tiled,
       tiling(128, 32, 8, 2), warm},
      {"h200 llm-4k tiled window", "h200", llm, KernelKind::tiled, dflt, window},
      {"h100 llm-4k tiled Br128 Bc128 w8 s2 head-fastest",
       "h100",
       llm,
       KernelKind::tiled,
       tiling(128, 128, 8, 2, LaunchOrder::head_fastest),
       {}},
      {"a100 llm-4k tiled causal Br64 Bc64 w4 s1",
       "a100",
       llm_causal,
       KernelKind::tiled,
       tiling(64, 64, 4, 1),
       {}},
      {"h200 llm-4k(4 heads) naive", "h200", llm_4heads, KernelKind::naive, dflt, {}},
      {"h100 llm-4k(4 heads) naive causal", "h100", llm_4heads_causal, KernelKind::naive, dflt, {}},
      {"h200 llm-4k(4 heads) naive no L2 reuse", "h200", llm_4heads, KernelKind::naive, dflt, no_reuse},
      {"h200 vit-b16 naive", "h200", vit, KernelKind::naive, dflt, {}},
      {"a100 vit-b16 naive causal warm", "a100", vit_causal, KernelKind::naive, dflt, warm},
      {"h200 vit-b16 tiled causal Br64 Bc64 w4 s2",
       "h200",
       vit_causal,
       KernelKind::tiled,
       tiling(64, 64, 4, 2),
       {}},
      {"h100 vit-b16 tiled Br128 Bc32 w4 s3", "h100", vit, KernelKind::tiled, tiling(128, 32, 4, 3), {}},
      {"a100 vit-b16 tiled Br32 Bc64 w2 s2 head-fastest",
       "a100",
       vit,
       KernelKind::tiled,
       tiling(32, 64, 2, 2, LaunchOrder::head_fastest),
       {}},
  };
}

// Everything the model reports for one simulation, digested; plus readable totals to diagnose a mismatch.
nlohmann::json fingerprint(const SimResult& r) {
  Digest d;
  for (const KernelResult& k : r.kernels) {
    d.add(k.totals);
    d.add(k.flops);
    d.add(k.cycles);
    d.add(k.time_s);
    d.add(k.ctas);
    d.add(k.waves);
    d.add(k.ctas_per_sm);
    d.add(k.registers_per_thread);
    d.add(k.smem_per_cta);
    d.add(k.l2_resident_end);
    d.add(k.l2_dirty_end);
    d.add(static_cast<std::uint64_t>(k.tiles.size()));
    for (const TileRecord& t : k.tiles) {
      for (int v : {t.batch, t.head, t.q_tile, t.kv_tile, t.sm}) d.add(v);
      d.add(t.start_cycle);
      d.add(t.end_cycle);
      d.add(t.bytes);
      d.add(t.flops);
    }
  }
  d.add(r.totals);
  d.add(r.flops);
  d.add(r.time_s);
  nlohmann::json j;
  j["digest"] = d.hex();
  j["hbm_read"] = r.totals.hbm_read;
  j["hbm_write"] = r.totals.hbm_write;
  j["l2_read"] = r.totals.l2_read;
  j["l2_write"] = r.totals.l2_write;
  j["l2_hit"] = r.totals.l2_hit;
  std::ostringstream time;
  time << std::setprecision(17) << r.time_s;  // exact: a mismatch in the last bit shows here too
  j["time_s"] = time.str();
  std::size_t tiles = 0;
  for (const KernelResult& k : r.kernels) tiles += k.tiles.size();
  j["tile_records"] = tiles;
  return j;
}

TEST(ModelIdentity, EveryCaseMatchesTheCommittedReference) {
  nlohmann::json now = nlohmann::json::object();
  for (const Case& c : cases()) {
    const SimResult r = simulate(load_gpu_spec(c.gpu), c.workload, c.kind, c.tiles, c.options);
    now[c.name] = fingerprint(r);
  }
  if (const char* out = std::getenv("ATTNSCOPE_WRITE_FINGERPRINTS")) {
    std::ofstream f(out);
    ASSERT_TRUE(f) << "cannot write " << out;
    f << now.dump(2) << "\n";
    GTEST_SKIP() << "wrote the reference to " << out << " (compare nothing)";
  }
  const std::string path = std::string(ATTNSCOPE_DATA_DIR) + "/sim/model_fingerprints.json";
  std::ifstream f(path);
  ASSERT_TRUE(f) << "missing reference " << path;
  const nlohmann::json ref = nlohmann::json::parse(f);
  EXPECT_EQ(ref.size(), now.size()) << "the reference has a different set of cases: regenerate it";
  for (const auto& [name, got] : now.items()) {
    ASSERT_TRUE(ref.contains(name)) << "no reference for case '" << name << "'";
    EXPECT_EQ(ref[name], got) << "case '" << name << "': the model's output changed";
  }
}

}  // namespace
}  // namespace attnscope::sim
