#pragma once
// A uniform level: a physical box cut into `resolution` cells, laid out as
// `patches` rectangular patches (the layout need not divide the resolution:
// patch p of P along an axis of n cells starts at floor(p*n/P)).

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

class Level {
 public:
  Level(int index, const LevelSpec& spec, int firstPatchId);
  // Patches point back at their level, so a level stays where it was built.
  Level(const Level&) = delete;
  Level& operator=(const Level&) = delete;

  int index() const { return m_index; }
  const LevelSpec& spec() const { return m_spec; }
  const IntVector& resolution() const { return m_spec.resolution; }
  const IntVector& patchLayout() const { return m_spec.patches; }
  bool periodic(int axis) const { return m_spec.periodic[axis]; }
  Vector3 spacing() const { return m_spacing; }
  Vector3 cellCentre(const IntVector& cell) const;

  // The interior cells of the level, [0, resolution).
  Box cellBox() const { return {IntVector{}, m_spec.resolution}; }
  // The interior plus extra cells on every non-periodic side.
  Box extendedCellBox() const;
  std::int64_t numCells() const { return cellBox().volume(); }

  const std::vector<Patch>& patches() const { return m_patches; }
  // Every patch of the level, the usual patch set of a task.
  std::vector<const Patch*> eachPatch() const;
  int numPatches() const { return static_cast<int>(m_patches.size()); }
  int firstPatchId() const { return m_firstPatchId; }
  const Patch& patchById(int id) const;
  // The patch at a layout position, wrapping periodic axes; nullptr outside.
  const Patch* patchAtLayout(IntVector layoutIndex) const;

  // Where `patch`'s ghost cells come from, with `numGhost` layers: all round
  // (faces, edges and corners) for Ghost::AroundCells, across the faces only
  // for Ghost::AroundFaces; across periodic boundaries too. Ghost cells
  // never replace a patch's own extra cells, but a neighbour's extra cells
  // next to the boundary are copied like its interior. Every ghost cell
  // appears in exactly one region; the order is deterministic. Costs in
  // proportion to the neighbours found, not to the patches of the level.
  std::vector<GhostRegion> ghostRegions(const Patch& patch, int numGhost,
                                        Ghost::Type type = Ghost::AroundCells) const;
  // The patches whose extended boxes meet `box` (level indices, no periodic
  // wrapping), in id order; found from the layout's cuts, not by a scan.
  std::vector<const Patch*> patchesIntersecting(const Box& box) const;
  // The patches whose extended boxes come within `distance` cells of
  // `patch`'s, across periodic boundaries too (`patch` itself among them),
  // in id order, each once: every patch that can exchange ghost cells of
  // that width with it.
  std::vector<const Patch*> patchesNear(const Patch& patch, int distance) const;
  // The box a variable with `numGhost` layers around `patch` must cover.
  Box ghostedBox(const Patch& patch, int numGhost) const;

 private:
  int m_index;
  LevelSpec m_spec;
  Vector3 m_spacing;
  int m_firstPatchId;
  // Calls f(source, image) for every patch whose extended box, shifted by
  // the periodic image offset, meets `wanted`.
  template <class F>
  void forEachImageSource(const Box& wanted, const F& f) const;

  std::array<std::vector<int>, 3> m_cuts;  // patch boundaries along each axis
  std::vector<Patch> m_patches;
};

}  // namespace tessera
