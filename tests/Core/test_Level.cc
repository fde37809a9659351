#include "Core/Grid/Grid.h"
#include "Core/Grid/Level.h"
#include "Core/Util/Error.h"

#include <gtest/gtest.h>

#include "TestHelpers.h"

#include <map>
#include <set>

using namespace tessera;
using tessera::testing::makeLevelSpec;

TEST(Level, UnevenLayoutSplitsAsFloorOfProportion) {
  const Level level(0, makeLevelSpec({10, 7, 1}, {3, 2, 1}), 0);
  ASSERT_EQ(level.numPatches(), 6);
  // 10 cells over 3 patches: [0,3) [3,6) [6,10); 7 over 2: [0,3) [3,7).
  EXPECT_EQ(level.patches()[0].interior(), Box({0, 0, 0}, {3, 3, 1}));
  EXPECT_EQ(level.patches()[1].interior(), Box({3, 0, 0}, {6, 3, 1}));
  EXPECT_EQ(level.patches()[2].interior(), Box({6, 0, 0}, {10, 3, 1}));
  EXPECT_EQ(level.patches()[5].interior(), Box({6, 3, 0}, {10, 7, 1}));
  std::int64_t cells = 0;
  std::set<IntVector> seen;
  for (const Patch& p : level.patches()) {
    cells += p.numCells();
    p.interior().forEachCell([&](const IntVector& c) { EXPECT_TRUE(seen.insert(c).second); });
  }
  EXPECT_EQ(cells, level.numCells());
}

TEST(Level, PatchIdsAndLayoutIndices) {
  Grid grid;
  grid.addLevel(makeLevelSpec({8, 8, 8}, {2, 2, 2}));
  const Level& level = grid.level(0);
  for (int id = 0; id < 8; ++id) {
    const Patch& p = grid.patchById(id);
    EXPECT_EQ(p.id(), id);
    EXPECT_EQ(p.layoutIndex(), (IntVector{id % 2, (id / 2) % 2, id / 4}));
    EXPECT_EQ(&p.level(), &level);
  }
  EXPECT_EQ(grid.numPatches(), 8);
  EXPECT_THROW(grid.patchById(8), Error);
  EXPECT_THROW(grid.level(1), Error);
}

TEST(Level, GeometryAndBoundaryFaces) {
  LevelSpec spec = makeLevelSpec({10, 20, 5}, {2, 1, 1}, {1, 2, 0}, {false, false, true});
  spec.lower = {0.0, -1.0, 2.0};
  spec.upper = {1.0, 1.0, 3.0};
  const Level level(0, spec, 0);
  const Patch& left = level.patches()[0];
  const Patch& right = level.patches()[1];
  EXPECT_DOUBLE_EQ(left.spacing().x, 0.1);
  EXPECT_DOUBLE_EQ(left.spacing().y, 0.1);
  EXPECT_DOUBLE_EQ(left.spacing().z, 0.2);
  const Vector3 centre = left.cellCentre({0, 0, 0});
  EXPECT_DOUBLE_EQ(centre.x, 0.05);
  EXPECT_DOUBLE_EQ(centre.y, -0.95);
  EXPECT_DOUBLE_EQ(centre.z, 2.1);
  EXPECT_TRUE(left.hasBoundaryCondition(Face::XMinus));
  EXPECT_FALSE(left.hasBoundaryCondition(Face::XPlus));
  EXPECT_TRUE(right.hasBoundaryCondition(Face::XPlus));
  EXPECT_TRUE(left.hasBoundaryCondition(Face::YMinus));
  EXPECT_TRUE(left.onDomainEdge(Face::ZMinus));
  EXPECT_FALSE(left.hasBoundaryCondition(Face::ZMinus));  // periodic
  EXPECT_EQ(left.extraCells(Face::XMinus), 1);
  EXPECT_EQ(left.extraCells(Face::XPlus), 0);
  EXPECT_EQ(left.extraCells(Face::YPlus), 2);
  EXPECT_EQ(left.extendedBox(), Box({-1, -2, 0}, {5, 22, 5}));
  EXPECT_EQ(left.extraCellBox(Face::XMinus), Box({-1, -2, 0}, {0, 22, 5}));
  EXPECT_TRUE(left.extraCellBox(Face::XPlus).empty());
  EXPECT_EQ(level.extendedCellBox(), Box({-1, -2, 0}, {11, 22, 5}));
}

TEST(Level, NeighbourLookupWrapsOnlyPeriodicAxes) {
  const Level level(0, makeLevelSpec({6, 6, 6}, {3, 2, 1}, {}, {true, false, false}), 0);
  const Patch& p = level.patches()[0];  // layout (0,0,0)
  ASSERT_NE(p.neighbour({-1, 0, 0}), nullptr);
  EXPECT_EQ(p.neighbour({-1, 0, 0})->layoutIndex(), (IntVector{2, 0, 0}));
  EXPECT_EQ(p.neighbour({1, 1, 0})->layoutIndex(), (IntVector{1, 1, 0}));
  EXPECT_EQ(p.neighbour({0, -1, 0}), nullptr);
  EXPECT_EQ(p.neighbour({0, 0, 1}), nullptr);
}

TEST(Level, InvalidSpecsAreInputErrors) {
  EXPECT_THROW(Level(0, makeLevelSpec({4, 4, 4}, {5, 1, 1}), 0), InputError);
  EXPECT_THROW(Level(0, makeLevelSpec({4, 0, 4}, {1, 1, 1}), 0), InputError);
  EXPECT_THROW(Level(0, makeLevelSpec({4, 4, 4}, {1, 1, 1}, {1, 1, 1}, {true, false, false}), 0),
               InputError);
  LevelSpec flipped = makeLevelSpec({4, 4, 4}, {1, 1, 1});
  flipped.upper = {1.0, -1.0, 1.0};
  EXPECT_THROW(Level(0, flipped, 0), InputError);
}

namespace {
// Checks that the ghost regions of every patch cover each of its ghost cells
// exactly once, with the value of the cell they wrap to.
void expectGhostCoverage(const Level& level, int numGhost) {
  const Box domain = level.extendedCellBox();
  for (const Patch& patch : level.patches()) {
    const Box ghosted = level.ghostedBox(patch, numGhost);
    std::map<IntVector, int> hits;
    for (const GhostRegion& region : level.ghostRegions(patch, numGhost)) {
      ASSERT_NE(region.source, nullptr);
      EXPECT_TRUE(region.source->extendedBox().contains(region.sourceBox));
      region.sourceBox.forEachCell([&](const IntVector& src) {
        const IntVector dst = src + region.offset;
        ++hits[dst];
        // The destination wraps back onto the source cell.
        IntVector wrapped = dst;
        for (int axis = 0; axis < 3; ++axis) {
          if (level.periodic(axis)) {
            const int n = level.resolution()[axis];
            wrapped[axis] = ((dst[axis] % n) + n) % n;
          }
        }
        EXPECT_EQ(wrapped, src);
      });
    }
    const Box own = patch.extendedBox();
    std::int64_t expected = 0;
    ghosted.forEachCell([&](const IntVector& c) {
      if (own.contains(c)) {
        EXPECT_EQ(hits.count(c), 0u) << "own cell " << c << " listed as ghost";
        return;
      }
      bool inside = true;
      for (int axis = 0; axis < 3; ++axis) {
        if (!level.periodic(axis) && (c[axis] < domain.lo()[axis] || c[axis] >= domain.hi()[axis]))
          inside = false;
      }
      if (!inside) return;
      ++expected;
      EXPECT_EQ(hits[c], 1) << "ghost cell " << c << " of " << patch << " with " << numGhost
                            << " layers";
    });
    EXPECT_EQ(static_cast<std::int64_t>(hits.size()), expected);
  }
}
}  // namespace

TEST(Level, GhostRegionsNonPeriodicCoverEveryGhostOnce) {
  expectGhostCoverage(Level(0, makeLevelSpec({10, 7, 5}, {3, 2, 2}), 0), 1);
  expectGhostCoverage(Level(0, makeLevelSpec({10, 7, 5}, {3, 2, 2}, {1, 1, 1}), 0), 1);
  expectGhostCoverage(Level(0, makeLevelSpec({10, 7, 5}, {3, 2, 2}, {1, 1, 1}), 0), 2);
}

TEST(Level, GhostRegionsPeriodicOneAndTwoLayers) {
  for (int layers : {1, 2}) {
    expectGhostCoverage(Level(0, makeLevelSpec({6, 5, 4}, {2, 2, 2}, {}, {true, true, true}), 0),
                        layers);
    expectGhostCoverage(
        Level(0, makeLevelSpec({10, 6, 4}, {3, 1, 2}, {0, 1, 0}, {true, false, true}), 0), layers);
    // One patch along a periodic axis: it is its own neighbour.
    expectGhostCoverage(Level(0, makeLevelSpec({4, 4, 4}, {1, 1, 1}, {}, {true, true, true}), 0),
                        layers);
  }
}

TEST(Level, GhostRegionsIncludeEdgesAndCorners) {
  const Level level(0, makeLevelSpec({4, 4, 4}, {2, 2, 2}), 0);
  const Patch& p = level.patches()[0];
  std::set<int> sources;
  for (const GhostRegion& r : level.ghostRegions(p, 1))
    sources.insert(r.source->id());
  EXPECT_EQ(sources, (std::set<int>{1, 2, 3, 4, 5, 6, 7}));  // faces, edges and the corner
}

TEST(Level, GhostLayersDeeperThanAPatchReachFurtherPatches) {
  const Level level(0, makeLevelSpec({6, 1, 1}, {6, 1, 1}), 0);
  std::set<int> sources;
  for (const GhostRegion& r : level.ghostRegions(level.patches()[2], 2))
    sources.insert(r.source->id());
  EXPECT_EQ(sources, (std::set<int>{0, 1, 3, 4}));
  expectGhostCoverage(level, 2);
}

// ---------------------------------------------------------------- lookups by layout

namespace {
std::vector<int> idsOf(const std::vector<const Patch*>& patches) {
  std::vector<int> ids;
  for (const Patch* p : patches)
    ids.push_back(p->id());
  return ids;
}
}  // namespace

TEST(Level, PatchesIntersectingMatchesAScanOfEveryPatch) {
  // Uneven cuts and extra cells on some axes.
  const Level level(0, makeLevelSpec({11, 7, 6}, {3, 2, 4}, {1, 2, 0}), 0);
  int nonEmpty = 0;
  for (int lx = -4; lx <= 12; lx += 3)
    for (int ly = -3; ly <= 8; ly += 2)
      for (int lz = -2; lz <= 6; lz += 2)
        for (const IntVector size : {IntVector{1, 1, 1}, IntVector{3, 2, 2}, IntVector{9, 1, 5}}) {
          const Box box({lx, ly, lz}, IntVector{lx, ly, lz} + size);
          std::vector<int> expected;
          for (const Patch& p : level.patches())
            if (p.extendedBox().intersects(box)) expected.push_back(p.id());
          EXPECT_EQ(idsOf(level.patchesIntersecting(box)), expected) << box;
          nonEmpty += !expected.empty();
        }
  EXPECT_GT(nonEmpty, 100);
}

TEST(Level, PatchesNearFindsEveryPatchWithinTheDistanceAcrossPeriodicAxes) {
  const Level level(0, makeLevelSpec({12, 9, 8}, {4, 3, 2}, {0, 1, 0}, {true, false, true}), 0);
  for (const int distance : {1, 2, 4}) {
    for (const Patch& patch : level.patches()) {
      // By brute force: every periodic image of every patch.
      std::set<int> expected;
      for (const Patch& other : level.patches())
        for (int ix = -1; ix <= 1; ++ix)
          for (int iz = -1; iz <= 1; ++iz) {
            const IntVector image{ix * 12, 0, iz * 8};
            if (other.extendedBox().shift(image).intersects(patch.extendedBox().grow(distance)))
              expected.insert(other.id());
          }
      const std::vector<int> found = idsOf(level.patchesNear(patch, distance));
      EXPECT_EQ(found, std::vector<int>(expected.begin(), expected.end()))
          << patch << " at distance " << distance;
    }
  }
}

namespace {
// Face ghosts: the cells within numGhost of the interior across exactly one
// face, spanning the interior along the other axes; each filled once, from
// the cell it wraps to, and none beyond a wall.
void expectFaceGhostCoverage(const Level& level, int numGhost) {
  for (const Patch& patch : level.patches()) {
    std::map<IntVector, int> hits;
    for (const GhostRegion& region : level.ghostRegions(patch, numGhost, Ghost::AroundFaces)) {
      region.sourceBox.forEachCell([&](const IntVector& src) {
        ++hits[src + region.offset];
        EXPECT_TRUE(region.source->extendedBox().contains(src));
      });
    }
    const Box interior = patch.interior();
    std::int64_t expected = 0;
    level.ghostedBox(patch, numGhost).forEachCell([&](const IntVector& c) {
      int outside = 0;
      int axisOut = -1;
      for (int axis = 0; axis < 3; ++axis) {
        if (c[axis] < interior.lo()[axis] || c[axis] >= interior.hi()[axis]) {
          ++outside;
          axisOut = axis;
        }
      }
      const bool faceCell =
          outside == 1 && !patch.hasBoundaryCondition(
                              makeFace(axisOut, c[axisOut] < interior.lo()[axisOut] ? 0 : 1));
      if (!faceCell) {
        EXPECT_EQ(hits.count(c), 0u) << c << " of " << patch << " is not a face ghost";
        return;
      }
      ++expected;
      EXPECT_EQ(hits[c], 1) << "face ghost " << c << " of " << patch;
    });
    EXPECT_EQ(static_cast<std::int64_t>(hits.size()), expected) << patch;
  }
}
}  // namespace

TEST(Level, FaceGhostsCoverExactlyTheFaceSlabs) {
  for (const int layers : {1, 2}) {
    expectFaceGhostCoverage(Level(0, makeLevelSpec({10, 7, 5}, {3, 2, 2}, {1, 1, 1}), 0), layers);
    expectFaceGhostCoverage(
        Level(0, makeLevelSpec({10, 6, 4}, {3, 1, 2}, {0, 1, 0}, {true, false, true}), 0), layers);
    // One patch along periodic axes: its own faces wrap onto itself.
    expectFaceGhostCoverage(
        Level(0, makeLevelSpec({4, 4, 4}, {1, 1, 1}, {}, {true, true, true}), 0), layers);
  }
}

TEST(Level, FaceGhostsOfACornerPatchComeOnlyFromFaceNeighbours) {
  const Level level(0, makeLevelSpec({4, 4, 4}, {2, 2, 2}), 0);
  std::set<int> sources;
  std::int64_t cells = 0;
  for (const GhostRegion& r : level.ghostRegions(level.patches()[0], 1, Ghost::AroundFaces)) {
    sources.insert(r.source->id());
    cells += r.sourceBox.volume();
  }
  EXPECT_EQ(sources, (std::set<int>{1, 2, 4}));  // x, y and z neighbours: no edge, no corner
  EXPECT_EQ(cells, 3 * 2 * 2);
}
