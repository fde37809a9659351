#include "CCA/Components/LoadBalancers/Knapsack.h"

#include "Core/Util/Error.h"

#include <algorithm>

namespace tessera {

std::vector<int> knapsackAssign(const Grid& grid, int numRanks,
                                const std::vector<double>& weights) {
  TESSERA_REQUIRE_THROWS(numRanks >= 1, "cannot balance over " << numRanks << " ranks");
  TESSERA_REQUIRE_THROWS(
      weights.size() == static_cast<std::size_t>(grid.numPatches()),
      "one weight per patch: " << weights.size() << " for " << grid.numPatches() << " patches");
  std::vector<int> owner(weights.size(), -1);
  for (int l = 0; l < grid.numLevels(); ++l) {
    std::vector<int> ids;
    for (const Patch& patch : grid.level(l).patches())
      ids.push_back(patch.id());
    std::stable_sort(ids.begin(), ids.end(), [&](int a, int b) {
      return weights[static_cast<std::size_t>(a)] > weights[static_cast<std::size_t>(b)];
    });
    std::vector<double> load(static_cast<std::size_t>(numRanks), 0.0);
    for (const int id : ids) {
      const auto lightest = std::min_element(load.begin(), load.end());
      *lightest += weights[static_cast<std::size_t>(id)];
      owner[static_cast<std::size_t>(id)] = static_cast<int>(lightest - load.begin());
    }
  }
  return owner;
}

}  // namespace tessera
