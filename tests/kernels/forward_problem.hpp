// SPDX-License-Identifier: Apache-2.0
// One forward attention problem for the GPU tests of every forward kernel (naive, tiled, Hopper): fresh
// random inputs on host and device, outputs on the device poisoned with NaN before each launch, the float64
// reference on demand, and the check of O (every element) and LSE (every row) against it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"

namespace attnscope::kernels::testing {

// One attention problem: inputs on host and device, outputs on device, reference on demand. The naive
// kernels' scratch S [B, H, Nq, Nkv] is allocated only when asked (the fused kernels do not use it).
class Problem {
 public:
  Problem(const AttentionShape& shape, unsigned seed, bool naive_scratch = true) : shape_(shape) {
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
    if (naive_scratch)
      ds_ = std::make_unique<DeviceBuffer>(rows_ * static_cast<std::size_t>(shape.seq_kv) * 2);
    ok_ = dq_->get() && dk_->get() && dv_->get() && do_->get() && dlse_->get() &&
          (!naive_scratch || ds_->get()) &&
          cudaMemcpy(dq_->get(), q_.bits.data(), nq_ * 2, cudaMemcpyHostToDevice) == cudaSuccess &&
          cudaMemcpy(dk_->get(), k_.bits.data(), nkv_ * 2, cudaMemcpyHostToDevice) == cudaSuccess &&
          cudaMemcpy(dv_->get(), v_.bits.data(), nkv_ * 2, cudaMemcpyHostToDevice) == cudaSuccess;
  }

  bool ok() const { return ok_; }
  const AttentionShape& shape() const { return shape_; }
  DeviceTensors tensors() const {
    return DeviceTensors{dq_->get(),
                         dk_->get(),
                         dv_->get(),
                         do_->get(),
                         static_cast<float*>(dlse_->get()),
                         ds_ ? ds_->get() : nullptr};
  }
  // NaN in every output (O, LSE, the naive scratch when there is one).
  bool poison() const {
    return cudaMemset(do_->get(), kPoisonByte, do_->bytes()) == cudaSuccess &&
           cudaMemset(dlse_->get(), kPoisonByte, dlse_->bytes()) == cudaSuccess &&
           (!ds_ || cudaMemset(ds_->get(), kPoisonByte, ds_->bytes()) == cudaSuccess);
  }
  std::vector<std::uint16_t> o_bits() const { return download<std::uint16_t>(*do_, nq_); }
  std::vector<float> lse() const { return download<float>(*dlse_, rows_); }
  std::vector<std::uint16_t> s_bits() const {
    if (!ds_) return {};
    return download<std::uint16_t>(*ds_, rows_ * static_cast<std::size_t>(shape_.seq_kv));
  }
  const std::vector<double>& ref_o() {
    compute_reference();
    return ref_o_;
  }
  const std::vector<double>& ref_lse() {
    compute_reference();
    return ref_lse_;
  }
  const HostTensor& q() const { return q_; }
  const HostTensor& k() const { return k_; }
  const HostTensor& v() const { return v_; }

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
  std::unique_ptr<DeviceBuffer> dq_, dk_, dv_, do_, dlse_, ds_;
  std::vector<double> ref_o_, ref_lse_;
  bool ok_ = false;
};

inline AttentionShape make_shape(int b, int h, int nq, int nkv, int d, DType dtype, bool causal) {
  return AttentionShape{b, h, nq, nkv, d, dtype, causal, 1.0f / std::sqrt(static_cast<float>(d))};
}

// Every element of O checked (none left NaN, norm-wise <= 1e-2, element-wise sanity); LSE too when asked.
inline void expect_matches_reference(Problem& p, bool check_lse, const std::string& what) {
  const auto& s = p.shape();
  const auto o = to_floats(p.o_bits(), s.dtype);
  ASSERT_EQ(o.size(), p.ref_o().size()) << what;
  const ErrorStats e = compare(o, p.ref_o());
  EXPECT_EQ(e.non_finite, 0u) << what << ": elements of O left unwritten (NaN poison) or non-finite";
  EXPECT_LE(e.rel_norm, 1e-2) << what;
  EXPECT_LE(e.max_abs, elementwise_bound(s.dtype)) << what;
  std::printf("[ error    ] %-78s ||O-ref||/||ref|| = %.3e  max|O-ref| = %.3e\n", what.c_str(), e.rel_norm,
              e.max_abs);
  if (!check_lse) return;
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

}  // namespace attnscope::kernels::testing
