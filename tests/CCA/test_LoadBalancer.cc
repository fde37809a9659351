// Space-filling curves and the load balancers built on them.
#include <gtest/gtest.h>

#include "CCA/Components/LoadBalancers/CostForecaster.h"
#include "CCA/Components/LoadBalancers/Knapsack.h"
#include "CCA/Components/LoadBalancers/LoadBalancerFactory.h"
#include "CCA/Components/LoadBalancers/RoundRobinLoadBalancer.h"
#include "CCA/Components/LoadBalancers/SFCLoadBalancer.h"
#include "CCA/Components/LoadBalancers/SpaceFillingCurve.h"
#include "Core/Grid/Grid.h"
#include "Core/Parallel/Communicator.h"
#include "Core/Util/Error.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace tessera {
namespace {

Grid makeGrid(const IntVector& resolution, const IntVector& patches) {
  LevelSpec spec;
  spec.resolution = resolution;
  spec.patches = patches;
  Grid grid;
  grid.addLevel(spec);
  return grid;
}

// Every point of [0, 2^bits)^3, x fastest.
std::vector<IntVector> cubePoints(int bits) {
  const int n = 1 << bits;
  std::vector<IntVector> points;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        points.push_back({i, j, k});
  return points;
}

// The checks every SFC assignment must pass, on every level of the grid.
void expectBalanced(const Grid& grid, int numRanks, Curve curve) {
  SCOPED_TRACE(std::string(curveName(curve)) + " on " + std::to_string(numRanks) + " ranks");
  const std::vector<int> owner = SFCLoadBalancer(curve).assign(grid, numRanks);
  ASSERT_EQ(static_cast<int>(owner.size()), grid.numPatches());
  for (int l = 0; l < grid.numLevels(); ++l) {
    const Level& level = grid.level(l);
    std::vector<std::int64_t> cells(static_cast<std::size_t>(numRanks), 0);
    std::int64_t largestPatch = 0;
    int previousRank = 0;
    for (const int id : SFCLoadBalancer::curveOrder(level, curve)) {
      const int rank = owner[static_cast<std::size_t>(id)];
      ASSERT_GE(rank, 0);
      ASSERT_LT(rank, numRanks);
      // Non-decreasing along the curve means each rank's piece is contiguous.
      EXPECT_GE(rank, previousRank) << "patch " << id;
      previousRank = rank;
      cells[static_cast<std::size_t>(rank)] += level.patchById(id).numCells();
      largestPatch = std::max(largestPatch, level.patchById(id).numCells());
    }
    // |cells - total/numRanks| <= largestPatch, kept in integers.
    const std::int64_t total = level.numCells();
    for (int r = 0; r < numRanks; ++r) {
      const std::int64_t excess = cells[static_cast<std::size_t>(r)] * numRanks - total;
      EXPECT_LE(std::llabs(excess), largestPatch * numRanks)
          << "rank " << r << " holds " << cells[static_cast<std::size_t>(r)] << " of " << total
          << " cells";
    }
  }
}

TEST(SpaceFillingCurve, MortonKnownValues) {
  EXPECT_EQ(mortonIndex({0, 0, 0}, 2), 0U);
  EXPECT_EQ(mortonIndex({1, 0, 0}, 2), 1U);
  EXPECT_EQ(mortonIndex({0, 1, 0}, 2), 2U);
  EXPECT_EQ(mortonIndex({0, 0, 1}, 2), 4U);
  EXPECT_EQ(mortonIndex({1, 1, 1}, 2), 7U);
  EXPECT_EQ(mortonIndex({2, 0, 0}, 2), 8U);
  EXPECT_EQ(mortonIndex({3, 3, 3}, 2), 63U);
  EXPECT_EQ(mortonIndex({0, 0, (1 << 21) - 1}, 21), 0x4924924924924924ULL);
}

TEST(SpaceFillingCurve, MortonIsBijective) {
  const std::vector<IntVector> points = cubePoints(3);
  std::vector<bool> seen(points.size(), false);
  for (const IntVector& p : points) {
    const std::uint64_t index = mortonIndex(p, 3);
    ASSERT_LT(index, points.size());
    EXPECT_FALSE(seen[index]) << p;
    seen[index] = true;
  }
}

TEST(SpaceFillingCurve, HilbertIsABijectionOfFaceAdjacentSteps) {
  for (const int bits : {1, 2, 3, 4}) {
    SCOPED_TRACE("bits " + std::to_string(bits));
    const std::vector<IntVector> points = cubePoints(bits);
    std::vector<IntVector> atIndex(points.size());
    std::vector<bool> seen(points.size(), false);
    for (const IntVector& p : points) {
      const std::uint64_t index = hilbertIndex(p, bits);
      ASSERT_LT(index, points.size()) << p;
      ASSERT_FALSE(seen[index]) << p << " shares index " << index;
      seen[index] = true;
      atIndex[index] = p;
    }
    EXPECT_EQ(atIndex.front(), IntVector{});
    // The defining property: each step of the curve moves to a face neighbour.
    for (std::size_t i = 1; i < atIndex.size(); ++i) {
      const IntVector d = atIndex[i] - atIndex[i - 1];
      EXPECT_EQ(std::abs(d.x) + std::abs(d.y) + std::abs(d.z), 1)
          << "step " << i << ": " << atIndex[i - 1] << " -> " << atIndex[i];
    }
  }
}

TEST(SpaceFillingCurve, HilbertHandlesTheWidestCube) {
  const int top = (1 << kMaxCurveBits) - 1;
  EXPECT_EQ(hilbertIndex({0, 0, 0}, kMaxCurveBits), 0U);
  EXPECT_LT(hilbertIndex({top, top, top}, kMaxCurveBits), std::uint64_t{1} << 63);
  EXPECT_NE(hilbertIndex({top, 0, 0}, kMaxCurveBits), hilbertIndex({0, top, 0}, kMaxCurveBits));
}

TEST(SpaceFillingCurve, BitsCoverTheExtent) {
  EXPECT_EQ(curveBits(1), 0);
  EXPECT_EQ(curveBits(2), 1);
  EXPECT_EQ(curveBits(3), 2);
  EXPECT_EQ(curveBits(4), 2);
  EXPECT_EQ(curveBits(5), 3);
  EXPECT_EQ(hilbertIndex({0, 0, 0}, 0), 0U);
  EXPECT_EQ(mortonIndex({0, 0, 0}, 0), 0U);
}

TEST(SpaceFillingCurve, RejectsPointsOutsideTheCube) {
  EXPECT_THROW(hilbertIndex({4, 0, 0}, 2), Error);
  EXPECT_THROW(mortonIndex({0, -1, 0}, 2), Error);
  EXPECT_THROW(hilbertIndex({0, 0, 0}, kMaxCurveBits + 1), Error);
}

TEST(SpaceFillingCurve, ParseCurve) {
  EXPECT_EQ(parseCurve("hilbert"), Curve::Hilbert);
  EXPECT_EQ(parseCurve("morton"), Curve::Morton);
  try {
    parseCurve("peano");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("peano"), std::string::npos) << what;
    EXPECT_NE(what.find("hilbert"), std::string::npos) << what;
    EXPECT_NE(what.find("morton"), std::string::npos) << what;
  }
}

TEST(SFCLoadBalancer, Names) {
  EXPECT_EQ(SFCLoadBalancer().name(), "sfc-hilbert");
  EXPECT_EQ(SFCLoadBalancer(Curve::Morton).name(), "sfc-morton");
}

TEST(SFCLoadBalancer, CurveOrderVisitsEveryPatchOnce) {
  const Grid grid = makeGrid({10, 7, 5}, {3, 2, 2});
  for (const Curve curve : {Curve::Hilbert, Curve::Morton}) {
    std::vector<int> order = SFCLoadBalancer::curveOrder(grid.level(0), curve);
    std::sort(order.begin(), order.end());
    std::vector<int> ids(12);
    for (int i = 0; i < 12; ++i)
      ids[static_cast<std::size_t>(i)] = i;
    EXPECT_EQ(order, ids);
  }
}

TEST(SFCLoadBalancer, HilbertOrderStepsBetweenFaceNeighbours) {
  const Grid grid = makeGrid({64, 64, 64}, {4, 4, 4});
  const Level& level = grid.level(0);
  const std::vector<int> order = SFCLoadBalancer::curveOrder(level, Curve::Hilbert);
  for (std::size_t i = 1; i < order.size(); ++i) {
    const IntVector d =
        level.patchById(order[i]).layoutIndex() - level.patchById(order[i - 1]).layoutIndex();
    EXPECT_EQ(std::abs(d.x) + std::abs(d.y) + std::abs(d.z), 1);
  }
}

// The first cut is across z, so two ranks meet on a face of whole x rows
// (contiguous in memory), not an x face of one cell per row.
TEST(SFCLoadBalancer, TwoRanksMeetAcrossZ) {
  const Grid grid = makeGrid({64, 64, 64}, {4, 4, 4});
  for (const Curve curve : {Curve::Hilbert, Curve::Morton}) {
    SCOPED_TRACE(curveName(curve));
    const std::vector<int> owner = SFCLoadBalancer(curve).assign(grid, 2);
    for (const Patch& patch : grid.level(0).patches())
      EXPECT_EQ(owner[static_cast<std::size_t>(patch.id())], patch.layoutIndex().z < 2 ? 0 : 1)
          << "patch " << patch.id() << " at " << patch.layoutIndex();
  }
}

TEST(SFCLoadBalancer, UnevenPatchesStayBalanced) {
  const Grid grid = makeGrid({10, 7, 5}, {3, 2, 2});
  for (const Curve curve : {Curve::Hilbert, Curve::Morton}) {
    for (const int ranks : {1, 2, 3, 4, 5})
      expectBalanced(grid, ranks, curve);
  }
}

TEST(SFCLoadBalancer, EvenPatchesStayBalanced) {
  const Grid grid = makeGrid({64, 64, 64}, {4, 4, 4});
  for (const Curve curve : {Curve::Hilbert, Curve::Morton}) {
    for (const int ranks : {1, 2, 3, 7})
      expectBalanced(grid, ranks, curve);
  }
}

TEST(SFCLoadBalancer, EqualPatchesSplitExactlyWhenTheyDivide) {
  const Grid grid = makeGrid({64, 64, 64}, {4, 4, 4});
  const std::vector<int> owner = SFCLoadBalancer().assign(grid, 4);
  std::vector<int> count(4, 0);
  for (const int rank : owner)
    ++count[static_cast<std::size_t>(rank)];
  EXPECT_EQ(count, std::vector<int>(4, 16));
}

TEST(SFCLoadBalancer, OddLayoutsStayBalanced) {
  const Grid grid = makeGrid({17, 9, 31}, {5, 3, 7});
  for (const Curve curve : {Curve::Hilbert, Curve::Morton}) {
    for (const int ranks : {1, 2, 6, 13, 100})
      expectBalanced(grid, ranks, curve);
  }
}

TEST(SFCLoadBalancer, MoreRanksThanPatches) {
  const Grid grid = makeGrid({8, 8, 8}, {2, 1, 2});
  const std::vector<int> owner = SFCLoadBalancer().assign(grid, 10);
  ASSERT_EQ(owner.size(), 4U);
  std::vector<int> sorted = owner;
  std::sort(sorted.begin(), sorted.end());
  // Equal patches land on distinct ranks; the other six ranks get none.
  EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end());
  expectBalanced(grid, 10, Curve::Hilbert);
  expectBalanced(grid, 10, Curve::Morton);
}

TEST(SFCLoadBalancer, SinglePatch) {
  const Grid grid = makeGrid({5, 5, 5}, {1, 1, 1});
  // The patch's middle cell lies in the middle rank's share; the others get none.
  EXPECT_EQ(SFCLoadBalancer().assign(grid, 3), std::vector<int>{1});
  EXPECT_EQ(SFCLoadBalancer().assign(grid, 1), std::vector<int>{0});
}

TEST(SFCLoadBalancer, BalancesEveryLevelOverAllRanks) {
  Grid grid;
  LevelSpec coarse;
  coarse.resolution = {8, 8, 8};
  coarse.patches = {2, 2, 2};
  grid.addLevel(coarse);
  // Two regions of a finer level (ratio 2), one of 4 x 3 x 2 patches.
  grid.addRefinedLevel({2, 2, 2}, {LevelRegion{Box{{0, 0, 0}, {8, 6, 4}}, {4, 3, 2}},
                                   LevelRegion{Box{{10, 10, 10}, {16, 16, 16}}, {1, 3, 1}}});
  const std::vector<int> owner = SFCLoadBalancer().assign(grid, 3);
  ASSERT_EQ(static_cast<int>(owner.size()), 8 + 24 + 3);
  // The second level's ids follow the first's, and it is spread on its own.
  EXPECT_EQ(owner[8 + 0], 0);
  expectBalanced(grid, 3, Curve::Hilbert);
  expectBalanced(grid, 4, Curve::Morton);
}

TEST(SFCLoadBalancer, IsDeterministic) {
  const Grid grid = makeGrid({10, 7, 5}, {3, 2, 2});
  const SFCLoadBalancer balancer;
  EXPECT_EQ(balancer.assign(grid, 3), balancer.assign(grid, 3));
}

TEST(SFCLoadBalancer, RejectsNoRanks) {
  const Grid grid = makeGrid({4, 4, 4}, {2, 2, 2});
  EXPECT_THROW(SFCLoadBalancer().assign(grid, 0), Error);
}

// The least possible heaviest piece of a contiguous cut of `w` into `parts`
// pieces, by trying every cut (small inputs only).
double bestBottleneck(const std::vector<double>& w, std::size_t first, int parts) {
  double rest = 0.0;
  for (std::size_t i = first; i < w.size(); ++i)
    rest += w[i];
  if (parts == 1 || first == w.size()) return rest;
  double best = rest, head = 0.0;
  for (std::size_t end = first; end < w.size(); ++end) {
    head += w[end];
    best = std::min(best, std::max(head, bestBottleneck(w, end + 1, parts - 1)));
  }
  return best;
}

TEST(SFCLoadBalancer, WeightedCutsAreContiguousAndAsLightAsAnyContiguousCut) {
  const Grid grid = makeGrid({16, 8, 4}, {8, 2, 1});
  const Level& level = grid.level(0);
  const std::vector<int> order = SFCLoadBalancer::curveOrder(level, Curve::Hilbert);
  for (const int ranks : {2, 3, 5}) {
    for (unsigned seed = 1; seed <= 4; ++seed) {
      std::vector<double> weights(static_cast<std::size_t>(grid.numPatches()));
      for (std::size_t p = 0; p < weights.size(); ++p)
        weights[p] = 1.0 + static_cast<double>((p * 7919 + seed * 104729) % 97) / 10.0;
      const std::vector<int> owner = SFCLoadBalancer().assignWeighted(grid, ranks, weights);
      std::vector<double> loads(static_cast<std::size_t>(ranks), 0.0), along;
      int previous = 0;
      for (const int id : order) {
        const int rank = owner[static_cast<std::size_t>(id)];
        ASSERT_GE(rank, previous) << "contiguous along the curve";
        previous = rank;
        loads[static_cast<std::size_t>(rank)] += weights[static_cast<std::size_t>(id)];
        along.push_back(weights[static_cast<std::size_t>(id)]);
      }
      const double heaviest = *std::max_element(loads.begin(), loads.end());
      EXPECT_LE(heaviest, bestBottleneck(along, 0, ranks) * (1.0 + 1e-12))
          << ranks << " ranks, seed " << seed;
    }
  }
}

TEST(SFCLoadBalancer, WeightsMoveWorkOffAHeavyPatch) {
  const Grid grid = makeGrid({8, 1, 1}, {8, 1, 1});
  std::vector<double> weights(8, 1.0);
  weights[0] = 7.0;  // as heavy as the seven others together
  const std::vector<int> byCells = SFCLoadBalancer().assign(grid, 2);
  const std::vector<int> byCost = SFCLoadBalancer().assignWeighted(grid, 2, weights);
  EXPECT_EQ(std::count(byCells.begin(), byCells.end(), 0), 4);
  EXPECT_EQ(std::count(byCost.begin(), byCost.end(), 0), 1) << "the heavy patch alone";
  EXPECT_THROW(SFCLoadBalancer().assignWeighted(grid, 2, std::vector<double>(3, 1.0)), Error);
}

TEST(Knapsack, HeaviestFirstOntoTheLeastLoaded) {
  const Grid grid = makeGrid({6, 1, 1}, {6, 1, 1});
  // Heaviest first, ties by id: 4 (id 1) -> rank 0, 4 (id 2) -> 1, then the
  // ones alternate onto the lighter rank, the lower on a tie.
  const std::vector<double> weights{1.0, 4.0, 4.0, 1.0, 1.0, 1.0};
  const std::vector<int> owner = knapsackAssign(grid, 2, weights);
  EXPECT_EQ(owner, (std::vector<int>{0, 0, 1, 1, 0, 1}));
  EXPECT_EQ(rankLoads(weights, owner, 2), (std::vector<double>{6.0, 6.0}));
  // No contiguous cut of the curve does as well: 7 and 5 at best.
  const std::vector<int> cut = SFCLoadBalancer().assignWeighted(grid, 2, weights);
  const std::vector<double> cutLoads = rankLoads(weights, cut, 2);
  EXPECT_DOUBLE_EQ(*std::max_element(cutLoads.begin(), cutLoads.end()), 7.0);
  EXPECT_THROW(knapsackAssign(grid, 0, weights), Error);
}

TEST(CostForecaster, SmoothsMeasurementsAndFallsBackToCells) {
  const Communicator self = Communicator::borrow(MPI_COMM_SELF);
  const Grid grid = makeGrid({8, 4, 1}, {4, 1, 1});  // 4 patches of 8 cells
  const std::vector<int> ranks(4, 0);
  CostForecaster forecaster(0.5);
  forecaster.measured({{0, 2.0}, {1, 4.0}});
  forecaster.measured({{0, 4.0}, {1, 4.0}});
  const std::vector<double> costs = forecaster.costs(grid, ranks, self);
  EXPECT_DOUBLE_EQ(costs[0], 3.0);  // 2 moved half way to 4
  EXPECT_DOUBLE_EQ(costs[1], 4.0);
  // Unmeasured patches: their cells at the measured mean cost per cell.
  EXPECT_DOUBLE_EQ(costs[2], 3.5);
  EXPECT_DOUBLE_EQ(costs[3], 3.5);
  EXPECT_NEAR(imbalanceOf(rankLoads({3.0, 1.0}, {0, 1}, 2)), 0.5, 1e-15);
  forecaster.adopt(costs, {1, 0, 1, 0}, 0);
  EXPECT_DOUBLE_EQ(forecaster.costs(grid, {1, 0, 1, 0}, self)[1], 4.0) << "kept";
  forecaster.reset();
  EXPECT_DOUBLE_EQ(forecaster.costs(grid, ranks, self)[0], 8.0) << "no measurement: cells";
}

TEST(RoundRobinLoadBalancer, DealsPatchesById) {
  const Grid grid = makeGrid({10, 7, 5}, {3, 2, 2});
  const RoundRobinLoadBalancer balancer;
  EXPECT_EQ(balancer.name(), "round_robin");
  const std::vector<int> owner = balancer.assign(grid, 5);
  ASSERT_EQ(owner.size(), 12U);
  for (int id = 0; id < 12; ++id)
    EXPECT_EQ(owner[static_cast<std::size_t>(id)], id % 5);
  EXPECT_EQ(balancer.assign(grid, 1), std::vector<int>(12, 0));
  EXPECT_THROW(balancer.assign(grid, 0), Error);
}

TEST(LoadBalancerFactory, MakesEachType) {
  EXPECT_EQ(makeLoadBalancer()->name(), "sfc-hilbert");
  EXPECT_EQ(makeLoadBalancer("sfc", "hilbert")->name(), "sfc-hilbert");
  EXPECT_EQ(makeLoadBalancer("sfc", "morton")->name(), "sfc-morton");
  EXPECT_EQ(makeLoadBalancer("round_robin", "hilbert")->name(), "round_robin");
}

TEST(LoadBalancerFactory, UnknownNamesListTheChoices) {
  try {
    makeLoadBalancer("metis", "hilbert");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("metis"), std::string::npos) << what;
    EXPECT_NE(what.find("sfc"), std::string::npos) << what;
    EXPECT_NE(what.find("round_robin"), std::string::npos) << what;
  }
  EXPECT_THROW(makeLoadBalancer("sfc", "zorder"), InputError);
  EXPECT_THROW(makeLoadBalancer("round_robin", "zorder"), InputError);
}

}  // namespace
}  // namespace tessera
