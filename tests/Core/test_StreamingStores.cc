// Streaming stores (Core/Parallel/StreamingStores.h) write exactly the
// values asked for, at any alignment and length, and nothing beside them;
// cell variables pad long rows so that they are whole cache lines, and
// are indexed, packed and digested as before.
#include <gtest/gtest.h>

#include "Core/Grid/Variables/CCVariable.h"
#include "Core/Parallel/LoopHelpers.h"
#include "Core/Parallel/StreamingStores.h"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace tessera {
namespace {

constexpr double kSentinel = -7.25;

double valueAt(int i) { return 0.5 + 1.25 * i; }

TEST(StreamingStores, StreamCopyWritesExactlyTheRangeAtEveryAlignment) {
  // Room for every offset within a cache line, and sentinels on both sides.
  constexpr int kMax = 1100;
  for (int offset = 0; offset < 9; ++offset) {
    for (const int n : {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 511, 512, 513, 1031}) {
      alignas(64) static double to[kMax + 32];
      std::vector<double> from(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) from[static_cast<std::size_t>(i)] = valueAt(i);
      for (double& v : to) v = kSentinel;
      streamCopy(to + 8 + offset, from.data(), n);
      streamFence();
      for (int i = 0; i < kMax + 32; ++i) {
        const int at = i - 8 - offset;
        const double expected = at >= 0 && at < n ? valueAt(at) : kSentinel;
        ASSERT_EQ(to[i], expected) << "offset " << offset << ", n " << n << ", element " << i;
      }
    }
  }
}

TEST(StreamingStores, StreamRowComputesEveryValueAcrossChunks) {
  // Longer than one chunk (512 values) and not a multiple of it.
  constexpr int kN = 1500;
  std::vector<double> to(kN + 16, kSentinel);
  streamRow(to.data() + 3, kN, [](int i) { return valueAt(i) * valueAt(i); });
  streamFence();
  for (int i = 0; i < kN + 16; ++i) {
    const int at = i - 3;
    const double expected = at >= 0 && at < kN ? valueAt(at) * valueAt(at) : kSentinel;
    ASSERT_EQ(to[static_cast<std::size_t>(i)], expected) << "element " << i;
  }
}

TEST(StreamingStores, RowsStreamedFromAKernelAreThereWhenItEnds) {
  // A row loop that fences its threads' streams (what
  // ExecutionContext::streamedRows runs) streams whole rows, as the PRK's
  // sweep does, on every thread of the default space.
  const Box box({-3, -1, 0}, {300, 41, 30});
  const CCVariable<double> target(box);
  target.fill(kSentinel);
  const CellArray<double> t = target.array();
  const int loX = box.lo().x;
  const int width = box.size().x;
  forEachRowOnHost<true>("stream rows", Kokkos::DefaultExecutionSpace(), box, [=](int j, int k) {
    streamRow(&t(loX, j, k), width, [=](int i) { return valueAt(loX + i) + 100.0 * j + k; });
  });
  Kokkos::fence();
  box.forEachCell([&](const IntVector& c) {
    ASSERT_EQ(target(c), valueAt(c.x) + 100.0 * c.y + c.z) << c;
  });
}

TEST(CCVariable, LongRowsArePaddedToWholeCacheLines) {
  // 256 cells and 2 ghosts each side: x from -2 to 258, stored from -8 to
  // 264 (12 more values per row, under 1/16 of 260).
  EXPECT_EQ(rowAlignedStorage<double>(Box({-2, 0, 0}, {258, 4, 4})),
            Box({-8, 0, 0}, {264, 4, 4}));
  // Short rows stay as they are: padding 66 to 80 would cost a fifth more.
  EXPECT_EQ(rowAlignedStorage<double>(Box({-1, 0, 0}, {65, 4, 4})), Box({-1, 0, 0}, {65, 4, 4}));
  // Already whole lines: nothing to add.
  EXPECT_EQ(rowAlignedStorage<double>(Box({0, 0, 0}, {256, 2, 2})), Box({0, 0, 0}, {256, 2, 2}));
  // 4-byte values: 16 per line.
  EXPECT_EQ(rowAlignedStorage<float>(Box({-17, 0, 0}, {500, 1, 1})), Box({-32, 0, 0}, {512, 1, 1}));

  const Box box({-2, -1, 3}, {258, 5, 7});
  const CCVariable<double> var(box);
  const CellArray<double> a = var.array();
  for (int k = box.lo().z; k < box.hi().z; ++k)
    for (int j = box.lo().y; j < box.hi().y; ++j) {
      // Every cell whose x is a multiple of 8 starts a cache line.
      for (int i = 0; i < box.hi().x; i += 8)
        ASSERT_EQ(reinterpret_cast<std::uintptr_t>(&a(i, j, k)) % 64, 0u) << i << " " << j << " " << k;
      EXPECT_EQ(&a(box.lo().x, j, k) + 1, &a(box.lo().x + 1, j, k));
    }
  EXPECT_EQ(a.strideY() % 8, 0);
  // Packed, the padding is not there: the cells in order, x fastest.
  box.forEachCell([&](const IntVector& c) { var(c) = c.x + 1000.0 * c.y + 1e6 * c.z; });
  const Box region({-1, 0, 4}, {257, 3, 6});
  std::vector<double> packed(static_cast<std::size_t>(region.volume()));
  var.pack(region, reinterpret_cast<std::byte*>(packed.data()));
  std::size_t n = 0;
  region.forEachCell([&](const IntVector& c) {
    ASSERT_EQ(packed[n++], c.x + 1000.0 * c.y + 1e6 * c.z) << c;
  });
  // fill reaches every cell of the box.
  var.fill(3.5);
  box.forEachCell([&](const IntVector& c) { ASSERT_EQ(var(c), 3.5) << c; });
}

}  // namespace
}  // namespace tessera
