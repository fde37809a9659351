#pragma once
// The grid: a stack of levels, level 0 covering the domain and each finer
// level refining regions of the one below (docs/amr.md).

#include "Core/Grid/Level.h"

#include <memory>
#include <vector>

namespace tessera {

class ProblemSpec;

class Grid {
 public:
  Grid() = default;
  // Builds the levels a deck's `grid` section and its `amr` section (if
  // any: AmrSpec.h) describe.
  static Grid fromDeck(const ProblemSpec& grid, const ProblemSpec* amr = nullptr);

  // Level 0.
  Level& addLevel(const LevelSpec& spec);
  // A level refining the finest one by `ratio` over `regions` (Level's constructor).
  Level& addRefinedLevel(const IntVector& ratio, std::vector<LevelRegion> regions);
  int numLevels() const { return static_cast<int>(m_levels.size()); }
  const Level& level(int index) const;
  int numPatches() const;
  const Patch& patchById(int id) const;

 private:
  // Levels are heap-held so that patches' back pointers survive moves of the grid.
  std::vector<std::unique_ptr<Level>> m_levels;
};

}  // namespace tessera
