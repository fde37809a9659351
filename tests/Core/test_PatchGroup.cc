// Patch groups: formation (disjoint boxes that cover exactly the patches
// given), group geometry against the union of the patches, and windows of
// cell variables on one allocation.
#include "Core/Grid/Grid.h"
#include "Core/Grid/PatchGroup.h"
#include "Core/Grid/Variables/CCVariable.h"

#include <gtest/gtest.h>

#include "TestHelpers.h"

#include <random>
#include <set>
#include <vector>

using namespace tessera;
using tessera::testing::makeLevelSpec;

namespace {

std::vector<const Patch*> allPatches(const Level& level) {
  return level.eachPatch();
}

// Every cell of every group belongs to exactly one of `patches`, and the
// groups cover them all, each patch once.
void expectExactCover(const std::vector<PatchGroup>& groups,
                      const std::vector<const Patch*>& patches) {
  std::set<int> seen;
  for (const PatchGroup& group : groups) {
    std::int64_t cells = 0;
    for (const Patch* p : group.patches()) {
      EXPECT_TRUE(seen.insert(p->id()).second) << "patch " << p->id() << " in two groups";
      EXPECT_TRUE(group.interior().contains(p->interior()));
      cells += p->numCells();
    }
    EXPECT_EQ(cells, group.interior().volume()) << group;
  }
  std::set<int> wanted;
  for (const Patch* p : patches)
    wanted.insert(p->id());
  EXPECT_EQ(seen, wanted);
}

}  // namespace

TEST(PatchGroup, AllPatchesOfALevelFormOneGroup) {
  Grid grid;
  grid.addLevel(makeLevelSpec({12, 10, 9}, {3, 2, 3}, {1, 1, 1}));
  const Level& level = grid.level(0);
  const auto groups = formPatchGroups(allPatches(level));
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].interior(), level.cellBox());
  EXPECT_EQ(groups[0].extendedBox(), level.extendedCellBox());
  EXPECT_EQ(groups[0].leader().id(), level.firstPatchId());
  EXPECT_LT(groups[0].storageKey(), 0);  // never a patch id
}

TEST(PatchGroup, DisabledGroupsAreSinglePatches) {
  Grid grid;
  grid.addLevel(makeLevelSpec({8, 8, 8}, {2, 2, 2}, {1, 1, 1}));
  const auto groups = formPatchGroups(allPatches(grid.level(0)), false);
  ASSERT_EQ(groups.size(), 8u);
  for (std::size_t n = 0; n < groups.size(); ++n) {
    EXPECT_EQ(groups[n].numPatches(), 1);
    EXPECT_EQ(groups[n].interior(), groups[n].leader().interior());
    EXPECT_EQ(groups[n].extendedBox(), groups[n].leader().extendedBox());
    EXPECT_EQ(groups[n].ghostedBox(2), grid.level(0).ghostedBox(groups[n].leader(), 2));
  }
}

TEST(PatchGroup, RandomSubsetsAreCutIntoDisjointBoxes) {
  Grid grid;
  grid.addLevel(makeLevelSpec({20, 13, 11}, {5, 4, 3}, {1, 1, 1}));
  const Level& level = grid.level(0);
  std::mt19937 random(12345);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<const Patch*> subset;
    for (const Patch* p : allPatches(level))
      if (random() % 3 != 0) subset.push_back(p);
    const auto groups = formPatchGroups(subset);
    expectExactCover(groups, subset);
    // Deterministic: the same subset in another order gives the same groups.
    std::vector<const Patch*> shuffled = subset;
    std::shuffle(shuffled.begin(), shuffled.end(), random);
    const auto again = formPatchGroups(shuffled);
    ASSERT_EQ(again.size(), groups.size());
    for (std::size_t n = 0; n < groups.size(); ++n)
      EXPECT_EQ(again[n].interior(), groups[n].interior());
  }
}

TEST(PatchGroup, RunsAlongXThenRowsThenPlanes) {
  Grid grid;
  grid.addLevel(makeLevelSpec({8, 8, 8}, {4, 4, 4}));
  const Level& level = grid.level(0);
  // A 4x4x2 slab (what SFC gives one of two ranks) is one group.
  std::vector<const Patch*> slab;
  for (const Patch& p : level.patches())
    if (p.layoutIndex().z < 2) slab.push_back(&p);
  const auto groups = formPatchGroups(slab);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].interior(), Box({0, 0, 0}, {8, 8, 4}));
  // An L of three patches: a run of two along x, then the one above.
  const std::vector<const Patch*> ell{level.patchAtLayout({0, 0, 0}),
                                      level.patchAtLayout({1, 0, 0}),
                                      level.patchAtLayout({0, 1, 0})};
  const auto parts = formPatchGroups(ell);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].numPatches(), 2);
  EXPECT_EQ(parts[1].numPatches(), 1);
}

TEST(PatchGroup, GeometryIsTheUnionOfItsPatches) {
  Grid grid;
  grid.addLevel(makeLevelSpec({12, 12, 12}, {3, 3, 3}, {2, 0, 1}, {false, true, false}));
  const Level& level = grid.level(0);
  // Every sub-box of the layout touching one corner of the domain or not.
  for (const IntVector lo : {IntVector{0, 0, 0}, IntVector{1, 1, 1}, IntVector{1, 0, 2}}) {
    for (const IntVector hi : {IntVector{3, 3, 3}, IntVector{2, 2, 3}}) {
      std::vector<const Patch*> members;
      for (const Patch& p : level.patches())
        if (Box(lo, hi).contains(Box(p.layoutIndex(), p.layoutIndex() + IntVector::uniform(1))))
          members.push_back(&p);
      if (members.empty()) continue;
      const PatchGroup group(members);
      std::set<IntVector> extended;
      std::set<IntVector> ghosted;
      for (const Patch* p : members) {
        p->extendedBox().forEachCell([&](const IntVector& c) { extended.insert(c); });
        level.ghostedBox(*p, 2).forEachCell([&](const IntVector& c) { ghosted.insert(c); });
      }
      EXPECT_EQ(static_cast<std::int64_t>(extended.size()), group.extendedBox().volume());
      EXPECT_EQ(static_cast<std::int64_t>(ghosted.size()), group.ghostedBox(2).volume());
      for (const Face face : allFaces()) {
        const int axis = faceAxis(face);
        const auto edgeOf = [&](const Box& b) {
          return faceSide(face) == 0 ? b.lo()[axis] : b.hi()[axis];
        };
        bool any = false;
        for (const Patch* p : members)
          any = any || (edgeOf(p->interior()) == edgeOf(group.interior()) &&
                        p->hasBoundaryCondition(face));
        EXPECT_EQ(group.hasBoundaryCondition(face), any) << faceName(face);
        // The extra cells beyond a face are those of its patches on that face.
        std::int64_t cells = 0;
        for (const Patch* p : members)
          if (group.extraCellBox(face).contains(p->extraCellBox(face)))
            cells += p->extraCellBox(face).volume();
        EXPECT_EQ(group.extraCellBox(face).volume(), any ? cells : 0) << faceName(face);
      }
    }
  }
}

TEST(PatchGroup, PatchesThatDoNotTileABoxAreRefused) {
  Grid grid;
  grid.addLevel(makeLevelSpec({8, 8, 8}, {2, 2, 2}));
  const Level& level = grid.level(0);
  EXPECT_THROW(PatchGroup({level.patchAtLayout({0, 0, 0}), level.patchAtLayout({1, 1, 0})}),
               std::runtime_error);
  EXPECT_THROW(PatchGroup(std::vector<const Patch*>{}), std::runtime_error);
}

TEST(CCVariableWindow, SharesStorageAndKeepsTheAllocationsStrides) {
  const Box whole({-1, -1, -1}, {9, 7, 5});
  CCVariable<double> var(whole);
  whole.forEachCell([&](const IntVector& c) { var(c) = c.x + 100.0 * c.y + 1e4 * c.z; });
  const Box part({2, 1, 0}, {6, 4, 3});
  const auto window = std::dynamic_pointer_cast<CCVariable<double>>(var.window(part));
  ASSERT_TRUE(window);
  EXPECT_TRUE(window->isWindow());
  EXPECT_FALSE(var.isWindow());
  EXPECT_EQ(window->storage(), var.storage());
  EXPECT_EQ(window->box(), part);
  part.forEachCell([&](const IntVector& c) { EXPECT_EQ((*window)(c), var(c)); });
  (*window)(3, 2, 1) = -7.0;
  EXPECT_EQ(var(3, 2, 1), -7.0);
  // Pack, digest and kernels on the window see the same cells as on the whole.
  const Box region({3, 1, 0}, {5, 4, 2});
  std::vector<std::byte> a(static_cast<std::size_t>(region.volume()) * sizeof(double));
  std::vector<std::byte> b(a.size());
  window->pack(region, a.data());
  var.pack(region, b.data());
  EXPECT_EQ(a, b);
  EXPECT_EQ(window->digest(region), var.digest(region));
  window->fill(2.5);
  whole.forEachCell([&](const IntVector& c) {
    if (part.contains(c)) {
      EXPECT_EQ(var(c), 2.5);
    } else {
      EXPECT_NE(var(c), 2.5);
    }
  });
  EXPECT_THROW(var.window(whole.grow(1)), std::runtime_error);
}

TEST(CCVariableWindow, CopiesBetweenWindowsOfOneAllocationAreNoOpsOthersCopy) {
  const Box whole({0, 0, 0}, {8, 4, 4});
  CCVariable<double> var(whole);
  whole.forEachCell([&](const IntVector& c) { var(c) = c.x; });
  const auto left = var.window(Box({0, 0, 0}, {5, 4, 4}));
  const auto right = var.window(Box({3, 0, 0}, {8, 4, 4}));
  left->copyFrom(*right, Box({4, 0, 0}, {5, 4, 4}), IntVector{});
  whole.forEachCell([&](const IntVector& c) { EXPECT_EQ(var(c), c.x); });
  // A shifted copy between windows of one allocation moves data.
  left->copyFrom(*right, Box({4, 0, 0}, {5, 4, 4}), IntVector{-4, 0, 0});
  EXPECT_EQ(var(0, 2, 2), 4.0);
  CCVariable<double> other(Box({3, 0, 0}, {5, 4, 4}));
  other.fill(9.0);
  left->copyFrom(other, Box({3, 0, 0}, {5, 4, 4}), IntVector{});
  EXPECT_EQ(var(3, 1, 1), 9.0);
  EXPECT_EQ(var(5, 1, 1), 5.0);
}

// A view of the storage reads cells past a window's own box that other
// windows of the group hold (refining coarse-fine ghost cells from a coarse
// group where its cells lie); a box leaving the allocation gets none.
TEST(CCVariableWindow, ViewsOfTheStorageReachPastTheWindow) {
  const Box whole({0, 0, 0}, {8, 6, 4});
  CCVariable<double> var(whole);
  whole.forEachCell([&](const IntVector& c) { var(c) = c.x + 10.0 * c.y + 100.0 * c.z; });
  const auto left = var.window(Box({0, 0, 0}, {4, 6, 4}));
  const Box across({2, 1, 1}, {7, 5, 3});  // half in the other window
  const auto view =
      std::dynamic_pointer_cast<const CCVariable<double>>(left->viewOfStorage(across));
  ASSERT_TRUE(view);
  EXPECT_EQ(view->box(), across);
  EXPECT_EQ(view->storage(), var.storage());
  across.forEachCell([&](const IntVector& c) { EXPECT_EQ((*view)(c), var(c)) << c; });
  EXPECT_EQ(left->viewOfStorage(Box({-1, 0, 0}, {2, 2, 2})), nullptr);
  EXPECT_EQ(left->viewOfStorage(whole.grow(1)), nullptr);
}
