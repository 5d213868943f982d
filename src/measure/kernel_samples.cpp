#include "measure/kernel_samples.hpp"

#include <algorithm>
#include <tuple>

namespace ktune {
namespace {

bool is_marker(const ActivitySpan& s, uint64_t marker_bytes) {
  return s.kind == ActivitySpan::Kind::memset && (marker_bytes == 0 || s.bytes == marker_bytes);
}

}  // namespace

std::vector<SampleTime> split_into_samples(std::vector<ActivitySpan> spans, uint64_t marker_bytes) {
  // On a start-time tie a marker comes first, so it opens its sample rather than joining the
  // previous one; correlation ids (launch order) break the remaining ties deterministically.
  std::sort(spans.begin(), spans.end(), [&](const ActivitySpan& a, const ActivitySpan& b) {
    return std::tuple(a.start_ns, !is_marker(a, marker_bytes), a.correlation_id) <
           std::tuple(b.start_ns, !is_marker(b, marker_bytes), b.correlation_id);
  });
  std::vector<SampleTime> samples;
  for (const ActivitySpan& s : spans) {
    if (is_marker(s, marker_bytes)) {
      samples.emplace_back();
      continue;
    }
    if (samples.empty()) continue;  // before the first marker: not part of any sample
    SampleTime& t = samples.back();
    if (s.end_ns > s.start_ns) t.busy_ns += s.end_ns - s.start_ns;
    switch (s.kind) {
      case ActivitySpan::Kind::kernel: ++t.kernels; break;
      case ActivitySpan::Kind::memcpy: ++t.copies; break;
      case ActivitySpan::Kind::memset: ++t.memsets; break;
    }
  }
  return samples;
}

}  // namespace ktune
