// PhiTables::window divides the largest |phi| of each line by dx once. The
// stable timestep (and so every Burgers digest) relies on that being the
// largest per-cell |phi| / dx bit for bit; random lines and spacings, some
// with values that differ in their last bits, check it.
#include <gtest/gtest.h>

#include "Components/Burgers/PhiTables.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace tessera {
namespace {

TEST(PhiTables, WindowRateIsTheLargestPerCellRateBitForBit) {
  std::mt19937_64 random(20261124);
  std::uniform_real_distribution<double> value(-3.0, 3.0);
  std::uniform_real_distribution<double> spacing(1e-4, 1.0);
  const Box whole({-1, -1, -1}, {17, 13, 9});
  PhiTables tables = PhiTables::allocate(whole);
  const auto cells = static_cast<int>(tables.hostValues.extent(0));
  for (int trial = 0; trial < 200; ++trial) {
    for (int c = 0; c < cells; ++c)
      tables.hostValues(c) = value(random);
    // Neighbours one ulp apart: where a division could round two values
    // to the same quotient or swap their order, if rounding were not monotone.
    for (int c = 1; c < cells; c += 3)
      tables.hostValues(c) = std::nextafter(tables.hostValues(c - 1), 10.0);
    const Vector3 dx{spacing(random), spacing(random), spacing(random)};
    const Box box({0, -1, 2}, {12, 10, 7});
    const Box interior({1, 0, 3}, {11, 9, 6});
    const PhiTables part = tables.window(box, interior, dx);
    for (int axis = 0; axis < 3; ++axis) {
      double perCell = 0.0;
      for (int i = interior.lo()[axis]; i < interior.hi()[axis]; ++i) {
        const int at = tables.start[axis] + i - whole.lo()[axis];
        perCell = std::max(perCell, std::fabs(tables.hostValues(at)) / dx[axis]);
      }
      ASSERT_EQ(part.largestRate[axis], perCell) << "axis " << axis << ", trial " << trial;
    }
  }
}

}  // namespace
}  // namespace tessera
