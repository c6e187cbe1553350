// SPDX-License-Identifier: Apache-2.0
// GPU tests of the backward kernels: tiled (recomputation) and naive (stored P) gradients dQ, dK, dV
// against the float64 reference on fresh random inputs (seed printed), every output poisoned with NaN before
// the launch and every element checked; awkward lengths, causal both ways (rows that see no key), every
// compiled tiled configuration, and refusals with the right StatusCode.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "attnscope/kernels/backward.hpp"
#include "gpu_test_support.hpp"

namespace attnscope::kernels::testing {
namespace {

// Norm-wise bound of a gradient against the float64 reference. The kernels round P, dS (and dP, for the
// naive one) to the input dtype before the products that use them, so the bound is a few units in the last
// place of the dtype: 2^-11 (fp16) and 2^-8 (bf16) times a small constant.
double gradient_bound(DType dtype) {
  return dtype == DType::bf16 ? 3e-2 : 1e-2;
}

class BwdProblem {
 public:
  BwdProblem(const AttentionShape& shape, unsigned seed) : s_(shape) {
    std::mt19937 rng(seed);
    const std::size_t bh = static_cast<std::size_t>(shape.batch) * shape.heads;
    nq_ = bh * shape.seq_q * shape.head_dim;
    nkv_ = bh * shape.seq_kv * shape.head_dim;
    rows_ = bh * shape.seq_q;
    q_ = random_tensor(nq_, shape.dtype, rng);
    k_ = random_tensor(nkv_, shape.dtype, rng);
    v_ = random_tensor(nkv_, shape.dtype, rng);
    do_ = random_tensor(nq_, shape.dtype, rng);
    const std::size_t nss = rows_ * static_cast<std::size_t>(shape.seq_kv) * 2;
    for (auto* b : {&q, &o, &dout, &dq}) *b = std::make_unique<DeviceBuffer>(nq_ * 2);
    for (auto* b : {&k, &v, &dk, &dv}) *b = std::make_unique<DeviceBuffer>(nkv_ * 2);
    lse = std::make_unique<DeviceBuffer>(rows_ * sizeof(float));
    s = std::make_unique<DeviceBuffer>(nss);
    ds = std::make_unique<DeviceBuffer>(nss);
    std::size_t ws = 0;
    for (const TiledBwdConfig& c : compiled_tiled_bwd_configs(shape.head_dim, shape.dtype))
      ws = std::max(ws, tiled_bwd_workspace_bytes(shape, c));
    // The general-mask kernels have their own tile: its workspace too.
    ws = std::max(ws, tiled_bwd_workspace_bytes(shape, vocab::general_mask_tiled_bwd_config()));
    workspace = std::make_unique<DeviceBuffer>(ws);
    if (shape.alibi) slopes_ = alibi_slopes(shape.heads);
    slopes = std::make_unique<DeviceBuffer>(std::max<std::size_t>(slopes_.size(), 1) * sizeof(float));
    ok_ = slopes->get() &&
          cudaMemcpy(slopes->get(), slopes_.data(), slopes_.size() * sizeof(float), cudaMemcpyHostToDevice) ==
              cudaSuccess &&
          q->get() && k->get() && v->get() && o->get() && dout->get() && dq->get() && dk->get() &&
          dv->get() && lse->get() && s->get() && ds->get() && workspace->get() &&
          cudaMemcpy(q->get(), q_.bits.data(), nq_ * 2, cudaMemcpyHostToDevice) == cudaSuccess &&
          cudaMemcpy(k->get(), k_.bits.data(), nkv_ * 2, cudaMemcpyHostToDevice) == cudaSuccess &&
          cudaMemcpy(v->get(), v_.bits.data(), nkv_ * 2, cudaMemcpyHostToDevice) == cudaSuccess &&
          cudaMemcpy(dout->get(), do_.bits.data(), nq_ * 2, cudaMemcpyHostToDevice) == cudaSuccess;
  }
  bool ok() const { return ok_; }
  const AttentionShape& shape() const { return s_; }
  DeviceTensors forward_tensors() const {
    return DeviceTensors{q->get(), k->get(),    v->get(), o->get(), static_cast<float*>(lse->get()),
                         s->get(), slopes_arg()};
  }
  const float* slopes_arg() const { return s_.alibi ? static_cast<const float*>(slopes->get()) : nullptr; }
  BackwardTensors backward_tensors() const {
    BackwardTensors t;
    t.q = q->get();
    t.k = k->get();
    t.v = v->get();
    t.o = o->get();
    t.lse = static_cast<const float*>(lse->get());
    t.d_o = dout->get();
    t.p = s->get();
    t.dq = dq->get();
    t.dk = dk->get();
    t.dv = dv->get();
    t.workspace = workspace->get();
    t.ds = ds->get();
    t.alibi_slopes = slopes_arg();
    return t;
  }
  bool poison_gradients() const {
    for (const auto* b : {&dq, &dk, &dv, &ds, &workspace})
      if (cudaMemset((*b)->get(), kPoisonByte, (*b)->bytes()) != cudaSuccess) return false;
    return true;
  }
  // Every element of dQ, dK and dV against the reference.
  void expect_gradients_match(const std::string& what) {
    if (ref_dq_.empty()) {
      ref_dq_.resize(nq_);
      ref_dk_.resize(nkv_);
      ref_dv_.resize(nkv_);
      attention_backward_reference(s_, q_.values.data(), k_.values.data(), v_.values.data(),
                                   do_.values.data(), ref_dq_.data(), ref_dk_.data(), ref_dv_.data(),
                                   s_.alibi ? slopes_.data() : nullptr);
    }
    const struct {
      const char* name;
      const DeviceBuffer& buffer;
      const std::vector<double>& ref;
    } grads[] = {{"dQ", *dq, ref_dq_}, {"dK", *dk, ref_dk_}, {"dV", *dv, ref_dv_}};
    for (const auto& gr : grads) {
      std::vector<std::uint16_t> bits(gr.ref.size());
      ASSERT_EQ(cudaMemcpy(bits.data(), gr.buffer.get(), bits.size() * 2, cudaMemcpyDeviceToHost),
                cudaSuccess);
      const ErrorStats e = compare(to_floats(bits, s_.dtype), gr.ref);
      EXPECT_EQ(e.non_finite, 0u) << what << " " << gr.name << ": elements left unwritten or non-finite";
      if (std::all_of(gr.ref.begin(), gr.ref.end(), [](double x) { return x == 0.0; })) {
        // An exactly zero gradient (a window of one key: P is one-hot, so dS = dP_ii - D_i = 0 in exact
        // arithmetic): no relative error exists; the kernel's values must be at the rounding level of the
        // terms that cancel, a few units in the last place of dP_ii and D_i times scale |K| (or |Q|).
        const double bound = 4.0 * unit_roundoff() * s_.scale * cancelled_term_bound() * max_abs_input();
        EXPECT_LE(e.max_abs, bound) << what << " " << gr.name << " (exact gradient 0)";
        std::printf("[ error    ] %-58s %s exact 0: max|g| = %.3e (rounding bound %.3e)\n", what.c_str(),
                    gr.name, e.max_abs, bound);
        continue;
      }
      EXPECT_LE(e.rel_norm, gradient_bound(s_.dtype)) << what << " " << gr.name;
      std::printf("[ error    ] %-58s %s ||g-ref||/||ref|| = %.3e  max|g-ref| = %.3e\n", what.c_str(),
                  gr.name, e.rel_norm, e.max_abs);
    }
  }

  // 2^-11 (fp16) or 2^-8 (bf16): the rounding of one stored value.
  double unit_roundoff() const { return s_.dtype == DType::bf16 ? 0x1p-8 : 0x1p-11; }
  // max over rows of |dP_ii| + |D_i| for the one key a row sees (window of one): both are dO_i . V_j.
  double cancelled_term_bound() const {
    double m = 0.0;
    const std::size_t d = static_cast<std::size_t>(s_.head_dim);
    const std::size_t bh = static_cast<std::size_t>(s_.batch) * s_.heads;
    for (std::size_t h = 0; h < bh; ++h)
      for (std::size_t i = 0; i < static_cast<std::size_t>(s_.seq_q); ++i) {
        const KeyBand band = key_band(s_, i);
        for (std::size_t j = band.first; j < band.end; ++j) {
          double dot = 0.0;
          for (std::size_t c = 0; c < d; ++c)
            dot += double{do_.values[(h * s_.seq_q + i) * d + c]} *
                   double{v_.values[(h * s_.seq_kv + j) * d + c]};
          m = std::max(m, 2.0 * std::fabs(dot));
        }
      }
    return m;
  }
  double max_abs_input() const {
    double m = 0.0;
    for (const auto* t : {&q_, &k_})
      for (const float x : t->values) m = std::max(m, double{std::fabs(x)});
    return m;
  }

  // O and LSE of the forward pass that ran last, every element against the reference (the LSE of rows that
  // see no key must be -inf).
  void expect_forward_match(const std::string& what, bool check_lse = true) {
    const std::size_t rows = rows_;
    if (ref_o_.empty()) {
      ref_o_.resize(nq_);
      ref_lse_.resize(rows);
      attention_reference(s_, q_.values.data(), k_.values.data(), v_.values.data(), ref_o_.data(),
                          ref_lse_.data(), s_.alibi ? slopes_.data() : nullptr);
    }
    std::vector<std::uint16_t> bits(nq_);
    ASSERT_EQ(cudaMemcpy(bits.data(), o->get(), nq_ * 2, cudaMemcpyDeviceToHost), cudaSuccess);
    const ErrorStats e = compare(to_floats(bits, s_.dtype), ref_o_);
    EXPECT_EQ(e.non_finite, 0u) << what << " O";
    EXPECT_LE(e.max_abs, elementwise_bound(s_.dtype)) << what << " O";
    if (!check_lse) {
      std::printf("[ error    ] %-58s O max|o-ref| = %.3e\n", what.c_str(), e.max_abs);
      return;
    }
    std::vector<float> l(rows);
    ASSERT_EQ(cudaMemcpy(l.data(), lse->get(), rows * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    double worst = 0.0;
    std::size_t wrong_inf = 0;
    for (std::size_t i = 0; i < rows; ++i) {
      if (std::isinf(ref_lse_[i]) || std::isinf(l[i]) || std::isnan(l[i])) {
        wrong_inf += !(std::isinf(ref_lse_[i]) && std::isinf(l[i]) && l[i] < 0);
        continue;
      }
      worst = std::max(worst, std::fabs(static_cast<double>(l[i]) - ref_lse_[i]));
    }
    EXPECT_EQ(wrong_inf, 0u) << what << " LSE: rows with no visible key must be -inf, the others finite";
    EXPECT_LE(worst, 1e-3) << what << " LSE";
    std::printf("[ error    ] %-58s O max|o-ref| = %.3e  LSE max|err| = %.3e\n", what.c_str(), e.max_abs,
                worst);
  }

  std::unique_ptr<DeviceBuffer> q, k, v, o, dout, dq, dk, dv, lse, s, ds, workspace, slopes;

 private:
  AttentionShape s_;
  std::vector<float> slopes_;
  std::vector<double> ref_o_, ref_lse_;
  std::size_t nq_ = 0, nkv_ = 0, rows_ = 0;
  HostTensor q_, k_, v_, do_;
  std::vector<double> ref_dq_, ref_dk_, ref_dv_;
  bool ok_ = false;
};

AttentionShape bwd_shape(int b, int h, int nq, int nkv, int d, DType dtype, bool causal) {
  return AttentionShape{b, h, nq, nkv, d, dtype, causal, 1.0f / std::sqrt(static_cast<float>(d))};
}

void run_tiled_bwd(BwdProblem& p, const TiledBwdConfig& c) {
  const TiledConfig fwd =
      p.shape().general_mask() ? vocab::general_mask_tiled_config(p.shape().head_dim) : TiledConfig{};
  const Status f = launch_tiled(p.shape(), fwd, p.forward_tensors(), TileWindow{}, nullptr, nullptr);
  ASSERT_TRUE(f) << f.message;
  ASSERT_TRUE(p.poison_gradients());
  const Status st = launch_tiled_backward(p.shape(), c, p.backward_tensors(), nullptr);
  ASSERT_TRUE(st) << st.message;
  ATTN_CUDA_CHECK(cudaDeviceSynchronize());
}

void run_naive_bwd(BwdProblem& p) {
  for (const auto launch : {&launch_naive_qk, &launch_naive_softmax, &launch_naive_pv}) {
    const Status st = launch(p.shape(), p.forward_tensors(), TileWindow{}, nullptr, nullptr);
    ASSERT_TRUE(st) << st.message;
  }
  ASSERT_TRUE(p.poison_gradients());
  const Status st = launch_naive_backward(p.shape(), p.backward_tensors(), nullptr);
  ASSERT_TRUE(st) << st.message;
  ATTN_CUDA_CHECK(cudaDeviceSynchronize());
}

struct Case {
  int b, h, nq, nkv, d;
  DType dtype;
  bool causal;
};
// Lengths not multiples of any tile, Nkv not a multiple of 8 (unaligned rows of P and dS), causal with Nq !=
// Nkv both ways (rows that see no key when Nq > Nkv; kv tiles no row sees when Nq < Nkv is not possible
// bottom-right aligned, but whole q tiles before the diagonal are skipped), batch > 1, one query row.
const Case kShapes[] = {
    {1, 2, 197, 197, 64, DType::fp16, false},   {1, 2, 197, 197, 128, DType::bf16, true},
    {1, 2, 1000, 1000, 128, DType::fp16, true}, {1, 2, 1000, 1000, 64, DType::bf16, false},
    {2, 2, 300, 1000, 64, DType::fp16, true},   {2, 1, 1000, 300, 128, DType::bf16, true},
    {1, 3, 256, 512, 64, DType::bf16, true},    {1, 1, 1, 77, 128, DType::fp16, false},
    {1, 1, 1531, 1531, 64, DType::fp16, true},  {1, 1, 130, 141, 128, DType::fp16, false},
};

TEST(TiledBackward, MatchesReferenceOnAwkwardShapes) {
  const unsigned seed = fresh_seed();
  for (const Case& c : kShapes) {
    BwdProblem p(bwd_shape(c.b, c.h, c.nq, c.nkv, c.d, c.dtype, c.causal), seed);
    ASSERT_TRUE(p.ok());
    const TiledBwdConfig cfg = default_tiled_bwd_config(c.d);
    run_tiled_bwd(p, cfg);
    p.expect_gradients_match("tiled bwd " + describe(p.shape()));
  }
}

TEST(TiledBackward, EveryCompiledConfig) {
  const unsigned seed = fresh_seed();
  for (const int d : {64, 128}) {
    for (const DType dtype : {DType::fp16, DType::bf16}) {
      for (const bool causal : {false, true}) {
        BwdProblem p(bwd_shape(1, 2, 333, causal ? 400 : 259, d, dtype, causal), seed);
        ASSERT_TRUE(p.ok());
        const auto configs = compiled_tiled_bwd_configs(d, dtype);
        ASSERT_FALSE(configs.empty());
        for (const TiledBwdConfig& c : configs) {
          run_tiled_bwd(p, c);
          p.expect_gradients_match("tiled bwd Bc=" + std::to_string(c.bc) + " Br=" + std::to_string(c.br) +
                                   " " + describe(p.shape()));
        }
      }
    }
  }
}

// The instrumented build of tiled_bwd (the profiler's timeline) computes the same gradients, and writes one
// record per (kv tile CTA, visited q tile) step at its documented index, keys matching, times ordered; the
// pre and post kernels refuse a timeline.
TEST(TiledBackward, InstrumentedMainKernelMatchesAndRecordsEveryStep) {
  const unsigned seed = fresh_seed();
  for (const int d : {64, 128}) {
    for (const bool causal : {false, true}) {
      BwdProblem p(bwd_shape(1, 2, 333, causal ? 400 : 259, d, DType::fp16, causal), seed);
      ASSERT_TRUE(p.ok());
      const AttentionShape& sh = p.shape();
      const TiledBwdConfig cfg = default_tiled_bwd_config(d);
      ASSERT_TRUE(tiled_bwd_instrumented_compiled(d, DType::fp16, cfg));
      const std::size_t capacity = tiled_bwd_timeline_capacity(sh, cfg);
      DeviceBuffer records(capacity * sizeof(TileTiming));
      ASSERT_NE(records.get(), nullptr);
      ATTN_CUDA_CHECK(cudaMemset(records.get(), 0, capacity * sizeof(TileTiming)));
      auto* timeline = static_cast<TileTiming*>(records.get());
      const Status f = launch_tiled(sh, TiledConfig{}, p.forward_tensors(), TileWindow{}, nullptr, nullptr);
      ASSERT_TRUE(f) << f.message;
      ASSERT_TRUE(p.poison_gradients());
      using vocab::KernelId;
      EXPECT_FALSE(
          launch_backward_kernel(KernelId::tiled_bwd_pre, sh, cfg, p.backward_tensors(), nullptr, timeline));
      for (const KernelId id : {KernelId::tiled_bwd_pre, KernelId::tiled_bwd, KernelId::tiled_bwd_post}) {
        const Status st = launch_backward_kernel(id, sh, cfg, p.backward_tensors(), nullptr,
                                                 id == KernelId::tiled_bwd ? timeline : nullptr);
        ASSERT_TRUE(st) << st.message;
      }
      ATTN_CUDA_CHECK(cudaDeviceSynchronize());
      p.expect_gradients_match("instrumented tiled bwd " + describe(sh));
      std::vector<TileTiming> got(capacity);
      ATTN_CUDA_CHECK(
          cudaMemcpy(got.data(), records.get(), capacity * sizeof(TileTiming), cudaMemcpyDeviceToHost));
      const int q_tiles = (sh.seq_q + cfg.br - 1) / cfg.br, kv_tiles = (sh.seq_kv + cfg.bc - 1) / cfg.bc;
      std::size_t expected = 0, written = 0, wrong = 0;
      for (int h = 0; h < sh.heads; ++h)
        for (int j = 0; j < kv_tiles; ++j) {
          const int first = vocab::bwd_first_q_tile<int>(cfg.br, cfg.bc, sh.seq_q, sh.seq_kv,
                                                         causal ? vocab::Mask::causal : vocab::Mask::none, j);
          for (int i = 0; i < q_tiles; ++i) {
            const TileTiming& r = got[(static_cast<std::size_t>(h) * kv_tiles + j) * q_tiles + i];
            const bool visited = i >= std::min(first, q_tiles - 1);
            expected += visited;
            if (r.start_ns == 0 && r.end_ns == 0) continue;
            ++written;
            wrong += !visited || r.batch != 0 || r.head != static_cast<unsigned>(h) ||
                     r.q_tile != static_cast<unsigned>(i) || r.kv_tile != static_cast<unsigned>(j) ||
                     r.end_ns < r.start_ns;
          }
        }
      EXPECT_EQ(written, expected) << describe(sh);
      EXPECT_EQ(wrong, 0u) << describe(sh);
    }
  }
}

// Beyond the shared shapes: rows of P and dS shorter than the 8 elements naive_bwd.ds runs before a row's
// first 16-byte boundary (Nkv 5), and rows of 13 keys (every row starts at a different offset mod 8).
const Case kNaiveOnlyShapes[] = {
    {1, 2, 40, 5, 64, DType::fp16, false},
    {1, 1, 9, 13, 128, DType::bf16, true},
};

TEST(NaiveBackward, MatchesReferenceOnAwkwardShapes) {
  const unsigned seed = fresh_seed();
  std::vector<Case> shapes(std::begin(kShapes), std::end(kShapes));
  shapes.insert(shapes.end(), std::begin(kNaiveOnlyShapes), std::end(kNaiveOnlyShapes));
  for (const Case& c : shapes) {
    BwdProblem p(bwd_shape(c.b, c.h, c.nq, c.nkv, c.d, c.dtype, c.causal), seed);
    ASSERT_TRUE(p.ok());
    run_naive_bwd(p);
    p.expect_gradients_match("naive bwd " + describe(p.shape()));
  }
}

// Sliding window and ALiBi, forward and backward, tiled and naive: windows of 1 key, narrower than a tile,
// wider than one, wider than the sequence; ALiBi alone (not causal), with causal and with a window; Nq != Nkv
// both ways; unaligned lengths; both dtypes and head dims.
struct MaskCase {
  int b, h, nq, nkv, d;
  DType dtype;
  bool causal;
  int window;
  bool alibi;
};
const MaskCase kMaskShapes[] = {
    {1, 2, 333, 333, 64, DType::fp16, true, 1, false},
    {1, 2, 500, 500, 64, DType::fp16, true, 100, false},
    {1, 2, 300, 700, 128, DType::bf16, true, 129, false},
    {2, 1, 700, 300, 64, DType::bf16, true, 257, false},
    {1, 2, 257, 257, 128, DType::fp16, true, 5000, false},
    {1, 4, 400, 400, 64, DType::fp16, false, 0, true},
    {1, 4, 331, 411, 128, DType::bf16, true, 0, true},
    {1, 3, 600, 450, 64, DType::bf16, true, 200, true},
    {1, 2, 1031, 1031, 128, DType::fp16, true, 300, true},
    {2, 2, 97, 141, 64, DType::fp16, false, 0, true},
};

AttentionShape mask_shape(const MaskCase& c) {
  AttentionShape s = bwd_shape(c.b, c.h, c.nq, c.nkv, c.d, c.dtype, c.causal);
  s.window = c.window;
  s.alibi = c.alibi;
  return s;
}

TEST(Masks, TiledForwardAndBackwardMatchTheReference) {
  const unsigned seed = fresh_seed();
  for (const MaskCase& c : kMaskShapes) {
    BwdProblem p(mask_shape(c), seed);
    ASSERT_TRUE(p.ok());
    ATTN_CUDA_CHECK(cudaMemset(p.o->get(), kPoisonByte, p.o->bytes()));
    ATTN_CUDA_CHECK(cudaMemset(p.lse->get(), kPoisonByte, p.lse->bytes()));
    run_tiled_bwd(p, vocab::general_mask_tiled_bwd_config());
    p.expect_forward_match("tiled fwd " + describe(p.shape()));
    p.expect_gradients_match("tiled bwd " + describe(p.shape()));
  }
}

TEST(Masks, NaiveForwardAndBackwardMatchTheReference) {
  const unsigned seed = fresh_seed();
  for (const MaskCase& c : kMaskShapes) {
    BwdProblem p(mask_shape(c), seed);
    ASSERT_TRUE(p.ok());
    ATTN_CUDA_CHECK(cudaMemset(p.o->get(), kPoisonByte, p.o->bytes()));
    ATTN_CUDA_CHECK(cudaMemset(p.s->get(), kPoisonByte, p.s->bytes()));
    run_naive_bwd(p);
    p.expect_forward_match("naive fwd " + describe(p.shape()), false);  // the naive forward writes no LSE
    p.expect_gradients_match("naive bwd " + describe(p.shape()));
  }
}

TEST(Masks, LaunchersRefuseWhatIsNotCompiled) {
  MaskCase c{1, 2, 128, 128, 64, DType::fp16, true, 32, true};
  BwdProblem p(mask_shape(c), 1u);
  ASSERT_TRUE(p.ok());
  const TiledConfig other{64, 64, 4, 2};
  const Status tile = launch_tiled(p.shape(), other, p.forward_tensors(), TileWindow{}, nullptr, nullptr);
  EXPECT_EQ(tile.code, StatusCode::config_not_compiled) << tile.message;
  EXPECT_NE(tile.message.find("one tile only"), std::string::npos) << tile.message;
  const Status bwd_tile =
      launch_tiled_backward(p.shape(), TiledBwdConfig{64, 64, 2}, p.backward_tensors(), nullptr);
  EXPECT_EQ(bwd_tile.code, StatusCode::config_not_compiled) << bwd_tile.message;
  DeviceTensors no_slopes = p.forward_tensors();
  no_slopes.alibi_slopes = nullptr;
  const Status slopes = launch_tiled(p.shape(), TiledConfig{}, no_slopes, TileWindow{}, nullptr, nullptr);
  EXPECT_EQ(slopes.code, StatusCode::bad_shape) << slopes.message;
  AttentionShape open = p.shape();
  open.causal = false;
  const Status window =
      launch_tiled(open, TiledConfig{}, p.forward_tensors(), TileWindow{}, nullptr, nullptr);
  EXPECT_EQ(window.code, StatusCode::bad_shape) << window.message;
  TileTiming timeline[64];
  const Status timed = launch_naive_softmax(p.shape(), p.forward_tensors(), TileWindow{}, timeline, nullptr);
  EXPECT_EQ(timed.code, StatusCode::config_not_compiled) << timed.message;
}

TEST(Backward, LaunchersRefuseBadInput) {
  BwdProblem p(bwd_shape(1, 1, 64, 64, 64, DType::fp16, false), 1u);
  ASSERT_TRUE(p.ok());
  BackwardTensors t = p.backward_tensors();
  const Status bad_tile = launch_tiled_backward(p.shape(), TiledBwdConfig{96, 64, 2}, t, nullptr);
  EXPECT_EQ(bad_tile.code, StatusCode::config_not_compiled) << bad_tile.message;
  EXPECT_NE(bad_tile.message.find("compiled: "), std::string::npos) << bad_tile.message;
  AttentionShape d80 = p.shape();
  d80.head_dim = 80;
  EXPECT_EQ(launch_tiled_backward(d80, default_tiled_bwd_config(64), t, nullptr).code, StatusCode::bad_shape);
  AttentionShape zero = p.shape();
  zero.seq_q = 0;
  EXPECT_EQ(launch_naive_backward(zero, t, nullptr).code, StatusCode::bad_shape);
  t.workspace = static_cast<char*>(t.workspace) + 4;
  EXPECT_EQ(launch_tiled_backward(p.shape(), default_tiled_bwd_config(64), t, nullptr).code,
            StatusCode::misaligned);
  t = p.backward_tensors();
  t.p = nullptr;
  const Status no_p = launch_naive_backward(p.shape(), t, nullptr);
  EXPECT_EQ(no_p.code, StatusCode::misaligned);
  EXPECT_NE(no_p.message.find("naive forward"), std::string::npos) << no_p.message;
}

// Long context (131072 tokens, d 128, one head): the tiled forward and backward run, no element of O, dQ,
// dK or dV is left NaN (all poisoned first), and sampled rows of O and dQ match a float64 reference of
// those rows (a row's reference needs only its own scores: O(Nkv d); whole dK and dV references would need
// the N x N work on the CPU).
TEST(TiledBackward, LongContextSampledRows) {
  const unsigned seed = fresh_seed();
  for (const bool causal : {false, true}) {
    const AttentionShape s = bwd_shape(1, 1, 131072, 131072, 128, DType::fp16, causal);
    std::mt19937 rng(seed + (causal ? 1u : 0u));
    const std::size_t n = static_cast<std::size_t>(s.seq_q) * s.head_dim;
    const HostTensor q = random_tensor(n, s.dtype, rng), k = random_tensor(n, s.dtype, rng),
                     v = random_tensor(n, s.dtype, rng), d_o = random_tensor(n, s.dtype, rng);
    DeviceBuffer q_dev(n * 2), k_dev(n * 2), v_dev(n * 2), o(n * 2), ddo(n * 2), dq(n * 2), dk(n * 2),
        dv(n * 2), lse(static_cast<std::size_t>(s.seq_q) * 4),
        ws(tiled_bwd_workspace_bytes(s, default_tiled_bwd_config(128)));
    for (auto [buf, t] :
         {std::pair{&q_dev, &q}, std::pair{&k_dev, &k}, std::pair{&v_dev, &v}, std::pair{&ddo, &d_o}})
      ATTN_CUDA_CHECK(cudaMemcpy(buf->get(), t->bits.data(), n * 2, cudaMemcpyHostToDevice));
    for (auto* b : {&o, &dq, &dk, &dv}) ATTN_CUDA_CHECK(cudaMemset(b->get(), kPoisonByte, b->bytes()));
    const DeviceTensors fwd{q_dev.get(), k_dev.get(), v_dev.get(), o.get(), static_cast<float*>(lse.get()),
                            nullptr};
    const Status f = launch_tiled(s, TiledConfig{}, fwd, TileWindow{}, nullptr, nullptr);
    ASSERT_TRUE(f) << f.message;
    BackwardTensors t;
    t.q = q_dev.get();
    t.k = k_dev.get();
    t.v = v_dev.get();
    t.o = o.get();
    t.lse = static_cast<const float*>(lse.get());
    t.d_o = ddo.get();
    t.dq = dq.get();
    t.dk = dk.get();
    t.dv = dv.get();
    t.workspace = ws.get();
    const Status b = launch_tiled_backward(s, default_tiled_bwd_config(128), t, nullptr);
    ASSERT_TRUE(b) << b.message;
    ATTN_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::uint16_t> o_bits(n), dq_bits(n), dk_bits(n), dv_bits(n);
    for (auto [host, dev] : {std::pair{&o_bits, &o}, std::pair{&dq_bits, &dq}, std::pair{&dk_bits, &dk},
                             std::pair{&dv_bits, &dv}})
      ATTN_CUDA_CHECK(cudaMemcpy(host->data(), dev->get(), n * 2, cudaMemcpyDeviceToHost));
    for (const auto* bits : {&o_bits, &dq_bits, &dk_bits, &dv_bits}) {
      std::size_t bad = 0;
      for (const std::uint16_t x : *bits) bad += std::isfinite(from_dtype_bits(x, s.dtype)) ? 0 : 1;
      EXPECT_EQ(bad, 0u) << "non-finite or unwritten elements at 131072 tokens" << (causal ? " causal" : "");
    }
    // Sampled rows: O and dQ of row i from the definitions, in float64.
    const int d = s.head_dim;
    std::vector<double> p(static_cast<std::size_t>(s.seq_kv)), dp(p.size());
    std::vector<float> got_o, got_dq;
    std::vector<double> ref_o, ref_dq;
    for (const int row : {0, 1, 4097, 65535, 100003, 131071}) {
      const int visible = causal ? row + 1 : s.seq_kv;
      double mx = -INFINITY;
      for (int j = 0; j < visible; ++j) {
        double dot = 0;
        for (int c = 0; c < d; ++c)
          dot += double{q.values[row * d + c]} * k.values[static_cast<std::size_t>(j) * d + c];
        p[j] = dot * s.scale;
        mx = std::max(mx, p[j]);
      }
      double sum = 0;
      for (int j = 0; j < visible; ++j) sum += (p[j] = std::exp(p[j] - mx));
      std::vector<double> oi(d, 0.0), dqi(d, 0.0);
      double rowsum = 0;
      for (int j = 0; j < visible; ++j) {
        p[j] /= sum;
        double dot = 0;
        for (int c = 0; c < d; ++c) {
          oi[c] += p[j] * v.values[static_cast<std::size_t>(j) * d + c];
          dot += double{d_o.values[row * d + c]} * v.values[static_cast<std::size_t>(j) * d + c];
        }
        dp[j] = dot;
        rowsum += p[j] * dot;
      }
      for (int j = 0; j < visible; ++j) {
        const double ds = p[j] * (dp[j] - rowsum);
        for (int c = 0; c < d; ++c) dqi[c] += s.scale * ds * k.values[static_cast<std::size_t>(j) * d + c];
      }
      for (int c = 0; c < d; ++c) {
        got_o.push_back(from_dtype_bits(o_bits[static_cast<std::size_t>(row) * d + c], s.dtype));
        got_dq.push_back(from_dtype_bits(dq_bits[static_cast<std::size_t>(row) * d + c], s.dtype));
        ref_o.push_back(oi[c]);
        ref_dq.push_back(dqi[c]);
      }
    }
    const ErrorStats eo = compare(got_o, ref_o), edq = compare(got_dq, ref_dq);
    EXPECT_LE(eo.rel_norm, 1e-2) << "O at 131072 tokens";
    EXPECT_LE(edq.rel_norm, gradient_bound(s.dtype)) << "dQ at 131072 tokens";
    std::printf(
        "[ error    ] 131072 tokens%s: sampled rows ||O-ref||/||ref|| = %.3e, ||dQ-ref||/||ref|| = %.3e\n",
        causal ? " causal" : "", eo.rel_norm, edq.rel_norm);
  }
}

// Small launches of every backward kernel for compute-sanitizer memcheck and racecheck.
TEST(Sanitize, SmallBackward) {
  const unsigned seed = fresh_seed();
  for (const int d : {64, 128}) {
    for (const DType dtype : {DType::fp16, DType::bf16}) {
      for (const int nkv : {141, 136}) {
        BwdProblem p(bwd_shape(1, 1, 97, nkv, d, dtype, nkv == 141), seed);
        ASSERT_TRUE(p.ok());
        for (const TiledBwdConfig& c : compiled_tiled_bwd_configs(d, dtype)) {
          run_tiled_bwd(p, c);
          p.expect_gradients_match("sanitize tiled bwd " + describe(p.shape()));
        }
        run_naive_bwd(p);
        p.expect_gradients_match("sanitize naive bwd " + describe(p.shape()));
      }
      // The general-mask variants: a window with ALiBi, unaligned lengths.
      AttentionShape masked = bwd_shape(1, 2, 97, 141, d, dtype, true);
      masked.window = 40;
      masked.alibi = true;
      BwdProblem m(masked, seed);
      ASSERT_TRUE(m.ok());
      run_tiled_bwd(m, vocab::general_mask_tiled_bwd_config());
      m.expect_gradients_match("sanitize tiled bwd " + describe(masked));
      run_naive_bwd(m);
      m.expect_gradients_match("sanitize naive bwd " + describe(masked));
    }
  }
}

}  // namespace
}  // namespace attnscope::kernels::testing
