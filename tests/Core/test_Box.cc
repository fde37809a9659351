#include "Core/Grid/Box.h"

#include <gtest/gtest.h>

#include <set>

using tessera::Box;
using tessera::IntVector;

TEST(IntVector, ArithmeticAndComparisons) {
  const IntVector a{1, 2, 3};
  const IntVector b{4, -5, 6};
  EXPECT_EQ(a + b, (IntVector{5, -3, 9}));
  EXPECT_EQ(a - b, (IntVector{-3, 7, -3}));
  EXPECT_EQ(a * b, (IntVector{4, -10, 18}));
  EXPECT_EQ(a * 2, (IntVector{2, 4, 6}));
  EXPECT_EQ(-a, (IntVector{-1, -2, -3}));
  EXPECT_EQ(min(a, b), (IntVector{1, -5, 3}));
  EXPECT_EQ(max(a, b), (IntVector{4, 2, 6}));
  EXPECT_EQ(a[0], 1);
  EXPECT_EQ(a[2], 3);
  EXPECT_EQ((IntVector{2, 3, 4}).product(), 24);
  EXPECT_TRUE(a.allLessThan(IntVector{2, 3, 4}));
  EXPECT_FALSE(a.allLessThan(IntVector{2, 2, 4}));
  EXPECT_TRUE(a.allLessEqual(IntVector{1, 2, 3}));
  // Ordering follows memory order: z most significant.
  EXPECT_LT((IntVector{9, 9, 0}), (IntVector{0, 0, 1}));
  EXPECT_LT((IntVector{9, 0, 1}), (IntVector{0, 1, 1}));
  EXPECT_NE(a, b);
  EXPECT_EQ(IntVector::axisVector(1, 3), (IntVector{0, 3, 0}));
  EXPECT_EQ(a.minComponent(), 1);
  EXPECT_EQ(b.maxComponent(), 6);
}

TEST(Box, HalfOpenVolumeAndContains) {
  const Box box({0, 0, 0}, {4, 3, 2});
  EXPECT_EQ(box.volume(), 24);
  EXPECT_EQ(box.size(), (IntVector{4, 3, 2}));
  EXPECT_TRUE(box.contains(IntVector{0, 0, 0}));
  EXPECT_TRUE(box.contains(IntVector{3, 2, 1}));
  EXPECT_FALSE(box.contains(IntVector{4, 2, 1}));
  EXPECT_FALSE(box.contains(IntVector{-1, 0, 0}));
  EXPECT_TRUE(box.contains(Box({1, 1, 0}, {4, 3, 2})));
  EXPECT_FALSE(box.contains(Box({1, 1, 0}, {5, 3, 2})));
  EXPECT_TRUE(box.contains(Box({10, 10, 10}, {10, 11, 11})));  // empty
}

TEST(Box, EmptyBoxes) {
  EXPECT_TRUE(Box().empty());
  EXPECT_EQ(Box().volume(), 0);
  const Box inverted({3, 0, 0}, {1, 5, 5});
  EXPECT_TRUE(inverted.empty());
  EXPECT_EQ(inverted.volume(), 0);
  EXPECT_EQ(inverted.size(), (IntVector{0, 5, 5}));
  EXPECT_EQ(inverted, Box({0, 0, 0}, {0, 0, 0}));  // all empty boxes are equal
}

TEST(Box, IntersectionGrowShift) {
  const Box a({0, 0, 0}, {4, 4, 4});
  const Box b({2, -1, 3}, {6, 2, 8});
  EXPECT_EQ(a.intersection(b), Box({2, 0, 3}, {4, 2, 4}));
  EXPECT_TRUE(a.intersects(b));
  EXPECT_FALSE(a.intersects(Box({4, 0, 0}, {5, 4, 4})));  // touching faces do not overlap
  EXPECT_EQ(a.grow(1), Box({-1, -1, -1}, {5, 5, 5}));
  EXPECT_EQ(a.grow(IntVector{1, 0, 2}), Box({-1, 0, -2}, {5, 4, 6}));
  EXPECT_EQ(a.grow(-2).volume(), 0);
  EXPECT_EQ(a.growFace(1, 0, 2), Box({0, -2, 0}, {4, 4, 4}));
  EXPECT_EQ(a.growFace(2, 1, 1), Box({0, 0, 0}, {4, 4, 5}));
  EXPECT_EQ(a.shift({1, -1, 2}), Box({1, -1, 2}, {5, 3, 6}));
}

TEST(Box, ForEachCellVisitsEachCellOnceInMemoryOrder) {
  const Box box({-1, 2, 5}, {2, 4, 7});
  std::vector<IntVector> seen;
  box.forEachCell([&](const IntVector& c) { seen.push_back(c); });
  ASSERT_EQ(static_cast<std::int64_t>(seen.size()), box.volume());
  for (std::size_t n = 0; n < seen.size(); ++n) {
    EXPECT_TRUE(box.contains(seen[n]));
    EXPECT_EQ(box.linearIndex(seen[n]), static_cast<std::int64_t>(n));
    if (n > 0) {
      EXPECT_LT(seen[n - 1], seen[n]);
    }
  }
}

TEST(Box, DifferenceCoversExactlyTheCellsOutside) {
  const Box a({0, 0, 0}, {6, 5, 4});
  for (const Box& b : {Box({1, 1, 1}, {3, 4, 2}), Box({-2, 2, -1}, {3, 9, 9}),
                       Box({10, 10, 10}, {11, 11, 11}), Box({-1, -1, -1}, {7, 7, 7})}) {
    const auto pieces = tessera::difference(a, b);
    std::set<IntVector> covered;
    std::int64_t total = 0;
    for (const Box& piece : pieces) {
      total += piece.volume();
      piece.forEachCell([&](const IntVector& c) { covered.insert(c); });
    }
    EXPECT_EQ(total, static_cast<std::int64_t>(covered.size())) << "pieces overlap for " << b;
    a.forEachCell([&](const IntVector& c) {
      EXPECT_EQ(covered.count(c) == 1, !b.contains(c)) << c << " with " << b;
    });
  }
}

// The faces of a 4 x 4 x 4 block of 4^3 patches, each patch's share of the
// faces one box (as a patch group's coarse-fine ghost cells come), in a
// scrambled order and some twice: mergeAdjacent gives the six faces.
TEST(Box, MergeAdjacentJoinsNeighboursIntoTheFewestBoxes) {
  std::vector<Box> boxes;
  for (int axis = 0; axis < 3; ++axis) {
    for (int a = 0; a < 4; ++a) {
      for (int b = 0; b < 4; ++b) {
        for (const int side : {-1, 16}) {
          IntVector lo, size = IntVector::uniform(4);
          lo[axis] = side;
          size[axis] = 1;
          lo[(axis + 1) % 3] = 4 * a;
          lo[(axis + 2) % 3] = 4 * b;
          boxes.push_back(Box(lo, lo + size));
        }
      }
    }
  }
  boxes.push_back(boxes[5]);
  boxes.push_back(boxes[17]);
  std::swap(boxes[3], boxes[40]);
  std::swap(boxes[11], boxes[77]);
  const std::vector<Box> merged = tessera::mergeAdjacent(boxes);
  ASSERT_EQ(merged.size(), 6U);
  std::set<IntVector> before, after;
  std::int64_t volume = 0;
  for (const Box& box : boxes) box.forEachCell([&](const IntVector& c) { before.insert(c); });
  for (const Box& box : merged) {
    volume += box.volume();
    box.forEachCell([&](const IntVector& c) { after.insert(c); });
    EXPECT_EQ(box.volume(), 16 * 16) << box;
  }
  EXPECT_EQ(before, after);
  EXPECT_EQ(volume, static_cast<std::int64_t>(after.size()));  // no cell twice
  // Overlapping boxes stay apart; joined boxes keep the order of their lower corners.
  const std::vector<Box> overlapping =
      tessera::mergeAdjacent({Box({0, 0, 0}, {4, 4, 1}), Box({2, 0, 0}, {6, 4, 1})});
  EXPECT_EQ(overlapping.size(), 2U);
  const std::vector<Box> row = tessera::mergeAdjacent(
      {Box({4, 0, 0}, {8, 1, 1}), Box({0, 0, 0}, {4, 1, 1}), Box({0, 1, 0}, {8, 2, 1})});
  ASSERT_EQ(row.size(), 1U);
  EXPECT_EQ(row.front(), Box({0, 0, 0}, {8, 2, 1}));
}

TEST(Box, ClampedIntoTakesTheNearestCellsOfTheBounds) {
  const Box bounds{{0, 0, 0}, {8, 8, 8}};
  // Inside: unchanged; across a side: cut there.
  EXPECT_EQ(clampedInto(Box({2, 3, 4}, {5, 6, 7}), bounds), Box({2, 3, 4}, {5, 6, 7}));
  EXPECT_EQ(clampedInto(Box({-2, 3, 6}, {3, 6, 10}), bounds), Box({0, 3, 6}, {3, 6, 8}));
  // Wholly beyond a side: the bounds' last plane there.
  EXPECT_EQ(clampedInto(Box({-3, 2, 2}, {-1, 4, 4}), bounds), Box({0, 2, 2}, {1, 4, 4}));
  EXPECT_EQ(clampedInto(Box({2, 9, 2}, {4, 12, 4}), bounds), Box({2, 7, 2}, {4, 8, 4}));
}
