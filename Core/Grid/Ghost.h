#pragma once
// Ghost cells: copies of a neighbour's cells around a patch, refreshed by the
// runtime before a task that asked for them runs.

#include "Core/Grid/Box.h"
#include "Core/Grid/IntVector.h"

namespace tessera {

class Patch;

struct Ghost {
  enum Type { None, AroundCells };
};

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
