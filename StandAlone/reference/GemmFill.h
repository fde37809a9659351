#pragma once
// What the GEMM yardsticks (gemm-openblas, gemm-scalapack) share: the fill
// formulas (small integers of the global, 0-based indices, so that every
// product is exact and a check can compare bitwise) and the median.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tessera::reference {

inline double gemmA(std::int64_t i, std::int64_t j) {
  return double((i * 7 + j * 3) % 11 - 5);
}
inline double gemmB(std::int64_t i, std::int64_t j) {
  return double((i * 5 + j * 2) % 13 - 6);
}
inline double gemmC(std::int64_t i, std::int64_t j) {
  return double((i + j * 4) % 7 - 3);
}

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t h = values.size() / 2;
  return values.size() % 2 ? values[h] : 0.5 * (values[h - 1] + values[h]);
}

}  // namespace tessera::reference
