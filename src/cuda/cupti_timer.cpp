#include "cuda/cupti_timer.hpp"

// Headers only, for the record layouts and the functions' types; the library itself is dlopen'd.
#include <cupti.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

#include "util/error.hpp"

namespace ktune::cuda {
namespace {

struct CuptiApi {
  decltype(&::cuptiGetVersion) get_version = nullptr;
  decltype(&::cuptiGetResultString) get_result_string = nullptr;
  decltype(&::cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&::cuptiActivityEnable) enable = nullptr;
  decltype(&::cuptiActivityDisable) disable = nullptr;
  decltype(&::cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&::cuptiActivityGetNextRecord) get_next_record = nullptr;
  decltype(&::cuptiActivityGetNumDroppedRecords) get_num_dropped = nullptr;  // optional
  std::string library;

  std::string name(CUptiResult r) const {
    const char* s = nullptr;
    if (get_result_string && get_result_string(r, &s) == CUPTI_SUCCESS && s) return s;
    return fmt::format("CUptiResult {}", static_cast<int>(r));
  }
};

struct Loaded {
  CuptiApi api;
  std::string error;  // empty when api is usable
};

std::string not_available(const std::string& reason) { return "CUPTI is not available: " + reason; }

Loaded load(const std::vector<std::string>& candidates, bool overridden) {
  Loaded l;
  void* handle = nullptr;
  std::string tried;
  for (const auto& name : candidates) {
    // Never dlclose'd: CUPTI starts a thread of its own that calls back into this process.
    handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      l.api.library = name;
      break;
    }
    const char* err = dlerror();
    tried += fmt::format("{}{}", tried.empty() ? "" : "; ", err ? err : name);
  }
  if (!handle) {
    l.error = not_available(
        overridden ? fmt::format("{} (set by KTUNE_CUPTI_LIBRARY)", tried)
                   : fmt::format("no libcupti could be loaded ({}); it comes with the CUDA toolkit: "
                                 "set KTUNE_CUPTI_LIBRARY to its path",
                                 tried));
    return l;
  }
  auto required = [&](const char* symbol, auto& fn) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, symbol));
    if (!fn && l.error.empty())
      l.error = not_available(fmt::format("{} has no {}", l.api.library, symbol));
  };
  required("cuptiGetVersion", l.api.get_version);
  required("cuptiGetResultString", l.api.get_result_string);
  required("cuptiActivityRegisterCallbacks", l.api.register_callbacks);
  required("cuptiActivityEnable", l.api.enable);
  required("cuptiActivityDisable", l.api.disable);
  required("cuptiActivityFlushAll", l.api.flush_all);
  required("cuptiActivityGetNextRecord", l.api.get_next_record);
  l.api.get_num_dropped = reinterpret_cast<decltype(l.api.get_num_dropped)>(
      dlsym(handle, "cuptiActivityGetNumDroppedRecords"));
  if (!l.error.empty()) return l;

  // CUPTI hands out records in the layout of its own version (CUpti_ActivityKernel10 and
  // CUpti_ActivityMemset4 for 13.x). Reading another major version's records with these structs
  // would read garbage, so refuse it. From CUDA 13 the version is xxyyzz (130001 = 13.0 update 1);
  // CUDA 12's CUPTI answers small numbers (20-28).
  uint32_t version = 0;
  CUptiResult r = l.api.get_version(&version);
  if (r != CUPTI_SUCCESS) {
    l.error = not_available(fmt::format("cuptiGetVersion failed: {}", l.api.name(r)));
  } else if (version / 10000 != CUPTI_API_VERSION / 10000) {
    l.error = not_available(fmt::format(
        "{} has CUPTI API version {}, but ktune reads the records of CUPTI {}.x (built with {}): "
        "point KTUNE_CUPTI_LIBRARY at that toolkit's libcupti",
        l.api.library, version, CUPTI_API_VERSION / 10000, CUPTI_API_VERSION));
  }
  return l;
}

// One load per candidate list, for the life of the process (so a test can switch
// KTUNE_CUPTI_LIBRARY and see that library's answer).
const Loaded& loaded() {
  static std::mutex mutex;
  static std::map<std::vector<std::string>, std::unique_ptr<Loaded>> by_candidates;
  std::vector<std::string> candidates = cupti_library_candidates();
  bool overridden = std::getenv("KTUNE_CUPTI_LIBRARY") && *std::getenv("KTUNE_CUPTI_LIBRARY");
  std::lock_guard lock(mutex);
  auto& slot = by_candidates[candidates];
  if (!slot) slot = std::make_unique<Loaded>(load(candidates, overridden));
  return *slot;
}

const CuptiApi& api_or_throw() {
  const Loaded& l = loaded();
  if (!l.error.empty()) throw Error(l.error);
  return l.api;
}

// ---- the process-wide collector the buffer callbacks feed ----

// CUPTI's recommended buffer sizes are a few MiB; a kernel record is ~250 bytes, so one buffer
// holds some 16k kernels: a whole measurement at the usual sample counts.
constexpr size_t kBufferBytes = size_t{4} << 20;

struct Collector {
  std::atomic<const CuptiApi*> api{nullptr};  // set once callbacks are registered
  std::mutex mutex;                           // guards everything below
  bool active = false;  // a timer owns the collector; records arriving otherwise are dropped
  std::vector<ActivitySpan> spans;
  size_t lost = 0;
};

// Leaked on purpose: CUPTI's thread may deliver a last buffer while the process exits, after
// static destructors have run.
Collector& collector() {
  static Collector* c = new Collector;
  return *c;
}

// The fields every activity record with a span on the GPU has (kernels, copies, memsets).
template <typename Record>
ActivitySpan span_of(ActivitySpan::Kind kind, const Record& r) {
  ActivitySpan s;
  s.kind = kind;
  s.start_ns = r.start;
  s.end_ns = r.end;
  s.correlation_id = r.correlationId;
  s.stream_id = r.streamId;
  return s;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(ACTIVITY_RECORD_ALIGNMENT, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;  // no buffer: CUPTI drops records and counts them
  *max_records = 0;                    // as many as fit
}

// Runs on CUPTI's own thread (or inside cuptiActivityFlushAll on the caller's): nothing may
// throw out of it, and the collector is only touched under its mutex.
void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t,
                               size_t valid_bytes) {
  Collector& c = collector();
  const CuptiApi* api = c.api.load();
  std::vector<ActivitySpan> got;
  size_t lost = 0;
  try {
    CUpti_Activity* record = nullptr;
    while (api && api->get_next_record(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
      ActivitySpan s;
      if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
          record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        s = span_of(ActivitySpan::Kind::kernel, *k);
        if (k->name) s.name = k->name;
      } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        s = span_of(ActivitySpan::Kind::memcpy, *m);
        s.bytes = m->bytes;
      } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        s = span_of(ActivitySpan::Kind::memset, *m);
        s.bytes = m->bytes;
      } else {
        continue;
      }
      // Both zero: CUPTI had no device memory for the timestamps. The span is missing from its
      // sample, which must not pass for a fast one.
      if (s.start_ns == 0 && s.end_ns == 0)
        ++lost;
      else
        got.push_back(std::move(s));
    }
    size_t dropped = 0;
    if (api && api->get_num_dropped &&
        api->get_num_dropped(context, stream_id, &dropped) == CUPTI_SUCCESS)
      lost += dropped;
  } catch (...) {
    ++lost;  // out of memory copying a name: count it rather than let it escape into CUPTI
  }
  std::free(buffer);
  std::lock_guard lock(c.mutex);
  if (!c.active) return;
  try {
    c.spans.insert(c.spans.end(), std::make_move_iterator(got.begin()),
                   std::make_move_iterator(got.end()));
  } catch (...) {
    lost += got.size();
  }
  c.lost += lost;
}

// CUPTI's activity API answers CUPTI_ERROR_UNKNOWN when there is no driver; say so plainly.
std::string driver_hint() {
  void* cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  // Not dlclose'd when found: the CUDA runtime holds it loaded anyway, and unloading the driver
  // library under it is not something it expects.
  if (cuda) return "";
  const char* err = dlerror();
  return fmt::format(" (no NVIDIA driver: {})", err ? err : "libcuda.so.1 cannot be loaded");
}

void warn(const CuptiApi& api, CUptiResult r, const char* call) {
  if (r != CUPTI_SUCCESS) fprintf(stderr, "ktune: warning: %s failed: %s\n", call, api.name(r).c_str());
}

}  // namespace

std::vector<std::string> cupti_library_candidates() {
  if (const char* env = std::getenv("KTUNE_CUPTI_LIBRARY"); env && *env) return {env};
  return {"libcupti.so.13", "libcupti.so", "/usr/local/cuda/lib64/libcupti.so.13",
          "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"};
}

bool cupti_available(std::string* why) {
  {
    std::lock_guard lock(collector().mutex);
    if (collector().active) {
      if (why) why->clear();
      return true;
    }
  }
  try {
    CuptiKernelTimer probe;
    if (why) why->clear();
    return true;
  } catch (const Error& e) {
    if (why) *why = e.what();
    return false;
  }
}

CuptiKernelTimer::CuptiKernelTimer() {
  const CuptiApi& api = api_or_throw();
  Collector& c = collector();
  {
    std::lock_guard lock(c.mutex);
    if (c.active)
      throw Error("CUPTI is in use: one CuptiKernelTimer at a time (CUPTI's activity API is "
                  "per process)");
    if (!c.api.load()) {
      c.api = &api;  // before registering: the callbacks read it
      CUptiResult r = api.register_callbacks(buffer_requested, buffer_completed);
      if (r != CUPTI_SUCCESS) {
        c.api = nullptr;
        throw Error(fmt::format("CUPTI could not take activity buffers: "
                                "cuptiActivityRegisterCallbacks failed: {}", api.name(r)));
      }
    } else if (c.api.load()->register_callbacks != api.register_callbacks) {
      // The callbacks are registered with the library loaded first; another one would never
      // deliver to them. (The same library under another name is the same library.)
      throw Error(fmt::format("CUPTI was first loaded from {} in this process; cannot switch to {}",
                              c.api.load()->library, api.library));
    }
    c.active = true;
    c.spans.clear();
    c.lost = 0;
  }
  // Copies too: the copy roof is a cudaMemcpyAsync, which leaves a memcpy record, not a kernel's.
  const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMSET,
                                      CUPTI_ACTIVITY_KIND_MEMCPY};
  const char* kind_names[] = {"CONCURRENT_KERNEL", "MEMSET", "MEMCPY"};
  for (int i = 0; i < 3; ++i) {
    CUptiResult r = api.enable(kinds[i]);
    if (r == CUPTI_SUCCESS) continue;
    for (int j = 0; j < i; ++j) warn(api, api.disable(kinds[j]), "cuptiActivityDisable");
    {
      std::lock_guard lock(c.mutex);
      c.active = false;
    }
    throw Error(fmt::format("CUPTI could not enable kernel activity records: "
                            "cuptiActivityEnable({}) failed: {}{}",
                            kind_names[i], api.name(r), driver_hint()));
  }
  owns_ = true;
}

CuptiKernelTimer::~CuptiKernelTimer() {
  if (!owns_) return;
  Collector& c = collector();
  const CuptiApi& api = *c.api.load();
  warn(api, api.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityDisable");
  warn(api, api.disable(CUPTI_ACTIVITY_KIND_MEMSET), "cuptiActivityDisable");
  warn(api, api.disable(CUPTI_ACTIVITY_KIND_MEMCPY), "cuptiActivityDisable");
  {
    std::lock_guard lock(c.mutex);
    c.active = false;
    c.spans.clear();
    c.lost = 0;
  }
  // Forced: hand back every buffer CUPTI still holds, so none outlives the session unread.
  warn(api, api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
}

void CuptiKernelTimer::flush() {
  if (!owns_) throw Error("CuptiKernelTimer::flush() on a moved-from timer");
  const CuptiApi& api = *collector().api.load();
  // Not under the collector's mutex: the flush calls buffer_completed, which takes it.
  CUptiResult r = api.flush_all(0);
  if (r != CUPTI_SUCCESS)
    throw Error(fmt::format("cuptiActivityFlushAll failed: {}", api.name(r)));
}

std::vector<ActivitySpan> CuptiKernelTimer::take() {
  if (!owns_) return {};
  std::lock_guard lock(collector().mutex);
  return std::exchange(collector().spans, {});
}

size_t CuptiKernelTimer::lost() const {
  if (!owns_) return 0;
  std::lock_guard lock(collector().mutex);
  return collector().lost;
}

}  // namespace ktune::cuda
