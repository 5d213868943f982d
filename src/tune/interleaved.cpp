#include "tune/interleaved.hpp"

#include <algorithm>

#include "measure/stats.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

// One turn folded into a party's record: samples appended and the round's size noted; the worst
// outcome kept (a turn that fails verification fails the record).
void fold(CandidateRecord& into, CandidateRecord&& turn, bool first) {
  const int taken = static_cast<int>(turn.samples_ms.size());
  if (first) {
    std::vector<double> samples = std::move(into.samples_ms);
    std::vector<int> rounds = std::move(into.rounds);
    into = std::move(turn);
    into.samples_ms.insert(into.samples_ms.begin(), samples.begin(), samples.end());
    into.rounds = std::move(rounds);
  } else {
    into.samples_ms.insert(into.samples_ms.end(), turn.samples_ms.begin(), turn.samples_ms.end());
    // Clocks before the first turn, after the last one; a throttled turn stays visible.
    if (!into.throttled() || turn.throttled()) into.telemetry_after = turn.telemetry_after;
    if (turn.error && (!into.error || turn.error->max_abs > into.error->max_abs)) into.error = turn.error;
    if (turn.disposition != Disposition::passed && into.disposition == Disposition::passed) {
      into.disposition = turn.disposition;
      into.reason = turn.reason;
    }
  }
  into.rounds.push_back(taken);
}

}  // namespace

Interleaved measure_interleaved(Session& session, const std::vector<CandidateRecord>& compiled,
                                const InterleavedOptions& o) {
  if (o.rounds < 1 || o.samples < o.rounds)
    throw ConfigError("interleaved measurement needs at least one round and one sample per round");
  Interleaved out;
  out.kernels = compiled;
  out.baselines.resize(compiled.size());
  const size_t n = compiled.size();
  for (int round = 0; round < o.rounds; ++round) {
    StoppingRule rule;  // exactly `count` samples: no convergence test, no time cap, no pruning
    rule.min_samples = rule.max_samples = o.samples / o.rounds + (round < o.samples % o.rounds);
    rule.min_time_ms = 0;
    rule.max_time_ms = 1e9;
    const bool first = round == 0;
    for (size_t step = 0; step < n; ++step) {
      const size_t j = (step + static_cast<size_t>(round)) % n;  // a rotating order
      if (!first && out.kernels[j].disposition != Disposition::passed) continue;
      CandidateRecord turn = compiled[j], baseline_turn;
      // The first turn gets a long warmup: the GPU may be coming out of idle clocks.
      const double warmup = first && step == 0 ? std::max(o.warmup_ms, o.first_warmup_ms) : o.warmup_ms;
      session.run_candidate(turn, rule, warmup, /*best_ms=*/0, /*verify_only=*/false, o.plant_delay, &baseline_turn);
      fold(out.kernels[j], std::move(turn), first);
      fold(out.baselines[j], std::move(baseline_turn), first);
    }
  }
  auto summarize_all = [](CandidateRecord& rec) {
    rec.pruned = false;
    if (!rec.samples_ms.empty()) rec.time = summarize(rec.samples_ms);
  };
  for (CandidateRecord& rec : out.kernels) summarize_all(rec);
  for (CandidateRecord& rec : out.baselines) summarize_all(rec);
  return out;
}

}  // namespace ktune
