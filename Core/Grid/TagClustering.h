#pragma once
// From tagged cells to the regions of the next finer level, the tiled way
// (Uintah's TiledRegridder, Parthenon's blocks): a level is cut into tiles
// of a fixed size aligned at its first cell, and every tile that holds a
// tagged cell, or lies within `buffer` cells of one, becomes a region of
// the finer level. Tiles are chosen over Berger-Rigoutsos clustering
// because a tile set depends only on the set of tagged cells (each rank
// finds its patches' tiles, their union is the same whoever found them),
// every region is one patch of a known size for the load balancer, and
// nesting is a per-tile test. See docs/amr.md, "Tagging".

#include "Core/Grid/IntVector.h"
#include "Core/Grid/Level.h"

#include <cstdint>
#include <vector>

namespace tessera {

// The tiles (index: cell / tile per axis) of a level whose domain is
// [0, domain) that hold a tagged cell grown by `buffer` cells (clipped to
// the domain), marked as the tags are found, a run of tagged cells along x
// at a time: a regrid's tagging visits every cell of a level, and marking
// each tagged cell's tiles apart cost it twice the scan (13 ns a tagged
// cell against 1 ns a cell scanned).
class TileMarks {
 public:
  TileMarks(int buffer, const IntVector& tile, const IntVector& domain);
  // Cells [x, x + n) of row (y, z), tagged where flags[i] != 0; returns how
  // many are.
  std::int64_t markRow(int x, int y, int z, const int* flags, int n);
  // Cells [first, last) of row (y, z), all tagged.
  void markRun(int first, int last, int y, int z);
  // The marked tiles, sorted (z, then y, then x).
  std::vector<IntVector> tiles() const;

 private:
  int m_buffer;
  IntVector m_tile, m_domain, m_count;
  std::vector<char> m_marked;  // x fastest
};

// The tiles of `tagged` cells as TileMarks finds them: sorted (z, then y,
// then x) and unique.
std::vector<IntVector> tilesOfTags(const std::vector<IntVector>& tagged, int buffer,
                                   const IntVector& tile, const IntVector& domain);

// `tiles` sorted (z, then y, then x) without repeats: the union of the
// tiles several ranks found, the same whatever their order.
std::vector<IntVector> uniqueTiles(std::vector<IntVector> tiles);

struct TaggedRegions {
  std::vector<LevelRegion> regions;  // in the finer level's cells
  int tiles = 0;                     // the tiles they are made of
  int notNested = 0;                 // tiles left out (see regionsFromTiles)
};

// The regions of the level above `level`: the tiles (clipped to the
// domain), neighbours merged into boxes (runs along x, stacked along y,
// then z: the same boxes for the same tiles), refined by `ratio` and cut
// into patches of at most `maxPatchSize` cells per axis (a tile each when
// it is max_patch_size / ratio cells). A tile whose cells and
// `nestingBuffer` cells around them (clipped at non-periodic faces, wrapped
// across periodic ones) `level` does not all hold is left out and counted:
// the finer level must nest.
TaggedRegions regionsFromTiles(const Level& level, const std::vector<IntVector>& tiles,
                               const IntVector& tile, int ratio, int nestingBuffer,
                               int maxPatchSize);

}  // namespace tessera
