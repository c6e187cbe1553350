// SPDX-License-Identifier: Apache-2.0
// GPU tests of the Hopper attention kernel (launch_hopper): every compiled configuration against the
// float64 reference on fresh random inputs (seed printed), O and LSE poisoned with NaN before every launch
// and every element checked with the tiled kernel's tolerances; lengths that are not multiples of any tile
// (1, 77, 1000, 2049), Nq != Nkv both ways (causal rows that see no key), B * H > 1; the launcher's
// refusals; a small launch of every configuration for compute-sanitizer (Sanitize.SmallHopper).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "attnscope/kernels/hopper.hpp"
#include "attnscope/vocab/geometry.hpp"
#include "gpu_test_support.hpp"

namespace attnscope::kernels::testing {
namespace {

// One problem: inputs on host and device, O and LSE on device, the float64 reference on demand.
class HopperProblem {
 public:
  HopperProblem(const AttentionShape& shape, unsigned seed) : shape_(shape) {
    std::mt19937 rng(seed);
    const std::size_t bh = static_cast<std::size_t>(shape.batch) * shape.heads;
    nq_ = bh * shape.seq_q * shape.head_dim;
    nkv_ = bh * shape.seq_kv * shape.head_dim;
    rows_ = bh * shape.seq_q;
    q_ = random_tensor(nq_, shape.dtype, rng);
    k_ = random_tensor(nkv_, shape.dtype, rng);
    v_ = random_tensor(nkv_, shape.dtype, rng);
    dq_ = std::make_unique<DeviceBuffer>(nq_ * 2);
    dk_ = std::make_unique<DeviceBuffer>(nkv_ * 2);
    dv_ = std::make_unique<DeviceBuffer>(nkv_ * 2);
    do_ = std::make_unique<DeviceBuffer>(nq_ * 2);
    dlse_ = std::make_unique<DeviceBuffer>(rows_ * sizeof(float));
    ok_ = dq_->get() && dk_->get() && dv_->get() && do_->get() && dlse_->get() &&
          cudaMemcpy(dq_->get(), q_.bits.data(), nq_ * 2, cudaMemcpyHostToDevice) == cudaSuccess &&
          cudaMemcpy(dk_->get(), k_.bits.data(), nkv_ * 2, cudaMemcpyHostToDevice) == cudaSuccess &&
          cudaMemcpy(dv_->get(), v_.bits.data(), nkv_ * 2, cudaMemcpyHostToDevice) == cudaSuccess;
  }

  bool ok() const { return ok_; }
  const AttentionShape& shape() const { return shape_; }
  DeviceTensors tensors() const {
    return DeviceTensors{dq_->get(), dk_->get(), dv_->get(), do_->get(), static_cast<float*>(dlse_->get()),
                         nullptr};
  }
  bool poison() const {
    return cudaMemset(do_->get(), kPoisonByte, do_->bytes()) == cudaSuccess &&
           cudaMemset(dlse_->get(), kPoisonByte, dlse_->bytes()) == cudaSuccess;
  }
  std::vector<std::uint16_t> o_bits() const { return download<std::uint16_t>(*do_, nq_); }
  std::vector<float> lse() const { return download<float>(*dlse_, rows_); }
  const std::vector<double>& ref_o() {
    compute_reference();
    return ref_o_;
  }
  const std::vector<double>& ref_lse() {
    compute_reference();
    return ref_lse_;
  }

 private:
  template <typename T>
  static std::vector<T> download(const DeviceBuffer& b, std::size_t count) {
    std::vector<T> out(count);
    if (cudaMemcpy(out.data(), b.get(), count * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess)
      out.clear();
    return out;
  }
  void compute_reference() {
    if (!ref_o_.empty()) return;
    ref_o_.resize(nq_);
    ref_lse_.resize(rows_);
    attention_reference(shape_, q_.values.data(), k_.values.data(), v_.values.data(), ref_o_.data(),
                        ref_lse_.data());
  }

  AttentionShape shape_;
  std::size_t nq_ = 0, nkv_ = 0, rows_ = 0;
  HostTensor q_, k_, v_;
  std::unique_ptr<DeviceBuffer> dq_, dk_, dv_, do_, dlse_;
  std::vector<double> ref_o_, ref_lse_;
  bool ok_ = false;
};

AttentionShape make_shape(int b, int h, int nq, int nkv, int d, DType dtype, bool causal) {
  return AttentionShape{b, h, nq, nkv, d, dtype, causal, 1.0f / std::sqrt(static_cast<float>(d))};
}

std::string name(const HopperConfig& c, const AttentionShape& s) {
  return "hopper Br=" + std::to_string(c.br) + " Bc=" + std::to_string(c.bc) +
         " C=" + std::to_string(c.consumers) + " S=" + std::to_string(c.stages) +
         (c.overlap ? " overlap " : " serial ") + (c.pingpong ? "pingpong " : "") + describe(s);
}

// Every element of O checked (none left NaN, norm-wise <= 1e-2, element-wise sanity) and every LSE row
// (-inf where the reference row sees no key, else within 1e-3 relative): the tiled kernel's tolerances.
void expect_matches_reference(HopperProblem& p, const std::string& what) {
  const auto& s = p.shape();
  const auto o = to_floats(p.o_bits(), s.dtype);
  ASSERT_EQ(o.size(), p.ref_o().size()) << what;
  const ErrorStats e = compare(o, p.ref_o());
  EXPECT_EQ(e.non_finite, 0u) << what << ": elements of O left unwritten (NaN poison) or non-finite";
  EXPECT_LE(e.rel_norm, 1e-2) << what;
  EXPECT_LE(e.max_abs, elementwise_bound(s.dtype)) << what;
  std::printf("[ error    ] %-78s ||O-ref||/||ref|| = %.3e  max|O-ref| = %.3e\n", what.c_str(), e.rel_norm,
              e.max_abs);
  const auto lse = p.lse();
  const auto& ref = p.ref_lse();
  ASSERT_EQ(lse.size(), ref.size());
  std::size_t bad = 0;
  double max_err = 0.0;
  for (std::size_t i = 0; i < lse.size(); ++i) {
    if (std::isinf(ref[i])) {
      if (!(std::isinf(lse[i]) && lse[i] < 0)) ++bad;
      continue;
    }
    const double err = std::fabs(static_cast<double>(lse[i]) - ref[i]);
    if (!(err <= 1e-3 * std::max(1.0, std::fabs(ref[i])))) ++bad;  // also counts NaN
    if (std::isfinite(err)) max_err = std::max(max_err, err);
  }
  EXPECT_EQ(bad, 0u) << what << ": LSE rows off (max |err| " << max_err << ")";
}

void run_hopper(HopperProblem& p, const HopperConfig& c) {
  ASSERT_TRUE(p.poison());
  const Status st = launch_hopper(p.shape(), c, p.tensors(), nullptr);
  ASSERT_TRUE(st) << st.message;
  ATTN_CUDA_CHECK(cudaDeviceSynchronize());
}

struct Case {
  int b, h, nq, nkv;
  bool causal;
};

// Lengths not multiples of any tile, one-row problems, Nq != Nkv both ways (Nq > Nkv causal: rows that see
// no key), B * H > 1, a problem of whole tiles.
const Case kCases[] = {
    {1, 1, 1, 1, false},      {1, 1, 1, 1, true},        {1, 2, 77, 77, false},   {1, 2, 77, 77, true},
    {1, 2, 1000, 1000, true}, {2, 3, 1000, 1000, false}, {2, 2, 300, 1000, true}, {2, 1, 1000, 300, true},
    {1, 1, 1, 77, false},     {1, 1, 77, 1, true},       {1, 3, 256, 512, true},  {1, 2, 1000, 300, false},
};

TEST(HopperAttention, EveryConfigMatchesReferenceOnAwkwardShapes) {
  const unsigned seed = fresh_seed();
  for (const int d : {64, 128}) {
    for (const DType dtype : {DType::fp16, DType::bf16}) {
      const auto configs = compiled_hopper_configs(d, dtype);
      ASSERT_FALSE(configs.empty());
      for (const Case& c : kCases) {
        HopperProblem p(make_shape(c.b, c.h, c.nq, c.nkv, d, dtype, c.causal), seed);
        ASSERT_TRUE(p.ok());
        for (const HopperConfig& config : configs) {
          run_hopper(p, config);
          expect_matches_reference(p, name(config, p.shape()));
        }
      }
    }
  }
}

// Long rows: many kv steps through the ring (each slot reused many times: the empty/full barrier phases).
TEST(HopperAttention, LongRowsMatchReference) {
  const unsigned seed = fresh_seed();
  for (const DType dtype : {DType::fp16, DType::bf16}) {
    for (const int d : {64, 128}) {
      HopperProblem p(make_shape(1, 1, 2049, 2049, d, dtype, dtype == DType::fp16), seed);
      ASSERT_TRUE(p.ok());
      for (const HopperConfig& config : compiled_hopper_configs(d, dtype)) {
        run_hopper(p, config);
        expect_matches_reference(p, name(config, p.shape()));
      }
    }
  }
}

TEST(HopperAttention, ConfigsAreValidAndSmemMatchesVocab) {
  for (const int d : {64, 128}) {
    for (const DType dtype : {DType::fp16, DType::bf16}) {
      const HopperConfig def = default_hopper_config(d);
      bool default_compiled = false;
      for (const HopperConfig& c : compiled_hopper_configs(d, dtype)) {
        EXPECT_TRUE(vocab::hopper_config_valid(c, d, dtype));
        const AttentionShape s = make_shape(1, 1, 128, 128, d, dtype, false);
        EXPECT_EQ(hopper_smem_bytes(s, c), static_cast<std::size_t>(vocab::hopper_smem_bytes(c, d, dtype)));
        default_compiled = default_compiled ||
                           (c.br == def.br && c.bc == def.bc && c.consumers == def.consumers &&
                            c.stages == def.stages && c.overlap == def.overlap && c.pingpong == def.pingpong);
      }
      EXPECT_TRUE(default_compiled) << "default_hopper_config(" << d << ") is not compiled";
    }
  }
}

TEST(HopperAttention, RefusesBadInputWithClearStatus) {
  const unsigned seed = fresh_seed();
  HopperProblem p(make_shape(1, 1, 64, 64, 64, DType::fp16, false), seed);
  ASSERT_TRUE(p.ok());
  const HopperConfig c = default_hopper_config(64);
  AttentionShape bad = p.shape();
  bad.head_dim = 96;
  EXPECT_EQ(launch_hopper(bad, c, p.tensors(), nullptr).code, StatusCode::bad_shape);
  bad = p.shape();
  bad.seq_kv = 0;
  EXPECT_EQ(launch_hopper(bad, c, p.tensors(), nullptr).code, StatusCode::bad_shape);
  bad = p.shape();
  bad.causal = true;
  bad.window = 16;
  EXPECT_EQ(launch_hopper(bad, c, p.tensors(), nullptr).code, StatusCode::config_not_compiled);
  const Status not_compiled =
      launch_hopper(p.shape(), HopperConfig{64, 96, 1, 2, true, false}, p.tensors(), nullptr);
  EXPECT_EQ(not_compiled.code, StatusCode::config_not_compiled);
  EXPECT_NE(not_compiled.message.find("compiled:"), std::string::npos) << not_compiled.message;
  DeviceTensors t = p.tensors();
  t.k = static_cast<const char*>(t.k) + 2;  // rows no longer 16-byte aligned for the copy engine
  EXPECT_EQ(launch_hopper(p.shape(), c, t, nullptr).code, StatusCode::misaligned);
  t = p.tensors();
  t.o = nullptr;
  EXPECT_EQ(launch_hopper(p.shape(), c, t, nullptr).code, StatusCode::misaligned);
}

}  // namespace

// Small launches of every Hopper configuration for compute-sanitizer memcheck / racecheck
// (`--gtest_filter=Sanitize.SmallHopper`): partial q and kv tiles, causal rows with no key, several kv steps.
TEST(Sanitize, SmallHopper) {
  const unsigned seed = fresh_seed();
  for (const int d : {64, 128}) {
    for (const DType dtype : {DType::fp16, DType::bf16}) {
      for (const bool causal : {false, true}) {
        HopperProblem p(make_shape(1, 2, causal ? 211 : 97, causal ? 150 : 300, d, dtype, causal), seed);
        ASSERT_TRUE(p.ok());
        for (const HopperConfig& c : compiled_hopper_configs(d, dtype)) {
          run_hopper(p, c);
          expect_matches_reference(p, "sanitize " + name(c, p.shape()));
        }
      }
    }
  }
}

}  // namespace attnscope::kernels::testing
