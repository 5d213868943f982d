#include "tune/protocol.hpp"

namespace ktune {

void to_json(nlohmann::json& j, const StoppingRule& r) {
  j = {{"min_samples", r.min_samples},     {"min_time_ms", r.min_time_ms},
       {"max_time_ms", r.max_time_ms},     {"max_samples", r.max_samples},
       {"noise_target", r.noise_target},   {"prune_factor", r.prune_factor},
       {"prune_min_samples", r.prune_min_samples}};
}

void from_json(const nlohmann::json& j, StoppingRule& r) {
  j.at("min_samples").get_to(r.min_samples);
  j.at("min_time_ms").get_to(r.min_time_ms);
  j.at("max_time_ms").get_to(r.max_time_ms);
  j.at("max_samples").get_to(r.max_samples);
  j.at("noise_target").get_to(r.noise_target);
  j.at("prune_factor").get_to(r.prune_factor);
  j.at("prune_min_samples").get_to(r.prune_min_samples);
}

void to_json(nlohmann::json& j, const Tolerance& t) {
  j = {{"atol", t.atol}, {"rtol", t.rtol}, {"max_norm_rel", t.max_norm_rel}};
}

void from_json(const nlohmann::json& j, Tolerance& t) {
  j.at("atol").get_to(t.atol);
  j.at("rtol").get_to(t.rtol);
  j.at("max_norm_rel").get_to(t.max_norm_rel);
}

}  // namespace ktune
