#pragma once
// The grid: a stack of levels (one today; nothing here assumes only one).

#include "Core/Grid/Level.h"

#include <memory>
#include <vector>

namespace tessera {

class ProblemSpec;

class Grid {
 public:
  Grid() = default;
  // Builds the levels a deck's `grid` section describes.
  static Grid fromDeck(const ProblemSpec& grid);

  Level& addLevel(const LevelSpec& spec);
  int numLevels() const { return static_cast<int>(m_levels.size()); }
  const Level& level(int index) const;
  int numPatches() const;
  const Patch& patchById(int id) const;

 private:
  // Levels are heap-held so that patches' back pointers survive moves of the grid.
  std::vector<std::unique_ptr<Level>> m_levels;
};

}  // namespace tessera
