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
};

}  // namespace tessera
