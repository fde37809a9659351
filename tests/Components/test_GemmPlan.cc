// The GEMM planner (Components/Gemm/GemmPlan.h) against the worked values
// of issue 13 and COSMA's paper, and the blocked layout it implies: the
// blocks of A, B and C tile their matrices exactly once, and the words the
// layout makes each rank receive are the planner's count.
#include <gtest/gtest.h>

#include "TestHelpers.h"

#include "Components/Gemm/GemmLayout.h"
#include "Components/Gemm/GemmPlan.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace tessera::gemm {
namespace {

Plan cosma(std::int64_t m, std::int64_t n, std::int64_t k, int ranks,
           std::optional<std::int64_t> memory = std::nullopt) {
  Request request;
  request.shape = {m, n, k};
  request.ranks = ranks;
  request.memoryWords = memory;
  return plan(request);
}

TEST(GemmPlan, SquareOnEightRanksIsTwoByTwoByTwo) {
  const Plan p = cosma(2048, 2048, 2048, 8);
  EXPECT_EQ(p.grid, (ProcessorGrid{2, 2, 2}));
  EXPECT_EQ(p.maxWordsReceived(), 1572864);
  for (std::int64_t words : p.wordsReceived)
    EXPECT_EQ(words, 1572864);
  // A 4 x 2 2D grid receives more, and the 2d strategy picks such a grid.
  const auto twoD = evaluate({2048, 2048, 2048}, {4, 2, 1}, 8, std::nullopt);
  ASSERT_TRUE(twoD.has_value());
  EXPECT_EQ(twoD->maxWordsReceived(), 2097152);
  Request request;
  request.shape = {2048, 2048, 2048};
  request.ranks = 8;
  request.strategy = Strategy::TwoD;
  const Plan summa = plan(request);
  EXPECT_EQ(summa.grid.pk, 1);
  EXPECT_EQ(summa.maxWordsReceived(), 2097152);
}

TEST(GemmPlan, LargeKSplitsTheInnerDimension) {
  const Plan p = cosma(256, 256, 65536, 8);
  EXPECT_EQ(p.grid, (ProcessorGrid{1, 1, 8}));
  EXPECT_EQ(p.maxWordsReceived(), 57344);
}

TEST(GemmPlan, FlatProductDoesNotSplitTheInnerDimension) {
  const Plan p = cosma(4096, 4096, 64, 8);
  EXPECT_EQ(p.grid.pk, 1);
  EXPECT_EQ(p.maxWordsReceived(), 131072);
}

TEST(GemmPlan, SevenRanksLeaveOneIdleForTheSquare) {
  // COSMA's example: 2048^3 on 7 ranks is better done by 6.
  const Plan p = cosma(2048, 2048, 2048, 7);
  EXPECT_EQ(p.usedRanks(), 6);
  Request request;
  request.shape = {2048, 2048, 2048};
  request.ranks = 7;
  request.maxIdleRanks = 0;
  EXPECT_EQ(plan(request).usedRanks(), 7);
}

TEST(GemmPlan, MemoryLimitSplitsKIntoRounds) {
  // a = b = 1024, one rank of k = 2048 per rank: t = ceil(2ab / (S - a^2)).
  const std::int64_t a = 1024, kl = 2048;
  const std::int64_t memory = a * a + 300000;
  const auto limited = evaluate({2048, 2048, 4096}, {2, 2, 2}, 8, memory);
  ASSERT_TRUE(limited.has_value());
  // COSMA's count, or the next whole number of rounds whose pieces fit.
  const std::int64_t cosmaRounds = (2 * a * kl + (memory - a * a) - 1) / (memory - a * a);
  EXPECT_GE(limited->rounds, cosmaRounds);
  EXPECT_LE(limited->memoryWords, memory);
  const std::int64_t fewerRoundsPiece = (kl + limited->rounds - 2) / (limited->rounds - 1);
  EXPECT_GT(a * a + fewerRoundsPiece * 2 * a, memory);  // one round fewer would not fit
  // The rounds change nothing in what each rank receives when they divide k evenly.
  const auto unlimited = evaluate({2048, 2048, 4096}, {2, 2, 2}, 8, std::nullopt);
  EXPECT_EQ(unlimited->rounds, 1);
  EXPECT_FALSE(evaluate({2048, 2048, 4096}, {2, 2, 2}, 8, a * a).has_value());
}

TEST(GemmPlan, TooLittleMemoryNamesTheSmallestThatWorks) {
  const std::int64_t smallest = smallestMemory({100, 100, 100}, 4);
  EXPECT_EQ(smallest, 50 * 50 + 50 + 50);  // a 2 x 2 grid, one column of k per round
  const std::string message = testing::errorOf([&] { cosma(100, 100, 100, 4, smallest - 1); });
  EXPECT_TRUE(testing::contains(message, "the smallest that works is " + std::to_string(smallest)))
      << message;
  EXPECT_NO_THROW(cosma(100, 100, 100, 4, smallest));
}

TEST(GemmPlan, ExplicitGridsAreChecked) {
  Request request;
  request.shape = {10, 10, 10};
  request.ranks = 4;
  request.strategy = Strategy::Explicit;
  request.grid = {2, 2, 2};
  EXPECT_TRUE(
      testing::contains(testing::errorOf([&] { plan(request); }), "needs 8 ranks; the run has 4"));
  request.shape = {1, 10, 10};
  request.grid = {2, 1, 1};
  EXPECT_TRUE(testing::contains(testing::errorOf([&] { plan(request); }), "does not fit"));
}

// 2048^3 wraps a 32-bit int to 0 ranks, which "fit" any run: counted in 64 bits.
TEST(GemmPlan, ExplicitGridsTooLargeForAnIntAreRefused) {
  Request request;
  request.shape = {4096, 4096, 4096};
  request.ranks = 4;
  request.strategy = Strategy::Explicit;
  request.grid = {2048, 2048, 2048};
  EXPECT_TRUE(testing::contains(testing::errorOf([&] { plan(request); }),
                                "needs 8589934592 ranks; the run has 4"));
  EXPECT_EQ((ProcessorGrid{2048, 2048, 2048}.size()), std::int64_t{1} << 33);
}

// What a rank holds, from the layout's own blocks: its A, B and C (C in
// both warehouses), the other slices of each round (two rounds at once
// when rounds double-buffer), the partial product and the slices reduced
// onto it. The plan's arithmetic must give the same words on every rank.
TEST(GemmPlan, WordsHeldAreTheLayoutsBlocks) {
  for (const auto& [shape, grid, memory] :
       std::vector<std::tuple<Shape, ProcessorGrid, std::optional<std::int64_t>>>{
           {{1000, 999, 1001}, {2, 1, 3}, std::nullopt},
           {{64, 64, 64}, {1, 1, 1}, std::nullopt},
           {{300, 200, 500}, {2, 3, 1}, 20000},
           {{128, 96, 4096}, {2, 2, 2}, 30000}}) {
    const auto p = evaluate(shape, grid, static_cast<int>(grid.size()), memory);
    ASSERT_TRUE(p.has_value());
    const GemmLayout layout(*p);
    const BlockLayout a = layout.layoutA(), b = layout.layoutB(), c = layout.layoutC();
    const BlockLayout partial = layout.layoutPartial();
    double most = 0.0;
    for (int q = 0; q < p->usedRanks(); ++q) {
      double words = 0.0;
      for (const BlockRef& ref : layout.ownA(q)) words += static_cast<double>(a.size(ref));
      for (const BlockRef& ref : layout.ownB(q)) words += static_cast<double>(b.size(ref));
      words += 2.0 * static_cast<double>(c.size(layout.ownC(q)));
      double total = 0.0, largest = 0.0;
      for (int r = 0; r < p->rounds; ++r) {
        double round = -static_cast<double>(a.size(layout.ownA(q)[static_cast<std::size_t>(r)]) +
                                            b.size(layout.ownB(q)[static_cast<std::size_t>(r)]));
        for (const BlockRef& ref : layout.aRound(q, r)) round += static_cast<double>(a.size(ref));
        for (const BlockRef& ref : layout.bRound(q, r)) round += static_cast<double>(b.size(ref));
        total += round;
        largest = std::max(largest, round);
      }
      words += p->rounds > 1 ? 2.0 * largest : total;
      if (grid.pk > 1) {
        words += static_cast<double>(partial.size(q));
        words += static_cast<double>(grid.pk) * static_cast<double>(c.size(layout.ownC(q)));
      }
      EXPECT_DOUBLE_EQ(wordsHeld(*p, q, false), words) << describe(grid) << " rank " << q;
      most = std::max(most, words);
      // The check adds the C block twice and its panels, within the plan's memory.
      const BlockExtent own = c.extent(layout.ownC(q));
      const std::int64_t panel = verifyPanel(*p, own.rows, own.cols);
      EXPECT_GE(panel, 1);
      EXPECT_LE(panel, shape.k);
      EXPECT_LE(2 * panel * (own.rows + own.cols), std::max(p->memoryWords, 2 * (own.rows + own.cols)));
      EXPECT_DOUBLE_EQ(wordsHeld(*p, q, true) - wordsHeld(*p, q, false),
                       2.0 * static_cast<double>(own.size()) +
                           2.0 * static_cast<double>(panel) * static_cast<double>(own.rows + own.cols));
    }
    EXPECT_DOUBLE_EQ(maxWordsHeld(*p, false), most);
    EXPECT_EQ(wordsHeld(*p, -1, true), 0.0);
    EXPECT_EQ(wordsHeld(*p, p->usedRanks(), true), 0.0);
  }
}

TEST(GemmPlan, LowerBoundIsPiecewise) {
  const Shape s{1000, 1000, 1000};
  const double work = 1e9 / 4;
  EXPECT_DOUBLE_EQ(ioLowerBound(s, 4, std::nullopt), 3.0 * std::pow(work, 2.0 / 3.0));
  EXPECT_DOUBLE_EQ(ioLowerBound(s, 4, 10000), 2.0 * work / 100.0 + 10000.0);
}

// The layout's blocks cover each matrix exactly once, and a rank receives
// every block it reads but does not hold: the planner's count.
TEST(GemmLayout, BlocksTileTheMatricesAndTheWordsAreTheModels) {
  for (const auto& [shape, grid, memory] :
       std::vector<std::tuple<Shape, ProcessorGrid, std::optional<std::int64_t>>>{
           {{1000, 999, 1001}, {2, 1, 3}, std::nullopt},
           {{64, 48, 300}, {2, 2, 2}, 3000},
           {{7, 5, 3}, {1, 3, 2}, std::nullopt}}) {
    const auto p = evaluate(shape, grid, grid.size(), memory);
    ASSERT_TRUE(p.has_value());
    const GemmLayout layout(*p);
    const auto covers = [](const BlockLayout& blocks, std::int64_t rows, std::int64_t cols) {
      std::vector<int> seen(static_cast<std::size_t>(rows * cols), 0);
      for (int b = 0; b < blocks.numBlocks(); ++b) {
        const BlockExtent& e = blocks.extent(b);
        for (std::int64_t i = 0; i < e.rows; ++i)
          for (std::int64_t j = 0; j < e.cols; ++j)
            ++seen[static_cast<std::size_t>((e.row0 + i) * cols + e.col0 + j)];
      }
      return std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; });
    };
    EXPECT_TRUE(covers(layout.layoutA(), shape.m, shape.k));
    EXPECT_TRUE(covers(layout.layoutB(), shape.k, shape.n));
    EXPECT_TRUE(covers(layout.layoutC(), shape.m, shape.n));
    // So the archive can store each as one matrix (BlockLayout::whyNotOneArray).
    for (const BlockLayout& blocks : {layout.layoutA(), layout.layoutB(), layout.layoutC()})
      EXPECT_EQ(blocks.whyNotOneArray(), "");
    EXPECT_EQ(layout.layoutC().arrayRows(), shape.m);
    EXPECT_EQ(layout.layoutC().arrayCols(), shape.n);
    const BlockLayout a = layout.layoutA(), b = layout.layoutB(), partial = layout.layoutPartial();
    for (int q = 0; q < p->usedRanks(); ++q) {
      std::int64_t words = 0;
      for (int r = 0; r < p->rounds; ++r) {
        for (const BlockRef& ref : layout.aRound(q, r))
          if (!a.heldBy(ref.block, q)) words += a.size(ref);
        for (const BlockRef& ref : layout.bRound(q, r))
          if (!b.heldBy(ref.block, q)) words += b.size(ref);
      }
      for (const BlockRef& ref : layout.partialSlices(q))
        if (!partial.heldBy(ref.block, q)) words += partial.size(ref);
      EXPECT_EQ(words, p->wordsReceived[static_cast<std::size_t>(q)]) << "rank " << q;
    }
  }
}

}  // namespace
}  // namespace tessera::gemm
