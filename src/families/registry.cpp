// The list of kernel families, one line each.
#include <fmt/format.h>

#include "families/family.hpp"
#include "util/error.hpp"

namespace ktune {

const KernelFamily& gemm_family();
const KernelFamily& add_family();
const KernelFamily& softmax_family();
const KernelFamily& layernorm_family();
const KernelFamily& rmsnorm_family();
const KernelFamily& layernorm_backward_family();
const KernelFamily& bias_gelu_dropout_family();
const KernelFamily& attention_family();

std::vector<const KernelFamily*> all_families() {
  return {&gemm_family(),      &add_family(),     &softmax_family(),
          &layernorm_family(), &rmsnorm_family(), &layernorm_backward_family(),
          &bias_gelu_dropout_family(), &attention_family()};
}

const KernelFamily& find_family(std::string_view name) {
  std::string known;
  for (const KernelFamily* f : all_families()) {
    if (f->name() == name) return *f;
    known += (known.empty() ? "" : ", ") + std::string(f->name());
  }
  throw ConfigError(fmt::format("unknown kernel family '{}' (known: {})", name, known));
}

SweepConfig parse_family_config(const KernelFamily& family, std::string_view text, const std::string& origin) {
  return parse_sweep_config(text, origin, family.context_names(), family.placeholder_names(),
                            family.tensor_map_operands());
}

SweepConfig load_family_config(const KernelFamily& family, const std::filesystem::path& file) {
  return load_sweep_config(file, family.context_names(), family.placeholder_names(), family.tensor_map_operands());
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
