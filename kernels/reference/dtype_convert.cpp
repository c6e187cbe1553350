// SPDX-License-Identifier: Apache-2.0
// fp16 / bf16 <-> float on the host, round to nearest even, without CUDA headers.
#include <bit>
#include <cstdint>

#include "attnscope/kernels/reference.hpp"

namespace attnscope::kernels {

std::uint16_t float_to_half_bits(float value) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);   // NaN (quiet)
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {
    // Result is subnormal (or zero) in binary16: value = m * 2^-24 with m < 1024.
    if (abs < 0x33000000u) return static_cast<std::uint16_t>(sign);  // < 2^-25: rounds to zero
    const std::uint32_t exp = abs >> 23;                             // biased float exponent
    const std::uint32_t mant = (abs & 0x7fffffu) | 0x800000u;        // 24-bit significand
    const std::uint32_t shift = 126u - exp;                          // 14 + (113 - exp), in [14, 24]
    std::uint32_t half = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  // Normal: rebias exponent (127 -> 15) and round the 23-bit mantissa to 10 bits; a carry into the exponent
  // is the correct result (including rounding up to the next binade).
  std::uint32_t h = ((abs - 0x38000000u) >> 13);
  const std::uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

float half_bits_to_float(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exp = (bits >> 10) & 0x1fu;
  std::uint32_t mant = bits & 0x3ffu;
  std::uint32_t out = 0;
  if (exp == 0x1fu) {
    out = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    out = sign | ((exp + 112u) << 23) | (mant << 13);
  } else if (mant == 0) {
    out = sign;
  } else {
    // Subnormal: normalise.
    std::uint32_t e = 113u;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --e;
    }
    out = sign | (e << 23) | ((mant & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(out);
}

std::uint16_t float_to_bf16_bits(float value) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x0040u);  // quiet NaN
  const std::uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>((x + rounding) >> 16);
}

float bf16_bits_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::uint16_t to_dtype_bits(float value, DType dtype) {
  return dtype == DType::bf16 ? float_to_bf16_bits(value) : float_to_half_bits(value);
}

float from_dtype_bits(std::uint16_t bits, DType dtype) {
  return dtype == DType::bf16 ? bf16_bits_to_float(bits) : half_bits_to_float(bits);
}

float round_to_dtype(float value, DType dtype) {
  if (dtype == DType::fp32) return value;
  return from_dtype_bits(to_dtype_bits(value, dtype), dtype);
}

std::size_t dtype_size(DType dtype) {
  return vocab::bytes_of(dtype);
}

const char* dtype_name(DType dtype) {
  return vocab::to_string(dtype).data();  // the names are string literals: null-terminated
}

}  // namespace attnscope::kernels
