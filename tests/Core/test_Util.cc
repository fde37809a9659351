#include "Core/Parallel/Communicator.h"
#include "Core/Util/HugePageArena.h"
#include "Core/Util/HugePages.h"
#include "Core/Util/Logger.h"
#include "Core/Util/Timer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <thread>

using namespace tessera;

TEST(Logger, RankZeroPrintsUpToItsThreshold) {
  std::ostringstream out;
  Logger log(0, LogLevel::Info, out);
  log.info("step ", 3, " dt=", 0.5);
  log.debug("hidden");
  log.warning("careful");
  EXPECT_EQ(out.str(), "[INFO] step 3 dt=0.5\n[WARN] careful\n");
}

TEST(Logger, OtherRanksAreQuietExceptForErrors) {
  std::ostringstream out;
  Logger log(3, LogLevel::Debug, out);
  log.info("not shown");
  log.warning("not shown either");
  log.error("broken");
  EXPECT_EQ(out.str(), "[ERROR r3] broken\n");
  std::ostringstream all;
  Logger loud(2, LogLevel::Info, all, /*allRanks=*/true);
  loud.info("hello");
  EXPECT_EQ(all.str(), "[INFO r2] hello\n");
}

TEST(Logger, ParsesLevels) {
  EXPECT_EQ(parseLogLevel("debug"), LogLevel::Debug);
  EXPECT_EQ(parseLogLevel("error"), LogLevel::Error);
  EXPECT_THROW(parseLogLevel("loud"), InputError);
}

TEST(HugePages, AdviceCoversTheWholeHugePagesInsideARangeOnly) {
  constexpr std::uintptr_t page = kHugePageBytes;
  // Starts mid-page: the first whole page is the next one.
  EXPECT_EQ(wholeHugePagesIn(page + 64, 3 * page).first, 2 * page);
  EXPECT_EQ(wholeHugePagesIn(page + 64, 3 * page).last, 4 * page);
  // Aligned both ends: all of it.
  EXPECT_EQ(wholeHugePagesIn(2 * page, 2 * page).first, 2 * page);
  EXPECT_EQ(wholeHugePagesIn(2 * page, 2 * page).last, 4 * page);
  // Less than a whole page inside: nothing.
  const AddressRange small = wholeHugePagesIn(page + 64, page);
  EXPECT_GE(small.first, small.last);
  const AddressRange tiny = wholeHugePagesIn(3 * page + 8, 4096);
  EXPECT_GE(tiny.first, tiny.last);
}

TEST(HugePages, AdvisedMemoryKeepsItsData) {
  const std::size_t bytes = 3 * kHugePageBytes;
  const auto block = std::make_unique<char[]>(bytes);
  std::memset(block.get(), 7, bytes);
  adviseHugePages(block.get(), bytes);
  int wrong = 0;
  for (std::size_t i = 0; i < bytes; i += 4093)
    wrong += block[i] != 7;
  EXPECT_EQ(wrong, 0);
}

TEST(HugePageArena, BuffersAreDisjointLinesAndKeptWhileTheirSizesAre) {
  HugePageArena arena;
  const std::vector<std::size_t> sizes{512 * 1024, 0, 1, 100, 300 * 1024};
  arena.layout(sizes);
  ASSERT_EQ(arena.size(), sizes.size());
  EXPECT_EQ(arena.data(1), nullptr);
  // Large enough to be worth huge pages: the allocation starts on one.
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(arena.data(0)) % kHugePageBytes, 0u);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(arena.bytes(i), sizes[i]);
    if (sizes[i] == 0) continue;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(arena.data(i)) % 64, 0u) << i;
    std::memset(arena.data(i), static_cast<int>(i + 1), sizes[i]);
  }
  // Each buffer kept its own bytes: none overlaps another.
  for (std::size_t i = 0; i < sizes.size(); ++i)
    for (std::size_t b = 0; b < sizes[i]; b += 997)
      ASSERT_EQ(static_cast<int>(arena.data(i)[b]), static_cast<int>(i + 1)) << i << " " << b;
  // The same sizes again (the next execution of the same graph): the same
  // storage, data and all.
  std::byte* const first = arena.data(0);
  arena.layout(sizes);
  EXPECT_EQ(arena.data(0), first);
  EXPECT_EQ(static_cast<int>(arena.data(4)[1000]), 5);
  // Smaller sizes: laid out again in the storage it has.
  arena.layout({64, 64});
  ASSERT_EQ(arena.size(), 2u);
  EXPECT_EQ(arena.data(0), first);
  EXPECT_EQ(arena.data(1) - arena.data(0), 64);
  // More than it holds: new storage.
  arena.layout({8u << 20});
  ASSERT_NE(arena.data(0), nullptr);
  arena.data(0)[(8u << 20) - 1] = std::byte{3};
  arena.layout({});
  EXPECT_EQ(arena.size(), 0u);
}

TEST(Timer, MeasuresElapsedTime) {
  Timer timer;
  double accumulated = 0.0;
  {
    ScopedTimer scope(accumulated);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GT(accumulated, 0.0);
  EXPECT_GE(timer.seconds(), accumulated);
}

TEST(Communicator, DuplicateHasSameShapeAsWorld) {
  const Communicator world = Communicator::borrow(MPI_COMM_WORLD);
  Communicator dup = Communicator::duplicate(MPI_COMM_WORLD);
  EXPECT_EQ(dup.rank(), world.rank());
  EXPECT_EQ(dup.size(), world.size());
  const Communicator moved = std::move(dup);
  EXPECT_EQ(dup.get(), MPI_COMM_NULL);
  EXPECT_EQ(moved.allreduceSum(std::int64_t{1}), world.size());
  EXPECT_EQ(moved.allreduceMin(static_cast<double>(world.rank())), 0.0);
  EXPECT_EQ(moved.allreduceMax(static_cast<double>(world.rank())), world.size() - 1.0);
  const auto gathered = moved.allgather(2.0 * world.rank());
  ASSERT_EQ(static_cast<int>(gathered.size()), world.size());
  for (int r = 0; r < world.size(); ++r)
    EXPECT_EQ(gathered[static_cast<std::size_t>(r)], 2.0 * r);
}
