// The two charts of the HTML report, as standalone <svg> elements (styles as attributes, so a
// chart copied out of the page still draws the same).
//   roofline: log-log, FLOP/byte against TFLOPS. The memory roof (the copy bandwidth) rises to
//     each dtype's compute roof at its ridge point; every passed record is a point (candidates as
//     dots, hollow when pruned, the winner a large diamond, cuBLAS a square), coloured by problem.
//   perf: TFLOPS against problem size (GFLOP per run, log), one line per provider (ktune's best,
//     cuBLAS, ...) and per dtype/layout when a file mixes them; the compute roofs dashed. With one
//     problem it is one point per provider.
// Elements carry classes (roof roof-memory, roof roof-compute, ridge, point candidate/winner/
// cublas, series, axis x-axis/y-axis, legend) so tests and stylesheets can find them.
#pragma once

#include <string>

#include "report/report.hpp"

namespace ktune {

std::string roofline_svg(const Report& report);
std::string perf_svg(const Report& report);

}  // namespace ktune
