// Roofline figures of one timed run: where a kernel sits against the device's two roofs. Pure
// arithmetic, pinned down by tests/host/test_roofline.cpp against hand computations.
//
//   arithmetic intensity  I = flops / min_bytes          (FLOP per byte; the problem's, not the
//                                                          kernel's real traffic: a lower bound)
//   ridge point           R = compute roof / memory roof  (FLOP per byte where the roofs meet)
//   attainable            min(compute roof, I * memory roof)
//   bound                 "compute" when I >= R, else "memory"
// Units: TFLOPS are 1e12 flop/s, GB/s are 1e9 byte/s, times are milliseconds.
#pragma once

#include <string>

#include "store/ceilings.hpp"
#include "core/record.hpp"

namespace ktune {

struct Roofs {
  double compute_tflops = 0;  // the dtype's cuBLAS peak (or datasheet)
  double memory_gbps = 0;     // copy bandwidth, bytes read + written
};

struct RooflinePoint {
  double flops = 0;
  double bytes = 0;              // minimum bytes moved: each input read once, each output written once
  double intensity = 0;          // flop/byte
  double ridge = 0;              // flop/byte
  std::string bound;             // "compute" | "memory"
  double achieved_tflops = 0;
  double achieved_gbps = 0;      // min_bytes / time: a lower bound on the real traffic rate
  double attainable_tflops = 0;  // the roof above this intensity
  double pct_compute_roof = 0;   // 100 * achieved_tflops / compute roof
  double pct_memory_roof = 0;    // 100 * achieved_gbps / memory roof
  double pct_attainable = 0;     // 100 * achieved_tflops / attainable: % of the roof that bounds it
};

// The roofs for a problem dtype; throws ktune::ConfigError when the ceilings lack that dtype or
// a roof is not positive.
Roofs roofs_for(const Ceilings& ceilings, const std::string& dtype);

double ridge_point(const Roofs& roofs);

// median_ms must be positive (ktune::Error otherwise: an untimed record has no point).
RooflinePoint roofline(const Cost& cost, double median_ms, const Roofs& roofs);

}  // namespace ktune
