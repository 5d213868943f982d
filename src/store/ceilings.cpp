// The per-device ceilings file; see ceilings.hpp for the format.
#include "store/ceilings.hpp"

#include <fmt/format.h>

#include <system_error>

#include "store/record_json.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kSchema = 1;

}  // namespace

void to_json(json& j, const CeilingProbe& p) {
  j = json{{"what", p.what}, {"work", double_to_json(p.work)}, {"time", p.time}};
}

void from_json(const json& j, CeilingProbe& p) {
  p.what = j.value("what", "");
  p.work = double_from_json(j.at("work"));
  j.at("time").get_to(p.time);
}

void to_json(json& j, const Ceilings& c) {
  json tflops = json::object();
  for (const auto& [dtype, value] : c.tflops) tflops[dtype] = double_to_json(value);
  j = json{{"source", c.source},           {"label", c.label},   {"measured_at", c.measured_at},
           {"copy_gbps", double_to_json(c.copy_gbps)}, {"tflops", tflops}, {"probes", c.probes}};
}

void from_json(const json& j, Ceilings& c) {
  if (!j.is_object()) throw Error("ceilings must be a JSON object, got " + std::string(j.type_name()));
  c.source = j.value("source", "measured");
  c.label = j.value("label", "");
  c.measured_at = j.value("measured_at", "");
  c.copy_gbps = double_from_json(j.at("copy_gbps"));
  c.tflops.clear();
  for (const auto& [dtype, value] : j.at("tflops").items()) c.tflops[dtype] = double_from_json(value);
  c.probes.clear();
  if (auto it = j.find("probes"); it != j.end()) it->get_to(c.probes);
}

std::string ceilings_key(const DeviceInfo& d) {
  return fmt::format("{};cc={}.{};sms={};driver={}", d.name, d.cc_major, d.cc_minor, d.sm_count, d.driver_version);
}

CeilingsStore::CeilingsStore(fs::path file) : path_(std::move(file)) {}

json CeilingsStore::load() const {
  std::error_code ec;
  if (!fs::exists(path_, ec) && !ec) return json{{"schema", kSchema}, {"devices", json::array()}};
  std::string text;
  try {
    text = read_file(path_);
  } catch (const Error& e) {
    throw ConfigError(e.what());
  }
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto bad = [&](const std::string& why) { return ConfigError(fmt::format("{}: {}", path_.string(), why)); };
  if (root.is_discarded()) throw bad("not valid JSON");
  if (!root.is_object() || !root.contains("devices") || !root["devices"].is_array())
    throw bad("not a ceilings file (expected an object with a \"devices\" array)");
  const json& schema = root.contains("schema") ? root["schema"] : json(kSchema);
  if (!schema.is_number_integer()) throw bad("\"schema\" is not an integer");
  if (schema.get<int64_t>() > kSchema)
    throw bad(fmt::format("schema {} is newer than this ktune understands ({})", schema.get<int64_t>(), kSchema));
  return root;
}

std::optional<Ceilings> CeilingsStore::find(const DeviceInfo& device) const {
  const json root = load();
  const std::string key = ceilings_key(device);
  for (const json& entry : root.at("devices")) {
    if (!entry.is_object() || entry.value("key", "") != key) continue;
    try {
      return entry.at("ceilings").get<Ceilings>();
    } catch (const std::exception& e) {  // nlohmann::json::exception or ktune::Error
      throw ConfigError(fmt::format("{}: the entry for {}: {}", path_.string(), key, e.what()));
    }
  }
  return std::nullopt;
}

void CeilingsStore::put(const DeviceInfo& device, const Ceilings& ceilings) {
  FileLock lock(path_);
  json root;
  try {
    root = load();
  } catch (const ConfigError& e) {
    throw Error(fmt::format("not replacing it: {}", e.what()));
  }
  const std::string key = ceilings_key(device);
  json entry = {{"key", key}, {"device", device}, {"ceilings", ceilings}};
  json& devices = root["devices"];
  bool replaced = false;
  for (json& existing : devices) {
    if (existing.is_object() && existing.value("key", "") == key) {
      existing = entry;
      replaced = true;
    }
  }
  if (!replaced) devices.push_back(entry);
  root["schema"] = kSchema;
  write_file_atomic(path_, root.dump(2) + "\n");
}

}  // namespace ktune
