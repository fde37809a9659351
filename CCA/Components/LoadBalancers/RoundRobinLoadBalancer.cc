#include "CCA/Components/LoadBalancers/RoundRobinLoadBalancer.h"

#include "Core/Util/Error.h"

namespace tessera {

std::vector<int> RoundRobinLoadBalancer::assign(const Grid& grid, int numRanks) const {
  TESSERA_REQUIRE_THROWS(numRanks >= 1, "cannot balance over " << numRanks << " ranks");
  std::vector<int> owner(static_cast<std::size_t>(grid.numPatches()));
  for (int id = 0; id < grid.numPatches(); ++id)
    owner[static_cast<std::size_t>(id)] = id % numRanks;
  return owner;
}

}  // namespace tessera
