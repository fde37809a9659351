#pragma once
// Ghost cells: copies of a neighbour's cells around a patch, refreshed by the
// runtime before a task that asked for them runs.

#include "Core/Grid/Box.h"
#include "Core/Grid/IntVector.h"

namespace tessera {

class Patch;

struct Ghost {
  // AroundCells: every neighbour cell within the ghost width, edges and
  //   corners included (what a box stencil reads).
  // AroundFaces: only the slabs across the patch's faces, as wide as its
  //   interior (what a star stencil over the interior reads, such as the
  //   7-point Laplacian): less to copy and to send. AMReX calls it "cross".
  enum Type { None, AroundCells, AroundFaces };
};

// The ghost kind that serves readers of both kinds.
constexpr Ghost::Type widerGhost(Ghost::Type a, Ghost::Type b) {
  if (a == Ghost::AroundCells || b == Ghost::AroundCells) return Ghost::AroundCells;
  if (a == Ghost::AroundFaces || b == Ghost::AroundFaces) return Ghost::AroundFaces;
  return Ghost::None;
}
const char* ghostTypeName(Ghost::Type type);

// One piece of a patch's ghost layer: cells `sourceBox` of patch `source`
// land at `sourceBox.shift(offset)` in the receiving patch's index space.
// The offset is zero except across a periodic boundary.
struct GhostRegion {
  const Patch* source = nullptr;
  Box sourceBox;
  IntVector offset;

  Box destinationBox() const { return sourceBox.shift(offset); }
};

}  // namespace tessera
