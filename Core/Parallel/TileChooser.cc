#include "Core/Parallel/TileChooser.h"

#include <algorithm>

#include <unistd.h>

namespace tessera {

std::size_t StencilFootprint::bytes(const IntVector& tile) const {
  const IntVector staged = tile + IntVector::uniform(2 * ghost);
  const auto cells =
      static_cast<std::size_t>(staged.product()) * static_cast<std::size_t>(numInputs) +
      static_cast<std::size_t>(tile.product()) * static_cast<std::size_t>(numOutputs);
  return cells * bytesPerValue;
}

std::pair<std::int64_t, std::int64_t> StencilFootprint::haloOverhead(const IntVector& tile) const {
  return {(tile + IntVector::uniform(2 * ghost)).product(), tile.product()};
}

bool betterTile(const IntVector& a, const IntVector& b, const StencilFootprint& footprint) {
  const auto [an, ad] = footprint.haloOverhead(a);
  const auto [bn, bd] = footprint.haloOverhead(b);
  // an/ad < bn/bd without rounding; a tile that fits any scratchpad has far
  // fewer than 2^31 cells, so the products stay below 2^63.
  const std::int64_t left = an * bd;
  const std::int64_t right = bn * ad;
  if (left != right) return left < right;
  if (a.x != b.x) return a.x > b.x;
  if (a.y != b.y) return a.y > b.y;
  return a.z > b.z;
}

std::optional<IntVector> chooseTile(const IntVector& box, const StencilFootprint& footprint,
                                    std::size_t budgetBytes) {
  std::optional<IntVector> best;
  // For fixed (tx, ty) the overhead falls as tz grows, so only the deepest
  // tz that fits can win: a search over (tx, ty) is exhaustive.
  for (int tx = 1; tx <= box.x; ++tx) {
    if (footprint.bytes({tx, 1, 1}) > budgetBytes) break;
    for (int ty = 1; ty <= box.y; ++ty) {
      if (footprint.bytes({tx, ty, 1}) > budgetBytes) break;
      int lo = 1;
      int hi = box.z;
      while (lo < hi) {  // the largest tz that fits
        const int mid = lo + (hi - lo + 1) / 2;
        if (footprint.bytes({tx, ty, mid}) <= budgetBytes) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      const IntVector candidate{tx, ty, lo};
      if (!best || betterTile(candidate, *best, footprint)) best = candidate;
    }
  }
  return best;
}

IntVector chooseHostTile(const IntVector& box, const StencilFootprint& footprint,
                         std::size_t cacheBytes, int concurrency) {
  if (!IntVector{}.allLessThan(box)) return IntVector::uniform(1);
  const auto bytesPerRowSet = [&](int rows) {
    const auto g = static_cast<std::size_t>(footprint.ghost);
    const std::size_t read = static_cast<std::size_t>(footprint.numInputs) * (2 * g + 1) *
                             static_cast<std::size_t>(box.x + 2 * footprint.ghost) *
                             static_cast<std::size_t>(rows + 2 * footprint.ghost);
    const std::size_t aside = static_cast<std::size_t>(footprint.numOutputs) *
                              static_cast<std::size_t>(footprint.outputPlanesAside) *
                              static_cast<std::size_t>(box.x) * static_cast<std::size_t>(rows);
    return (read + aside) * footprint.bytesPerValue;
  };
  int rows = box.y;
  while (rows > 1 && bytesPerRowSet(rows) > cacheBytes)
    rows = (rows + 1) / 2;
  const int tilesInY = (box.y + rows - 1) / rows;
  const int slabs = std::min(box.z, std::max(1, (concurrency + tilesInY - 1) / tilesInY));
  return {box.x, rows, (box.z + slabs - 1) / slabs};
}

std::size_t hostCacheBytes() {
  const long reported = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return reported > 0 ? static_cast<std::size_t>(reported) : std::size_t{512} * 1024;
}

}  // namespace tessera
