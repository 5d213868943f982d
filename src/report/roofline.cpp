// Roofline arithmetic; see roofline.hpp for the definitions.
#include "report/roofline.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/element.hpp"
#include "util/error.hpp"

namespace ktune {

Roofs roofs_for(const Ceilings& ceilings, const std::string& dtype) {
  auto it = ceilings.tflops.find(dtype);
  // The integer dtypes a declared family may have (a histogram's i32) have no tensor-core roof of
  // their own in the ceilings: they are drawn under fp32's, the CUDA cores' kind of arithmetic.
  const ElementType* element = find_element(dtype);
  if (it == ceilings.tflops.end() && element && !element->is_float) it = ceilings.tflops.find("fp32");
  if (it == ceilings.tflops.end())
    throw ConfigError(fmt::format("the {} ceilings for {} have no {} compute roof{}", ceilings.source, ceilings.label,
                                  dtype, ceilings.source == "measured" ? " (measured before ktune knew it: run `ktune ceilings` again)" : ""));
  Roofs roofs{it->second, ceilings.copy_gbps};
  if (!(roofs.compute_tflops > 0) || !(roofs.memory_gbps > 0))
    throw ConfigError(fmt::format("the {} ceilings for {} are not positive ({} TFLOPS {}, {} GB/s)", ceilings.source,
                                  ceilings.label, roofs.compute_tflops, dtype, roofs.memory_gbps));
  return roofs;
}

double ridge_point(const Roofs& roofs) { return roofs.compute_tflops * 1e12 / (roofs.memory_gbps * 1e9); }

RooflinePoint roofline(const Cost& cost, double median_ms, const Roofs& roofs) {
  if (!(median_ms > 0)) throw Error(fmt::format("a roofline point needs a positive time, got {} ms", median_ms));
  RooflinePoint p;
  p.flops = cost.flops;
  p.bytes = cost.min_bytes;
  p.intensity = cost.min_bytes > 0 ? cost.flops / cost.min_bytes : 0;
  p.ridge = ridge_point(roofs);
  p.bound = p.intensity >= p.ridge ? "compute" : "memory";
  const double seconds = median_ms * 1e-3;
  p.achieved_tflops = cost.flops / seconds / 1e12;
  p.achieved_gbps = cost.min_bytes / seconds / 1e9;
  p.attainable_tflops = std::min(roofs.compute_tflops, p.intensity * roofs.memory_gbps * 1e9 / 1e12);
  p.pct_compute_roof = 100 * p.achieved_tflops / roofs.compute_tflops;
  p.pct_memory_roof = 100 * p.achieved_gbps / roofs.memory_gbps;
  p.pct_attainable = p.attainable_tflops > 0 ? 100 * p.achieved_tflops / p.attainable_tflops : 0;
  return p;
}

}  // namespace ktune
