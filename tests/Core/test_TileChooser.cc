// TileChooser: the scratch footprint of a tile, and chooseTile against a
// brute-force search over every tile shape of small boxes, for budgets from
// less than one cell to more than the whole box.
#include <gtest/gtest.h>

#include "Core/Parallel/TileChooser.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <vector>

namespace tessera {
namespace {

// The footprint formula written out by hand.
std::size_t expectedBytes(const IntVector& t, int inputs, int outputs, int g, std::size_t value) {
  const std::size_t staged = static_cast<std::size_t>(t.x + 2 * g) *
                             static_cast<std::size_t>(t.y + 2 * g) *
                             static_cast<std::size_t>(t.z + 2 * g);
  const std::size_t cells =
      static_cast<std::size_t>(t.x) * static_cast<std::size_t>(t.y) * static_cast<std::size_t>(t.z);
  return (staged * static_cast<std::size_t>(inputs) + cells * static_cast<std::size_t>(outputs)) *
         value;
}

// Every tile shape inside `box` that fits, searched exhaustively with
// betterTile as the order.
std::optional<IntVector> bruteForce(const IntVector& box, const StencilFootprint& footprint,
                                    std::size_t budget) {
  std::optional<IntVector> best;
  for (int tx = 1; tx <= box.x; ++tx)
    for (int ty = 1; ty <= box.y; ++ty)
      for (int tz = 1; tz <= box.z; ++tz) {
        const IntVector tile{tx, ty, tz};
        if (footprint.bytes(tile) > budget) continue;
        if (!best || betterTile(tile, *best, footprint)) best = tile;
      }
  return best;
}

// a's halo overhead is strictly below b's (exact fractions).
bool lessOverhead(const IntVector& a, const IntVector& b, const StencilFootprint& footprint) {
  const auto [an, ad] = footprint.haloOverhead(a);
  const auto [bn, bd] = footprint.haloOverhead(b);
  return an * bd < bn * ad;
}

std::string describe(const IntVector& box, const StencilFootprint& f, std::size_t budget) {
  std::ostringstream out;
  out << "box " << box << ", " << f.numInputs << " in, " << f.numOutputs << " out, ghost "
      << f.ghost << ", " << f.bytesPerValue << " bytes/value, budget " << budget;
  return out.str();
}

TEST(TileChooser, FootprintIsStagedInputsPlusOutputsTimesValueSize) {
  for (int g = 0; g <= 3; ++g)
    for (int inputs = 1; inputs <= 3; ++inputs)
      for (int outputs = 0; outputs <= 2; ++outputs)
        for (const std::size_t value : {std::size_t{4}, std::size_t{8}})
          for (const IntVector tile : {IntVector{1, 1, 1}, IntVector{3, 5, 2}, IntVector{16, 1, 7},
                                       IntVector{24, 24, 24}}) {
            const StencilFootprint f{inputs, outputs, g, value};
            EXPECT_EQ(f.bytes(tile), expectedBytes(tile, inputs, outputs, g, value))
                << describe(tile, f, 0);
          }
  // One worked example: 4x4x4 with one layer, one input, one output, doubles.
  EXPECT_EQ((StencilFootprint{1, 1, 1, 8}.bytes({4, 4, 4})), (216U + 64U) * 8U);
}

TEST(TileChooser, HaloOverheadIsStagedOverComputedCells) {
  const StencilFootprint f{2, 1, 2, 8};
  const auto [num, den] = f.haloOverhead({3, 5, 2});
  EXPECT_EQ(num, 7 * 9 * 6);
  EXPECT_EQ(den, 3 * 5 * 2);
  const auto [n0, d0] = StencilFootprint{1, 1, 0, 8}.haloOverhead({3, 5, 2});
  EXPECT_EQ(n0, d0);
}

TEST(TileChooser, BetterTileOrdersByOverheadThenXThenYThenZ) {
  const StencilFootprint f{1, 1, 1, 8};
  EXPECT_TRUE(betterTile({4, 4, 4}, {2, 2, 2}, f));  // 216/64 < 64/8
  EXPECT_FALSE(betterTile({2, 2, 2}, {4, 4, 4}, f));
  // Equal overhead (permutations): larger x wins, then y, then z.
  EXPECT_TRUE(betterTile({4, 2, 1}, {2, 4, 1}, f));
  EXPECT_TRUE(betterTile({4, 2, 1}, {1, 2, 4}, f));
  EXPECT_TRUE(betterTile({2, 4, 1}, {2, 1, 4}, f));
  EXPECT_FALSE(betterTile({2, 1, 4}, {2, 4, 1}, f));
  // Irreflexive.
  EXPECT_FALSE(betterTile({3, 3, 3}, {3, 3, 3}, f));
  // Without a halo every shape has overhead 1: the order is x, then y, then z.
  const StencilFootprint flat{1, 1, 0, 8};
  EXPECT_TRUE(betterTile({2, 1, 1}, {1, 8, 8}, flat));
  EXPECT_TRUE(betterTile({2, 3, 1}, {2, 2, 9}, flat));
  EXPECT_TRUE(betterTile({2, 2, 3}, {2, 2, 2}, flat));
}

TEST(TileChooser, MatchesABruteForceSearchOverEveryShape) {
  const std::vector<IntVector> boxes = {{1, 1, 1},   {1, 1, 7},   {7, 1, 1},   {2, 3, 5},
                                        {5, 3, 2},   {4, 4, 4},   {8, 8, 8},   {16, 16, 16},
                                        {24, 3, 17}, {3, 24, 11}, {13, 9, 24}, {24, 24, 24},
                                        {1, 24, 1},  {24, 24, 1}, {6, 10, 15}};
  const std::vector<StencilFootprint> footprints = {{1, 1, 0, 8}, {1, 1, 1, 8}, {1, 1, 2, 8},
                                                    {2, 2, 2, 8}, {2, 1, 1, 4}, {3, 2, 0, 4},
                                                    {1, 3, 2, 8}, {4, 1, 1, 8}};
  const std::vector<std::size_t> budgets = {
      0,     1,      7,      8,        63,
      64,    100,    216,    511,      1000,
      2048,  4096,   6000,   10000,    32768,
      65536, 100000, 262144, 1u << 22, std::numeric_limits<std::size_t>::max() / 4};
  int cases = 0, found = 0;
  for (const IntVector& box : boxes)
    for (const StencilFootprint& f : footprints)
      for (const std::size_t budget : budgets) {
        SCOPED_TRACE(describe(box, f, budget));
        const std::optional<IntVector> chosen = chooseTile(box, f, budget);
        const std::optional<IntVector> expected = bruteForce(box, f, budget);
        ++cases;
        ASSERT_EQ(chosen.has_value(), expected.has_value());
        // nullopt exactly when one cell does not fit.
        EXPECT_EQ(chosen.has_value(), f.bytes({1, 1, 1}) <= budget);
        if (!chosen) continue;
        ++found;
        EXPECT_EQ(*chosen, *expected);
        EXPECT_LE(f.bytes(*chosen), budget);
        EXPECT_TRUE(IntVector{}.allLessThan(*chosen)) << *chosen;
        EXPECT_TRUE(chosen->allLessEqual(box)) << *chosen;
        // No fitting shape has a strictly smaller halo overhead.
        for (int tx = 1; tx <= box.x; ++tx)
          for (int ty = 1; ty <= box.y; ++ty)
            for (int tz = 1; tz <= box.z; ++tz) {
              const IntVector tile{tx, ty, tz};
              if (f.bytes(tile) <= budget) {
                ASSERT_FALSE(lessOverhead(tile, *chosen, f)) << tile << " beats " << *chosen;
              }
            }
      }
  EXPECT_EQ(cases, static_cast<int>(boxes.size() * footprints.size() * budgets.size()));
  EXPECT_GT(found, cases / 2);
}

TEST(TileChooser, HugeBudgetTakesTheWholeBox) {
  for (const IntVector box : {IntVector{1, 1, 1}, IntVector{5, 7, 3}, IntVector{24, 24, 24}})
    for (int g = 0; g <= 2; ++g) {
      const StencilFootprint f{1, 1, g, 8};
      EXPECT_EQ(chooseTile(box, f, std::numeric_limits<std::size_t>::max() / 4), box);
      EXPECT_EQ(chooseTile(box, f, f.bytes(box)), box);
    }
}

TEST(TileChooser, NothingWhenOneCellDoesNotFit) {
  for (int g = 0; g <= 2; ++g) {
    const StencilFootprint f{2, 1, g, 8};
    const std::size_t oneCell = f.bytes({1, 1, 1});
    EXPECT_EQ(chooseTile({8, 8, 8}, f, oneCell - 1), std::nullopt);
    EXPECT_EQ(chooseTile({8, 8, 8}, f, 0), std::nullopt);
    EXPECT_EQ(chooseTile({8, 8, 8}, f, oneCell), (IntVector{1, 1, 1}));
  }
}

// Burgers' timeAdvance on a 16^3 patch with the SW26010's 64 KiB: one input
// with one ghost layer, one output, doubles.
TEST(TileChooser, DefaultBurgersCase) {
  const IntVector box{16, 16, 16};
  const StencilFootprint f{1, 1, 1, sizeof(double)};
  const std::size_t budget = 65536;
  const std::optional<IntVector> expected = bruteForce(box, f, budget);
  ASSERT_TRUE(expected.has_value());
  EXPECT_EQ(chooseTile(box, f, budget), expected);
  // (18*18*15 + 16*16*13) * 8 = 65504 bytes; 16x16x14 would need 70144.
  EXPECT_EQ(*expected, (IntVector{16, 16, 13}));
  EXPECT_EQ(f.bytes(*expected), 65504U);
  EXPECT_GT(f.bytes({16, 16, 14}), budget);
}

// Host tiles: whole x rows, rows in y while the planes a z sweep reuses fit
// the cache, z cut only to give every thread a tile.
TEST(HostTileChooser, WholeRowsAndPlanesThatFitTheCache) {
  const StencilFootprint f{1, 1, 1, sizeof(double)};
  // 3 planes of 130 x 130 doubles fit 512 KiB: the whole box, one tile per thread.
  EXPECT_EQ(chooseHostTile({128, 128, 128}, f, 524288, 1), (IntVector{128, 128, 128}));
  EXPECT_EQ(chooseHostTile({128, 128, 128}, f, 524288, 2), (IntVector{128, 128, 64}));
  EXPECT_EQ(chooseHostTile({128, 128, 3}, f, 524288, 8), (IntVector{128, 128, 1}));
  // 3 planes of 514 x 514 do not: rows are halved until 3 x 514 x (rows + 2) fits.
  const IntVector wide = chooseHostTile({512, 512, 64}, f, 524288, 2);
  EXPECT_EQ(wide.x, 512);
  EXPECT_EQ(wide.y, 32);
  EXPECT_EQ(wide.z, 64) << "enough tiles in y to share out";
  EXPECT_LE(3u * 514u * (wide.y + 2u) * 8u, 524288u);
  EXPECT_GT(3u * 514u * (2 * wide.y + 2u) * 8u, 524288u);
  // At least one row, whatever the cache; an empty box gets a unit tile.
  EXPECT_EQ(chooseHostTile({64, 64, 64}, {2, 1, 2, 8}, 16, 1), (IntVector{64, 1, 64}));
  EXPECT_EQ(chooseHostTile({0, 4, 4}, f, 524288, 1), (IntVector{1, 1, 1}));
  EXPECT_GT(hostCacheBytes(), 0u);
  // Planes kept aside by an update in place count too: at r = 3 on 128^2
  // planes, 7 planes of 134 x 134 fit 1 MiB, but not with 4 of 128 x 128 aside.
  StencilFootprint inPlace{1, 1, 3, sizeof(double)};
  EXPECT_EQ(chooseHostTile({128, 128, 64}, inPlace, 1048576, 1).y, 128);
  inPlace.outputPlanesAside = 4;
  const int rows = chooseHostTile({128, 128, 64}, inPlace, 1048576, 1).y;
  EXPECT_EQ(rows, 64);
  EXPECT_LE((7u * 134u * (rows + 6u) + 4u * 128u * rows) * 8u, 1048576u);
}

}  // namespace
}  // namespace tessera
