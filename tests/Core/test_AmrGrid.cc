// Grids of several levels: a finer level's regions, patches cut on whole
// coarse cells, extra cells at the domain's walls only, lookups and ghost
// regions within the level (the rest of a patch's ghost cells being its
// coarse-fine boundary), patch groups within a region, boxes between
// levels, and the deck's `amr` section with its errors at the key to fix.
#include "Core/Grid/AmrSpec.h"
#include "Core/Grid/Grid.h"
#include "Core/Grid/PatchGroup.h"
#include "Core/ProblemSpec/DeckSchema.h"
#include "Core/ProblemSpec/ProblemSpec.h"
#include "Core/Util/Error.h"

#include <gtest/gtest.h>

#include "TestHelpers.h"

#include <map>
#include <set>
#include <string>

using namespace tessera;
using tessera::testing::makeLevelSpec;

namespace {

// Level 0 of 16 x 16 x 8 cells in 2 x 2 x 1 patches with one extra cell on
// every non-periodic side, and a level 1 (ratio 2) of two regions: one at the
// domain's x- wall, one inside.
Grid twoLevels(std::array<bool, 3> periodic = {false, false, false}) {
  Grid grid;
  IntVector extra;
  for (int axis = 0; axis < 3; ++axis)
    extra[axis] = periodic[axis] ? 0 : 1;
  grid.addLevel(makeLevelSpec({16, 16, 8}, {2, 2, 1}, extra, periodic));
  grid.addRefinedLevel({2, 2, 2}, {LevelRegion{Box{{0, 4, 4}, {12, 20, 12}}, {2, 3, 1}},
                                   LevelRegion{Box{{16, 16, 2}, {24, 28, 8}}, {1, 2, 1}}});
  return grid;
}

std::vector<int> idsOf(const std::vector<const Patch*>& patches) {
  std::vector<int> ids;
  for (const Patch* p : patches)
    ids.push_back(p->id());
  return ids;
}

DeckError deckErrorOf(const std::string& yaml) {
  const ProblemSpec deck = ProblemSpec::fromString(yaml, "amr.yaml");
  try {
    const std::optional<ProblemSpec> amr = deck.findSection("amr");
    Grid::fromDeck(deck.section("grid"), amr ? &*amr : nullptr);
  } catch (const DeckError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a DeckError for\n" << yaml;
  return DeckError("", 0, 0, "", "no error thrown");
}

const char* const kGrid = R"(grid:
  level:
    lower: [0, 0, 0]
    upper: [1, 1, 0.5]
    resolution: [16, 16, 8]
    patches: [2, 2, 1]
)";

}  // namespace

TEST(AmrGrid, RefinedLevelCutsItsRegionsOnWholeCoarseCells) {
  const Grid grid = twoLevels();
  ASSERT_EQ(grid.numLevels(), 2);
  const Level& fine = grid.level(1);
  EXPECT_EQ(fine.coarser(), &grid.level(0));
  EXPECT_EQ(fine.refinementRatio(), (IntVector{2, 2, 2}));
  EXPECT_EQ(grid.level(0).refinementRatio(), (IntVector{1, 1, 1}));
  EXPECT_EQ(fine.resolution(), (IntVector{32, 32, 16}));
  EXPECT_DOUBLE_EQ(fine.spacing().x, 1.0 / 32);
  ASSERT_EQ(fine.numPatches(), 6 + 2);
  EXPECT_EQ(fine.firstPatchId(), 4);
  EXPECT_EQ(fine.numCells(), 12 * 16 * 8 + 8 * 12 * 6);
  EXPECT_FALSE(fine.coversDomain());
  EXPECT_TRUE(grid.level(0).coversDomain());
  std::set<IntVector> seen;
  for (const Patch& p : fine.patches()) {
    EXPECT_EQ(&grid.patchById(p.id()), &p);
    const LevelRegion& region = fine.regions()[static_cast<std::size_t>(p.region())];
    EXPECT_TRUE(region.cells.contains(p.interior())) << p;
    for (int axis = 0; axis < 3; ++axis) {
      // 12 fine cells (6 coarse) over 2 patches: [0, 6) [6, 12); 16 (8 coarse)
      // over 3: cuts at 4 + 2 * floor(8k/3) = 4, 8, 14, 20.
      EXPECT_EQ(p.interior().lo()[axis] % 2, 0) << p;
      EXPECT_EQ(p.interior().hi()[axis] % 2, 0) << p;
    }
    p.interior().forEachCell([&](const IntVector& c) { EXPECT_TRUE(seen.insert(c).second); });
    // Extra cells only where the patch meets a wall of the domain.
    EXPECT_EQ(p.extraCells(Face::XMinus), p.interior().lo().x == 0 ? 1 : 0) << p;
    EXPECT_EQ(p.extraCells(Face::XPlus), 0) << p;
    EXPECT_EQ(p.extraCells(Face::ZPlus), p.interior().hi().z == 16 ? 1 : 0) << p;
  }
  EXPECT_EQ(static_cast<std::int64_t>(seen.size()), fine.numCells());
  EXPECT_EQ(fine.patches()[1].interior(), Box({6, 4, 4}, {12, 8, 12}));
  EXPECT_EQ(fine.patches()[2].interior(), Box({0, 8, 4}, {6, 14, 12}));
  EXPECT_EQ(fine.patches()[6].region(), 1);
  EXPECT_EQ(fine.patches()[6].layoutIndex(), (IntVector{0, 0, 0}));
  // Neighbours stay inside the region.
  EXPECT_EQ(fine.patches()[0].neighbour({1, 0, 0}), &fine.patches()[1]);
  EXPECT_EQ(fine.patches()[1].neighbour({1, 0, 0}), nullptr);
  EXPECT_EQ(fine.patches()[6].neighbour({0, 1, 0}), &fine.patches()[7]);
}

TEST(AmrGrid, RefinedLevelRefusesRegionsItCannotHold) {
  Grid grid;
  grid.addLevel(makeLevelSpec({8, 8, 8}, {1, 1, 1}));
  const auto refused = [&](const std::vector<LevelRegion>& regions) {
    return tessera::testing::errorOf([&] { Level(1, grid.level(0), {2, 2, 2}, regions, 1); });
  };
  const LevelRegion misaligned{Box{{1, 0, 0}, {4, 4, 4}}, {1, 1, 1}};
  const LevelRegion first{Box{{0, 0, 0}, {4, 4, 4}}, {1, 1, 1}};
  const LevelRegion overlapping{Box{{2, 2, 2}, {6, 6, 6}}, {1, 1, 1}};
  const LevelRegion outside{Box{{12, 0, 0}, {18, 4, 4}}, {1, 1, 1}};
  const LevelRegion crowded{Box{{0, 0, 0}, {4, 4, 4}}, {3, 1, 1}};
  EXPECT_NE(refused({misaligned}).find("whole cells of level 0"), std::string::npos);
  EXPECT_NE(refused({first, overlapping}).find("overlap"), std::string::npos);
  EXPECT_NE(refused({outside}).find("outside the domain"), std::string::npos);
  EXPECT_NE(refused({crowded}).find("cannot hold"), std::string::npos);
  EXPECT_NE(refused({}).find("no region"), std::string::npos);
}

TEST(AmrGrid, PatchesIntersectingMatchesAScanOnEveryLevel) {
  for (const auto periodic : {std::array<bool, 3>{false, false, false},
                              std::array<bool, 3>{true, false, true}}) {
    const Grid grid = twoLevels(periodic);
    int nonEmpty = 0;
    for (int l = 0; l < grid.numLevels(); ++l) {
      const Level& level = grid.level(l);
      for (int lx = -3; lx <= 33; lx += 4)
        for (int ly = -2; ly <= 33; ly += 5)
          for (int lz = -2; lz <= 17; lz += 3)
            for (const IntVector size : {IntVector{1, 1, 1}, IntVector{5, 3, 2}, IntVector{9, 1, 7}}) {
              const Box box({lx, ly, lz}, IntVector{lx, ly, lz} + size);
              std::vector<int> expected;
              for (const Patch& p : level.patches())
                if (p.extendedBox().intersects(box)) expected.push_back(p.id());
              EXPECT_EQ(idsOf(level.patchesIntersecting(box)), expected) << box << " level " << l;
              nonEmpty += !expected.empty();
            }
    }
    EXPECT_GT(nonEmpty, 200);
  }
}

// On a finer level every ghost cell is either held by another patch of the
// level (a ghost region, listed once) or on the coarse-fine boundary (a
// coarse-fine ghost, listed once), never both; across periodic axes too.
TEST(AmrGrid, GhostCellsOfAFineLevelComeFromItOrFromTheLevelBelow) {
  for (const auto periodic : {std::array<bool, 3>{false, false, false},
                              std::array<bool, 3>{true, true, false}}) {
    const Grid grid = twoLevels(periodic);
    const Level& fine = grid.level(1);
    for (const Ghost::Type type : {Ghost::AroundCells, Ghost::AroundFaces}) {
      for (const int numGhost : {1, 2, 3}) {
        std::int64_t coarseFine = 0;
        for (const Patch& patch : fine.patches()) {
          std::map<IntVector, int> hits;
          for (const GhostRegion& region : fine.ghostRegions(patch, numGhost, type)) {
            EXPECT_EQ(&region.source->level(), &fine);
            region.destinationBox().forEachCell([&](const IntVector& c) { ++hits[c]; });
          }
          for (const Box& box : fine.coarseFineGhosts(patch, numGhost, type)) {
            box.forEachCell([&](const IntVector& c) { ++hits[c]; });
            coarseFine += box.volume();
          }
          std::int64_t wanted = 0;
          const auto expectOnce = [&](const Box& ghosts) {
            ghosts.forEachCell([&](const IntVector& c) {
              if (patch.extendedBox().contains(c)) return;
              ++wanted;
              EXPECT_EQ(hits[c], 1) << "ghost cell " << c << " of " << patch;
            });
          };
          if (type == Ghost::AroundCells) {
            expectOnce(fine.ghostedBox(patch, numGhost));
          } else {
            for (const Face face : allFaces())
              if (!patch.hasBoundaryCondition(face))
                expectOnce(faceSlab(patch.interior(), face, numGhost));
          }
          EXPECT_EQ(static_cast<std::int64_t>(hits.size()), wanted) << patch;
        }
        EXPECT_GT(coarseFine, 0);
      }
    }
    // Level 0 covers its domain: no coarse-fine boundary.
    for (const Patch& patch : grid.level(0).patches())
      EXPECT_TRUE(grid.level(0).coarseFineGhosts(patch, 2).empty());
  }
}

// What a coarse-fine fill gathers: the coarse cells of any box, across
// periodic boundaries, each held cell once, from the patch that holds it.
TEST(AmrGrid, SourcesOfABoxHoldEachCellOnce) {
  const Grid grid = twoLevels({true, false, false});
  for (int l = 0; l < grid.numLevels(); ++l) {
    const Level& level = grid.level(l);
    // Within one period of the domain along x, as any ghost or staging box is.
    const int n = level.resolution().x;
    for (const Box wanted : {Box({-3, 2, 1}, {5, 9, 6}), Box({n - 4, -1, 0}, {n + 3, 30, 9}),
                             Box({10, 10, 10}, {12, 12, 12})}) {
      std::map<IntVector, int> hits;
      for (const GhostRegion& region : level.sourcesOf(wanted)) {
        EXPECT_TRUE(region.source->extendedBox().contains(region.sourceBox));
        EXPECT_TRUE(wanted.contains(region.destinationBox()));
        region.destinationBox().forEachCell([&](const IntVector& c) { ++hits[c]; });
      }
      wanted.forEachCell([&](const IntVector& c) {
        IntVector inside = c;
        inside.x = ((c.x % n) + n) % n;  // x is periodic
        bool held = false;
        for (const Patch& p : level.patches())
          held = held || p.extendedBox().contains(inside);
        EXPECT_EQ(hits.count(c) ? hits[c] : 0, held ? 1 : 0) << c << " level " << l;
      });
    }
  }
}

TEST(AmrGrid, PatchGroupsStayInsideARegion) {
  const Grid grid = twoLevels();
  const std::vector<PatchGroup> groups = formPatchGroups(grid.level(1).eachPatch());
  // Region 0's 2 x 3 patches make one group, region 1's 1 x 2 another.
  ASSERT_EQ(groups.size(), 2U);
  EXPECT_EQ(groups[0].numPatches(), 6);
  EXPECT_EQ(groups[0].interior(), grid.level(1).regions()[0].cells);
  EXPECT_EQ(groups[1].numPatches(), 2);
  EXPECT_EQ(groups[1].interior(), grid.level(1).regions()[1].cells);
}

TEST(AmrGrid, BoxesBetweenLevels) {
  EXPECT_EQ(refine(Box({1, -1, 0}, {3, 2, 1}), {2, 2, 4}), Box({2, -2, 0}, {6, 4, 4}));
  // The coarse cells that hold any of the fine cells, negative indices included.
  EXPECT_EQ(coarsen(Box({3, -3, -1}, {7, 2, 1}), {2, 2, 2}), Box({1, -2, -1}, {4, 1, 1}));
  EXPECT_EQ(coarsen(refine(Box({-2, 0, 5}, {1, 3, 6}), {4, 4, 4}), {4, 4, 4}),
            Box({-2, 0, 5}, {1, 3, 6}));
  const std::vector<Box> rest = difference({Box({0, 0, 0}, {4, 4, 1}), Box({4, 0, 0}, {6, 4, 1})},
                                           Box({2, 1, 0}, {5, 3, 1}));
  std::int64_t cells = 0;
  for (const Box& b : rest)
    cells += b.volume();
  EXPECT_EQ(cells, 24 - 6);
}

TEST(AmrGrid, DeckBuildsTheLevelsOfItsRegions) {
  const std::string yaml = std::string(kGrid) + R"(amr:
  max_levels: 3
  refinement_ratio: 2
  max_patch_size: 8
  regions:
    middle: {level: 1, low: [4, 4, 2], high: [12, 12, 6]}
    core: {level: 2, low: [12, 12, 6], high: [20, 20, 10], patches: [2, 1, 1]}
)";
  const ProblemSpec deck = ProblemSpec::fromString(yaml, "amr.yaml");
  coreDeckSchema(true).validate(
      deck.withOverride("component", "{name: burgers}").withOverride("time", "{max_time: 1}"));
  const ProblemSpec amr = deck.section("amr");
  const Grid grid = Grid::fromDeck(deck.section("grid"), &amr);
  ASSERT_EQ(grid.numLevels(), 3);
  const Level& one = grid.level(1);
  ASSERT_EQ(one.regions().size(), 1U);
  EXPECT_EQ(one.regions()[0].cells, Box({8, 8, 4}, {24, 24, 12}));
  // 16 fine cells per axis at most 8 per patch: 2 x 2 x 1 (8 cells along z).
  EXPECT_EQ(one.regions()[0].patches, (IntVector{2, 2, 1}));
  const Level& two = grid.level(2);
  EXPECT_EQ(two.regions()[0].cells, Box({24, 24, 12}, {40, 40, 20}));
  EXPECT_EQ(two.numPatches(), 2);
  EXPECT_EQ(two.resolution(), (IntVector{64, 64, 32}));
  // Without an amr section, or without regions, one level.
  EXPECT_EQ(Grid::fromDeck(deck.section("grid")).numLevels(), 1);
  const ProblemSpec bare = ProblemSpec::fromString(std::string(kGrid) + "amr: {max_levels: 2}\n");
  const ProblemSpec bareAmr = bare.section("amr");
  EXPECT_EQ(Grid::fromDeck(bare.section("grid"), &bareAmr).numLevels(), 1);
}

TEST(AmrGrid, DeckErrorsNameTheKeyToFix) {
  struct Case {
    std::string amr;
    std::string key;
    std::string words;
  };
  const std::vector<Case> cases = {
      {"  refinement_ratio: 3\n", "amr.refinement_ratio", "must be 2 or 4"},
      {"  max_levels: 2\n  regions:\n    r: {level: 2, low: [0, 0, 0], high: [4, 4, 4]}\n",
       "amr.regions.r.level", "max_levels 2 allows levels 1 to 1"},
      {"  max_levels: 2\n  regions:\n    r: {level: 1, low: [0, 0, 0], high: [17, 4, 4]}\n",
       "amr.regions.r.high", "within level 0's cells"},
      {"  max_levels: 2\n  regions:\n    r: {level: 1, low: [4, 4, 4], high: [4, 8, 8]}\n",
       "amr.regions.r.high", "must exceed low"},
      {"  max_levels: 2\n  regions:\n    a: {level: 1, low: [0, 0, 0], high: [8, 8, 8]}\n"
       "    b: {level: 1, low: [4, 4, 4], high: [12, 12, 8]}\n",
       "amr.regions.b.low", "overlaps region 'a'"},
      {"  max_levels: 3\n  regions:\n    a: {level: 1, low: [4, 4, 2], high: [12, 12, 6]}\n"
       "    b: {level: 2, low: [8, 8, 4], high: [16, 16, 8]}\n",
       "amr.regions.b.low", "not properly nested in level 1"},
      {"  max_levels: 3\n  regions:\n    b: {level: 2, low: [8, 8, 4], high: [16, 16, 8]}\n",
       "amr.regions.b.low", "it has no region"},
      {"  regions:\n    r: {level: 1, low: [0, 0, 0], high: [4, 4, 4], patches: [5, 1, 1]}\n",
       "amr.regions.r.patches", "at least one cell of level 0"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.amr);
    const std::string yaml = std::string(kGrid) + "amr:\n" +
                             (c.amr.find("max_levels") == std::string::npos ? "  max_levels: 2\n"
                                                                            : "") +
                             c.amr;
    const DeckError e = deckErrorOf(yaml);
    EXPECT_EQ(e.keyPath(), c.key) << e.what();
    EXPECT_EQ(e.file(), "amr.yaml");
    EXPECT_GT(e.line(), 6) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.words), std::string::npos) << e.what();
  }
  // Properly nested with the buffer at the domain's wall (no buffer needed there)
  // and exactly one buffer cell inside: accepted.
  const std::string nested = std::string(kGrid) + R"(amr:
  max_levels: 3
  nesting_buffer: 1
  regions:
    a: {level: 1, low: [0, 4, 0], high: [8, 12, 8]}
    b: {level: 2, low: [0, 10, 0], high: [14, 22, 16]}
)";
  const ProblemSpec deck = ProblemSpec::fromString(nested, "amr.yaml");
  const ProblemSpec amr = deck.section("amr");
  EXPECT_EQ(Grid::fromDeck(deck.section("grid"), &amr).numLevels(), 3);
  // The schema refuses unknown keys in a region, naming it.
  const ProblemSpec typo = ProblemSpec::fromString(
      std::string(kGrid) +
          "amr:\n  regions:\n    r: {levle: 1, low: [0, 0, 0], high: [4, 4, 4]}\n"
          "component: {name: burgers}\ntime: {max_time: 1}\n",
      "amr.yaml");
  try {
    coreDeckSchema(true).validate(typo);
    ADD_FAILURE() << "a misspelt key passed";
  } catch (const DeckError& e) {
    EXPECT_EQ(e.keyPath(), "amr.regions.r.levle") << e.what();
    EXPECT_NE(std::string(e.what()).find("did you mean 'level'"), std::string::npos) << e.what();
  }
}
