// The charts of the HTML report, as standalone <svg> elements (styles as attributes, so a chart
// copied out of the page still draws the same).
//   roofline: log-log, FLOP/byte against TFLOPS, for every family (its axes are the roofline's).
//     The memory roof (the copy bandwidth) rises to each dtype's compute roof at its ridge point;
//     every passed record is a point (candidates as dots, hollow when pruned, the winner a large
//     diamond, baselines squares), coloured by problem; tooltips give the family's rate.
//   perf: one chart per rate unit in the report (report.hpp: rate_units), id "perf-tflops" or
//     "perf-gbps". Each plots its problems' rate against their size, log: TFLOPS against GFLOP per
//     run with each dtype's compute roof dashed, or GB/s against the minimum MB moved per run with
//     the memory roof (the copy bandwidth) dashed. One line per provider (ktune's best, cuBLAS,
//     cuDNN, the copy roof, ...) and per family/dtype/layout when the chart mixes them. With one
//     problem it is one point per provider.
//   ratio: id "ratio", the headline: each problem's winner against its baseline (the ratio of
//     medians, > 1 faster), one horizontal bar a problem, sorted, the problems named, a line at 1.
// Elements carry classes (roof roof-memory, roof roof-compute, ridge, point candidate/winner/
// baseline, point provider, series, axis x-axis/y-axis, legend) so tests and stylesheets can find
// them.
#pragma once

#include <string>

#include "report/report.hpp"

namespace ktune {

std::string roofline_svg(const Report& report);
// The perf chart of the problems rated in `unit` ("TFLOPS", "GB/s"), with the id perf_id(unit).
std::string perf_svg(const Report& report, const std::string& unit);
std::string perf_id(const std::string& unit);  // "perf-tflops", "perf-gbps"
// The ratio chart; empty when no problem has both a winner and a timed baseline.
std::string ratio_svg(const Report& report);

}  // namespace ktune
