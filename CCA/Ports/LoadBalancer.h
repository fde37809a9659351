#pragma once
// Decides which rank owns each patch.

#include "Core/Grid/Grid.h"

#include <string>
#include <vector>

namespace tessera {

class LoadBalancer {
 public:
  virtual ~LoadBalancer() = default;
  virtual std::string name() const = 0;
  // The owner rank of every patch of the grid, indexed by patch id.
  virtual std::vector<int> assign(const Grid& grid, int numRanks) const = 0;
  // The same when patch p is expected to cost weights[p] (a dynamic
  // balancer's forecast) rather than its cells; weights must be the same on
  // every rank. A balancer that knows no weights assigns as above.
  virtual std::vector<int> assignWeighted(const Grid& grid, int numRanks,
                                          const std::vector<double>& weights) const {
    (void)weights;
    return assign(grid, numRanks);
  }
};

// The patches of `level` that an assignment (patch id -> rank) gives `rank`, in id order.
inline std::vector<const Patch*> patchesOwnedBy(const Level& level,
                                                const std::vector<int>& patchRanks, int rank) {
  std::vector<const Patch*> owned;
  for (const Patch& patch : level.patches()) {
    if (patchRanks[static_cast<std::size_t>(patch.id())] == rank) owned.push_back(&patch);
  }
  return owned;
}

}  // namespace tessera
