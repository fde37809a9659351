#include "Core/Grid/TagClustering.h"

#include "Core/Grid/AmrSpec.h"

#include <algorithm>
#include <tuple>

namespace tessera {

namespace {

bool zyxLess(const IntVector& a, const IntVector& b) {
  return std::make_tuple(a.z, a.y, a.x) < std::make_tuple(b.z, b.y, b.x);
}

// The cells of `wanted` that no region of `level` holds, periodic images included.
std::vector<Box> notHeld(const Level& level, const Box& wanted) {
  std::vector<Box> regions;
  for (const LevelRegion& region : level.regions())
    regions.push_back(region.cells);
  return uncovered(wanted, regions, level.resolution(),
                   {level.periodic(0), level.periodic(1), level.periodic(2)});
}

}  // namespace

std::vector<IntVector> tilesOfTags(const std::vector<IntVector>& tagged, int buffer,
                                   const IntVector& tile, const IntVector& domain) {
  // A mark per tile of the domain, read out in (z, y, x) order: sorted and
  // unique without sorting the many repeats (most tagged cells share a tile).
  const IntVector count{(domain.x + tile.x - 1) / tile.x, (domain.y + tile.y - 1) / tile.y,
                        (domain.z + tile.z - 1) / tile.z};
  std::vector<char> marked(static_cast<std::size_t>(count.x) * count.y * count.z, 0);
  const Box inside{IntVector{}, domain};
  for (const IntVector& cell : tagged) {
    const Box grown = Box{cell, cell + IntVector::uniform(1)}.grow(buffer).intersection(inside);
    if (grown.empty()) continue;
    const IntVector first{grown.lo().x / tile.x, grown.lo().y / tile.y, grown.lo().z / tile.z};
    const IntVector last{(grown.hi().x - 1) / tile.x, (grown.hi().y - 1) / tile.y,
                         (grown.hi().z - 1) / tile.z};
    for (int k = first.z; k <= last.z; ++k)
      for (int j = first.y; j <= last.y; ++j)
        for (int i = first.x; i <= last.x; ++i)
          marked[(static_cast<std::size_t>(k) * count.y + j) * count.x + i] = 1;
  }
  std::vector<IntVector> tiles;
  for (int k = 0; k < count.z; ++k)
    for (int j = 0; j < count.y; ++j)
      for (int i = 0; i < count.x; ++i)
        if (marked[(static_cast<std::size_t>(k) * count.y + j) * count.x + i])
          tiles.push_back({i, j, k});
  return tiles;
}

std::vector<IntVector> uniqueTiles(std::vector<IntVector> tiles) {
  std::sort(tiles.begin(), tiles.end(), zyxLess);
  tiles.erase(std::unique(tiles.begin(), tiles.end()), tiles.end());
  return tiles;
}

TaggedRegions regionsFromTiles(const Level& level, const std::vector<IntVector>& tiles,
                               const IntVector& tile, int ratio, int nestingBuffer,
                               int maxPatchSize) {
  TaggedRegions result;
  const Box domain = level.cellBox();
  for (const IntVector& index : tiles) {
    const Box cells =
        Box{index * tile, (index + IntVector::uniform(1)) * tile}.intersection(domain);
    Box wanted = cells.grow(nestingBuffer);
    for (int axis = 0; axis < 3; ++axis) {
      if (level.periodic(axis)) continue;
      IntVector lo = wanted.lo();
      IntVector hi = wanted.hi();
      lo[axis] = std::max(lo[axis], domain.lo()[axis]);
      hi[axis] = std::min(hi[axis], domain.hi()[axis]);
      wanted = {lo, hi};
    }
    if (!notHeld(level, wanted).empty()) {
      ++result.notNested;
      continue;
    }
    const Box fine = refine(cells, IntVector::uniform(ratio));
    result.regions.push_back({fine, patchLayoutFor(fine, ratio, maxPatchSize)});
  }
  return result;
}

}  // namespace tessera
