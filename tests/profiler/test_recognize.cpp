// SPDX-License-Identifier: Apache-2.0
// Recognising kernels of other programs: every name of tests/data/foreign/kernel_names.txt against the
// kernel table, the captures of the modeled rows, the annotation reader on the strings attnscope.annotate
// writes (tests/data/foreign/annotations.txt) and on malformed ones, and the grid check of the plan.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "attnscope/profiler/foreign_model.hpp"
#include "attnscope/profiler/recognize.hpp"

using namespace attnscope;
using namespace attnscope::profiler;

namespace {

std::vector<std::vector<std::string>> tab_lines(const std::string& file) {
  std::ifstream in(std::string(ATTNSCOPE_DATA_DIR) + "/foreign/" + file);
  EXPECT_TRUE(in) << file;
  std::vector<std::vector<std::string>> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::istringstream s(line);
    for (std::string f; std::getline(s, f, '\t');) fields.push_back(f);
    out.push_back(fields);
  }
  return out;
}

std::string name_of(std::string_view kernel) {
  for (const auto& fields : tab_lines("kernel_names.txt"))
    if (fields[0] == kernel) return fields[2];
  throw std::runtime_error("no name for " + std::string(kernel));
}

ForeignLaunch launch(std::string name, std::array<std::uint32_t, 3> grid, std::uint32_t threads) {
  ForeignLaunch l;
  l.demangled_name = std::move(name);
  l.mangled_name = l.demangled_name;
  l.grid = grid;
  l.block = {threads, 1, 1};
  return l;
}

AnnotatedShape llm_4k(bool causal) {
  return AnnotatedShape{1, 32, 4096, 4096, 64, "fp16", causal};
}

}  // namespace

TEST(KernelTable, EveryCommittedNameIsRecognisedAsItsRow) {
  const auto lines = tab_lines("kernel_names.txt");
  ASSERT_GE(lines.size(), 30u);
  for (const auto& fields : lines) {
    ASSERT_EQ(fields.size(), 3u) << "kernel<TAB>source<TAB>name: " << fields[0];
    const Recognition r = recognize(fields[2]);
    const std::string got = r.row ? std::string(r.row->kernel) : "unknown";
    EXPECT_EQ(got, fields[0]) << fields[2];
  }
}

TEST(KernelTable, EveryRowIsExercisedByACommittedName) {
  std::set<std::string> named;
  for (const auto& fields : tab_lines("kernel_names.txt")) named.insert(fields[0]);
  for (const KernelRow& row : kKernelTable) EXPECT_TRUE(named.count(std::string(row.kernel))) << row.kernel;
}

TEST(KernelTable, ModeledRowsSayWhatTheyAssumeAndUnmodeledRowsWhyNot) {
  for (const KernelRow& row : kKernelTable) {
    if (row.model) {
      EXPECT_FALSE(row.assumes.empty()) << row.kernel;
      EXPECT_NE(row.grid, GridRule::none) << row.kernel;
    } else {
      EXPECT_FALSE(row.not_modeled.empty()) << row.kernel;
    }
  }
}

TEST(KernelTable, FlashAttention2ForwardCaptures) {
  // __cxa_demangle spelling (true/false, "> >") and NVIDIA's (1/0, ">>").
  const Recognition a = recognize(name_of("flash_fwd_kernel"));
  ASSERT_NE(a.row, nullptr);
  EXPECT_EQ(a.row->model, vocab::KernelId::tiled);
  EXPECT_EQ(a.captures.at("head_dim"), "64");
  EXPECT_EQ(a.captures.at("block_m"), "128");
  EXPECT_EQ(a.captures.at("block_n"), "128");
  EXPECT_EQ(a.captures.at("warps"), "4");
  EXPECT_EQ(a.captures.at("dtype"), "cutlass::half_t");
  EXPECT_EQ(a.captures.at("dropout"), "false");
  EXPECT_EQ(a.captures.at("causal"), "false");

  const Recognition b = recognize(
      "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 64, 64, 4, 0, 0, "
      "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 64, 64, 4, cutlass::bfloat16_t>>, 0, 1, "
      "0, 0, "
      "1, 1, 0>(pytorch_flash::Flash_fwd_params)");
  ASSERT_NE(b.row, nullptr);
  EXPECT_EQ(b.captures.at("head_dim"), "128");
  EXPECT_EQ(b.captures.at("block_m"), "64");
  EXPECT_EQ(b.captures.at("dtype"), "cutlass::bfloat16_t");
  EXPECT_EQ(b.captures.at("causal"), "1");
}

TEST(KernelTable, FlashAttention2BackwardCaptures) {
  for (std::string_view kernel : {"flash_bwd_dot_do_o_kernel", "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel",
                                  "flash_bwd_convert_dq_kernel"}) {
    const Recognition r = recognize(name_of(kernel));
    ASSERT_NE(r.row, nullptr) << kernel;
    EXPECT_EQ(r.captures.at("block_m"), "128") << kernel;
    EXPECT_EQ(r.captures.at("block_n"), "128") << kernel;
    EXPECT_EQ(r.captures.at("warps"), "8") << kernel;
    EXPECT_EQ(r.captures.at("single_buffer"), "false") << kernel;
  }
  EXPECT_EQ(recognize(name_of("flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel")).captures.at("causal"), "true");
  EXPECT_EQ(recognize(name_of("flash_bwd_dot_do_o_kernel")).row->model, vocab::KernelId::tiled_bwd_pre);
  EXPECT_EQ(recognize(name_of("flash_bwd_convert_dq_kernel")).row->model, vocab::KernelId::tiled_bwd_post);
}

TEST(KernelTable, AttnscopeOwnKernelCaptures) {
  const Recognition r = recognize(name_of("tiled_bwd_kernel"));
  ASSERT_NE(r.row, nullptr);
  EXPECT_EQ(r.captures.at("block_n"), "128");  // tiled_bwd_kernel<T, D, Bc, Br, Stages>
  EXPECT_EQ(r.captures.at("block_m"), "64");
  EXPECT_EQ(r.captures.at("stages"), "2");
}

TEST(KernelTable, ShortNames) {
  EXPECT_EQ(short_kernel_name(name_of("flash_fwd_kernel")), "flash_fwd_kernel");
  EXPECT_EQ(short_kernel_name(name_of("naive_qk_kernel")), "naive_qk_kernel");
  EXPECT_EQ(short_kernel_name(name_of("fmha_cutlassF")), "fmha_cutlassF_f16_aligned_64x64_rf_sm80");
  EXPECT_EQ(short_kernel_name("attnscope_attention_fwd"), "attnscope_attention_fwd");
}

TEST(Annotation, ParsesEveryStringThePythonPackageWrites) {
  int shapes = 0, tiles = 0;
  for (const auto& fields : tab_lines("annotations.txt")) {
    ASSERT_EQ(fields.size(), 3u);
    std::istringstream expected(fields[1]);
    if (fields[0] == "shape") {
      const ParsedAnnotation p = parse_annotation(fields[2]);
      ASSERT_TRUE(p.shape) << p.error;
      EXPECT_TRUE(p.error.empty());
      AnnotatedShape want;
      int causal = 0;
      expected >> want.batch >> want.heads >> want.seq_q >> want.seq_kv >> want.head_dim >> want.dtype >>
          causal;
      EXPECT_EQ(p.shape->batch, want.batch) << fields[2];
      EXPECT_EQ(p.shape->heads, want.heads) << fields[2];
      EXPECT_EQ(p.shape->seq_q, want.seq_q) << fields[2];
      EXPECT_EQ(p.shape->seq_kv, want.seq_kv) << fields[2];
      EXPECT_EQ(p.shape->head_dim, want.head_dim) << fields[2];
      EXPECT_EQ(p.shape->dtype, want.dtype) << fields[2];
      EXPECT_EQ(p.shape->causal, causal == 1) << fields[2];
      EXPECT_EQ(format_annotation(*p.shape), fields[2]);  // the C++ writer agrees with the Python one
      ++shapes;
    } else {
      ASSERT_EQ(fields[0], "tiles");
      const ParsedTileHint h = parse_tile_hint(fields[2]);
      ASSERT_TRUE(h.hint) << h.error;
      TileHint want;
      expected >> want.block_m >> want.block_n >> want.num_warps >> want.num_stages;
      EXPECT_EQ(h.hint->block_m, want.block_m);
      EXPECT_EQ(h.hint->block_n, want.block_n);
      EXPECT_EQ(h.hint->num_warps, want.num_warps);
      EXPECT_EQ(h.hint->num_stages, want.num_stages);
      ++tiles;
    }
  }
  EXPECT_GE(shapes, 4);
  EXPECT_GE(tiles, 1);
}

TEST(Annotation, FieldsInAnyOrderAndExtraSpaces) {
  const ParsedAnnotation p = parse_annotation("attnscope:  causal=0 dtype=bf16 d=128 Nkv=77 Nq=5 H=2 B=3 ");
  ASSERT_TRUE(p.shape) << p.error;
  EXPECT_EQ(p.shape->batch, 3);
  EXPECT_EQ(p.shape->seq_q, 5);
  EXPECT_EQ(p.shape->seq_kv, 77);
  EXPECT_EQ(p.shape->dtype, "bf16");
}

TEST(Annotation, MalformedOnesSayWhy) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"B=1 H=32 Nq=4096 Nkv=4096 d=64 dtype=fp16 causal=1", "does not start with 'attnscope:'"},
      {"attnscope: B=1 H=32 Nq=4096 Nkv=4096 d=64 dtype=fp16", "'causal' is missing"},
      {"attnscope: B=1 H=32 Nq=4096 Nkv=4096 d=64 dtype=fp32 causal=1", "dtype=fp32 is not fp16 or bf16"},
      {"attnscope: B=1 H=32 Nq=4096 Nkv=4096 d=64 dtype=fp16 causal=yes", "causal=yes is not 0 or 1"},
      {"attnscope: B=0 H=32 Nq=4096 Nkv=4096 d=64 dtype=fp16 causal=1", "B=0 is not a positive integer"},
      {"attnscope: B=1 H=32x Nq=4096 Nkv=4096 d=64 dtype=fp16 causal=1", "H=32x is not a positive integer"},
      {"attnscope: B=1 B=2 H=32 Nq=4096 Nkv=4096 d=64 dtype=fp16 causal=1", "'B' is given twice"},
      {"attnscope: B=1 H=32 Nq=4096 Nkv=4096 d=64 dtype=fp16 causal=1 window=8", "unknown field 'window'"},
      {"attnscope: B=1 H=32 N=4096 d=64 dtype=fp16 causal=1", "unknown field 'N'"},
      {"attnscope: B=1 H=32 Nq 4096 Nkv=4096 d=64 dtype=fp16 causal=1", "'Nq' is not of the form key=value"},
  };
  for (const auto& [text, why] : cases) {
    const ParsedAnnotation p = parse_annotation(text);
    EXPECT_FALSE(p.shape) << text;
    EXPECT_NE(p.error.find(why), std::string::npos) << text << " -> " << p.error;
    EXPECT_NE(p.error.find(text), std::string::npos) << "the error quotes the text: " << p.error;
  }
  EXPECT_FALSE(parse_tile_hint("attnscope tiles: block_m=128 block_n=64 num_warps=4").hint);
}

TEST(Annotation, ShapeFromTheInnermostRangeWhenTheCollectorGaveNone) {
  ForeignLaunch l;
  l.nvtx_ranges = {"training step", "attnscope: B=1 H=32 Nq=4096 Nkv=4096 d=64 dtype=fp16 causal=0",
                   "attnscope: B=2 H=8 Nq=128 Nkv=128 d=128 dtype=bf16 causal=1",
                   "attnscope tiles: block_m=64 "
                   "block_n=32 num_warps=4 "
                   "num_stages=3"};
  const ParsedAnnotation s = shape_of(l);
  ASSERT_TRUE(s.shape) << s.error;
  EXPECT_EQ(s.shape->batch, 2);
  ASSERT_TRUE(tile_hint_of(l).hint);
  EXPECT_EQ(tile_hint_of(l).hint->block_n, 32);
  l.shape = llm_4k(false);  // the collector's parse wins
  EXPECT_EQ(shape_of(l).shape->batch, 1);
}

TEST(Plan, FlashAttention2ForwardGridIsQTilesBatchHeads) {
  const ForeignLaunch l = launch(name_of("flash_fwd_kernel"), {32, 1, 32}, 128);
  const PlanResult p = plan_foreign_model(l, recognize(l.demangled_name), {llm_4k(false), ""}, {});
  ASSERT_TRUE(p.plan) << p.not_modeled;
  EXPECT_EQ(p.plan->kernel, vocab::KernelId::tiled);
  EXPECT_EQ(p.plan->tiles.br, 128);
  EXPECT_EQ(p.plan->tiles.bc, 128);
  EXPECT_EQ(p.plan->tiles.warps, 4);
  EXPECT_EQ(p.plan->tiles.stages, 2);
  EXPECT_EQ(p.plan->workload.pass, vocab::Pass::fwd);
  EXPECT_EQ(grid_text(p.plan->expected_grid), "(32, 1, 32)");
}

TEST(Plan, GridMismatchIsNotModeled) {
  // attnscope's own order (q tiles, heads, batch) for FA2's kernel, and a shape whose Nq is off.
  const ForeignLaunch swapped = launch(name_of("flash_fwd_kernel"), {32, 32, 1}, 128);
  const PlanResult a =
      plan_foreign_model(swapped, recognize(swapped.demangled_name), {llm_4k(false), ""}, {});
  EXPECT_FALSE(a.plan);
  EXPECT_EQ(
      a.not_modeled,
      "not modeled: grid (32, 32, 1) does not match the annotated shape (expected (32, 1, 32) for B=1 H=32 "
      "Nq=4096 Nkv=4096 with Br128-Bc128-w4-s2)");
  const ForeignLaunch other = launch(name_of("flash_fwd_kernel"), {16, 1, 32}, 128);
  EXPECT_FALSE(plan_foreign_model(other, recognize(other.demangled_name), {llm_4k(false), ""}, {}).plan);
}

TEST(Plan, NameAndAnnotationMustAgree) {
  const ForeignLaunch causal =
      launch(name_of("flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel"), {32, 1, 32}, 256);
  const Recognition r = recognize(causal.demangled_name);
  EXPECT_NE(plan_foreign_model(causal, r, {llm_4k(false), ""}, {}).not_modeled.find("compiled causal"),
            std::string::npos);
  const PlanResult ok = plan_foreign_model(causal, r, {llm_4k(true), ""}, {});
  ASSERT_TRUE(ok.plan) << ok.not_modeled;
  EXPECT_EQ(ok.plan->kernel, vocab::KernelId::tiled_bwd);
  EXPECT_EQ(ok.plan->tiles.bwd_bc, 128);
  EXPECT_EQ(ok.plan->tiles.bwd_br, 128);
  EXPECT_EQ(ok.plan->tiles.bwd_stages, 2);
  AnnotatedShape d128 = llm_4k(true);
  d128.head_dim = 128;
  EXPECT_NE(plan_foreign_model(causal, r, {d128, ""}, {}).not_modeled.find("head dim 64"), std::string::npos);
  AnnotatedShape bf16 = llm_4k(true);
  bf16.dtype = "bf16";
  EXPECT_NE(plan_foreign_model(causal, r, {bf16, ""}, {}).not_modeled.find("compiled for fp16"),
            std::string::npos);
}

TEST(Plan, MissingShapeAndUnknownKernel) {
  const ForeignLaunch l = launch(name_of("flash_fwd_kernel"), {32, 1, 32}, 128);
  EXPECT_EQ(plan_foreign_model(l, recognize(l.demangled_name), {}, {}).not_modeled,
            "not modeled: no shape (wrap the call in attnscope.annotate(...))");
  const ForeignLaunch u = launch("ampere_bf16_s16816gemm_bf16_64x64_ldg8_f2f_stages_64x5_tn", {1, 1, 1}, 128);
  EXPECT_EQ(plan_foreign_model(u, recognize(u.demangled_name), {llm_4k(false), ""}, {}).not_modeled,
            "not modeled: unknown kernel");
  const ForeignLaunch s = launch(name_of("flash_fwd_splitkv_kernel"), {64, 4, 32}, 128);
  EXPECT_NE(plan_foreign_model(s, recognize(s.demangled_name), {llm_4k(false), ""}, {})
                .not_modeled.find("split-KV"),
            std::string::npos);
}

TEST(Plan, TritonTileFromGridBlockAndHint) {
  const ForeignLaunch l = launch("attnscope_attention_fwd", {32, 32, 1}, 128);
  const Recognition r = recognize(l.demangled_name);
  const ParsedTileHint hint =
      parse_tile_hint("attnscope tiles: block_m=128 block_n=64 num_warps=4 num_stages=3");
  const PlanResult p = plan_foreign_model(l, r, {llm_4k(true), ""}, hint);
  ASSERT_TRUE(p.plan) << p.not_modeled;
  EXPECT_EQ(p.plan->tile_label, "Br128-Bc64-w4-s3");
  EXPECT_NE(plan_foreign_model(l, r, {llm_4k(true), ""}, {}).not_modeled.find("BLOCK_N"), std::string::npos);
  const ParsedTileHint wrong_m =
      parse_tile_hint("attnscope tiles: block_m=64 block_n=64 num_warps=4 num_stages=3");
  EXPECT_FALSE(plan_foreign_model(l, r, {llm_4k(true), ""}, wrong_m).plan);
  const ParsedTileHint wrong_warps =
      parse_tile_hint("attnscope tiles: block_m=128 block_n=64 num_warps=8 num_stages=3");
  EXPECT_FALSE(plan_foreign_model(l, r, {llm_4k(true), ""}, wrong_warps).plan);
}

TEST(Plan, AttnscopeOwnKernelsUseTheVocabularyGeometry) {
  const ForeignLaunch fwd = launch(name_of("tiled_attention_kernel"), {32, 32, 1}, 128);
  const PlanResult f = plan_foreign_model(fwd, recognize(fwd.demangled_name), {llm_4k(false), ""}, {});
  ASSERT_TRUE(f.plan) << f.not_modeled;
  EXPECT_EQ(f.plan->tile_label, "Br128-Bc64-w4-s2");
  // tiled_bwd<__half, 64, Bc 128, Br 64, 2>: 8 warps, grid (Nkv / 128, H, B).
  const ForeignLaunch bwd = launch(name_of("tiled_bwd_kernel"), {32, 32, 1}, 256);
  const PlanResult b = plan_foreign_model(bwd, recognize(bwd.demangled_name), {llm_4k(true), ""}, {});
  ASSERT_TRUE(b.plan) << b.not_modeled;
  EXPECT_EQ(b.plan->tile_label, "bwd-Bc128-Br64-s2");
  const ForeignLaunch pre = launch(name_of("tiled_bwd_pre_kernel"), {128, 32, 1}, 256);
  const PlanResult pp = plan_foreign_model(pre, recognize(pre.demangled_name), {llm_4k(true), ""}, {});
  ASSERT_TRUE(pp.plan) << pp.not_modeled;  // 4096 rows / (256 / (64 / 8)) = 128 row blocks
  // The Hopper kernel at d 64's default tile (Br 128 = 2 consumers, Bc 128, 3 stages, overlapped ping-pong):
  // one CTA per (q tile, head, batch), a producer and two consumer warpgroups.
  const std::string hopper_name =
      "void attnscope::kernels::detail::hopper_attention_kernel<__half, 64, 128, 128, 2, 3, true, true, "
      "false>(attnscope::kernels::detail::HopperParams)";
  const ForeignLaunch hop = launch(hopper_name, {32, 32, 1}, 384);
  const PlanResult h = plan_foreign_model(hop, recognize(hop.demangled_name), {llm_4k(false), ""}, {});
  ASSERT_TRUE(h.plan) << h.not_modeled;
  EXPECT_EQ(h.plan->kernel, vocab::KernelId::hopper);
  EXPECT_EQ(h.plan->tile_label, "hopper-Br128-Bc128-c2-s3-pingpong");
  const ForeignLaunch hop_block = launch(hopper_name, {32, 32, 1}, 256);
  EXPECT_NE(plan_foreign_model(hop_block, recognize(hopper_name), {llm_4k(false), ""}, {})
                .not_modeled.find("the Hopper kernel with 2 consumers has 384"),
            std::string::npos);
  // The same kernel as compiled now (a persistent argument before the timeline build's), not persistent: the
  // same plan; persistent: recognised, not modeled.
  const std::string hopper_now =
      "void attnscope::kernels::detail::hopper_attention_kernel<__half, 64, 128, 128, 2, 3, true, true, "
      "false, false>(attnscope::kernels::detail::HopperParams)";
  const ForeignLaunch hop_now = launch(hopper_now, {32, 32, 1}, 384);
  const PlanResult hn =
      plan_foreign_model(hop_now, recognize(hop_now.demangled_name), {llm_4k(false), ""}, {});
  ASSERT_TRUE(hn.plan) << hn.not_modeled;
  EXPECT_EQ(hn.plan->tile_label, "hopper-Br128-Bc128-c2-s3-pingpong");
  const std::string persistent_name =
      "void attnscope::kernels::detail::hopper_attention_kernel<__half, 128, 128, 128, 2, 2, true, true, "
      "true, false>(attnscope::kernels::detail::HopperParams)";
  const ForeignLaunch hop_p = launch(persistent_name, {132, 1, 1}, 384);
  const PlanResult hp = plan_foreign_model(hop_p, recognize(hop_p.demangled_name), {llm_4k(false), ""}, {});
  EXPECT_FALSE(hp.plan);
  EXPECT_NE(hp.not_modeled.find("persistent"), std::string::npos) << hp.not_modeled;
  // naive.qk: 128 x 128 S tiles, 4 per CTA along x: (32 / 4, 4096 / 128, B * H), 8 warps.
  const ForeignLaunch qk = launch(name_of("naive_qk_kernel"), {8, 32, 32}, 256);
  const PlanResult q = plan_foreign_model(qk, recognize(qk.demangled_name), {llm_4k(false), ""}, {});
  ASSERT_TRUE(q.plan) << q.not_modeled;
  EXPECT_EQ(q.plan->kernel, vocab::KernelId::naive_qk);
  const ForeignLaunch qk_block = launch(name_of("naive_qk_kernel"), {8, 32, 32}, 128);
  EXPECT_NE(plan_foreign_model(qk_block, recognize(qk_block.demangled_name), {llm_4k(false), ""}, {})
                .not_modeled.find("block has 128 threads"),
            std::string::npos);
}

TEST(KernelTable, LongNamesOfOtherKernelsAreUnknownQuickly) {
  // PyTorch's elementwise kernels have demangled names of thousands of characters (nested lambdas).
  std::string name = "void at::native::elementwise_kernel<128, 4, ";
  for (int i = 0; i < 400; ++i) name += "at::native::gpu_kernel_impl<at::native::CUDAFunctor<c10::Half> >, ";
  name += "int>(int)";
  EXPECT_EQ(recognize(name).row, nullptr);
  // A partial match that runs into a very long template argument (std::regex recurses once per character).
  const std::string fa2 = name_of("flash_fwd_kernel");
  std::string huge =
      fa2.substr(0, fa2.find("pytorch_flash::Flash_kernel_traits<") + 35) + std::string(200'000, 'a');
  EXPECT_EQ(recognize(huge).row, nullptr);
  EXPECT_EQ(recognize(std::string(200'000, 'x')).row, nullptr);
}

TEST(Plan, MalformedAnnotationAndBackwardWarpsSayWhy) {
  ForeignLaunch l = launch(name_of("flash_fwd_kernel"), {32, 1, 32}, 128);
  l.nvtx_ranges = {"attnscope: B=1 H=32 Nq=4096 d=64 dtype=fp16 causal=0"};
  const PlanResult p = plan_foreign_model(l, recognize(l.demangled_name), shape_of(l), {});
  EXPECT_EQ(p.not_modeled.rfind("not modeled: annotation 'attnscope: B=1 H=32 Nq=4096 d=64", 0), 0u)
      << p.not_modeled;
  EXPECT_NE(p.not_modeled.find("'Nkv' is missing"), std::string::npos) << p.not_modeled;

  // A seqk-parallel backward with kBlockN 128 on 4 warps: attnscope's tiled_bwd has one warp per 16 keys.
  const std::string four_warps =
      "void "
      "pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::Flash_bwd_kernel_traits<64,"
      " "
      "64, 128, 4, 2, 4, 2, false, false, cutlass::half_t, pytorch_flash::Flash_kernel_traits<64, 64, 128, "
      "4, "
      "cutlass::half_t> >, false, false, false, true, true>(pytorch_flash::Flash_bwd_params)";
  const ForeignLaunch b = launch(four_warps, {32, 1, 32}, 128);
  EXPECT_NE(plan_foreign_model(b, recognize(b.demangled_name), {llm_4k(false), ""}, {})
                .not_modeled.find("one warp per 16 keys"),
            std::string::npos);
  // No_double_buffer: a one-stage ring.
  std::string single = name_of("flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel");
  single.replace(single.find("4, 4, 4, false, false"), 21, "4, 4, 4, false, true");
  const ForeignLaunch s = launch(single, {32, 1, 32}, 256);
  const PlanResult sp = plan_foreign_model(s, recognize(s.demangled_name), {llm_4k(true), ""}, {});
  ASSERT_TRUE(sp.plan) << sp.not_modeled;
  EXPECT_EQ(sp.plan->tiles.bwd_stages, 1);
}

TEST(KernelTable, IsLocalOnlyWhereTheVersionHasIt) {
  const std::string traits =
      "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, "
      "false, "
      "cutlass::half_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::half_t> >, ";
  // FlashAttention 2.0's five booleans: the third is Is_even_MN, not a window.
  EXPECT_FALSE(recognize(traits + "false, true, true, true, false>(pytorch_flash::Flash_fwd_params)")
                   .captures.count("local"));
  // Six (Is_local added) and eight (Has_alibi, Is_softcap): the third is Is_local.
  const Recognition six =
      recognize(traits + "false, false, true, false, true, false>(pytorch_flash::Flash_fwd_params)");
  EXPECT_EQ(six.captures.at("local"), "true");
  const Recognition eight = recognize(
      traits + "false, true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)");
  EXPECT_EQ(eight.captures.at("local"), "false");
  const ForeignLaunch l = launch(
      traits + "false, false, true, false, true, false>(pytorch_flash::Flash_fwd_params)", {32, 1, 32}, 128);
  EXPECT_NE(plan_foreign_model(l, recognize(l.demangled_name), {llm_4k(false), ""}, {})
                .not_modeled.find("sliding window"),
            std::string::npos);
}
