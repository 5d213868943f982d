// The list of kernel families: the built-in ones, one line each, then those declared in files
// (families/declared_family.hpp) as this process reads them.
#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <nlohmann/json.hpp>

#include "families/declared_family.hpp"
#include "families/family.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune {

const KernelFamily& gemm_family();
const KernelFamily& gemm_nvfp4_family();
const KernelFamily& add_family();
const KernelFamily& softmax_family();
const KernelFamily& layernorm_family();
const KernelFamily& rmsnorm_family();
const KernelFamily& layernorm_backward_family();
const KernelFamily& bias_gelu_dropout_family();
const KernelFamily& attention_family();

namespace {

std::vector<const KernelFamily*> built_in_families() {
  return {&gemm_family(),      &add_family(),     &softmax_family(),
          &layernorm_family(), &rmsnorm_family(), &layernorm_backward_family(),
          &bias_gelu_dropout_family(), &attention_family(), &gemm_nvfp4_family()};
}

// The families declared in files this process has read, in the order they were declared. Never
// removed: the references handed out stay valid.
struct Declared {
  std::mutex mutex;
  std::vector<std::unique_ptr<KernelFamily>> families;
};
Declared& declared() {
  static Declared d;
  return d;
}

}  // namespace

void KernelFamily::kernel_arguments(const Problem&, const std::map<std::string, void*>&,
                                    const std::vector<TensorMapSpec>&, KernelArguments&) const {
  throw Error(fmt::format("{} kernels cannot be launched outside ktune yet (its family declares no launch operands)",
                          name()));
}

// The operand `name` of `operands`, or an Error naming what the family takes.
void* operand(const std::map<std::string, void*>& operands, const std::string& name, const Problem& p) {
  auto it = operands.find(name);
  if (it == operands.end()) {
    std::string known;
    for (const auto& [n, ptr] : operands) known += (known.empty() ? "" : ", ") + n;
    throw Error(fmt::format("{}: no operand {} given (given: {})", p.family, name, known.empty() ? "none" : known));
  }
  return it->second;
}

KernelParam operand_parameter(const SweepConfig& config, const std::string& name, const std::string& pointer_type) {
  if (config.maps_operand(name)) return {"CUtensorMap", name + " (its TMA descriptor)"};
  return {pointer_type, name};
}

std::vector<const KernelFamily*> all_families() {
  std::vector<const KernelFamily*> out = built_in_families();
  Declared& d = declared();
  std::lock_guard lock(d.mutex);
  for (const auto& f : d.families) out.push_back(f.get());
  return out;
}

const KernelFamily& find_family(std::string_view name) {
  std::string known;
  for (const KernelFamily* f : all_families()) {
    if (f->name() == name) return *f;
    known += (known.empty() ? "" : ", ") + std::string(f->name());
  }
  if (name.ends_with(".json"))
    throw ConfigError(fmt::format("family '{}' is a declaration's file: a sweep config names it (\"family\": \"{}\", "
                                  "relative to the config), or --family-path names its folder",
                                  name, name));
  throw ConfigError(fmt::format("unknown kernel family '{}' (known: {}; a family of your own is declared in a "
                                "*.family.json file: docs/declared-families.md)",
                                name, known));
}

const KernelFamily& declare_family(const std::filesystem::path& file) {
  const std::filesystem::path path = std::filesystem::weakly_canonical(std::filesystem::absolute(file));
  Declared& d = declared();
  {
    std::lock_guard lock(d.mutex);
    for (const auto& f : d.families)
      if (f->declaration_file() == path) return *f;
  }
  Declaration declaration = load_declaration(path);
  declaration.file = path;
  for (const KernelFamily* f : built_in_families())
    if (f->name() == declaration.name)
      throw ConfigError(fmt::format("{}: family \"{}\" is a built-in family's name; give yours another", path.string(),
                                    declaration.name));
  std::lock_guard lock(d.mutex);
  for (const auto& f : d.families)
    if (f->name() == declaration.name)
      throw ConfigError(fmt::format("{}: family \"{}\" is declared already, by {}", path.string(), declaration.name,
                                    f->declaration_file().string()));
  d.families.push_back(make_declared_family(std::move(declaration)));
  return *d.families.back();
}

void declare_families_in(const std::filesystem::path& folder) {
  if (!std::filesystem::is_directory(folder))
    throw ConfigError(fmt::format("family path {}: not a folder", folder.string()));
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.is_regular_file() && entry.path().filename().string().ends_with(".family.json")) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) declare_family(f);
}

const KernelFamily& family_named_in(const std::string& family_field, const std::filesystem::path& config_dir) {
  if (family_field.ends_with(".json")) return declare_family(config_dir / family_field);
  return find_family(family_field);
}

namespace {

std::vector<std::string> dimension_names(const KernelFamily& family) {
  std::vector<std::string> out;
  for (const DimSpec& d : family.schema().dims) out.push_back(d.name);
  return out;
}

}  // namespace

SweepConfig parse_family_config(const KernelFamily& family, std::string_view text, const std::string& origin) {
  SweepConfig c = parse_sweep_config(text, origin, family.context_names(), family.placeholder_names(),
                                     family.tensor_map_operands(), dimension_names(family));
  if (c.family.ends_with(".json")) c.family = std::string(family.name());  // a declaration's path
  return c;
}

SweepConfig load_family_config(const KernelFamily& family, const std::filesystem::path& file) {
  // A config for another family would fail on the first name this family does not know ("unknown
  // name K" for a gemm config given to softmax): say what is wrong instead.
  const nlohmann::json peek = nlohmann::json::parse(read_file(file), nullptr, /*allow_exceptions=*/false);
  if (peek.is_object() && peek.contains("family") && peek["family"].is_string()) {
    const std::string named = peek["family"];
    if (!named.ends_with(".json") && named != family.name())
      throw ConfigError(fmt::format("{}: this config is for family '{}', but this command tunes '{}'", file.string(), named,
                                    family.name()));
  }
  SweepConfig c = load_sweep_config(file, family.context_names(), family.placeholder_names(), family.tensor_map_operands(),
                                    dimension_names(family));
  if (c.family.ends_with(".json")) {
    const KernelFamily& named = declare_family(c.base_dir / c.family);
    if (&named != &family)
      throw ConfigError(fmt::format("{}: declares family '{}', but this command tunes '{}'", file.string(), named.name(),
                                    family.name()));
    c.family = std::string(family.name());
  }
  return c;
}


ArchFacts arch_facts(const DeviceInfo& d) {
  return {d.cc_major * 10 + d.cc_minor, d.max_smem_per_block_optin, d.sm_count, d.l2_bytes};
}

ArchFacts arch_facts_offline(const std::string& arch) {
  // Opt-in shared memory per block from the CUDA programming guide's compute-capability table.
  static const std::map<std::string, ArchFacts> known = {
      {"sm_80", {80, 166912, 0}},  {"sm_86", {86, 101376, 0}}, {"sm_87", {87, 166912, 0}},
      {"sm_89", {89, 101376, 0}},  {"sm_90", {90, 232448, 0}}, {"sm_90a", {90, 232448, 0}},
      {"sm_100a", {100, 232448, 0}}, {"sm_120", {120, 101376, 0}}};
  auto it = known.find(arch);
  if (it == known.end()) {
    std::string names;
    for (const auto& [n, _] : known) names += (names.empty() ? "" : ", ") + n;
    throw ConfigError(fmt::format("unknown --arch '{}' (known: {})", arch, names));
  }
  return it->second;
}

}  // namespace ktune
