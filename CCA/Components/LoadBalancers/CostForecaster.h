#pragma once
// What each patch will cost next, from what its tasks cost so far (Uintah's
// cost forecaster): a measurement per timestep, smoothed exponentially so
// that one slow step (the machine's noise) moves a forecast only part of
// the way. Before a patch has been measured, its cells stand in for its
// cost, at the mean cost per cell of the measured ones. See
// docs/load-balancing.md.

#include "Core/Grid/Grid.h"
#include "Core/ProblemSpec/ProblemSpec.h"

#include <map>
#include <optional>
#include <vector>

namespace tessera {

class Communicator;

// The deck's load_balancer.dynamic section.
struct DynamicBalance {
  int interval = 1;        // timesteps between checks
  double threshold = 0.1;  // the measured imbalance above which the patches move
  double smoothing = 0.5;  // CostForecaster's
  bool knapsack = false;   // strategy: knapsack rather than the curve (Knapsack.h)

  // nullopt without the section (the schema checked its keys).
  static std::optional<DynamicBalance> fromDeck(const ProblemSpec& deck);
};

class CostForecaster {
 public:
  // `smoothing`: the weight of the newest measurement, in (0, 1].
  explicit CostForecaster(double smoothing = 0.5) : m_smoothing(smoothing) {}

  // Forgets every forecast (the patches of a new grid).
  void reset() { m_forecast.clear(); }
  // Keeps `costs` (costs()) as the forecasts of the patches `patchRanks`
  // gives `rank`: what a rank knows of the patches it receives.
  void adopt(const std::vector<double>& costs, const std::vector<int>& patchRanks, int rank);
  // One timestep's seconds of this rank's patches (by patch id).
  void measured(const std::map<int, double>& seconds);
  // The forecast cost of every patch of `grid`, the same vector on every
  // rank (one allreduce): this rank's forecasts for its patches (`patchRanks`),
  // cells at the measured mean cost per cell for patches measured nowhere.
  // Collective.
  std::vector<double> costs(const Grid& grid, const std::vector<int>& patchRanks,
                            const Communicator& comm) const;

 private:
  double m_smoothing;
  std::map<int, double> m_forecast;  // this rank's patches measured so far
};

// Each rank's load under `patchRanks`: the sum of `costs` of its patches.
std::vector<double> rankLoads(const std::vector<double>& costs, const std::vector<int>& patchRanks,
                              int numRanks);
// max / mean - 1 of `loads` (0 for no load).
double imbalanceOf(const std::vector<double>& loads);

}  // namespace tessera
