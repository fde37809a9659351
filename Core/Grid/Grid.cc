#include "Core/Grid/Grid.h"

#include "Core/ProblemSpec/ProblemSpec.h"
#include "Core/Util/Error.h"

namespace tessera {

Grid Grid::fromDeck(const ProblemSpec& grid) {
  Grid result;
  result.addLevel(LevelSpec::fromDeck(grid.section("level")));
  return result;
}

Level& Grid::addLevel(const LevelSpec& spec) {
  m_levels.push_back(std::make_unique<Level>(numLevels(), spec, numPatches()));
  return *m_levels.back();
}

const Level& Grid::level(int index) const {
  TESSERA_REQUIRE_THROWS(
      index >= 0 && index < numLevels(),
      "level " << index << " does not exist (the grid has " << numLevels() << ")");
  return *m_levels[static_cast<std::size_t>(index)];
}

int Grid::numPatches() const {
  int n = 0;
  for (const auto& level : m_levels)
    n += level->numPatches();
  return n;
}

const Patch& Grid::patchById(int id) const {
  for (const auto& level : m_levels) {
    if (id >= level->firstPatchId() && id < level->firstPatchId() + level->numPatches()) {
      return level->patchById(id);
    }
  }
  TESSERA_FAIL("no patch with id " << id);
}

}  // namespace tessera
