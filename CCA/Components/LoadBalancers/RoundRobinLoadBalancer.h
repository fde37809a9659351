#pragma once
// Deals patches out to ranks like cards, by id: spreads work evenly when
// patches are equal, ignoring locality (a baseline and a stress test for
// cross-rank ghost exchange, since nearly every neighbour is remote).

#include "CCA/Ports/LoadBalancer.h"

#include <string>
#include <vector>

namespace tessera {

class RoundRobinLoadBalancer : public LoadBalancer {
 public:
  std::string name() const override { return "round_robin"; }
  // Patch id % numRanks.
  std::vector<int> assign(const Grid& grid, int numRanks) const override;
};

}  // namespace tessera
