#include "CCA/Components/LoadBalancers/SFCLoadBalancer.h"

#include "Core/Util/Error.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

namespace tessera {

std::string SFCLoadBalancer::name() const {
  return std::string("sfc-") + curveName(m_curve);
}

std::vector<int> SFCLoadBalancer::curveOrder(const Level& level, Curve curve) {
  // A level of one region orders its patches by their place in its layout;
  // one of several regions by their first cells, on a curve over the level's
  // whole domain (patches of different regions are then ordered by where
  // they lie, like those of one region).
  const bool oneRegion = level.regions().size() == 1;
  const int bits = curveBits(oneRegion ? level.patchLayout().maxComponent()
                                       : level.resolution().maxComponent());
  std::vector<std::pair<std::uint64_t, int>> keyed;
  keyed.reserve(level.patches().size());
  for (const Patch& patch : level.patches()) {
    // The curve's coarsest cut goes across z, the slowest axis in memory
    // (Morton's index puts z on the top bit of each level; Skilling's Hilbert
    // index puts its first coordinate there, so z goes first). Two ranks then
    // share faces of whole x rows, which pack and unpack as contiguous runs;
    // across x a face has one cell per row, a cache line for every 8 bytes.
    const IntVector at = oneRegion ? patch.layoutIndex() : patch.interior().lo();
    const IntVector oriented = curve == Curve::Hilbert ? IntVector{at.z, at.y, at.x} : at;
    keyed.emplace_back(curveIndex(curve, oriented, bits), patch.id());
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<int> order;
  order.reserve(keyed.size());
  for (const auto& entry : keyed)
    order.push_back(entry.second);
  return order;
}

std::vector<int> SFCLoadBalancer::assign(const Grid& grid, int numRanks) const {
  TESSERA_REQUIRE_THROWS(numRanks >= 1, "cannot balance over " << numRanks << " ranks");
  std::vector<int> owner(static_cast<std::size_t>(grid.numPatches()), -1);
  for (int l = 0; l < grid.numLevels(); ++l) {
    const Level& level = grid.level(l);
    const std::int64_t totalCells = level.numCells();
    // The cut below multiplies twice the cell count by the rank count in 64 bits.
    TESSERA_REQUIRE_THROWS(totalCells <= std::numeric_limits<std::int64_t>::max() / 2 / numRanks,
                           "level " << l << " has too many cells (" << totalCells
                                    << ") to balance over " << numRanks << " ranks");
    // A patch goes to the rank whose equal share of the curve holds the
    // patch's middle cell. Midpoints grow along the curve, so ranks come out
    // contiguous and in order, and each end of a rank's piece overhangs its
    // share by at most half a patch: its cells are within one (largest)
    // patch of totalCells / numRanks.
    std::int64_t cellsBefore = 0;
    for (const int id : curveOrder(level, m_curve)) {
      const std::int64_t cells = level.patchById(id).numCells();
      const std::int64_t twiceMiddle = 2 * cellsBefore + cells;
      const std::int64_t rank = twiceMiddle * numRanks / (2 * totalCells);
      owner[static_cast<std::size_t>(id)] =
          static_cast<int>(std::clamp<std::int64_t>(rank, 0, numRanks - 1));
      cellsBefore += cells;
    }
  }
  return owner;
}

namespace {

// Cuts `weights` (in order) greedily into pieces of at most `bound`; the
// number of pieces, and each item's piece in `piece` if given.
int cutInto(const std::vector<double>& weights, double bound, std::vector<int>* piece) {
  int pieces = 1;
  double load = 0.0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (load > 0.0 && load + weights[i] > bound) {
      ++pieces;
      load = 0.0;
    }
    load += weights[i];
    if (piece) (*piece)[i] = pieces - 1;
  }
  return pieces;
}

}  // namespace

std::vector<int> SFCLoadBalancer::assignWeighted(const Grid& grid, int numRanks,
                                                 const std::vector<double>& weights) const {
  TESSERA_REQUIRE_THROWS(numRanks >= 1, "cannot balance over " << numRanks << " ranks");
  TESSERA_REQUIRE_THROWS(weights.size() == static_cast<std::size_t>(grid.numPatches()),
                         "one weight per patch: " << weights.size() << " for "
                                                  << grid.numPatches() << " patches");
  std::vector<int> owner(weights.size(), -1);
  for (int l = 0; l < grid.numLevels(); ++l) {
    const std::vector<int> order = curveOrder(grid.level(l), m_curve);
    std::vector<double> along;
    double total = 0.0, heaviest = 0.0;
    for (const int id : order) {
      const double w = std::max(0.0, weights[static_cast<std::size_t>(id)]);
      along.push_back(w);
      total += w;
      heaviest = std::max(heaviest, w);
    }
    // The least bound that numRanks pieces meet lies in [heaviest, total]:
    // a fixed number of halvings, the same on every rank.
    double lo = std::max(heaviest, total / numRanks), hi = std::max(total, lo);
    for (int halving = 0; halving < 64 && hi > lo; ++halving) {
      const double mid = 0.5 * (lo + hi);
      if (cutInto(along, mid, nullptr) <= numRanks) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    std::vector<int> piece(along.size(), 0);
    cutInto(along, hi, &piece);
    for (std::size_t k = 0; k < order.size(); ++k)
      owner[static_cast<std::size_t>(order[k])] = std::min(piece[k], numRanks - 1);
  }
  return owner;
}

}  // namespace tessera
