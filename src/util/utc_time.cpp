#include "util/utc_time.hpp"

#include <ctime>

namespace ktune {
namespace {

std::string utc_now(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);  // thread-safe, unlike std::gmtime
  char buf[32];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

}  // namespace

std::string utc_iso_now() { return utc_now("%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_compact_now() { return utc_now("%Y%m%dT%H%M%SZ"); }

}  // namespace ktune
