// include/ktune/runtime.hpp over the Launcher: ktune's problems and errors translated to the
// public types, so an application sees nothing of ktune's internals. Built into
// libktune_runtime only.
#include <ktune/runtime.hpp>

#include <cstdlib>
#include <mutex>

#include "runtime/launcher.hpp"
#include "util/error.hpp"

namespace ktune::runtime {
namespace {

ktune::Problem internal(const Problem& p) { return {p.family, p.dims, p.dtype, p.options}; }

template <typename F>
auto translated(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(e.what());
  }
}

Choice public_choice(const RuntimeChoice& c) {
  Choice out;
  const DispatchRow& r = c.row->row;
  out.tuned_dims = r.dims;
  out.distance = c.distance;
  out.gpu = r.gpu;
  out.config = r.config;
  out.kernel_name = c.kernel_name;
  out.params = r.params;
  for (int i = 0; i < 3; ++i) {
    out.grid[i] = static_cast<unsigned>(c.launch.grid[i]);
    out.block[i] = static_cast<unsigned>(c.launch.block[i]);
  }
  out.shared_bytes = static_cast<unsigned>(c.launch.shared_bytes);
  out.tuned_ms = r.median_ms;
  out.kernel_from = c.kernel_from;
  out.passed_over = c.passed_over;
  out.function = c.function;
  out.tuning_started = c.tuning_started;
  return out;
}

bool same(const Problem& a, const Problem& b) {
  return a.family == b.family && a.dims == b.dims && a.dtype == b.dtype && a.options == b.options;
}

}  // namespace

// What launch() keeps between calls, so that the call an application makes in its loop (the
// same problem again) converts nothing and allocates nothing.
// KTUNE_TUNE_ON_MISS: a ktune binary to tune missed shapes with, or "1" for the one on PATH.
std::string tune_on_miss() {
  const char* v = std::getenv("KTUNE_TUNE_ON_MISS");
  if (!v || !*v || std::string(v) == "0") return "";
  return std::string(v) == "1" ? "ktune" : v;
}

struct Bundle::Impl {
  Impl(const std::string& dir, const std::string& cache_dir) : launcher(dir, cache_dir, tune_on_miss()) {}
  Launcher launcher;
  std::mutex mutex;
  bool has_last = false;
  Problem last_public;
  ktune::Problem last_internal;
  std::map<const RuntimeChoice*, Choice> choices;  // the public form of each choice launched
};

Bundle::Bundle(const std::string& dir, const std::string& cache_dir)
    : impl_(translated([&] { return std::make_unique<Impl>(dir, cache_dir); })) {}
Bundle::~Bundle() = default;
Bundle::Bundle(Bundle&&) noexcept = default;
Bundle& Bundle::operator=(Bundle&&) noexcept = default;

Choice Bundle::choose(const Problem& problem) {
  return translated([&] { return public_choice(impl_->launcher.choose(internal(problem))); });
}

std::vector<Operand> Bundle::operands(const Problem& problem) const {
  return translated([&] {
    std::vector<Operand> out;
    for (const ktune::LaunchOperand& op : impl_->launcher.operands(internal(problem)))
      out.push_back({op.name, op.help, op.bytes, op.workspace});
    return out;
  });
}

const Choice& Bundle::launch(const Problem& problem, const std::map<std::string, void*>& buffers, CUstream_st* stream) {
  return translated([&]() -> const Choice& {
    std::lock_guard lock(impl_->mutex);
    if (!impl_->has_last || !same(impl_->last_public, problem)) {
      impl_->last_internal = internal(problem);
      impl_->last_public = problem;
      impl_->has_last = true;
    }
    const RuntimeChoice& c = impl_->launcher.launch(impl_->last_internal, buffers, stream);
    auto it = impl_->choices.find(&c);
    if (it == impl_->choices.end()) it = impl_->choices.emplace(&c, public_choice(c)).first;
    return it->second;
  });
}

size_t Bundle::rows() const { return impl_->launcher.rows().size(); }

}  // namespace ktune::runtime
