// MPI tag windows (Core/Parallel/TagWindows.h): successive executions of
// graphs of different sizes take windows that never overlap (the old
// scheme gave execution 1 of a 5-phase graph [5, 10) and execution 2 of a
// 3-phase graph [6, 9)), wrap only past MPI_TAG_UB, and a window larger
// than the tags is an error naming the graph and the bound.
#include <gtest/gtest.h>

#include "TestHelpers.h"

#include "Core/Parallel/TagWindows.h"

#include <vector>

namespace tessera {
namespace {

TEST(TagWindows, WindowsOfDifferentSizesFollowEachOther) {
  TagWindows tags(1000);
  std::vector<std::pair<int, int>> windows;
  for (int size : {5, 3, 7, 1, 5, 3}) {
    const int first = tags.take(size, "graph");
    for (const auto& [begin, end] : windows)
      EXPECT_TRUE(first >= end || first + size <= begin) << first << " overlaps " << begin;
    windows.emplace_back(first, first + size);
  }
  EXPECT_EQ(windows[0].first, 0);
  EXPECT_EQ(windows[1].first, 5);
  EXPECT_EQ(windows[2].first, 8);
}

TEST(TagWindows, WrapOnlyPastTheUpperBound) {
  TagWindows tags(9);  // tags 0 .. 9
  EXPECT_EQ(tags.take(4, "g"), 0);
  EXPECT_EQ(tags.take(4, "g"), 4);
  EXPECT_EQ(tags.take(2, "g"), 8);  // the last two tags, 8 and 9
  EXPECT_EQ(tags.take(3, "g"), 0);
  EXPECT_EQ(tags.take(10, "g"), 0);  // every tag, from the start
}

TEST(TagWindows, AWindowLargerThanTheTagsNamesTheGraphAndTheBound) {
  TagWindows tags(9);
  const std::string message = testing::errorOf([&] { tags.take(11, "graph 'timestep'"); });
  EXPECT_TRUE(testing::contains(message, "graph 'timestep' needs 11 MPI tags")) << message;
  EXPECT_TRUE(testing::contains(message, "MPI_TAG_UB is 9")) << message;
  EXPECT_FALSE(testing::errorOf([&] { tags.take(0, "g"); }).empty());
}

TEST(TagWindows, TheCommunicatorsBoundIsAtLeastTheStandardsMinimum) {
  EXPECT_GE(TagWindows::of(Communicator::borrow(MPI_COMM_WORLD)).upperBound(), 32767);
}

}  // namespace
}  // namespace tessera
