// From tagged cells to a finer level's regions (TagClustering.h): tiles
// around the tags grown by the buffer, the same set whatever the order or
// the repetition of the tags (so whichever rank found them), clipped to the
// domain; regions refined by the ratio and cut by max_patch_size; tiles
// that would not nest in the level below left out, across periodic
// boundaries too.
#include "Core/Grid/Grid.h"
#include "Core/Grid/TagClustering.h"

#include <gtest/gtest.h>

#include "TestHelpers.h"

#include <algorithm>
#include <random>
#include <set>
#include <tuple>

using namespace tessera;
using tessera::testing::makeLevelSpec;

namespace {

const IntVector kTile{4, 4, 4};

TEST(TagClustering, TilesHoldTheTagsAndTheirBuffer) {
  const IntVector domain{16, 16, 8};
  // Cell (5, 5, 5), buffer 1: cells 4..6 on each axis, all in tile (1, 1, 1).
  EXPECT_EQ(tilesOfTags({{5, 5, 5}}, 1, kTile, domain), (std::vector<IntVector>{{1, 1, 1}}));
  // Cell (4, 7, 3), buffer 1: x 3..5 (tiles 0, 1), y 6..8 (tiles 1, 2), z 2..4 (tiles 0, 1).
  const std::vector<IntVector> eight = tilesOfTags({{4, 7, 3}}, 1, kTile, domain);
  EXPECT_EQ(eight.size(), 8u);
  EXPECT_EQ(eight.front(), (IntVector{0, 1, 0}));
  EXPECT_EQ(eight.back(), (IntVector{1, 2, 1}));
  // Sorted z, then y, then x.
  EXPECT_TRUE(
      std::is_sorted(eight.begin(), eight.end(), [](const IntVector& a, const IntVector& b) {
        return std::make_tuple(a.z, a.y, a.x) < std::make_tuple(b.z, b.y, b.x);
      }));
  // At the domain's corner the buffer is clipped: no tile below 0 or at 16.
  EXPECT_EQ(tilesOfTags({{0, 0, 0}}, 2, kTile, domain), (std::vector<IntVector>{{0, 0, 0}}));
  EXPECT_EQ(tilesOfTags({{15, 15, 7}}, 3, kTile, domain), (std::vector<IntVector>{{3, 3, 1}}));
  EXPECT_TRUE(tilesOfTags({}, 1, kTile, domain).empty());
}

TEST(TagClustering, TheTilesDependOnTheSetOfTagsAlone) {
  std::vector<IntVector> tags;
  std::mt19937 random(7);
  for (int n = 0; n < 200; ++n)
    tags.push_back({static_cast<int>(random() % 32), static_cast<int>(random() % 24),
                    static_cast<int>(random() % 16)});
  const IntVector domain{32, 24, 16};
  const std::vector<IntVector> once = tilesOfTags(tags, 1, kTile, domain);
  // As two ranks would find them: split, shuffled, some twice.
  std::vector<IntVector> shuffled = tags;
  shuffled.insert(shuffled.end(), tags.begin(), tags.begin() + 50);
  std::shuffle(shuffled.begin(), shuffled.end(), random);
  std::vector<IntVector> firstHalf(shuffled.begin(), shuffled.begin() + 120);
  std::vector<IntVector> secondHalf(shuffled.begin() + 120, shuffled.end());
  // Each half's tiles, back to a cell each, merged (as the runtime gathers them).
  std::vector<IntVector> cells;
  for (const IntVector& tile : tilesOfTags(firstHalf, 1, kTile, domain))
    cells.push_back(tile * kTile);
  for (const IntVector& tile : tilesOfTags(secondHalf, 1, kTile, domain))
    cells.push_back(tile * kTile);
  EXPECT_EQ(tilesOfTags(cells, 0, kTile, domain), once);
  EXPECT_FALSE(once.empty());
}

// Rows of flags, as the regrid scans a patch: the tiles of every tagged
// cell's box grown by the buffer, found cell by cell here, whatever the runs
// of tags along a row, the buffer, or a domain that the tiles do not divide.
TEST(TagClustering, RowsOfFlagsMarkTheTilesOfEachTaggedCell) {
  const IntVector domain{30, 10, 7};
  std::mt19937 random(11);
  for (int buffer = 0; buffer <= 3; ++buffer) {
    for (const unsigned density : {2u, 10u, 50u}) {  // tagged per 100 cells
      TileMarks marks(buffer, kTile, domain);
      std::set<std::tuple<int, int, int>> expected;
      std::int64_t tagged = 0, counted = 0;
      // A patch of rows [2, 27) along x over the domain's y and z: its
      // edges at the domain's and away from them.
      std::vector<int> row(25);
      for (int z = 0; z < domain.z; ++z) {
        for (int y = 0; y < domain.y; ++y) {
          for (int& flag : row)
            flag = random() % 100 < density ? 1 + static_cast<int>(random() % 3) : 0;
          counted += marks.markRow(2, y, z, row.data(), static_cast<int>(row.size()));
          for (std::size_t i = 0; i < row.size(); ++i) {
            if (row[i] == 0) continue;
            ++tagged;
            const IntVector cell{2 + static_cast<int>(i), y, z};
            Box{cell, cell + IntVector::uniform(1)}
                .grow(buffer)
                .intersection(Box{IntVector{}, domain})
                .forEachCell([&](const IntVector& c) {
                  expected.insert({c.z / kTile.z, c.y / kTile.y, c.x / kTile.x});
                });
          }
        }
      }
      std::vector<IntVector> want;
      for (const auto& [z, y, x] : expected)
        want.push_back({x, y, z});
      EXPECT_EQ(marks.tiles(), want) << "buffer " << buffer << ", density " << density;
      EXPECT_EQ(counted, tagged);
    }
  }
}

TEST(TagClustering, RegionsAreRefinedTilesCutByTheLargestPatch) {
  Grid grid;
  grid.addLevel(makeLevelSpec({16, 16, 8}, {2, 2, 1}, {1, 1, 1}));
  const TaggedRegions next =
      regionsFromTiles(grid.level(0), {{0, 0, 0}, {3, 3, 1}}, kTile, 2, 1, 4);
  ASSERT_EQ(next.regions.size(), 2u);
  EXPECT_EQ(next.notNested, 0);
  EXPECT_EQ(next.regions[0].cells, (Box{{0, 0, 0}, {8, 8, 8}}));
  EXPECT_EQ(next.regions[0].patches, (IntVector{2, 2, 2}));
  EXPECT_EQ(next.regions[1].cells, (Box{{24, 24, 8}, {32, 32, 16}}));
  // The regions make a level.
  Level& fine = grid.addRefinedLevel({2, 2, 2}, next.regions);
  EXPECT_EQ(fine.numPatches(), 16);
  EXPECT_EQ(fine.numCells(), 2 * 8 * 8 * 8);
}

TEST(TagClustering, NeighbouringTilesMakeOneRegionOfATilePerPatch) {
  Grid grid;
  grid.addLevel(makeLevelSpec({16, 16, 16}, {2, 2, 2}, {1, 1, 1}));
  // A 2 x 2 x 1 block of tiles, a tile beside it along y, a run of 2 above
  // it along z and a tile alone: four regions, each tile one patch of 8^3.
  const std::vector<IntVector> tiles = uniqueTiles(
      {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 2, 0}, {3, 3, 3}, {0, 0, 1}, {1, 0, 1}});
  const TaggedRegions next = regionsFromTiles(grid.level(0), tiles, kTile, 2, 0, 8);
  EXPECT_EQ(next.tiles, 8);
  std::vector<Box> cells;
  std::vector<IntVector> layouts;
  for (const LevelRegion& region : next.regions) {
    cells.push_back(region.cells);
    layouts.push_back(region.patches);
  }
  // Runs along x first, stacked along y, then along z: the block
  // [0, 2) x [0, 2) x [0, 1) of tiles, the run at y = 2, the run at z = 1
  // (it cannot join the block, which is wider along y), the lone tile;
  // refined by 2, in cells.
  EXPECT_EQ(cells,
            (std::vector<Box>{Box{{0, 0, 0}, {16, 16, 8}}, Box{{0, 16, 0}, {8, 24, 8}},
                              Box{{0, 0, 8}, {16, 8, 16}}, Box{{24, 24, 24}, {32, 32, 32}}}));
  EXPECT_EQ(layouts, (std::vector<IntVector>{{2, 2, 1}, {1, 1, 1}, {2, 1, 1}, {1, 1, 1}}));
  // The same cells as the tiles, in as many patches.
  Level& fine = grid.addRefinedLevel({2, 2, 2}, next.regions);
  EXPECT_EQ(fine.numPatches(), 8);
  EXPECT_EQ(fine.numCells(), 8 * 8 * 8 * 8);
}

TEST(TagClustering, TilesThatWouldNotNestAreLeftOut) {
  for (const bool periodic : {false, true}) {
    Grid grid;
    const IntVector extra = periodic ? IntVector{0, 0, 0} : IntVector{1, 1, 1};
    grid.addLevel(makeLevelSpec({16, 16, 16}, {2, 2, 2}, extra, {periodic, periodic, periodic}));
    // Level 1 over level 0's cells [0, 8)^3: level 1's cells [0, 16)^3 of 32^3.
    grid.addRefinedLevel({2, 2, 2}, {LevelRegion{Box{{0, 0, 0}, {16, 16, 16}}, {2, 2, 2}}});
    const Level& level1 = grid.level(1);
    // Tiles of level 1 (4 cells): (1, 1, 1) keeps a buffer of 1 inside; (3, 1, 1)
    // touches level 1's edge at x = 16, inside the domain: not nested. (0, 0, 0)
    // touches the domain's walls: nested with walls, not when periodic (its
    // buffer wraps to cells level 1 does not hold).
    const TaggedRegions next =
        regionsFromTiles(level1, {{0, 0, 0}, {1, 1, 1}, {3, 1, 1}}, kTile, 2, 1, 8);
    std::vector<Box> kept;
    for (const LevelRegion& region : next.regions)
      kept.push_back(region.cells);
    if (periodic) {
      EXPECT_EQ(kept, (std::vector<Box>{Box{{8, 8, 8}, {16, 16, 16}}}));
      EXPECT_EQ(next.notNested, 2);
    } else {
      EXPECT_EQ(kept, (std::vector<Box>{Box{{0, 0, 0}, {8, 8, 8}}, Box{{8, 8, 8}, {16, 16, 16}}}));
      EXPECT_EQ(next.notNested, 1);
    }
    // With no nesting buffer the edge tile nests.
    EXPECT_EQ(regionsFromTiles(level1, {{3, 1, 1}}, kTile, 2, 0, 8).regions.size(), 1u);
  }
}

}  // namespace
