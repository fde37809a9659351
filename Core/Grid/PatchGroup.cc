#include "Core/Grid/PatchGroup.h"

#include "Core/Grid/Level.h"
#include "Core/Util/Error.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>

namespace tessera {

namespace {
Box boundingBox(const std::vector<const Patch*>& patches, Box (*boxOf)(const Patch&)) {
  Box bound;
  for (const Patch* p : patches)
    bound = tessera::boundingBox(bound, boxOf(*p));
  return bound;
}
}  // namespace

PatchGroup::PatchGroup(std::vector<const Patch*> patches) : m_patches(std::move(patches)) {
  TESSERA_REQUIRE_THROWS(!m_patches.empty(), "a patch group needs at least one patch");
  m_interior = boundingBox(m_patches, [](const Patch& p) { return p.interior(); });
  m_extended = boundingBox(m_patches, [](const Patch& p) { return p.extendedBox(); });
  std::int64_t cells = 0;
  for (const Patch* p : m_patches) {
    TESSERA_REQUIRE_THROWS(&p->level() == &level(), "a patch group spans one level");
    cells += p->numCells();
  }
  TESSERA_REQUIRE_THROWS(cells == m_interior.volume(), "the patches of a group must tile a box; "
                                                           << leader() << " and "
                                                           << numPatches() - 1 << " more do not");
}

bool PatchGroup::hasBoundaryCondition(Face f) const {
  const int axis = faceAxis(f);
  const bool onEdge = faceSide(f) == 0 ? m_interior.lo()[axis] == 0
                                       : m_interior.hi()[axis] == level().resolution()[axis];
  return onEdge && !level().periodic(axis);
}

Box PatchGroup::extraCellBox(Face f) const {
  if (!hasBoundaryCondition(f)) return {};
  return beyondFace(m_interior, m_extended, f);
}

Box PatchGroup::ghostedBox(int numGhost) const {
  Box bound = level().ghostedBox(leader(), numGhost);
  for (const Patch* p : m_patches) {
    const Box b = level().ghostedBox(*p, numGhost);
    bound = {min(bound.lo(), b.lo()), max(bound.hi(), b.hi())};
  }
  return bound;
}

namespace {
// formPatchGroups over the patches of one region (sorted by id), appended to `groups`.
void groupRegion(const std::vector<const Patch*>& sorted, std::vector<PatchGroup>& groups) {
  std::map<std::array<int, 3>, const Patch*> free;
  for (const Patch* p : sorted) {
    const IntVector at = p->layoutIndex();
    free[{at.x, at.y, at.z}] = p;
  }
  const auto freeAt = [&](const IntVector& at) { return free.count({at.x, at.y, at.z}) > 0; };
  // True when every layout position of [lo, hi) is free.
  const auto allFree = [&](const IntVector& lo, const IntVector& hi) {
    for (int z = lo.z; z < hi.z; ++z)
      for (int y = lo.y; y < hi.y; ++y)
        for (int x = lo.x; x < hi.x; ++x)
          if (!freeAt({x, y, z})) return false;
    return true;
  };
  for (const Patch* seed : sorted) {
    const IntVector lo = seed->layoutIndex();
    if (!freeAt(lo)) continue;
    IntVector hi = lo + IntVector::uniform(1);
    for (int axis = 0; axis < 3; ++axis) {
      for (;;) {
        IntVector slabLo = lo;
        IntVector slabHi = hi;
        slabLo[axis] = hi[axis];
        slabHi[axis] = hi[axis] + 1;
        if (!allFree(slabLo, slabHi)) break;
        hi[axis] += 1;
      }
    }
    std::vector<const Patch*> members;
    for (int z = lo.z; z < hi.z; ++z)
      for (int y = lo.y; y < hi.y; ++y)
        for (int x = lo.x; x < hi.x; ++x) {
          auto found = free.find({x, y, z});
          members.push_back(found->second);
          free.erase(found);
        }
    std::sort(members.begin(), members.end(),
              [](const Patch* a, const Patch* b) { return a->id() < b->id(); });
    groups.emplace_back(std::move(members));
  }
}
}  // namespace

std::vector<PatchGroup> formPatchGroups(const std::vector<const Patch*>& patches, bool enabled) {
  std::vector<const Patch*> sorted = patches;
  std::sort(sorted.begin(), sorted.end(),
            [](const Patch* a, const Patch* b) { return a->id() < b->id(); });
  std::vector<PatchGroup> groups;
  if (!enabled) {
    for (const Patch* p : sorted)
      groups.emplace_back(std::vector<const Patch*>{p});
    return groups;
  }
  // Groups stay inside a region (a region's patch ids are consecutive and
  // follow the previous region's, so the groups come in leader order).
  std::size_t begin = 0;
  while (begin < sorted.size()) {
    std::size_t end = begin;
    while (end < sorted.size() && sorted[end]->region() == sorted[begin]->region())
      ++end;
    groupRegion({sorted.begin() + static_cast<std::ptrdiff_t>(begin),
                 sorted.begin() + static_cast<std::ptrdiff_t>(end)},
                groups);
    begin = end;
  }
  return groups;
}

std::ostream& operator<<(std::ostream& out, const PatchGroup& group) {
  return out << "patch group of " << group.numPatches() << " patch(es) from " << group.leader()
             << ", cells " << group.interior();
}

}  // namespace tessera
