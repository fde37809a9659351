#include "Core/Grid/BlockLayout.h"
#include "Core/Grid/Level.h"
#include "Core/Grid/VarLabel.h"
#include "Core/Grid/Variables/CCVariable.h"
#include "Core/Grid/Variables/PerPatch.h"
#include "Core/Grid/Variables/ReductionVariable.h"
#include "Core/Parallel/LoopHelpers.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace tessera;

TEST(CCVariable, IndexedByGlobalCellsIncludingGhosts) {
  const Box interior({4, 0, 2}, {8, 3, 5});
  CCVariable<double> var(interior.grow(1));
  EXPECT_EQ(var.box(), Box({3, -1, 1}, {9, 4, 6}));
  var.box().forEachCell([&](const IntVector& c) { var(c) = c.x + 100.0 * c.y + 10000.0 * c.z; });
  EXPECT_DOUBLE_EQ(var(3, -1, 1), 3 - 100 + 10000);
  EXPECT_DOUBLE_EQ(var(8, 3, 5), 8 + 300 + 50000);
  // x is the fastest index in memory.
  EXPECT_EQ(&var(4, 0, 2) + 1, &var(5, 0, 2));
  EXPECT_EQ(&var(3, 0, 2) + var.box().size().x, &var(3, 1, 2));
  const ConstCCVariable<double> readOnly(var);
  EXPECT_DOUBLE_EQ(readOnly(5, 1, 3), var(5, 1, 3));
  EXPECT_EQ(readOnly.array().data(), var.array().data());  // shares the allocation
}

TEST(CCVariable, KernelWritesMatchHostLoop) {
  const Box box({-1, -1, -1}, {9, 7, 5});
  CCVariable<double> var(box);
  var.fill(-1.0);
  const CellArray<double> a = var.array();
  const Box inner = box.grow(-1);
  parallelFor(
      "test", inner, KOKKOS_LAMBDA(int i, int j, int k) { a(i, j, k) = i * j - k; });
  Kokkos::fence();
  box.forEachCell([&](const IntVector& c) {
    const double expected = inner.contains(c) ? c.x * c.y - c.z : -1.0;
    EXPECT_EQ(var(c), expected) << c;
  });
}

TEST(CCVariable, ReduceOverBoxMatchesHostLoop) {
  const Box box({0, 0, 0}, {5, 4, 3});
  double sum = 0.0;
  parallelReduce(
      "sum", box, KOKKOS_LAMBDA(int i, int j, int k, double& acc) { acc += i + 10 * j + 100 * k; },
      Kokkos::Sum<double>(sum));
  double expected = 0.0;
  box.forEachCell([&](const IntVector& c) { expected += c.x + 10 * c.y + 100 * c.z; });
  EXPECT_EQ(sum, expected);
}

TEST(CCVariable, PackUnpackAndCopyRoundTrip) {
  const Box box({0, 0, 0}, {4, 4, 4});
  CCVariable<double> src(box);
  box.forEachCell([&](const IntVector& c) { src(c) = 1.0 + box.linearIndex(c); });
  const Box region({1, 2, 0}, {3, 4, 2});
  std::vector<std::byte> bytes(static_cast<std::size_t>(region.volume()) * src.bytesPerCell());
  src.pack(region, bytes.data());
  CCVariable<double> dst(box);
  dst.fill(0.0);
  dst.unpack(region, bytes.data());
  box.forEachCell(
      [&](const IntVector& c) { EXPECT_EQ(dst(c), region.contains(c) ? src(c) : 0.0) << c; });
  CCVariable<double> shifted(box.shift({10, 0, 0}));
  shifted.fill(0.0);
  shifted.copyFrom(src, region, {10, 0, 0});
  region.forEachCell([&](const IntVector& c) {
    EXPECT_EQ(shifted(c + IntVector{10, 0, 0}), src(c));
  });
  EXPECT_THROW(dst.pack(box.grow(1), bytes.data()), Error);
  EXPECT_THROW(shifted.copyFrom(src, region, {0, 0, 0}), Error);
}

// Regions of every shape the copies special-case: one cell wide (an x face),
// short and long rows, whole rows (planes join), the whole allocation.
TEST(CCVariable, PackUnpackAndCopyOfEveryRegionShape) {
  const Box box({-1, -1, -1}, {33, 9, 5});
  CCVariable<double> src(box);
  box.forEachCell([&](const IntVector& c) { src(c) = 0.5 + box.linearIndex(c); });
  const std::vector<Box> regions = {
      Box({-1, 0, 0}, {0, 8, 4}),    // x face: one cell per row
      Box({3, 2, 1}, {7, 5, 3}),     // short rows
      Box({0, -1, 0}, {32, 0, 4}),   // y face: long rows
      Box({-1, 2, 0}, {33, 5, 2}),   // whole rows: rows join into planes
      Box({-1, -1, 1}, {33, 9, 3}),  // whole planes: one run
      box,                           // the whole allocation
  };
  for (const Box& region : regions) {
    SCOPED_TRACE(::testing::Message() << region);
    std::vector<std::byte> bytes(static_cast<std::size_t>(region.volume()) * sizeof(double));
    src.pack(region, bytes.data());
    // Packed x fastest, densely.
    std::size_t at = 0;
    region.forEachCell([&](const IntVector& c) {
      double value = 0.0;
      std::memcpy(&value, bytes.data() + at, sizeof(double));
      EXPECT_EQ(value, src(c)) << c;
      at += sizeof(double);
    });
    CCVariable<double> unpacked(box);
    unpacked.fill(-1.0);
    unpacked.unpack(region, bytes.data());
    CCVariable<double> copied(box.shift({0, 0, 7}));
    copied.fill(-1.0);
    copied.copyFrom(src, region, {0, 0, 7});
    int wrong = 0;
    box.forEachCell([&](const IntVector& c) {
      const double expected = region.contains(c) ? src(c) : -1.0;
      wrong += unpacked(c) != expected;
      wrong += copied(c + IntVector{0, 0, 7}) != expected;
    });
    EXPECT_EQ(wrong, 0);
  }
}

TEST(LoopHelpers, HostLoopsVisitEveryCellOnceWhateverTheSplit) {
  // Many planes (split by planes), few planes (split by rows), one cell.
  for (const Box& box :
       {Box({-2, -1, -3}, {7, 5, 40}), Box({-1, -1, 0}, {9, 6, 2}), Box({3, 3, 3}, {4, 4, 4})}) {
    SCOPED_TRACE(::testing::Message() << box);
    CCVariable<int> hits(box);
    hits.fill(0);
    const CellArray<int> h = hits.array();
    parallelFor(
        "count", box, KOKKOS_LAMBDA(int i, int j, int k) { Kokkos::atomic_add(&h(i, j, k), 1); });
    Kokkos::fence();
    int wrong = 0;
    box.forEachCell([&](const IntVector& c) { wrong += hits(c) != 1; });
    EXPECT_EQ(wrong, 0);
    std::int64_t sum = 0;
    parallelReduce(
        "sum", box,
        KOKKOS_LAMBDA(int i, int j, int k, std::int64_t& acc) { acc += i + 7 * j + 31 * k; },
        Kokkos::Sum<std::int64_t>(sum));
    std::int64_t expected = 0;
    box.forEachCell([&](const IntVector& c) { expected += c.x + 7 * c.y + 31 * c.z; });
    EXPECT_EQ(sum, expected);
  }
}

TEST(LoopHelpers, ParallelForBoxesCoversEachBoxInOneLaunch) {
  const Box all({-1, -1, -1}, {6, 5, 4});
  CCVariable<int> marks(all);
  marks.fill(0);
  const CellArray<int> m = marks.array();
  Kokkos::Array<Box, 6> boxes;
  boxes[0] = Box({-1, -1, -1}, {0, 5, 4});  // the x- face
  boxes[1] = Box({0, 4, 0}, {5, 5, 3});     // a y+ slab
  boxes[2] = Box({2, 1, 1}, {3, 2, 2});     // one cell
  parallelForBoxes(
      "faces", Kokkos::DefaultExecutionSpace(), boxes, 3,
      KOKKOS_LAMBDA(int i, int j, int k) { Kokkos::atomic_add(&m(i, j, k), 1); });
  Kokkos::fence();
  int wrong = 0;
  all.forEachCell([&](const IntVector& c) {
    const int expected = (boxes[0].contains(c) ? 1 : 0) + (boxes[1].contains(c) ? 1 : 0) +
                         (boxes[2].contains(c) ? 1 : 0);
    wrong += marks(c) != expected;
  });
  EXPECT_EQ(wrong, 0);
}

TEST(CCVariable, DigestIsOrderIndependentAndSensitive) {
  const Box box({0, 0, 0}, {6, 5, 4});
  CCVariable<double> whole(box);
  box.forEachCell([&](const IntVector& c) { whole(c) = 0.5 * c.x - c.y + 0.25 * c.z; });
  // The digest of a split equals the digest of the whole.
  const Box left({0, 0, 0}, {2, 5, 4});
  const Box right({2, 0, 0}, {6, 5, 4});
  CCVariable<double> rightCopy(right.grow(1));
  rightCopy.copyFrom(whole, right, {0, 0, 0});
  EXPECT_EQ(whole.digest(left) + rightCopy.digest(right), whole.digest(box));
  // One flipped bit changes it, and so does moving a value to another cell.
  const std::uint64_t before = whole.digest(box);
  whole(3, 2, 1) = std::nextafter(whole(3, 2, 1), 1e9);
  EXPECT_NE(whole.digest(box), before);
  CCVariable<double> swapped(box);
  box.forEachCell([&](const IntVector& c) { swapped(c) = 1.0; });
  const std::uint64_t ones = swapped.digest(box);
  swapped(0, 0, 0) = 2.0;
  const std::uint64_t a = swapped.digest(box);
  swapped(0, 0, 0) = 1.0;
  swapped(1, 0, 0) = 2.0;
  EXPECT_NE(a, swapped.digest(box));
  EXPECT_NE(a, ones);
}

TEST(ReductionVariable, MinMaxSumOps) {
  MinVariable<double> lo;
  MaxVariable<double> hi;
  SumVariable<double> sum;
  for (double v : {3.0, -1.5, 7.25, 0.0}) {
    lo.reduce(v);
    hi.reduce(v);
    sum.reduce(v);
  }
  EXPECT_EQ(lo.get(), -1.5);
  EXPECT_EQ(hi.get(), 7.25);
  EXPECT_EQ(sum.get(), 8.75);
  // The identity leaves any contribution unchanged.
  MinVariable<int> empty;
  empty.reduce(MinVariable<int>(42));
  EXPECT_EQ(empty.get(), 42);
  MaxVariable<double> negative;
  negative.reduce(-1e300);
  EXPECT_EQ(negative.get(), -1e300);
  EXPECT_EQ(SumVariable<int>().get(), 0);
}

TEST(PerPatch, HoldsAValue) {
  PerPatch<int> p(5);
  EXPECT_EQ(p.get(), 5);
  p.set(-2);
  EXPECT_EQ(p.get(), -2);
}

TEST(VarLabelRegistry, SameNameSameTypeIsOneLabel) {
  VarLabelRegistry registry;
  const VarLabel* u = registry.create<CCVariable<double>>("u");
  EXPECT_EQ(registry.create<CCVariable<double>>("u"), u);
  EXPECT_EQ(u->name(), "u");
  EXPECT_EQ(u->kind(), VarKind::CellCentered);
  EXPECT_EQ(u->typeName(), "CCVariable<double>");
  EXPECT_EQ(u->elementBytes(), sizeof(double));
  const VarLabel* dt = registry.create<MinVariable<double>>("delT");
  EXPECT_EQ(dt->kind(), VarKind::Reduction);
  EXPECT_EQ(dt->typeName(), "ReductionVariable<double, min>");
  EXPECT_EQ(registry.find("delT"), dt);
  EXPECT_EQ(registry.find("nope"), nullptr);
  EXPECT_EQ(registry.all().size(), 2u);
}

TEST(VarLabelRegistry, SameNameOtherTypeIsAnError) {
  VarLabelRegistry registry;
  registry.create<CCVariable<double>>("u");
  try {
    registry.create<CCVariable<float>>("u");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CCVariable<double>"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("CCVariable<float>"), std::string::npos) << e.what();
  }
  EXPECT_THROW(registry.create<MaxVariable<double>>("u"), Error);
  EXPECT_THROW(registry.create<SumVariable<double>>(""), Error);
}

// The archive stores a block variable as one array: its blocks must tile it.
TEST(VarLabelRegistry, AliasesShareTheTypeButStayHidden) {
  VarLabelRegistry registry;
  const VarLabel* phi = registry.create<CCVariable<double>>("phi", {RefineOp::Constant});
  const VarLabel* alias = registry.alias(phi, "phi@1/4");
  EXPECT_NE(alias, phi);
  EXPECT_EQ(alias->type(), phi->type());
  EXPECT_EQ(alias->levelTransfer(), phi->levelTransfer());
  EXPECT_EQ(registry.alias(phi, "phi@1/4"), alias);  // asked again: the same
  EXPECT_EQ(registry.find("phi@1/4"), nullptr);      // not a component's label
  EXPECT_EQ(registry.all().size(), 1u);              // so nothing saves it
  EXPECT_ANY_THROW(registry.alias(phi, "phi"));      // the name of a real label
}

// Subcycling's coarse ghost cells between two times of a level.
TEST(CCVariable, InterpolateInTimeOverARegion) {
  const Box box({0, 0, 0}, {4, 3, 2});
  CCVariable<double> early(box), late(box);
  early.box().forEachCell([&](const IntVector& c) { early(c) = c.x; });
  late.box().forEachCell([&](const IntVector& c) { late(c) = c.x + 8.0; });
  const Box region({1, 0, 0}, {3, 3, 2});
  early.interpolateInTime(late, region, 0.25);
  box.forEachCell([&](const IntVector& c) {
    EXPECT_DOUBLE_EQ(early(c), region.contains(c) ? c.x + 2.0 : c.x) << c;
  });
  CCVariable<int> flags(box), later(box);
  flags.fill(1);
  later.fill(2);
  flags.interpolateInTime(later, box, 0.25);  // integers: the nearer time's
  EXPECT_EQ(flags(0, 0, 0), 1);
  flags.interpolateInTime(later, box, 0.75);
  EXPECT_EQ(flags(0, 0, 0), 2);
  EXPECT_ANY_THROW(early.interpolateInTime(late, box.grow(1), 0.5));
}

TEST(BlockLayout, WhyNotOneArrayNamesGapsOverlapsAndIndexLimits) {
  BlockLayout tiled;
  tiled.add({0, 0, 2, 3}, {0});
  tiled.add({0, 3, 2, 1}, {1, 0});  // replicated: one block, two holders
  tiled.add({2, 0, 1, 4}, {1});
  tiled.add({3, 4, 0, 0}, {1});  // empty blocks take no room
  EXPECT_EQ(tiled.arrayRows(), 3);
  EXPECT_EQ(tiled.arrayCols(), 4);
  EXPECT_EQ(tiled.whyNotOneArray(), "");

  BlockLayout gap;
  gap.add({0, 0, 2, 3}, {0});
  gap.add({2, 0, 1, 4}, {1});
  EXPECT_EQ(gap.whyNotOneArray(), "its blocks cover 10 of the 12 entries of its 3 x 4 array");

  BlockLayout overlap;
  overlap.add({0, 0, 2, 3}, {0});
  overlap.add({1, 2, 2, 2}, {1});
  overlap.add({0, 3, 1, 1}, {1});
  EXPECT_EQ(overlap.whyNotOneArray(), "two blocks overlap at row 1, column 2");

  BlockLayout huge;
  huge.add({0, 0, 1, std::int64_t{1} << 31}, {0});
  EXPECT_NE(huge.whyNotOneArray().find("32-bit indices"), std::string::npos);
}
