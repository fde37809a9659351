#pragma once
// The fields the tests of data between levels (test_CoarseFineGhosts,
// test_GridTransfer) put on their grids: a smooth coarse field whose
// refinement the operators must reproduce bit for bit, and a fine field
// whose every value tells its cell.

#include "Core/Grid/Box.h"
#include "Core/Grid/IntVector.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tessera::testing {

inline double coarseValue(const IntVector& c) {
  return std::sin(0.4 * c.x) + 0.1 * c.y * c.y - 0.3 * c.z + 0.01 * c.x * c.z;
}

inline double fineValue(const IntVector& c) {
  return 1000.0 + c.x + 100.0 * c.y + 10000.0 * c.z;
}

// The coarse field as a refinement sees it, on a level periodic along x
// over `periodX` cells that holds `held` (its interior and extra cells):
// wrapped along x, the last held plane beyond the y and z walls.
inline double coarseValueSeen(IntVector c, const Box& held, int periodX) {
  c.x = ((c.x % periodX) + periodX) % periodX;
  for (int axis = 1; axis < 3; ++axis)
    c[axis] = std::clamp(c[axis], held.lo()[axis], held.hi()[axis] - 1);
  return coarseValue(c);
}

inline bool sameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

}  // namespace tessera::testing
