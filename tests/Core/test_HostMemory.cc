// Freed host memory is kept for the next allocation (Core/Util/HostMemory.h):
// an array freed and allocated again, as a regrid does, comes back without
// page faults. TestMain's Environment applied the settings, as sus's does.

#include "Core/Util/HostMemory.h"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

long minorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Allocates `bytes`, writes every page, frees it; returns the minor page
// faults that took.
long faultsOfAFreshArray(std::size_t bytes) {
  const long before = minorFaults();
  auto* data = static_cast<unsigned char*>(std::malloc(bytes));
  EXPECT_NE(data, nullptr);
  std::memset(data, 1, bytes);
  // Read back through a volatile pointer: the writes may not be elided.
  const volatile unsigned char* read = data;
  EXPECT_EQ(read[bytes - 1], 1);
  std::free(data);
  return minorFaults() - before;
}

}  // namespace

TEST(HostMemory, AFreedArrayComesBackWithoutPageFaults) {
#if defined(__GLIBC__)
  if (std::getenv("MALLOC_MMAP_THRESHOLD_") == nullptr &&
      std::getenv("MALLOC_TRIM_THRESHOLD_") == nullptr) {
    // Applied again: the same settings, so the same answer as TestMain's.
    ASSERT_TRUE(tessera::keepFreedHostMemory());
  }
#endif
  // 24 MiB: above glibc's default mmap threshold, below the one set here.
  constexpr std::size_t kBytes = std::size_t{24} << 20;
  const long pages = static_cast<long>(kBytes / 4096);
  const long first = faultsOfAFreshArray(kBytes);
  const long again = faultsOfAFreshArray(kBytes);
  const long third = faultsOfAFreshArray(kBytes);
  // The first touch faults its pages in (unless an earlier test left them);
  // the next arrays reuse them. With glibc's defaults every one is a new
  // mapping (or a heap grown anew), thousands of faults each.
  EXPECT_LE(first, pages + 64);
  EXPECT_LT(again, 64) << "of " << pages << " pages";
  EXPECT_LT(third, 64) << "of " << pages << " pages";
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 33)
  // And the array came from the heap, not from a mapping of its own.
  auto* data = static_cast<unsigned char*>(std::malloc(kBytes));
  const struct mallinfo2 during = mallinfo2();
  std::free(data);
  const struct mallinfo2 after = mallinfo2();
  EXPECT_LT(during.hblkhd, kBytes) << "bytes in mmapped blocks while the array was held";
  EXPECT_GE(after.arena, kBytes) << "the heap kept the freed array";
#endif
}
