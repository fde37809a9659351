#include "Core/Grid/Grid.h"

#include "Core/Grid/AmrSpec.h"
#include "Core/ProblemSpec/ProblemSpec.h"
#include "Core/Util/Error.h"

namespace tessera {

Grid Grid::fromDeck(const ProblemSpec& grid, const ProblemSpec* amr) {
  Grid result;
  const LevelSpec& level0 = result.addLevel(LevelSpec::fromDeck(grid.section("level"))).spec();
  if (!amr) return result;
  const AmrSpec spec = AmrSpec::fromDeck(*amr, level0);
  for (int l = 1; l < spec.numLevels(); ++l)
    result.addRefinedLevel(spec.ratioVector(), spec.levelRegions(l));
  return result;
}

Level& Grid::addRefinedLevel(const IntVector& ratio, std::vector<LevelRegion> regions) {
  TESSERA_REQUIRE_THROWS(numLevels() > 0, "a refined level needs level 0 below it");
  m_levels.push_back(std::make_unique<Level>(numLevels(), *m_levels.back(), ratio,
                                             std::move(regions), numPatches()));
  m_levels[m_levels.size() - 2]->m_finer = m_levels.back().get();
  return *m_levels.back();
}

Level& Grid::addLevel(const LevelSpec& spec) {
  TESSERA_REQUIRE_THROWS(numLevels() == 0, "level 0 is added once; finer levels refine it");
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
