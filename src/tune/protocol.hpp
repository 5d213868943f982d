// The conversation between ktune and its worker process: one JSON object per line, a request on
// the worker's stdin, its reply on stdout. Requests (field "op"):
//   hello    {timer, l2_flush, hold,       -> {ok, device, telemetry_note}  (gpu/timing_loop.hpp)
//             cooldown_ms}
//   problem  {problem, seed, tolerance}     -> {ok} | {ok:false, error}   inputs + reference
//   baseline {rule, warmup_ms}              -> {ok, record}               the library call, timed
//   run      {cubin_path, lowered_name, launch, rule, warmup_ms, best_ms, verify_only[, plant_delay]}
//                                           -> {ok, record[, restart]}    one candidate
//   ceilings {rule, warmup_ms}              -> {ok, ceilings}             copy bandwidth, cuBLAS peaks
// A reply with "fatal": true means the worker exits next (a sticky CUDA error); "restart": true
// likewise, after a candidate that wrote outside its outputs (its record says what it touched).
#pragma once

#include <nlohmann/json.hpp>

#include "measure/stopping_rule.hpp"
#include "families/tolerance.hpp"

namespace ktune {

void to_json(nlohmann::json&, const StoppingRule&);
void from_json(const nlohmann::json&, StoppingRule&);
void to_json(nlohmann::json&, const Tolerance&);
void from_json(const nlohmann::json&, Tolerance&);

}  // namespace ktune
