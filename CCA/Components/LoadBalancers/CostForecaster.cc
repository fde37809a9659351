#include "CCA/Components/LoadBalancers/CostForecaster.h"

#include "Core/Parallel/Communicator.h"

#include <algorithm>

namespace tessera {

std::optional<DynamicBalance> DynamicBalance::fromDeck(const ProblemSpec& deck) {
  const std::optional<ProblemSpec> balancer = deck.findSection("load_balancer");
  if (!balancer) return std::nullopt;
  const std::optional<ProblemSpec> section = balancer->findSection("dynamic");
  if (!section) return std::nullopt;
  DynamicBalance dynamic;
  dynamic.interval = section->get<int>("interval");
  dynamic.threshold = section->get<double>("imbalance_threshold", dynamic.threshold);
  dynamic.smoothing = section->get<double>("smoothing", dynamic.smoothing);
  dynamic.knapsack = section->get<std::string>("strategy", "sfc") == "knapsack";
  return dynamic;
}

void CostForecaster::adopt(const std::vector<double>& costs, const std::vector<int>& patchRanks,
                           int rank) {
  m_forecast.clear();
  for (std::size_t p = 0; p < costs.size(); ++p)
    if (patchRanks[p] == rank) m_forecast.emplace(static_cast<int>(p), costs[p]);
}

void CostForecaster::measured(const std::map<int, double>& seconds) {
  for (const auto& [patch, cost] : seconds) {
    const auto found = m_forecast.find(patch);
    if (found == m_forecast.end()) {
      m_forecast.emplace(patch, cost);
    } else {
      found->second += m_smoothing * (cost - found->second);
    }
  }
}

std::vector<double> CostForecaster::costs(const Grid& grid, const std::vector<int>& patchRanks,
                                          const Communicator& comm) const {
  const auto patches = static_cast<std::size_t>(grid.numPatches());
  // Per patch: its forecast (where its owner measured it) and 1 where it did.
  std::vector<double> local(2 * patches, 0.0);
  for (const auto& [id, cost] : m_forecast) {
    const auto p = static_cast<std::size_t>(id);
    if (p >= patches || patchRanks[p] != comm.rank()) continue;
    local[p] = cost;
    local[patches + p] = 1.0;
  }
  const std::vector<double> global = comm.allreduceSum(local);
  double measuredCost = 0.0, measuredCells = 0.0;
  for (std::size_t p = 0; p < patches; ++p) {
    if (global[patches + p] == 0.0) continue;
    measuredCost += global[p];
    measuredCells += static_cast<double>(grid.patchById(static_cast<int>(p)).numCells());
  }
  const double perCell = measuredCells > 0.0 ? measuredCost / measuredCells : 1.0;
  std::vector<double> costs(patches);
  for (std::size_t p = 0; p < patches; ++p) {
    costs[p] = global[patches + p] != 0.0
                   ? global[p]
                   : perCell * static_cast<double>(grid.patchById(static_cast<int>(p)).numCells());
  }
  return costs;
}

std::vector<double> rankLoads(const std::vector<double>& costs, const std::vector<int>& patchRanks,
                              int numRanks) {
  std::vector<double> loads(static_cast<std::size_t>(numRanks), 0.0);
  for (std::size_t p = 0; p < costs.size(); ++p)
    loads[static_cast<std::size_t>(patchRanks[p])] += costs[p];
  return loads;
}

double imbalanceOf(const std::vector<double>& loads) {
  double sum = 0.0, most = 0.0;
  for (const double load : loads) {
    sum += load;
    most = std::max(most, load);
  }
  return sum > 0.0 ? most / (sum / static_cast<double>(loads.size())) - 1.0 : 0.0;
}

}  // namespace tessera
