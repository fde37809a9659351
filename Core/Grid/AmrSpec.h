#pragma once
// The deck's `amr` section: how many levels the grid may have, the ratio of
// each level's cells to the cells of the one below, how far a finer level
// keeps from its coarser level's edge, how large its patches may grow, and
// the fixed refined regions (named boxes of the cells of the level below).
// See docs/amr.md.

#include "Core/Grid/Box.h"
#include "Core/Grid/Level.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tessera {

class ProblemSpec;

struct RefinedRegion {
  std::string name;     // its key under amr.regions
  int level = 1;        // the level it belongs to
  Box coarseCells;      // in the cells of level - 1
  IntVector patches{};  // per axis; zero: from max_patch_size
};

// The patches along each axis of a finer level's region of `fineCells`
// (whole cells of the level below, `ratio` fine cells each): as many as keep
// each under `maxPatchSize` fine cells, never fewer than one coarse cell each.
IntVector patchLayoutFor(const Box& fineCells, int ratio, int maxPatchSize);

struct AmrSpec {
  int maxLevels = 1;
  int ratio = 2;          // the same along every axis
  int nestingBuffer = 1;  // cells of level l - 1 around level l inside level l - 1
  int maxPatchSize = 0;   // cells per axis of a finer level's patch; zero: level 0's largest
  int buffer = 1;         // cells around a tagged cell that are refined with it
  // Timesteps between regrids (the component tags again and the levels
  // follow its tags: Regridder.h); 0: the levels stay as made at the start.
  int regridInterval = 0;
  // Each level steps with its own dt, `ratio` substeps per step of the
  // level below (Subcycling.h); false: every level takes the coarse step.
  bool subcycle = false;
  // Refluxing (amr.reflux, default true): corrects the coarse cells next to
  // a finer level by the finer level's fluxes, for a component that
  // declares its fluxes (Application::conservedFluxes).
  bool reflux = true;
  bool refluxes() const { return reflux && maxLevels > 1; }
  std::vector<RefinedRegion> regions;  // in deck order

  // Reads and checks an `amr` section for a grid whose level 0 is `level0`:
  // a ratio other than 2 or 4, a region of a level beyond max_levels, outside
  // the level below, overlapping another, or not properly nested are
  // DeckErrors at the key to fix.
  static AmrSpec fromDeck(const ProblemSpec& amr, const LevelSpec& level0);

  IntVector ratioVector() const { return IntVector::uniform(ratio); }
  // Levels left to the component's tags at initialisation: more than one
  // level and no fixed regions (TagClustering.h, docs/amr.md).
  bool tagged() const { return maxLevels > 1 && regions.empty(); }
  bool regrids() const { return tagged() && regridInterval > 0; }
  // The tiles tagged cells are refined in: cells of the level below per
  // axis, so that each refines to one patch of max_patch_size cells.
  IntVector tileCells() const { return IntVector::uniform(std::max(1, maxPatchSize / ratio)); }
  // The levels the regions make (at most maxLevels), level 0 included.
  int numLevels() const;
  // Level `level`'s regions, in its own cells, cut into patches.
  std::vector<LevelRegion> levelRegions(int level) const;
};

}  // namespace tessera
