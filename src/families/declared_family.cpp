// A declared family at work: its problems checked against the declaration, its buffers allocated
// through GuardedBuffers by role and filled as declared, the user's reference kernel run once per
// workload into reference buffers the candidates cannot reach, every output judged by the
// tolerance of its own element type, and the candidates timed against the user's production
// kernel where there is one, and against the copy roof where the family is memory-bound.
#include "families/declared_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "compile/kernel_source.hpp"
#include "cuda/check.hpp"
#include "cuda/driver.hpp"
#include "space/enumerate.hpp"
#include "gpu/copy_roof.hpp"
#include "gpu/gpu_context.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

const ElementType& element_of(const BufferDecl& b, const std::string& dtype) {
  return *find_element(b.type == "dtype" ? dtype : b.type);
}

bool is_checked(const BufferDecl& b) { return b.use == BufferUse::output || b.use == BufferUse::inout; }

// What one rounding to an element type costs, with room for a kernel that rounds once more or
// sums in another order than the reference: about two units in the last place.
Tolerance builtin_tolerance(const ElementType& e) {
  if (!e.is_float) return {0, 0, 0};
  if (e.name == "fp16") return {2e-3, 2e-3, 1e-3};
  if (e.name == "bf16") return {1.6e-2, 1.6e-2, 8e-3};
  if (e.name == "fp8") return {0.125, 0.125, 0.0625};
  return {1e-5, 1e-5, 1e-5};
}

// Fields of `over` that are set (>= 0) replace those of `base`.
Tolerance overlay(Tolerance base, const Tolerance& over) {
  if (over.atol >= 0) base.atol = over.atol;
  if (over.rtol >= 0) base.rtol = over.rtol;
  if (over.max_norm_rel >= 0) base.max_norm_rel = over.max_norm_rel;
  return base;
}

int64_t eval_at(const Expr& e, const Problem& p, const std::string& what) {
  try {
    return e.eval(p.dims);
  } catch (const ConfigError& err) {
    throw ConfigError(fmt::format("{} {}: {}", p.family, what, err.what()));
  }
}

Launch launch_of(const KernelCallDecl& c, const Problem& p) {
  Launch l;
  for (int i = 0; i < 3; ++i) {
    l.grid[i] = eval_at(c.grid[i], p, "launch.grid");
    l.block[i] = eval_at(c.block[i], p, "launch.block");
  }
  l.shared_bytes = eval_at(c.shared_bytes, p, "launch.shared_bytes");
  return l;
}

// A scalar argument's value in its declared type, as cuLaunchKernel reads it.
void add_scalar(KernelArguments& out, const ArgumentDecl& a, const Problem& p) {
  const std::string& t = a.scalar_type;
  if (t == "float" || t == "double") {
    const double v = a.real_value ? *a.real_value : static_cast<double>(eval_at(*a.int_value, p, "argument " + a.name));
    if (t == "float")
      out.add(static_cast<float>(v));
    else
      out.add(v);
    return;
  }
  const int64_t v = eval_at(*a.int_value, p, "argument " + a.name);
  const bool wide = t == "int64" || t == "uint64";
  const int64_t lo = t == "int32" ? INT32_MIN : t == "uint32" || t == "uint64" ? 0 : INT64_MIN;
  const int64_t hi = t == "int32" ? INT32_MAX : t == "uint32" ? int64_t{UINT32_MAX} : INT64_MAX;
  if (v < lo || v > hi) throw ConfigError(fmt::format("{} argument {} = {} does not fit its type {}", p.family, a.name, v, t));
  if (wide)
    out.add(v);
  else
    out.add(static_cast<int32_t>(static_cast<uint32_t>(v)));
}

// A kernel call's argument list: each buffer argument's address from `data`, each scalar's value.
// (Not `bind`: with a std::map among the arguments, argument-dependent lookup also finds
// std::bind, which wins overload resolution for a non-const map and silently builds nothing.)
void bind_arguments(const std::vector<ArgumentDecl>& arguments, const std::map<std::string, void*>& data, const Problem& p,
          KernelArguments& out) {
  for (const ArgumentDecl& a : arguments) {
    if (a.buffer.empty())
      add_scalar(out, a, p);
    else
      out.add_pointer(operand(data, a.buffer, p));
  }
}

class DeclaredFamily;

class DeclaredWorkload : public Workload {
 public:
  DeclaredWorkload(const Declaration& d, const DeclaredFamily& family, const Problem& p, GpuContext& gpu, uint64_t seed);

  std::vector<void*> kernel_args(const std::vector<TensorMapSpec>& tensor_maps) override {
    if (!tensor_maps.empty()) throw Error(fmt::format("{} takes no tensor maps", problem_.family));
    return candidate_args_.as_vector();
  }
  ErrorStats check_output(const Tolerance& requested) override;
  bool accepts(const ErrorStats& error, const Tolerance& t, std::string* why) const override;
  std::vector<BaselineInfo> baselines() const override;
  void run_baseline(size_t which) override;
  void before_launch() override { buffers_.zero_before_launch(); }

 private:
  struct Output {
    std::string name;
    void* data = nullptr;
    const ElementType* element = nullptr;
    int64_t n = 0;
    void* reference = nullptr;  // the reference's own type (integers) or fp32 (floats)
    Tolerance tolerance;        // this output's own, before what the user asked for
    ErrorStats last;            // of the last check
  };

  CUfunction compile(const KernelCallDecl& c);

  const Declaration& d_;
  const DeclaredFamily& family_;
  Problem problem_;
  GpuContext& gpu_;
  std::map<std::string, void*> buffer_data_;   // what candidates get
  std::map<std::string, void*> reference_data_;  // what the reference writes instead (outputs, scratch)
  std::vector<Output> outputs_;
  KernelArguments candidate_args_, baseline_args_, reference_args_;
  CUfunction baseline_fn_ = nullptr;
  Launch baseline_launch_;
  std::optional<CopyRoof> copy_;
};

class DeclaredFamily : public KernelFamily {
 public:
  explicit DeclaredFamily(Declaration d) : d_(std::move(d)) {
    for (const std::string& c : d_.configs) config_views_.push_back(c);
  }

  std::string_view name() const override { return d_.name; }
  std::string_view summary() const override { return d_.summary; }
  ProblemSchema schema() const override {
    ProblemSchema s;
    for (const auto& dim : d_.dims) s.dims.push_back({dim.name, dim.help, dim.defaults_to});
    for (const auto& [name, cpp] : d_.dtypes) s.dtypes.push_back(name);
    for (const auto& o : d_.options) s.options.push_back({o.name, o.help, o.choices, o.default_value});
    s.dtype_help = "declared in " + d_.file.filename().string();
    return s;
  }
  Bound bound() const override { return d_.memory_bound ? Bound::memory : Bound::compute; }
  std::vector<std::string_view> default_configs() const override { return config_views_; }
  std::vector<std::string> context_names() const override {
    std::vector<std::string> names;
    for (const auto& dim : d_.dims) names.push_back(dim.name);
    for (const char* n : {"elem_bytes", "arch", "max_smem", "sm_count"}) names.emplace_back(n);
    return names;
  }
  std::vector<std::string> placeholder_names() const override {
    std::vector<std::string> names = {"ELEMENT"};
    for (const auto& o : d_.options) names.push_back(o.name);
    return names;
  }
  void validate(const Problem& p) const override {
    for (const auto& dim : d_.dims)
      if (p.dims.at(dim.name) <= 0) throw ConfigError(fmt::format("{}: {} must be >= 1 (got {})", d_.name, dim.name, p.dims.at(dim.name)));
    for (const auto& [text, e] : d_.constraints)
      if (eval_at(e, p, "constraint") == 0)
        throw ConfigError(fmt::format("{}: the problem does not meet the declaration's constraint {} ({})", d_.name, text,
                                      shape_text(p)));
    for (const BufferDecl& b : d_.buffers) {
      if (b.init.kind == BufferInit::Kind::integers && (b.init.a_expr || b.init.b_expr)) {
        const double low = b.init.a_expr ? static_cast<double>(eval_at(*b.init.a_expr, p, "init.low")) : b.init.a;
        const double high = b.init.b_expr ? static_cast<double>(eval_at(*b.init.b_expr, p, "init.high")) : b.init.b;
        if (low > high)
          throw ConfigError(fmt::format("{}: buffer {} would draw integers from {} to {} ({})", d_.name, b.name, low, high,
                                        shape_text(p)));
      }
      const int64_t n = eval_at(b.count, p, "buffer " + b.name + " count");
      if (n < 1) throw ConfigError(fmt::format("{}: buffer {} would hold {} elements", d_.name, b.name, n));
      if (n > (int64_t{1} << 40) / element_of(b, p.dtype).bytes)
        throw ConfigError(fmt::format("{}: buffer {} would hold {} elements, over a TiB", d_.name, b.name, n));
    }
  }
  Bindings context(const Problem& p, const ArchFacts& arch) const override {
    Bindings b = p.dims;
    b["elem_bytes"] = find_element(p.dtype)->bytes;
    b["arch"] = arch.arch;
    b["max_smem"] = arch.max_smem;
    b["sm_count"] = arch.sm_count;
    return b;
  }
  std::map<std::string, std::string> placeholders(const Problem& p) const override {
    std::map<std::string, std::string> out = {{"ELEMENT", dtype_cpp(p.dtype)}};
    for (const auto& o : d_.options) out[o.name] = p.option(o.name);
    return out;
  }
  Cost cost(const Problem& p) const override {
    Cost c;
    if (d_.flops) c.flops = static_cast<double>(eval_at(*d_.flops, p, "cost.flops"));
    if (d_.bytes) {
      c.min_bytes = static_cast<double>(eval_at(*d_.bytes, p, "cost.bytes"));
    } else {
      for (const BufferDecl& b : d_.buffers) {
        const double bytes = static_cast<double>(eval_at(b.count, p, "count")) * element_of(b, p.dtype).bytes;
        if (b.use == BufferUse::input || b.use == BufferUse::output) c.min_bytes += bytes;
        if (b.use == BufferUse::inout) c.min_bytes += 2 * bytes;
      }
    }
    return c;
  }
  int64_t device_bytes(const Problem& p) const override {
    int64_t bytes = 0;
    int buffers = 0;
    for (const BufferDecl& b : d_.buffers) {
      const ElementType& e = element_of(b, p.dtype);
      const int64_t n = eval_at(b.count, p, "count");
      bytes += n * e.bytes;
      ++buffers;
      if (b.use == BufferUse::inout) bytes += n * e.bytes;  // the copy poison_outputs restores from
      if (is_checked(b) || b.use == BufferUse::scratch) {   // the reference's own
        bytes += n * (e.is_float && d_.reference_in_fp32 ? 4 : e.bytes);
        ++buffers;
        if (e.is_float && !d_.reference_in_fp32 && e.bytes != 4) bytes += 4 * n, ++buffers;
      }
    }
    if (d_.memory_bound) {
      const int64_t moved = static_cast<int64_t>(cost(p).min_bytes);
      bytes += CopyRoof::device_bytes(moved);
    }
    return bytes + guard_overhead(buffers);
  }
  Tolerance default_tolerance(const std::string& dtype) const override {
    return tolerance_for(*find_element(dtype), d_.tolerance.count(dtype) ? d_.tolerance.at(dtype) : Tolerance{-1, -1, -1});
  }
  std::unique_ptr<Workload> prepare(const Problem& p, GpuContext& gpu, uint64_t seed) const override {
    return std::make_unique<DeclaredWorkload>(d_, *this, p, gpu, seed);
  }
  // The declared buffers: scratch is the launcher's, zeroed before every launch as in tuning;
  // an output declared "zeroed" is the caller's, zeroed before every launch too.
  std::vector<LaunchOperand> launch_operands(const Problem& p) const override {
    std::vector<LaunchOperand> ops;
    for (const BufferDecl& b : d_.buffers) {
      const ElementType& e = element_of(b, p.dtype);
      const int64_t bytes = eval_at(b.count, p, "buffer " + b.name + " count") * e.bytes;
      const bool scratch = b.use == BufferUse::scratch;
      const char* role = b.use == BufferUse::input    ? "input"
                         : b.use == BufferUse::output ? "output"
                         : b.use == BufferUse::inout  ? "input and output"
                                                      : "scratch";
      ops.push_back({b.name, fmt::format("{} {} ({})", bytes / e.bytes, e.name, role), bytes, scratch,
                     scratch || b.zeroed});
    }
    return ops;
  }
  void kernel_arguments(const Problem& p, const std::map<std::string, void*>& operands,
                        const std::vector<TensorMapSpec>& tensor_maps, KernelArguments& out) const override {
    if (!tensor_maps.empty()) throw Error(fmt::format("{} takes no tensor maps", p.family));
    bind_arguments(d_.arguments, operands, p, out);
  }
  std::vector<KernelParam> kernel_parameters(const Problem& p, const SweepConfig&) const override {
    return parameters(d_.arguments, p.dtype, /*reference=*/false);
  }
  void check_own_kernels(const Problem& p, const std::string& arch, Compiler& compiler) const override {
    std::vector<std::pair<const KernelCallDecl*, bool>> calls = {{&d_.reference, true}};
    if (d_.baseline) calls.emplace_back(&*d_.baseline, false);
    for (const auto& [call, reference] : calls) {
      CompileRequest request = request_for(*call, p, reference);
      request.arch = arch;
      CompileInfo info = compiler.compile(request);
      if (!info.ok)
        throw ConfigError(fmt::format("{}: the {} kernel {} does not compile for {}:\n{}", call->location,
                                      reference ? "reference" : "baseline", request.name_expression, arch, info.log));
    }
  }
  std::filesystem::path declaration_file() const override { return d_.file; }
  std::string definition_text() const override {
    std::string text = d_.text + "\n--reference--\n" + d_.reference.text;
    for (const auto& [name, header] : headers_for(d_.reference.path)) text += "\n--header " + name + "--\n" + header;
    if (d_.baseline) text += "\n--baseline--\n" + d_.baseline->text;
    return text;
  }

  // For the workload.
  std::string dtype_cpp(const std::string& dtype) const {
    for (const auto& [name, cpp] : d_.dtypes)
      if (name == dtype) return cpp;
    return std::string(find_element(dtype)->cpp);
  }
  std::vector<KernelParam> parameters(const std::vector<ArgumentDecl>& arguments, const std::string& dtype,
                                      bool reference) const {
    std::vector<KernelParam> out;
    for (const ArgumentDecl& a : arguments)
      out.push_back({argument_cpp_type(d_, a, dtype, reference && d_.reference_in_fp32), a.name});
    return out;
  }
  CompileRequest request_for(const KernelCallDecl& c, const Problem& p, bool reference) const {
    CompileRequest r;
    r.source_name = c.path.string();
    r.name_expression = substitute(c.kernel_name, p.dims, placeholders(p));
    r.source_text = c.text + parameter_check(r.name_expression, parameters(c.arguments, p.dtype, reference));
    r.headers = headers_for(c.path);
    return r;
  }
  // An output of element `e`: its type's tolerance, then the declaration's for the dtype (outputs
  // of the problem's own type), then the buffer's own.
  Tolerance output_tolerance(const BufferDecl& b, const std::string& dtype) const {
    const ElementType& e = element_of(b, dtype);
    Tolerance t = builtin_tolerance(e);
    if (b.type == "dtype" && d_.tolerance.count(dtype)) t = overlay(t, d_.tolerance.at(dtype));
    if (b.tolerance.count("")) t = overlay(t, b.tolerance.at(""));
    if (b.tolerance.count(dtype)) t = overlay(t, b.tolerance.at(dtype));
    return t;
  }

 private:
  static Tolerance tolerance_for(const ElementType& e, const Tolerance& declared) {
    return overlay(builtin_tolerance(e), declared);
  }

  Declaration d_;
  std::vector<std::string_view> config_views_;
};

DeclaredWorkload::DeclaredWorkload(const Declaration& d, const DeclaredFamily& family, const Problem& p, GpuContext& gpu,
                                   uint64_t seed)
    : Workload(gpu), d_(d), family_(family), problem_(p), gpu_(gpu) {
  const cudaStream_t stream = gpu_.stream();
  // The buffers candidates see, by role; inputs and inout buffers filled as declared.
  for (size_t i = 0; i < d.buffers.size(); ++i) {
    const BufferDecl& b = d.buffers[i];
    const ElementType& e = element_of(b, p.dtype);
    const int64_t n = eval_at(b.count, p, "count");
    const BufferRole role = b.use == BufferUse::input    ? BufferRole::input
                            : b.use == BufferUse::output ? BufferRole::output
                            : b.use == BufferUse::inout  ? BufferRole::inout
                                                         : BufferRole::workspace;
    void* data = buffers_.add(b.name, role, static_cast<size_t>(n) * e.bytes);
    buffer_data_[b.name] = data;
    if (b.use == BufferUse::scratch || b.zeroed) buffers_.zero_before_every_launch(data);
    if (b.use == BufferUse::input || b.use == BufferUse::inout) {
      const BufferInit& init = b.init;
      const uint64_t s = seed + 7919 * (i + 1);
      switch (init.kind) {
        case BufferInit::Kind::zeros: KTUNE_CUDA(cudaMemsetAsync(data, 0, static_cast<size_t>(n) * e.bytes, stream)); break;
        case BufferInit::Kind::ones: gpu_.fill(data, e, n, s, 3, 1, 0); break;
        case BufferInit::Kind::normal: gpu_.fill(data, e, n, s, 0, init.a, init.b); break;
        case BufferInit::Kind::uniform: gpu_.fill(data, e, n, s, 1, init.a, init.b); break;
        case BufferInit::Kind::integers:
          gpu_.fill(data, e, n, s, 2, init.a_expr ? static_cast<double>(eval_at(*init.a_expr, p, "init.low")) : init.a,
                    init.b_expr ? static_cast<double>(eval_at(*init.b_expr, p, "init.high")) : init.b);
          break;
        case BufferInit::Kind::iota: gpu_.fill(data, e, n, s, 3, init.a, init.b); break;
      }
    }
    if (is_checked(b)) {
      Output o{b.name, data, &e, n, nullptr, family.output_tolerance(b, p.dtype), {}};
      const bool in_fp32 = e.is_float && d.reference_in_fp32;
      void* ref = buffers_.add(b.name + " (reference)", BufferRole::reference,
                               static_cast<size_t>(n) * (in_fp32 ? 4 : e.bytes));
      if (b.use == BufferUse::inout) {  // the reference starts from what the candidates start from
        if (in_fp32)
          gpu_.to_fp32(data, std::string(e.name), static_cast<float*>(ref), n);
        else
          KTUNE_CUDA(cudaMemcpyAsync(ref, data, static_cast<size_t>(n) * e.bytes, cudaMemcpyDeviceToDevice, stream));
      }
      reference_data_[b.name] = ref;
      o.reference = ref;
      outputs_.push_back(o);
    }
    if (b.use == BufferUse::scratch)
      reference_data_[b.name] = buffers_.add(b.name + " (reference scratch)", BufferRole::workspace,
                                             static_cast<size_t>(n) * e.bytes);
  }

  // The reference, once: a kernel that does not compile or fails here is the declaration's
  // fault, said with its position.
  CUfunction reference = compile(d.reference);
  std::map<std::string, void*> reference_view = buffer_data_;  // the reference writes its own outputs and scratch
  for (const auto& [name, data] : reference_data_) reference_view[name] = data;
  bind_arguments(d.reference.arguments, reference_view, p, reference_args_);
  gpu_.launch(reference, launch_of(d.reference, p), reference_args_.list());
  KTUNE_CUDA(cudaGetLastError());
  KTUNE_CUDA(cudaStreamSynchronize(stream));
  // Float outputs the reference wrote in their own type are compared through an fp32 copy.
  for (Output& o : outputs_)
    if (o.element->is_float && !d.reference_in_fp32 && o.element->bytes != 4) {
      auto* wide = static_cast<float*>(buffers_.add(o.name + " (reference, fp32)", BufferRole::reference,
                                                    static_cast<size_t>(o.n) * 4));
      gpu_.to_fp32(o.reference, std::string(o.element->name), wide, o.n);
      o.reference = wide;
    }

  bind_arguments(d.arguments, buffer_data_, p, candidate_args_);
  if (d.baseline) {
    baseline_fn_ = compile(*d.baseline);
    bind_arguments(d.baseline->arguments, buffer_data_, p, baseline_args_);
    baseline_launch_ = launch_of(*d.baseline, p);
  }
  if (d.memory_bound) copy_.emplace(static_cast<int64_t>(family.cost(p).min_bytes));
  KTUNE_CUDA(cudaStreamSynchronize(stream));
  buffers_.seal();
}

CUfunction DeclaredWorkload::compile(const KernelCallDecl& c) {
  const bool reference = &c == &d_.reference;
  CUfunction f = nullptr;
  try {
    f = gpu_.kernel(family_.request_for(c, problem_, reference));
  } catch (const Error& e) {
    throw ConfigError(fmt::format("{}: {}", c.location, e.what()));
  }
  const Launch l = launch_of(c, problem_);
  if (l.shared_bytes > 48 * 1024)
    KTUNE_CU(cuda::driver().func_set_attribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                               static_cast<int>(l.shared_bytes)));
  return f;
}

ErrorStats DeclaredWorkload::check_output(const Tolerance& requested) {
  // What the user asked for on the command line (a field that differs from the family's default
  // for the dtype) applies to every output; the rest is each output's own.
  const Tolerance dflt = family_.default_tolerance(problem_.dtype);
  ErrorStats worst;
  for (Output& o : outputs_) {
    Tolerance t = o.tolerance;
    if (requested.atol != dflt.atol) t.atol = requested.atol;
    if (requested.rtol != dflt.rtol) t.rtol = requested.rtol;
    if (requested.max_norm_rel != dflt.max_norm_rel) t.max_norm_rel = requested.max_norm_rel;
    o.tolerance = t;
    o.last = o.element->is_float ? gpu_.compare(o.data, std::string(o.element->name), static_cast<const float*>(o.reference),
                                                o.n, t.atol, t.rtol)
                                 : gpu_.compare_exact(o.data, o.reference, *o.element, o.n);
    worst = worst_of(worst, o.last);
  }
  return worst;
}

bool DeclaredWorkload::accepts(const ErrorStats&, const Tolerance&, std::string* why) const {
  for (const Output& o : outputs_) {
    std::string w;
    if (!within_tolerance(o.last, o.tolerance, &w)) {
      if (why)
        *why = o.element->is_float ? fmt::format("{}: {}", o.name, w)
                                   : fmt::format("{}: {} of {} integers differ from the reference (largest by {})", o.name,
                                                 o.last.mismatches, o.n, o.last.max_abs);
      return false;
    }
  }
  return true;
}

std::vector<BaselineInfo> DeclaredWorkload::baselines() const {
  std::vector<BaselineInfo> out;
  if (d_.baseline) out.push_back({"user", d_.baseline->label, true});
  if (copy_) out.push_back(copy_->info());
  if (out.empty())
    out.push_back({"none", "no baseline", true,
                   "the declaration names none (add \"baseline\": your production kernel, to time candidates against it)"});
  return out;
}

void DeclaredWorkload::run_baseline(size_t which) {
  if (d_.baseline && which == 0) {
    before_launch();
    gpu_.launch(baseline_fn_, baseline_launch_, baseline_args_.list());
    return;
  }
  if (copy_) copy_->run(gpu_.stream());
}

}  // namespace

std::unique_ptr<KernelFamily> make_declared_family(Declaration declaration) {
  return std::make_unique<DeclaredFamily>(std::move(declaration));
}

}  // namespace ktune
