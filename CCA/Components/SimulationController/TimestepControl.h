#pragma once
// The deck's `time` section and the rules that turn a component's stable
// timestep into the step actually taken.

#include <limits>
#include <optional>

namespace tessera {

class ProblemSpec;

struct TimestepControl {
  double initTime = 0.0;
  double maxTime = 0.0;
  std::optional<int> maxTimesteps;  // unlimited when absent
  double deltMin = 0.0;
  double deltMax = std::numeric_limits<double>::max();
  std::optional<double> deltInit;  // caps the first step
  double multiplier = 1.0;

  static TimestepControl fromDeck(const ProblemSpec& time);

  // The step from `time` after `stepsTaken` steps, given the component's
  // stable timestep: times the multiplier, clamped to [delt_min, delt_max]
  // (and delt_init on the first step), and shortened to land exactly on max_time.
  double nextDelT(double stable, double time, int stepsTaken) const;
  // The time after a step; exactly max_time on the step that reaches it.
  double advance(double time, double delT) const;
  bool finished(double time, int stepsTaken) const;
};

}  // namespace tessera
