#pragma once
// The initial A, B and C: deterministic functions of the global (row,
// column), so that any rank can make any block, and a reference can be
// computed from the same formulas. `integers` gives small integers (every
// product and sum of a test is exact, so results compare bitwise across
// grids); `reals` gives values in [-1, 1] that are not integers.

#include "Core/Grid/Variables/FieldDigest.h"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tessera::gemm {

struct GemmEntries {
  bool integers = true;

  KOKKOS_INLINE_FUNCTION double a(std::int64_t r, std::int64_t c) const {
    return integers ? static_cast<double>((r * 7 + c * 3) % 11) - 5.0 : real(r, c, 1);
  }
  KOKKOS_INLINE_FUNCTION double b(std::int64_t r, std::int64_t c) const {
    return integers ? static_cast<double>((r * 5 + c * 2) % 13) - 6.0 : real(r, c, 2);
  }
  KOKKOS_INLINE_FUNCTION double c(std::int64_t r, std::int64_t col) const {
    return integers ? static_cast<double>((r * 3 + col * 5) % 7) - 3.0 : real(r, col, 3);
  }

 private:
  KOKKOS_INLINE_FUNCTION static double real(std::int64_t r, std::int64_t c, std::uint64_t which) {
    const std::uint64_t h =
        mix64(mix64(static_cast<std::uint64_t>(r) * 3 + which) ^ static_cast<std::uint64_t>(c));
    return static_cast<double>(h % 2000003) / 1000001.5 - 1.0;
  }
};

}  // namespace tessera::gemm
