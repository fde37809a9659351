#pragma once
// A box-shaped set of one rank's patches of one level. The runtime cuts each
// rank's patches into such groups; the cell variables of a group's patches
// share one allocation over the group's box (each patch a window on it), so
// ghost cells between patches of a group need no copy, and a task may run
// once per group, with one kernel over the whole box, instead of once per
// patch (see docs/runtime.md, "Patch groups"). A group of one patch is that
// patch.

#include "Core/Grid/Box.h"
#include "Core/Grid/Patch.h"

#include <ostream>
#include <vector>

namespace tessera {

class PatchGroup {
 public:
  // `patches` (of one level, in id order) must tile a box of the layout.
  explicit PatchGroup(std::vector<const Patch*> patches);

  const std::vector<const Patch*>& patches() const { return m_patches; }
  int numPatches() const { return static_cast<int>(m_patches.size()); }
  const Level& level() const { return m_patches.front()->level(); }
  // The first patch (lowest id) names the group.
  const Patch& leader() const { return *m_patches.front(); }
  // The warehouse key of the group's storage: never a patch id.
  int storageKey() const { return -1 - leader().id(); }
  // True when `patch` is one of the group's (same level, interior inside the group's).
  bool contains(const Patch& patch) const {
    return &patch.level() == &level() && m_interior.contains(patch.interior());
  }

  // The union of the patches' interiors, and of their extended boxes.
  const Box& interior() const { return m_interior; }
  const Box& extendedBox() const { return m_extended; }
  // True when the group's face f lies on a non-periodic domain boundary.
  bool hasBoundaryCondition(Face f) const;
  // The extra cells beyond the group's face f (empty without a boundary condition).
  Box extraCellBox(Face f) const;
  // The box a variable of the group with `numGhost` layers covers: the
  // union of its patches' ghosted boxes.
  Box ghostedBox(int numGhost) const;
  Vector3 spacing() const { return leader().spacing(); }

 private:
  std::vector<const Patch*> m_patches;
  Box m_interior;
  Box m_extended;
};

// Cuts `patches` (one rank's patches of one level) into box-shaped groups:
// from each patch not yet taken, in id order, a run along x, then as many
// such rows along y and planes along z as are all present and free. With
// `enabled` false every patch is a group of its own. Deterministic; groups
// in the order of their leaders' ids.
std::vector<PatchGroup> formPatchGroups(const std::vector<const Patch*>& patches,
                                        bool enabled = true);

std::ostream& operator<<(std::ostream& out, const PatchGroup& group);

}  // namespace tessera
