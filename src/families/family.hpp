// The one extension point: a kernel family says what a problem is, which names its sweep configs
// may use, what a problem costs, and (in the worker) how to build inputs, the reference output and
// the library baseline. Adding a built-in family: a kernel in kernels/, a sweep config in configs/,
// a file here, and one line in registry.cpp. A user's family needs none of that: a declaration
// file read at run time (families/declaration.hpp, docs/declared-families.md) becomes one more
// KernelFamily (families/declared_family.cpp).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compile/parameter_check.hpp"
#include "core/baseline.hpp"
#include "cuda/kernel_arguments.hpp"
#include "families/tolerance.hpp"
#include "space/sweep_config.hpp"
#include "store/results.hpp"
#include "gpu/guarded_buffers.hpp"
#include "core/record.hpp"

namespace ktune {

class Compiler;
class GpuContext;
struct SweepConfig;

// Facts about the target that constraints may use, from a live device or from an --arch name.
struct ArchFacts {
  int arch = 0;          // compute capability x10: 80, 90, ...
  int64_t max_smem = 0;  // opt-in dynamic shared memory per block, bytes
  int sm_count = 0;      // 0 when offline
  int64_t l2_bytes = 0;  // 0 when offline: estimates that use it fall back to an H100's
};
ArchFacts arch_facts(const DeviceInfo&);
ArchFacts arch_facts_offline(const std::string& arch);  // "sm_80", "sm_90a"; throws ConfigError

// GPU state for one problem, alive in the worker: inputs, poisoned output, fp32 reference. Every
// device buffer is allocated through buffers(), by role, and sealed once the workload has written
// its inputs and reference: the worker poisons outputs through it before every checked run and
// asks it what a candidate touched outside its outputs (gpu/guarded_buffers.hpp).
class Workload {
 public:
  explicit Workload(GpuContext& gpu) : buffers_(gpu) {}
  virtual ~Workload() = default;
  // Argument pointers for cuLaunchKernel, in the order the family's kernels declare them. Operands
  // named in `tensor_maps` are passed as TMA descriptors (encoded here, kept alive by the workload
  // until the next call), in place of their pointer or appended, as the family defines. gemm:
  // A, B, C, M, N, K; A/B replaced by their descriptors when named; C's descriptor appended when
  // named (the C pointer stays); then const float* scale_a, scale_b (null but for fp8); then
  // split-K's workspace, float* partials and unsigned* arrivals.
  // Throws ktune::Error when a descriptor cannot be encoded for this problem.
  virtual std::vector<void*> kernel_args(const std::vector<TensorMapSpec>& tensor_maps) = 0;
  virtual ErrorStats check_output(const Tolerance&) = 0;
  // The tolerance outputs are judged by, given the one asked for (the family's default or the
  // user's). Most families judge by it as it is; one whose yardstick is measured when the workload
  // is prepared (attention: twice the error of an unfused same-dtype computation) widens it here.
  virtual Tolerance tolerance(const Tolerance& requested) const { return requested; }
  // What candidates are timed against, at least one. The first is the baseline: it alternates
  // with candidates sample by sample and gives their ratios. The others are timed once per run
  // beside it (a memory-bound family's copy roof next to its library op).
  virtual std::vector<BaselineInfo> baselines() const = 0;
  virtual void run_baseline(size_t which) = 0;  // an index into baselines()
  // Work every launch of a candidate needs first, enqueued on the stream, inside the timed region
  // (clearing buffers a kernel accumulates into). The workload's own baselines do the same.
  virtual void before_launch() {}
  // Whether the output last checked passes: most families judge every output by one tolerance
  // (within_tolerance); one with several outputs judged apart says which failed in `why`.
  virtual bool accepts(const ErrorStats& error, const Tolerance& t, std::string* why) const {
    return within_tolerance(error, t, why);
  }
  GuardedBuffers& buffers() { return buffers_; }

 protected:
  GuardedBuffers buffers_;
};

// What a family's problems are made of. The names drive everything that is not the family's own:
// its suite keys, its subcommand's flags, the order of a shape's dimensions in tables and CSV, and
// the check that a problem names nothing the family does not know.
struct DimSpec {
  std::string name;  // "M": a suite key, an expression name; the flag is --m
  std::string help;
  std::string defaults_to;  // a dimension this one copies when not given (gemm's N and K: "M"), or ""
};
struct OptionSpec {
  std::string name;                  // "layout": a suite key, the flag --layout
  std::string help;
  std::vector<std::string> choices;  // the legal values
  std::string default_value;         // what a problem that does not say gets
  // An option added to a family after its problems were stored (gemm's scaling): at its default a
  // problem leaves it out, so the cache keys, results files and suites written before it still
  // name the same problems, and tables show it only where a problem sets another value.
  bool left_out_at_default = false;
};
struct ProblemSchema {
  std::vector<DimSpec> dims;         // in the order a shape is written: M x N x K
  std::vector<std::string> dtypes;    // the first is the default
  std::vector<OptionSpec> options;
  std::string dtype_help;            // what a dtype means beyond its name, for --help
};

// An operand of a family's kernels when they run on buffers their caller owns (the runtime
// library): the caller's device buffer, or a workspace the launcher allocates (zeroed once: the
// kernels leave their counters as they found them), either of them zeroed before every launch
// where the kernels add into it (a declared family's scratch, a histogram's counts).
struct LaunchOperand {
  std::string name;   // "A"
  std::string help;   // "M x K fp16, row-major"
  int64_t bytes = 0;  // what it holds
  bool workspace = false;
  bool zero_each_launch = false;
};

// What a family's kernels are judged by: compute-bound ones (gemm) by TFLOPS against the compute
// roof, memory-bound ones (add, softmax, the norms) by GB/s, minimum bytes read and written per
// second, against the copy roof.
enum class Bound { compute, memory };

class KernelFamily {
 public:
  virtual ~KernelFamily() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;  // one line for `ktune families`
  virtual ProblemSchema schema() const = 0;
  virtual Bound bound() const = 0;
  // The same for one problem, where a family spans both regimes (gemm_nvfp4: decode streams the
  // weights, prefill is a GEMM): the roof that problem's rates are judged against.
  virtual Bound problem_bound(const Problem&) const { return bound(); }
  // Embedded sweep configs tuned together by default, e.g. {"configs/gemm_mma.json", ...}; the
  // ones a device is too old for are skipped.
  virtual std::vector<std::string_view> default_configs() const = 0;
  virtual std::vector<std::string> context_names() const = 0;      // names expressions may use
  virtual std::vector<std::string> placeholder_names() const = 0;  // string {NAME}s in kernel_name
  // Operands a sweep config may hand the kernel as TMA descriptors ("tensor_maps"); the
  // workload's kernel_args encodes them. Most families pass pointers only.
  virtual std::vector<std::string> tensor_map_operands() const { return {}; }
  // ConfigError on bad input. check_problem() (below) has already checked names, dtype and
  // option values; this checks what only the family knows (sizes, combinations).
  virtual void validate(const Problem&) const = 0;
  virtual Bindings context(const Problem&, const ArchFacts&) const = 0;
  virtual std::map<std::string, std::string> placeholders(const Problem&) const = 0;
  virtual Cost cost(const Problem&) const = 0;
  virtual int64_t device_bytes(const Problem&) const = 0;  // what prepare() allocates
  virtual Tolerance default_tolerance(const std::string& dtype) const = 0;
  virtual std::unique_ptr<Workload> prepare(const Problem&, GpuContext&, uint64_t seed) const = 0;
  // Launching outside a workload (runtime/, docs/runtime.md): the operands the family's kernels
  // take, and their argument list from those operands' device addresses, built by the same code
  // the family's workload hands its candidates. No operands: not launchable outside ktune yet.
  virtual std::vector<LaunchOperand> launch_operands(const Problem&) const { return {}; }
  // Throws ktune::Error for an operand missing from `operands` or a descriptor that cannot be
  // encoded; the default, for families with no operands, says the family cannot be launched.
  virtual void kernel_arguments(const Problem&, const std::map<std::string, void*>& operands,
                                const std::vector<TensorMapSpec>& tensor_maps, KernelArguments& out) const;
  // The parameters a candidate of `config` for `problem` must declare, in order
  // (compile/parameter_check.hpp); empty: not checked.
  virtual std::vector<KernelParam> kernel_parameters(const Problem&, const SweepConfig&) const { return {}; }
  // Checks, before any GPU work, the kernels the family compiles itself for `arch` (a declared
  // family's reference and baseline); ConfigError naming what does not compile. Most have none.
  virtual void check_own_kernels(const Problem&, const std::string& /*arch*/, Compiler&) const {}
  // A family read from a file: the file, and everything that defines the family (the declaration
  // and the kernels it names), which the best-config cache key covers. Empty for built-in ones.
  virtual std::filesystem::path declaration_file() const { return {}; }
  virtual std::string definition_text() const { return {}; }
};

// operands.at(name) for kernel_arguments(), with an Error naming the family and what was given.
void* operand(const std::map<std::string, void*>& operands, const std::string& name, const Problem& p);
// The kernel parameter that takes operand `name`: its TMA descriptor where the config maps it,
// else a pointer of `pointer_type` ("const __half*").
KernelParam operand_parameter(const SweepConfig& config, const std::string& name, const std::string& pointer_type);

const KernelFamily& find_family(std::string_view name);  // throws ConfigError naming the known ones
std::vector<const KernelFamily*> all_families();  // built-in, then declared

// Families declared in files (docs/declared-families.md): read `file` and register its family for
// this process, or return the one it registered before. ConfigError "file:line:col: ..." for a
// bad declaration, and for a name a built-in or another declaration has.
const KernelFamily& declare_family(const std::filesystem::path& file);
// Every *.family.json in `folder` (--family-path, KTUNE_FAMILY_PATH).
void declare_families_in(const std::filesystem::path& folder);
// The family a sweep config's "family" names: a family's name, or a declaration's path relative
// to the config's folder (declared on the way).
const KernelFamily& family_named_in(const std::string& family_field, const std::filesystem::path& config_dir);

// A sweep config read with the names `family` gives its expressions, kernel name and tensor maps
// (space/sweep_config.hpp's parse_sweep_config and load_sweep_config).
SweepConfig parse_family_config(const KernelFamily& family, std::string_view text, const std::string& origin);
SweepConfig load_family_config(const KernelFamily& family, const std::filesystem::path& file);

// Fills in the options a problem leaves out with its family's defaults, and the dimensions it
// leaves out that default to another (gemm's N and K: M) with that one's value (ConfigError for
// an unknown family).
void complete_options(Problem& p);
// Checks a problem against its family's schema (every dimension and option present and no other,
// a known dtype and option values), then the family's validate(). Throws ConfigError naming what
// is wrong.
void check_problem(const Problem& p);

// The problems a sweep config sweeps: each of `dims` (its "problems" when not given) x its dtypes
// (the family's default when it lists none) x every combination of its option values (the
// family's default for an option it does not list). Combinations the family has no such problem
// for (gemm: fp8 takes layout rc only) go to `skipped`, with the reason; names the family does not
// know are a ConfigError.
struct ConfigProblems {
  std::vector<Problem> problems;
  std::vector<std::pair<Problem, std::string>> skipped;
};
ConfigProblems config_problems(const SweepConfig& config, const std::vector<Bindings>& dims);

// The headline rate of a timed record, in its family's unit: "698.7 TFLOPS" or "3012 GB/s".
// rate_unit() is the unit alone, for column headers; a family ktune does not know is compute-bound.
// rate_bound() is the roof that rate is judged against (TFLOPS: compute, GB/s: memory), for what
// must differ by more than a number (a chart's axes and roof lines).
Bound rate_bound(const Problem& p);
std::string rate_unit(const Problem& p);
double rate_value(const Problem& p, double tflops, double gbps);
std::string rate_text(const Problem& p, double tflops, double gbps);

// "4096x4096x4096 fp16 rr": the dimensions in the family's order, the dtype, the option values in
// the family's order. A family this ktune does not know prints its dimensions as NAME=VALUE.
std::string shape_text(const Problem& p);
std::string describe(const Problem& p);  // "gemm 4096x4096x4096 fp16 rr"

// Column order for tables of several problems: each family's dimensions (options) in its own
// order, first appearance first, then names no known family declares, sorted.
std::vector<std::string> dim_columns(const std::vector<Problem>& problems);
std::vector<std::string> option_columns(const std::vector<Problem>& problems);
ProblemColumns problem_columns(const std::vector<ProblemResult>& results);  // for write_results

}  // namespace ktune
