// What a rank may count on (Core/Parallel/MemoryBudget.h): MemAvailable
// from a meminfo text, a cgroup's headroom, and the share of a node's rank.
#include <gtest/gtest.h>

#include "Core/Parallel/MemoryBudget.h"

namespace tessera {
namespace {

TEST(MemoryBudget, MemAvailableIsReadInBytes) {
  EXPECT_EQ(memAvailableBytes("MemTotal:  100 kB\nMemAvailable:   2048 kB\n"), 2048 * 1024);
  EXPECT_FALSE(memAvailableBytes("MemTotal:  100 kB\n").has_value());
  EXPECT_FALSE(memAvailableBytes("MemAvailable: lots\n").has_value());
}

TEST(MemoryBudget, TheCgroupsHeadroomIsItsLimitLessWhatItUses) {
  EXPECT_FALSE(cgroupHeadroomBytes("max\n", "100\n").has_value());
  EXPECT_EQ(cgroupHeadroomBytes("1000\n", "300\n"), 700);
  EXPECT_EQ(cgroupHeadroomBytes("1000\n", "3000\n"), 0);
  EXPECT_EQ(cgroupHeadroomBytes("1000\n", ""), 1000);
}

// Shared by the node's ranks: every rank of this (one-node) run gets at
// most the node's available memory divided by the run's ranks.
TEST(MemoryBudget, TheNodesMemoryIsSharedByItsRanks) {
  const Communicator world = Communicator::borrow(MPI_COMM_WORLD);
  const auto budget = memoryBudgetPerRank(world);
  ASSERT_TRUE(budget.has_value());
  EXPECT_GT(budget->bytesPerRank, 0);
  EXPECT_NE(budget->source.find("shared by the node's " + std::to_string(world.size()) + " rank"),
            std::string::npos)
      << budget->source;
}

}  // namespace
}  // namespace tessera
