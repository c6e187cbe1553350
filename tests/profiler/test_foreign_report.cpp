// SPDX-License-Identifier: Apache-2.0
// report_foreign_launches on launches built here by hand, with SYNTHETIC counters (made-up numbers that
// exercise the join's bookkeeping, not GPU data): a recognised FlashAttention-2 forward with its shape is
// modeled; a launch without a shape, one with a grid that does not match its shape, an unknown kernel and a
// recognised kernel the model has no dataflow for are measured only, each saying why.
#include <gtest/gtest.h>

#include <chrono>

#include "attnscope/profiler/foreign_report.hpp"
#include "attnscope/profiler/profile.hpp"
#include "attnscope/reports/gate.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/writers.hpp"
#include "attnscope/sim/gpu_spec.hpp"

using namespace attnscope;
using namespace attnscope::profiler;
using reports::Metric;

namespace {

constexpr std::string_view kFa2Forward =
    "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, "
    "false, "
    "cutlass::half_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::half_t> >, false, false, "
    "false, "
    "true, true, false>(pytorch_flash::Flash_fwd_params)";

// The value of `m` in `metrics`; throws (failing the test with the metric's key) when it is absent.
const reports::Value& at(const reports::Metrics& metrics, Metric m) {
  const reports::Value* v = metrics.find(m);
  if (v == nullptr) throw std::runtime_error("no metric " + std::string(vocab::key(m)));
  return *v;
}

CounterValues synthetic_counters(double scale) {
  CounterValues c;
  c.emplace("dram__bytes_read.sum", 50'000'000.0 * scale);
  c.emplace("dram__bytes_write.sum", 16'800'000.0 * scale);
  c.emplace("lts__t_sectors_srcunit_tex_op_read.sum", 600'000'000.0 / 32 * scale);
  c.emplace("lts__t_sectors_srcunit_tex_op_write.sum", 16'800'000.0 / 32 * scale);
  c.emplace("gpu__time_duration.sum", 1.0e6 * scale);  // ns
  return c;
}

ForeignLaunch fa2_forward(std::uint64_t index) {
  ForeignLaunch l;
  l.demangled_name = std::string(kFa2Forward);
  l.mangled_name = "_ZN13pytorch_flash16flash_fwd_kernelI...";  // shortened: only kept, never read
  l.grid = {32, 1, 32};
  l.block = {128, 1, 1};
  l.registers_per_thread = 255;
  l.dynamic_smem_bytes = 49152;
  l.launch_index = index;
  l.nvtx_ranges = {"attnscope: B=1 H=32 Nq=4096 Nkv=4096 d=64 dtype=fp16 causal=0"};
  l.shape = AnnotatedShape{1, 32, 4096, 4096, 64, "fp16", false};
  l.replay = ForeignReplay::user;
  l.counters = synthetic_counters(1.0);
  l.event_time_s = 0.9e-3;
  return l;
}

DeviceInfo h200() {
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.chip = "GH100";
  d.driver = "580.159.04";
  d.cuda_runtime = "13.0";
  d.sm_count = 132;
  d.l2_bytes = 50 * 1024 * 1024;
  return d;
}

std::vector<ForeignLaunch> program() {
  std::vector<ForeignLaunch> launches;
  launches.push_back(fa2_forward(7));  // modeled

  ForeignLaunch no_shape = fa2_forward(8);
  no_shape.shape.reset();
  no_shape.nvtx_ranges = {"forward"};
  launches.push_back(no_shape);

  ForeignLaunch wrong_grid = fa2_forward(9);
  wrong_grid.grid = {32, 32, 1};
  launches.push_back(wrong_grid);

  ForeignLaunch gemm;
  gemm.demangled_name = gemm.mangled_name = "ampere_bf16_s16816gemm_bf16_64x64_ldg8_f2f_stages_64x5_tn";
  gemm.grid = {64, 2, 1};
  gemm.block = {128, 1, 1};
  gemm.launch_index = 10;
  gemm.replay = ForeignReplay::kernel;
  gemm.counters = synthetic_counters(0.1);
  launches.push_back(gemm);

  ForeignLaunch mem_efficient = fa2_forward(11);
  mem_efficient.demangled_name =
      "fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::half_t, "
      "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)";
  launches.push_back(mem_efficient);
  return launches;
}

}  // namespace

// Local memory (spills): the launch's size is shown, and where it is not zero the model's L2 and DRAM rows
// say that the measured side also carries the local lines L1 sends to L2; a recording without the field says
// it was not recorded, not "0".
TEST(ForeignReport, LocalMemoryIsShownAndQualifiesTheByteRows) {
  std::vector<ForeignLaunch> launches = {fa2_forward(1), fa2_forward(2), fa2_forward(3)};
  launches[0].local_bytes_per_thread = 0;
  launches[1].local_bytes_per_thread = 96;
  launches[2].local_bytes_per_thread = -1;
  const reports::Report r = report_foreign_launches(launches, h200(), "attnscope profile -- python x.py");
  ASSERT_EQ(r.kernels.size(), 3u);
  EXPECT_EQ(r.kernels[0].notes.at("launch.local_memory"), "0 B per thread");
  EXPECT_FALSE(r.kernels[0].notes.contains("model.local_memory"));
  EXPECT_EQ(r.kernels[1].notes.at("launch.local_memory"), "96 B per thread");
  const std::string& caveat = r.kernels[1].notes.at("model.local_memory");
  EXPECT_NE(caveat.find("96 B of local memory per thread"), std::string::npos) << caveat;
  EXPECT_NE(caveat.find("l2_write"), std::string::npos) << caveat;
  EXPECT_EQ(r.kernels[2].notes.at("launch.local_memory"), "not recorded");
  EXPECT_FALSE(r.kernels[2].notes.contains("model.local_memory"));
}

TEST(ForeignReport, RecognisedAndAnnotatedLaunchIsModeledOthersSayWhyNot) {
  const reports::Report r = report_foreign_launches(program(), h200(), "attnscope profile -- python x.py");
  EXPECT_EQ(r.kind, "profile");
  EXPECT_EQ(r.provenance.gpu_spec, "h200");  // the device's built-in spec
  EXPECT_EQ(r.provenance.gpu_name, "NVIDIA H200");
  ASSERT_EQ(r.kernels.size(), 5u);

  // The FlashAttention-2 forward: both sides of the metrics, the launch kept visible.
  const reports::KernelEntry& fwd = r.kernels[0];
  EXPECT_EQ(fwd.name, "flash_fwd_kernel.7");
  for (Metric m : {Metric::dram_read, Metric::dram_write, Metric::time}) {
    EXPECT_TRUE(at(fwd.metrics, m).measured) << vocab::key(m);
    EXPECT_TRUE(at(fwd.metrics, m).modeled) << vocab::key(m);
  }
  EXPECT_DOUBLE_EQ(*at(fwd.metrics, Metric::dram_read).measured, 50'000'000.0);
  EXPECT_DOUBLE_EQ(*at(fwd.metrics, Metric::time).measured, 0.9e-3);  // the event time
  // The model reads Q, K and V (8 MB each at llm-4k) at least once.
  EXPECT_GE(*at(fwd.metrics, Metric::dram_read).modeled, 3.0 * 32 * 4096 * 64 * 2);
  EXPECT_EQ(fwd.notes.at("launch.kernel"), kFa2Forward);
  EXPECT_EQ(fwd.notes.at("launch.grid"), "(32, 1, 32)");
  EXPECT_EQ(fwd.notes.at("launch.block"), "(128, 1, 1)");
  EXPECT_EQ(fwd.notes.at("launch.registers"), "255 per thread");
  EXPECT_EQ(fwd.notes.at("launch.smem"), "49152 B per CTA (0 B static + 49152 B dynamic)");
  EXPECT_NE(fwd.notes.at("measure.replay").find("user replay"), std::string::npos);
  EXPECT_EQ(fwd.notes.at("model"), "modeled as attnscope's tiled dataflow");
  EXPECT_EQ(fwd.notes.at("model.workload"), "B=1 H=32 Nq=4096 Nkv=4096 d=64 fp16");
  EXPECT_NE(fwd.notes.at("model.tiles").find("Br128-Bc128-w4-s2"), std::string::npos);
  EXPECT_NE(fwd.notes.at("model.occupancy").find("255 registers per thread (the launch's)"),
            std::string::npos);
  EXPECT_NE(fwd.notes.at("recognition").find("flash-attention-2"), std::string::npos);
  EXPECT_EQ(r.workload.seq_q, 4096);  // the report's workload and tiles: the first modeled launch's
  EXPECT_EQ(r.tiles.br, 128);

  const std::pair<std::size_t, std::string_view> refused[] = {
      {1, "not modeled: no shape (wrap the call in attnscope.annotate(...))"},
      {2, "not modeled: grid (32, 32, 1) does not match the annotated shape (expected (32, 1, 32)"},
      {3, "not modeled: unknown kernel"},
      {4, "not modeled: memory-efficient attention dataflow"},
  };
  for (const auto& [index, why] : refused) {
    const reports::KernelEntry& e = r.kernels[index];
    EXPECT_EQ(e.notes.at("model").rfind(why, 0), 0u) << e.name << ": " << e.notes.at("model");
    for (const auto& [metric, value] : e.metrics)
      EXPECT_FALSE(value.modeled) << e.name << " " << vocab::key(metric);
    EXPECT_TRUE(at(e.metrics, Metric::dram_read).measured) << e.name;
    EXPECT_TRUE(e.notes.count("launch.grid")) << e.name;
  }
  EXPECT_EQ(r.kernels[3].name, "ampere_bf16_s16816gemm_bf16_64x64_ldg8_f2f_stages_64x5_tn.10");
  EXPECT_NE(r.kernels[3].notes.at("measure.replay").find("kernel replay"), std::string::npos);
  EXPECT_EQ(r.kernels[3].notes.at("recognition"), "unknown kernel");
}

TEST(ForeignReport, WithoutAGpuSpecEverythingIsMeasuredOnly) {
  DeviceInfo unknown = h200();
  unknown.name = "NVIDIA Imaginary 9000";
  EXPECT_FALSE(gpu_spec_for_device(unknown));
  const reports::Report r = report_foreign_launches({fa2_forward(0)}, unknown, "attnscope profile -- x");
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].notes.at("model").rfind("not modeled: no GPU spec for the device", 0), 0u);
  EXPECT_FALSE(at(r.kernels[0].metrics, Metric::dram_read).modeled);
}

TEST(ForeignReport, DeviceNamesFindTheirSpec) {
  DeviceInfo d;
  d.name = "NVIDIA H200 NVL";
  ASSERT_TRUE(gpu_spec_for_device(d));
  EXPECT_EQ(gpu_spec_for_device(d)->short_name, "h200");
}

// Our own kernels' profile: the model runs with the measured device's spec unless --gpu names another, and
// says so when it is not the device's (an H100 measured against the H200 spec once went unnoticed).
TEST(ProfileModelSpec, TheDevicesOwnSpecUnlessOneIsNamed) {
  DeviceInfo h100;
  h100.name = "NVIDIA H100 80GB HBM3";
  ModelSpecChoice c = model_spec_for(h100, std::nullopt);
  EXPECT_EQ(c.spec, "h100");
  EXPECT_FALSE(c.note);
  c = model_spec_for(h100, std::string("h200"));
  EXPECT_EQ(c.spec, "h200");
  ASSERT_TRUE(c.note);
  EXPECT_NE(c.note->find("NVIDIA H100 80GB HBM3"), std::string::npos) << *c.note;
  DeviceInfo h200;
  h200.name = "NVIDIA H200";
  c = model_spec_for(h200, std::string("h200"));
  EXPECT_EQ(c.spec, "h200");
  EXPECT_FALSE(c.note);
  DeviceInfo other;
  other.name = "NVIDIA Imaginary 9000";
  c = model_spec_for(other, std::nullopt);
  EXPECT_EQ(c.spec, "h200");
  ASSERT_TRUE(c.note);
  EXPECT_NE(c.note->find("no built-in GPU spec describes NVIDIA Imaginary 9000"), std::string::npos);
}

TEST(ForeignReport, ModelRefusalIsReportedNotThrown) {
  // A FlashAttention-2 forward at head dim 96: recognised, shape and grid agree, but attnscope's tiled model
  // covers d = 64 and 128 only.
  ForeignLaunch l = fa2_forward(0);
  l.demangled_name =
      "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<96, 128, 64, 4, false, "
      "false, "
      "cutlass::half_t, pytorch_flash::Flash_kernel_traits<96, 128, 64, 4, cutlass::half_t> >, false, false, "
      "false, true, true, false>(pytorch_flash::Flash_fwd_params)";
  l.shape->head_dim = 96;
  const reports::Report r = report_foreign_launches({l}, h200(), "x", sim::load_gpu_spec("h200"));
  EXPECT_EQ(r.kernels[0].notes.at("model").rfind("not modeled: the model refuses this configuration", 0), 0u)
      << r.kernels[0].notes.at("model");
}

TEST(ForeignReport, WritesAndReadsBackInTheReportFormat) {
  const reports::Report r = report_foreign_launches(program(), h200(), "attnscope profile -- python x.py");
  const reports::Report back = reports::parse_report(reports::to_json_string(r), "foreign");
  ASSERT_EQ(back.kernels.size(), r.kernels.size());
  EXPECT_EQ(back.kernels[0].notes.at("launch.kernel"), kFa2Forward);
  EXPECT_EQ(back.kernels[0].metrics, r.kernels[0].metrics);
  EXPECT_FALSE(reports::to_markdown(r).empty());
  EXPECT_FALSE(reports::to_html(r).empty());
}

TEST(ForeignReport, FlashAttention2BackwardIsModeledKernelByKernel) {
  // run_flash_bwd_seqk_parallel at llm-4k causal, d = 64 on the H200: Flash_bwd_kernel_traits<64, 128, 128,
  // 8, 4, 4, 4, false, false, half>, 256 threads, grid (Nq / 128 or Nkv / 128, B, H) = (32, 1, 32).
  const std::string traits =
      "pytorch_flash::Flash_bwd_kernel_traits<64, 128, 128, 8, 4, 4, 4, false, false, cutlass::half_t, "
      "pytorch_flash::Flash_kernel_traits<64, 128, 128, 8, cutlass::half_t> >";
  const std::string names[] = {
      "void pytorch_flash::flash_bwd_dot_do_o_kernel<true, " + traits + " >(pytorch_flash::Flash_bwd_params)",
      "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<" + traits +
          ", false, true, false, true, true>(pytorch_flash::Flash_bwd_params)",
      "void pytorch_flash::flash_bwd_convert_dq_kernel<" + traits + " >(pytorch_flash::Flash_bwd_params)"};
  std::vector<ForeignLaunch> launches;
  for (const std::string& name : names) {
    ForeignLaunch l = fa2_forward(launches.size());
    l.demangled_name = name;
    l.block = {256, 1, 1};
    l.shape->causal = true;
    launches.push_back(l);
  }
  const reports::Report r = report_foreign_launches(launches, h200(), "x");
  ASSERT_EQ(r.kernels.size(), 3u);
  const std::string_view models[] = {"tiled_bwd.pre", "tiled_bwd", "tiled_bwd.post"};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.kernels[i].notes.at("model"),
              "modeled as attnscope's " + std::string(models[i]) + " dataflow")
        << r.kernels[i].notes.at("model");
    EXPECT_TRUE(at(r.kernels[i].metrics, Metric::dram_read).modeled) << r.kernels[i].name;
  }
  EXPECT_NE(r.kernels[1].notes.at("model.tiles").find("bwd-Bc128-Br128-s2"), std::string::npos);
}

TEST(ForeignReport, RepeatedLaunchesShareOneModelRun) {
  // A training loop: the same kernel on the same shape, many times. Each entry gets the same modeled values
  // (one simulation; 200 of them would take the model tens of seconds).
  std::vector<ForeignLaunch> launches;
  for (std::uint64_t i = 0; i < 200; ++i) launches.push_back(fa2_forward(i));
  const auto start = std::chrono::steady_clock::now();
  const reports::Report r = report_foreign_launches(launches, h200(), "x");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.kernels.size(), 200u);
  for (const auto& k : r.kernels)
    EXPECT_EQ(at(k.metrics, Metric::dram_read).modeled, at(r.kernels[0].metrics, Metric::dram_read).modeled);
  EXPECT_LT(seconds, 10.0);
}

TEST(ForeignReport, AGateOnTheKernelSumsItsLaunches) {
  std::vector<ForeignLaunch> launches = {fa2_forward(3), fa2_forward(5)};
  const reports::Report r = report_foreign_launches(launches, h200(), "x");
  const auto result =
      reports::evaluate_gate(reports::parse_gate("flash_fwd_kernel.dram_read.measured < 1GB"), r);
  ASSERT_TRUE(result.actual);
  EXPECT_DOUBLE_EQ(*result.actual, 2 * 50'000'000.0);
  const auto one =
      reports::evaluate_gate(reports::parse_gate("flash_fwd_kernel.5.dram_read.measured < 1GB"), r);
  ASSERT_TRUE(one.actual);
  EXPECT_DOUBLE_EQ(*one.actual, 50'000'000.0);
}
