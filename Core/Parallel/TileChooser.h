#pragma once
// Picks the tile shape for a stencil kernel so that one tile's working set
// fits a scratchpad budget (the SW26010's 64 KiB local data memory, a GPU's
// shared memory): every input staged with its halo, every output staged
// before it is written back.

#include "Core/Grid/IntVector.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace tessera {

struct StencilFootprint {
  int numInputs = 1;
  int numOutputs = 1;
  int ghost = 0;                  // halo width of every input
  std::size_t bytesPerValue = 8;  // sizeof the value type
  // Planes of each output a host sweep keeps aside (an update in place
  // keeps ghost + 1: inPlaceStencilFor); chooseHostTile counts them.
  int outputPlanesAside = 0;

  // Bytes of scratch one tile of `tile` cells needs:
  // (tx+2g)(ty+2g)(tz+2g) per input plus tx*ty*tz per output, times the value size.
  std::size_t bytes(const IntVector& tile) const;
  // Staged input cells per computed cell, as a fraction num/den (>= 1).
  std::pair<std::int64_t, std::int64_t> haloOverhead(const IntVector& tile) const;
};

// The tile shape, no larger than `box` along any axis, whose footprint fits
// `budgetBytes` with the smallest halo overhead; ties go to the larger
// extent in x, then y, then z (long x rows vectorise). nullopt if even a
// single cell does not fit.
std::optional<IntVector> chooseTile(const IntVector& box, const StencilFootprint& footprint,
                                    std::size_t budgetBytes);

// Tiles for a host execution space, where the caches are the scratchpad and
// a tile is cache blocking, iterated in place. Whole x rows (long rows
// vectorise, and no halo is read twice along x); as many rows in y as keep
// the 2 ghost + 1 input planes a sweep along z reuses (and the output planes
// it keeps aside) within `cacheBytes`
// (at least one row); z cut only so that there are `concurrency` tiles to
// share out. On a box whose planes fit the cache this is the untiled loop.
IntVector chooseHostTile(const IntVector& box, const StencilFootprint& footprint,
                         std::size_t cacheBytes, int concurrency);
// The host's per-core cache a host tile should fit (the L2 cache as the C
// library reports it; 512 KiB if it does not).
std::size_t hostCacheBytes();

// True when tile shape `a` is a better choice than `b` by the rule above.
bool betterTile(const IntVector& a, const IntVector& b, const StencilFootprint& footprint);

}  // namespace tessera
