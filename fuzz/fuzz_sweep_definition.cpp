// SPDX-License-Identifier: Apache-2.0
// Fuzz target: a sweep's definition as typed (the lists of `attnscope sweep`), one flag's value per line in
// the order br, bc, warps, stages, seq, head_dim, smem, gpu, shard, l2, hbm_bw, sms, smem_sm. Parsed, counted
// and enumerated (not simulated); rejection must be sim::InvalidInput.
#include <cstdint>
#include <sstream>
#include <string>

#include "attnscope/reports/sweep_runner.hpp"
#include "attnscope/sim/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnscope;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  reports::SweepAxesText t;
  for (std::string* field : {&t.br, &t.bc, &t.warps, &t.stages, &t.seq, &t.head_dim, &t.smem, &t.gpu,
                             &t.shard, &t.l2, &t.hbm_bw, &t.sms, &t.smem_sm})
    if (!std::getline(in, *field)) break;
  reports::SweepSpec spec;
  spec.base = sim::preset("llm-4k");
  spec.max_points = 20000;  // enumeration is what is fuzzed, not a long one
  reports::SweepRunOptions run;
  try {
    reports::parse_sweep_axes(t, sim::TileConfig{}, spec, run);
    (void)reports::count_sweep_points(spec);
    (void)spec.definition_text();
    (void)reports::enumerate_sweep(spec);
  } catch (const sim::InvalidInput&) {
  }
  return 0;
}
