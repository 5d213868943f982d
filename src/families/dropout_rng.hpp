// The bias_gelu_dropout family's dropout rule on the host: the dropout probability as the kernels
// get it (a float parsed from the problem's `p` option), the keep threshold, and which elements a
// seed keeps. kernels/bias_gelu_dropout.cu states the rule; this is its host twin, built on the
// same cuRAND Philox4x32-10 header (compiled for the host), so tests can check the header against
// Random123's known answers and a kernel's mask element by element.
#pragma once

#include <vector_types.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "util/error.hpp"

#ifndef QUALIFIERS
#define QUALIFIERS static inline
#define KTUNE_DROPOUT_RNG_QUALIFIERS
#endif
#include <curand_philox4x32_x.h>
#ifdef KTUNE_DROPOUT_RNG_QUALIFIERS
#undef QUALIFIERS
#undef KTUNE_DROPOUT_RNG_QUALIFIERS
#endif

namespace ktune::dropout {

// "0.1" -> 0.1f. ConfigError unless the whole text is a number in [0, 1).
inline float parse_p(const std::string& text) {
  size_t used = 0;
  float p = 0;
  try {
    p = std::stof(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !(p >= 0.0f && p < 1.0f))
    throw ConfigError("dropout probability p must be a number in [0, 1) (got '" + text + "')");
  return p;
}

// An element is kept iff its 16-bit Philox half >= threshold16(p) = floor(p * 2^16); p * 2^16 is
// exact in fp32 (a power-of-two scale), so the kernels' __float2uint_rz(p * 65536.0f) is the same
// number. p < 1 keeps it at most 65535, so the rule never drops everything.
inline uint32_t threshold16(float p) { return static_cast<uint32_t>(std::ldexp(static_cast<double>(p), 16)); }

// The probability the rule drops an element with: threshold16 / 2^16, in (p - 2^-16, p].
inline double drop_probability(float p) { return std::ldexp(static_cast<double>(threshold16(p)), -16); }

// Philox4x32-10 of one counter and key, as cuRAND computes it on the device.
inline std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key) {
  const uint4 r = curand_Philox4x32_10(uint4{counter[0], counter[1], counter[2], counter[3]}, uint2{key[0], key[1]});
  return {r.x, r.y, r.z, r.w};
}

// The 16-bit half of flat element i: half h = i % 8 of Philox4x32-10({lo32(i/8), hi32(i/8), 0, 0},
// {lo32(seed), hi32(seed)}), which is (word (h / 2) >> (16 * (h % 2))) & 0xffff, the words in the
// order x, y, z, w.
inline uint32_t element_half(uint64_t seed, uint64_t i) {
  const uint64_t g = i / 8;
  const unsigned h = static_cast<unsigned>(i % 8);
  const uint32_t word = philox4x32_10({static_cast<uint32_t>(g), static_cast<uint32_t>(g >> 32), 0, 0},
                                      {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)})[h / 2];
  return (word >> (16 * (h % 2))) & 0xffffu;
}

inline bool keeps(uint64_t seed, uint64_t i, uint32_t threshold16) { return element_half(seed, i) >= threshold16; }

}  // namespace ktune::dropout
