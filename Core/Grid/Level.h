#pragma once
// A level of the grid: the domain at one resolution, and the regions of it
// the level covers, each laid out as rectangular patches. Level 0 covers the
// domain in one region, cut into `patches` (the layout need not divide the
// resolution: patch p of P along an axis of n cells starts at floor(p*n/P)).
// A finer level refines the one below it by a ratio per axis and covers
// regions of it (docs/amr.md).

#include "Core/Grid/Box.h"
#include "Core/Grid/Ghost.h"
#include "Core/Grid/IntVector.h"
#include "Core/Grid/Patch.h"
#include "Core/Grid/Vector3.h"

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

class ProblemSpec;

struct LevelSpec {
  Vector3 lower{0.0, 0.0, 0.0};
  Vector3 upper{1.0, 1.0, 1.0};
  IntVector resolution{1, 1, 1};
  IntVector patches{1, 1, 1};
  IntVector extraCells{0, 0, 0};
  std::array<bool, 3> periodic{false, false, false};

  // Reads a deck's `grid.level` section; inconsistent values are DeckErrors.
  static LevelSpec fromDeck(const ProblemSpec& level);
  // What is wrong with the spec, as (deck key, message); nullopt when valid.
  std::optional<std::pair<std::string, std::string>> problem() const;
  // Throws InputError when the spec cannot describe a level.
  void check() const;
};

// A box of a level's cells laid out as `patches` patches per axis. On a
// finer level the cuts fall on whole cells of the level below (patch p of P
// along an axis of n fine cells starts at lo + ratio*floor(p*(n/ratio)/P)),
// so the fine cells of one coarse cell always lie in one patch.
struct LevelRegion {
  Box cells;
  IntVector patches{1, 1, 1};
};

class Level {
 public:
  // Level 0: the domain of `spec`, one region.
  Level(int index, const LevelSpec& spec, int firstPatchId);
  // A finer level: `coarser` refined by `ratio` (at least 1 per axis) over
  // `regions`, boxes of this level's cells made of whole coarse cells, inside
  // the domain and disjoint (an InputError otherwise).
  Level(int index, const Level& coarser, const IntVector& ratio, std::vector<LevelRegion> regions,
        int firstPatchId);
  // Patches point back at their level, so a level stays where it was built.
  Level(const Level&) = delete;
  Level& operator=(const Level&) = delete;

  int index() const { return m_index; }
  // The domain at this level's resolution (`patches`: the first region's layout).
  const LevelSpec& spec() const { return m_spec; }
  const IntVector& resolution() const { return m_spec.resolution; }
  // The patch layout of the first region (level 0: of the domain).
  const IntVector& patchLayout() const { return m_regions.front().patches; }
  // The level below, or null for level 0, and the ratio of this level's
  // cells to its cells per axis ({1, 1, 1} for level 0).
  const Level* coarser() const { return m_coarser; }
  // The next finer level, or null for the finest (set when it is added).
  const Level* finer() const { return m_finer; }
  const IntVector& refinementRatio() const { return m_ratio; }
  const std::vector<LevelRegion>& regions() const { return m_regions; }
  // True when the level's patches cover its whole domain (level 0 always).
  bool coversDomain() const { return numCells() == cellBox().volume(); }
  bool periodic(int axis) const { return m_spec.periodic[axis]; }
  Vector3 spacing() const { return m_spacing; }
  Vector3 cellCentre(const IntVector& cell) const;

  // The interior cells of the domain at this level's resolution, [0, resolution).
  Box cellBox() const { return {IntVector{}, m_spec.resolution}; }
  // The interior plus extra cells on every non-periodic side.
  Box extendedCellBox() const;
  // The cells the level's patches cover (level 0: the whole domain).
  std::int64_t numCells() const { return m_numCells; }

  const std::vector<Patch>& patches() const { return m_patches; }
  // Every patch of the level, the usual patch set of a task.
  std::vector<const Patch*> eachPatch() const;
  int numPatches() const { return static_cast<int>(m_patches.size()); }
  int firstPatchId() const { return m_firstPatchId; }
  const Patch& patchById(int id) const;
  // The patch at a layout position of a region, wrapping periodic axes the
  // region spans whole; nullptr outside.
  const Patch* patchAtLayout(IntVector layoutIndex, int region = 0) const;

  // Where `patch`'s ghost cells come from, with `numGhost` layers: all round
  // (faces, edges and corners) for Ghost::AroundCells, across the faces only
  // for Ghost::AroundFaces; across periodic boundaries too. Ghost cells
  // never replace a patch's own extra cells, but a neighbour's extra cells
  // next to the boundary are copied like its interior. Every ghost cell
  // appears in exactly one region; the order is deterministic. Costs in
  // proportion to the neighbours found, not to the patches of the level.
  std::vector<GhostRegion> ghostRegions(const Patch& patch, int numGhost,
                                        Ghost::Type type = Ghost::AroundCells) const;
  // Where the cells of `wanted` (this level's indices; beyond a periodic
  // boundary, an image's cells, at most one period away, as any ghost or
  // staging box is) are held: cells `sourceBox` of `source`
  // land at `sourceBox.shift(offset)` in `wanted`. Each held cell once;
  // cells no patch holds in none (a finer level's gaps, beyond a wall).
  std::vector<GhostRegion> sourcesOf(const Box& wanted) const;
  // The ghost cells of `patch` (as ghostRegions) that no patch of this level
  // holds: on a finer level, those the level below fills by interpolation
  // (its coarse-fine boundary). Disjoint boxes in the patch's index space
  // (beyond a periodic boundary: the image's cells); none on a level that
  // covers its domain.
  std::vector<Box> coarseFineGhosts(const Patch& patch, int numGhost,
                                    Ghost::Type type = Ghost::AroundCells) const;
  // The patches whose extended boxes meet `box` (level indices, no periodic
  // wrapping), in id order; found from the regions' cuts, not by a scan.
  std::vector<const Patch*> patchesIntersecting(const Box& box) const;
  // The patches whose extended boxes come within `distance` cells of
  // `patch`'s, across periodic boundaries too (`patch` itself among them),
  // in id order, each once: every patch that can exchange ghost cells of
  // that width with it.
  std::vector<const Patch*> patchesNear(const Patch& patch, int distance) const;
  // The box a variable with `numGhost` layers around `patch` must cover.
  Box ghostedBox(const Patch& patch, int numGhost) const;
  // The interior cells of `patch` that no finer level covers, as disjoint
  // boxes: where the composite solution is this level's (under a finer
  // level it holds the finer cells' averages).
  std::vector<Box> compositeCells(const Patch& patch) const;
  // The volume of one of the level's cells over that of a level-0 cell
  // (exact: a power of two for ratios 2 and 4).
  double cellVolumeFraction() const;
  // A region's cells plus the extra cells of its non-periodic domain faces
  // (level 0: extendedCellBox()).
  Box extendedRegionBox(int region) const;

 private:
  // Cuts `region` into patches (`ratio`: the cells the cuts fall on).
  void addRegion(const LevelRegion& region, const IntVector& ratio);

  int m_index;
  LevelSpec m_spec;
  const Level* m_coarser = nullptr;
  const Level* m_finer = nullptr;  // Grid::addRefinedLevel sets it
  friend class Grid;
  IntVector m_ratio{1, 1, 1};
  Vector3 m_spacing;
  int m_firstPatchId;
  std::int64_t m_numCells = 0;
  // Calls f(source, image) for every patch whose extended box, shifted by
  // the periodic image offset, meets `wanted`.
  template <class F>
  void forEachImageSource(const Box& wanted, const F& f) const;

  std::vector<LevelRegion> m_regions;
  // Per region: patch boundaries along each axis, and its first patch (index into m_patches).
  std::vector<std::array<std::vector<int>, 3>> m_cuts;
  std::vector<int> m_regionFirstPatch;
  std::vector<Patch> m_patches;
};

}  // namespace tessera
