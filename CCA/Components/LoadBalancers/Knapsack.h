#pragma once
// AMReX's knapsack placement, for the dynamic balancer
// (load_balancer.dynamic.strategy: knapsack; docs/load-balancing.md): each
// level's patches, heaviest first, each to the rank with the least load so
// far. It balances better than a contiguous cut of the curve when a few
// patches are much heavier than the rest, at the price of locality: a
// rank's patches need not be neighbours, so more ghost cells cross ranks.

#include "Core/Grid/Grid.h"

#include <vector>

namespace tessera {

// The owner of every patch (by id) when patch p costs weights[p], the same
// on every rank (ties: the lower patch id first, the lower rank).
std::vector<int> knapsackAssign(const Grid& grid, int numRanks, const std::vector<double>& weights);

}  // namespace tessera
