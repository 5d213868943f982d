#include "runtime/bundle.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "compile/compiler.hpp"
#include "compile/embedded.hpp"
#include "compile/kernel_source.hpp"
#include "families/family.hpp"
#include "space/enumerate.hpp"
#include "store/cache.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

struct CopiedConfig {
  std::string file;         // relative to the bundle; "" when the family has no such config
  std::string declaration;  // relative to the bundle; "" for a built-in family
  std::optional<SweepConfig> config;  // as this ktune read it (the copy's text is the same)
};

// `family`'s config named `name`, written into the bundle with what it needs: a built-in config
// with its kernel and ktune's headers, a declared family with its whole folder.
CopiedConfig copy_config(const fs::path& dir, const KernelFamily& family, const std::string& name) {
  for (std::string_view path : family.default_configs()) {
    if (fs::path(path).is_absolute()) {  // a declared family's config: a file beside its declaration
      const SweepConfig config = load_family_config(family, fs::path(path));
      if (config.name != name) continue;
      const fs::path from = family.declaration_file().parent_path();
      const fs::path to = dir / "families" / std::string(family.name());
      fs::create_directories(to);
      for (const auto& e : fs::directory_iterator(from))
        if (e.is_regular_file()) fs::copy_file(e.path(), to / e.path().filename(), fs::copy_options::overwrite_existing);
      const fs::path folder = fs::path("families") / std::string(family.name());
      return {(folder / fs::path(path).filename()).string(), (folder / family.declaration_file().filename()).string(),
              config};
    }
    auto text = find_embedded(path);
    if (!text) continue;
    const SweepConfig config = parse_family_config(family, *text, std::string(path));
    if (config.name != name) continue;
    const std::string file = (fs::path("configs") / fs::path(path).filename()).string();
    write_file_atomic(dir / file, *text);
    auto kernel = find_embedded(config.kernel_path);
    if (!kernel) throw Error(fmt::format("{}: kernel {} is not built into ktune", path, config.kernel_path));
    write_file_atomic(dir / "configs" / config.kernel_path, *kernel);
    for (const EmbeddedFile& f : embedded_files())
      if (f.path.starts_with("kernels/") && f.path.ends_with(".cuh")) write_file_atomic(dir / "configs" / f.path, f.text);
    return {file, "", config};
  }
  return {};
}

}  // namespace

BundleWriteReport write_bundle(const fs::path& dir, const std::vector<DispatchRow>& table, Compiler& compiler) {
  BundleWriteReport report;
  fs::create_directories(dir / "cubins");
  std::map<std::pair<std::string, std::string>, CopiedConfig> copied;  // by (family, config)
  nlohmann::json rows = nlohmann::json::array();
  const nlohmann::json table_rows = dispatch_json(table).at("rows");
  for (size_t i = 0; i < table.size(); ++i) {
    const DispatchRow& r = table[i];
    const std::string what = fmt::format("{} {} {}", r.family, nlohmann::json(r.dims).dump(), r.dtype);
    const KernelFamily* family = nullptr;
    try {
      family = &find_family(r.family);
    } catch (const ConfigError& e) {
      report.notes.push_back(fmt::format("{}: left out: {}", what, e.what()));
      continue;
    }
    auto found = copied.find({r.family, r.config});
    if (found == copied.end()) found = copied.emplace(std::pair(r.family, r.config), copy_config(dir, *family, r.config)).first;
    const CopiedConfig& files = found->second;
    if (files.file.empty()) {
      report.notes.push_back(fmt::format("{}: left out: {} has no config named {} in this ktune", what, r.family, r.config));
      continue;
    }
    nlohmann::json row = table_rows.at(i);
    row["config_file"] = files.file;
    row["declaration"] = files.declaration;
    nlohmann::json cubins = nlohmann::json::object();
    if (!r.arch.empty()) {
      const KernelSource source = resolve_kernel_source(*files.config);
      CompileInfo info = compiler.compile({source.name, source.text, source.headers, r.kernel_name, r.arch, {}});
      if (info.ok) {
        const std::string file = fmt::format("cubins/{}.{}.cubin", i, r.arch);
        write_file_atomic(dir / file, read_file(info.cubin_path));
        cubins[r.arch] = {{"file", file}, {"lowered_name", info.lowered_name}};
        ++report.cubins;
      } else {
        report.notes.push_back(fmt::format("{}: no cubin for {} ({}): NVRTC compiles it on first use",
                                           what, r.arch, info.log.substr(0, 200)));
      }
    }
    row["cubins"] = cubins;
    rows.push_back(row);
    ++report.rows;
  }
  write_file_atomic(dir / "bundle.json", nlohmann::json{{"schema", 1}, {"rows", rows}}.dump(2) + "\n");
  return report;
}

std::vector<BundleRow> read_bundle(const fs::path& dir) {
  const fs::path file = dir / "bundle.json";
  if (!fs::exists(file)) throw ConfigError(fmt::format("{}: no bundle here (write one with `ktune export --bundle DIR`)", file.string()));
  try {
    const nlohmann::json j = nlohmann::json::parse(read_file(file));
    const std::vector<DispatchRow> table = parse_dispatch_json(j);
    std::vector<BundleRow> out;
    for (size_t i = 0; i < table.size(); ++i) {
      const nlohmann::json& row = j.at("rows").at(i);
      BundleRow b;
      b.row = table[i];
      row.at("config_file").get_to(b.config_file);
      b.declaration = row.value("declaration", "");
      for (const auto& [arch, cubin] : row.at("cubins").items())
        b.cubins[arch] = {cubin.at("file").get<std::string>(), cubin.at("lowered_name").get<std::string>()};
      out.push_back(std::move(b));
    }
    if (const fs::path cache = dir / "cache" / "best_configs.json"; fs::exists(cache)) {
      std::set<std::string> held;
      for (const BundleRow& r : out) held.insert(nlohmann::json({r.row.family, r.row.dtype, r.row.options, r.row.dims, r.row.gpu}).dump());
      for (const DispatchRow& r : dispatch_table(BestConfigCache(cache).list()))
        if (!held.count(nlohmann::json({r.family, r.dtype, r.options, r.dims, r.gpu}).dump())) out.push_back({r, "", "", {}});
    }
    return out;
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("{}: {}", file.string(), e.what()));
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{}: {}", file.string(), e.what()));
  }
}

}  // namespace ktune
