#include "Core/Grid/TagClustering.h"

#include "Core/Grid/AmrSpec.h"

#include <algorithm>
#include <map>
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

// Tiles (sorted z, y, x) merged into boxes of tile indices, the same boxes
// for the same tiles: runs along x, then runs of equal x extent stacked
// along y, then rectangles of equal extent stacked along z.
namespace {

std::vector<Box> mergedTiles(const std::vector<IntVector>& tiles) {
  std::vector<Box> runs;  // along x, in (z, y, x) order
  for (const IntVector& t : tiles) {
    if (!runs.empty()) {
      Box& last = runs.back();
      if (last.lo().y == t.y && last.lo().z == t.z && last.hi().x == t.x) {
        last = Box{last.lo(), {t.x + 1, t.y + 1, t.z + 1}};
        continue;
      }
    }
    runs.push_back(Box{t, t + IntVector::uniform(1)});
  }
  // Inputs sorted along each axis's slower axes first, as the runs and the
  // rectangles are.
  return stackAlong(stackAlong(runs, 1), 2);
}

}  // namespace

TaggedRegions regionsFromTiles(const Level& level, const std::vector<IntVector>& tiles,
                               const IntVector& tile, int ratio, int nestingBuffer,
                               int maxPatchSize) {
  TaggedRegions result;
  const Box domain = level.cellBox();
  std::vector<IntVector> nested;
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
    nested.push_back(index);
  }
  result.tiles = static_cast<int>(nested.size());
  // Neighbouring tiles make one region (a box of them), cut into patches of
  // a tile each: fewer, larger regions, whose patches share patch groups
  // (one allocation, one kernel) as a level-0 region's do.
  for (const Box& box : mergedTiles(nested)) {
    const Box cells = Box{box.lo() * tile, box.hi() * tile}.intersection(domain);
    const Box fine = refine(cells, IntVector::uniform(ratio));
    result.regions.push_back({fine, patchLayoutFor(fine, ratio, maxPatchSize)});
  }
  return result;
}

}  // namespace tessera
