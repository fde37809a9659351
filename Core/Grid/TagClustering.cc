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

TileMarks::TileMarks(int buffer, const IntVector& tile, const IntVector& domain)
    : m_buffer(buffer),
      m_tile(tile),
      m_domain(domain),
      m_count{(domain.x + tile.x - 1) / tile.x, (domain.y + tile.y - 1) / tile.y,
              (domain.z + tile.z - 1) / tile.z},
      m_marked(static_cast<std::size_t>(m_count.x) * m_count.y * m_count.z, 0) {}

void TileMarks::markRun(int first, int last, int y, int z) {
  // The run's cells grown by the buffer: one box, as every cell's box
  // shares the run's y and z.
  const Box grown = Box{{first, y, z}, {last, y + 1, z + 1}}.grow(m_buffer).intersection(
      Box{IntVector{}, m_domain});
  if (grown.empty()) return;
  const IntVector lo{grown.lo().x / m_tile.x, grown.lo().y / m_tile.y, grown.lo().z / m_tile.z};
  const IntVector hi{(grown.hi().x - 1) / m_tile.x, (grown.hi().y - 1) / m_tile.y,
                     (grown.hi().z - 1) / m_tile.z};
  for (int k = lo.z; k <= hi.z; ++k)
    for (int j = lo.y; j <= hi.y; ++j)
      for (int i = lo.x; i <= hi.x; ++i)
        m_marked[(static_cast<std::size_t>(k) * m_count.y + j) * m_count.x + i] = 1;
}

std::int64_t TileMarks::markRow(int x, int y, int z, const int* flags, int n) {
  std::int64_t tagged = 0;
  for (int i = 0; i < n;) {
    if (flags[i] == 0) {
      ++i;
      continue;
    }
    const int first = i;
    while (i < n && flags[i] != 0)
      ++i;
    markRun(x + first, x + i, y, z);
    tagged += i - first;
  }
  return tagged;
}

std::vector<IntVector> TileMarks::tiles() const {
  std::vector<IntVector> tiles;
  for (int k = 0; k < m_count.z; ++k)
    for (int j = 0; j < m_count.y; ++j)
      for (int i = 0; i < m_count.x; ++i)
        if (m_marked[(static_cast<std::size_t>(k) * m_count.y + j) * m_count.x + i])
          tiles.push_back({i, j, k});
  return tiles;
}

std::vector<IntVector> tilesOfTags(const std::vector<IntVector>& tagged, int buffer,
                                   const IntVector& tile, const IntVector& domain) {
  TileMarks marks(buffer, tile, domain);
  for (const IntVector& cell : tagged)
    marks.markRun(cell.x, cell.x + 1, cell.y, cell.z);
  return marks.tiles();
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
