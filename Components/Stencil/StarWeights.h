#pragma once
// The weights of a star stencil of radius r (1 to 4) along one axis: w[0] at
// the centre, w[j] at distance +-j. A star adds one such line per axis and
// reads no edge or corner neighbours.

#include <Kokkos_Core.hpp>

namespace tessera::stencil {

inline constexpr int kMaxRadius = 4;

struct StarWeights {
  int radius = 1;
  Kokkos::Array<double, kMaxRadius + 1> w{};
};

// Central differences of order 2r for the second derivative (times h^2):
// r = 1 is [1, -2, 1], r = 2 the fourth-order [-1/12, 4/3, -5/2, 4/3, -1/12].
inline StarWeights secondDerivative(int radius) {
  StarWeights s;
  s.radius = radius;
  switch (radius) {
    case 1: s.w = {-2.0, 1.0, 0.0, 0.0, 0.0}; break;
    case 2: s.w = {-5.0 / 2.0, 4.0 / 3.0, -1.0 / 12.0, 0.0, 0.0}; break;
    case 3: s.w = {-49.0 / 18.0, 3.0 / 2.0, -3.0 / 20.0, 1.0 / 90.0, 0.0}; break;
    default: s.w = {-205.0 / 72.0, 8.0 / 5.0, -1.0 / 5.0, 8.0 / 315.0, -1.0 / 560.0}; break;
  }
  return s;
}

// The largest magnitude of the second-derivative symbol, c0 + 2 sum_j c_j
// cos(j theta): at theta = pi, where the alternating signs of the weights
// all add up (4 for r = 1, 16/3 for r = 2).
inline double largestSymbol(const StarWeights& s) {
  double sum = s.w[0] < 0 ? -s.w[0] : s.w[0];
  for (int j = 1; j <= s.radius; ++j)
    sum += 2.0 * (s.w[j] < 0 ? -s.w[j] : s.w[j]);
  return sum;
}

// The Parallel Research Kernels' star: +1/(2 j r) at +j, -1/(2 j r) at -j,
// 0 at the centre (w[j] is the weight at +j). On a linear input it gives
// the slope: sum_j (2 j) / (2 j r) = 1 per axis.
inline StarWeights prk(int radius) {
  StarWeights s;
  s.radius = radius;
  for (int j = 1; j <= radius; ++j)
    s.w[j] = 1.0 / (2.0 * j * radius);
  return s;
}

}  // namespace tessera::stencil
