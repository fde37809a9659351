#pragma once
// A triple of integers: a cell index, an extent or a patch layout.

#include <Kokkos_Macros.hpp>

#include <algorithm>
#include <cstdint>
#include <ostream>

namespace tessera {

struct IntVector {
  int x = 0;
  int y = 0;
  int z = 0;

  KOKKOS_INLINE_FUNCTION constexpr IntVector() = default;
  KOKKOS_INLINE_FUNCTION constexpr IntVector(int x_, int y_, int z_) : x(x_), y(y_), z(z_) {}
  KOKKOS_INLINE_FUNCTION static constexpr IntVector uniform(int v) { return {v, v, v}; }
  // The unit vector along `axis` (0, 1, 2) times `length`.
  KOKKOS_INLINE_FUNCTION static constexpr IntVector axisVector(int axis, int length = 1) {
    return {axis == 0 ? length : 0, axis == 1 ? length : 0, axis == 2 ? length : 0};
  }

  KOKKOS_INLINE_FUNCTION constexpr int operator[](int axis) const {
    return axis == 0 ? x : (axis == 1 ? y : z);
  }
  KOKKOS_INLINE_FUNCTION constexpr int& operator[](int axis) {
    return axis == 0 ? x : (axis == 1 ? y : z);
  }

  KOKKOS_INLINE_FUNCTION constexpr IntVector operator+(const IntVector& o) const {
    return {x + o.x, y + o.y, z + o.z};
  }
  KOKKOS_INLINE_FUNCTION constexpr IntVector operator-(const IntVector& o) const {
    return {x - o.x, y - o.y, z - o.z};
  }
  KOKKOS_INLINE_FUNCTION constexpr IntVector operator*(const IntVector& o) const {
    return {x * o.x, y * o.y, z * o.z};
  }
  KOKKOS_INLINE_FUNCTION constexpr IntVector operator*(int s) const {
    return {x * s, y * s, z * s};
  }
  KOKKOS_INLINE_FUNCTION constexpr IntVector operator-() const { return {-x, -y, -z}; }
  KOKKOS_INLINE_FUNCTION constexpr IntVector& operator+=(const IntVector& o) {
    x += o.x;
    y += o.y;
    z += o.z;
    return *this;
  }
  KOKKOS_INLINE_FUNCTION constexpr IntVector& operator-=(const IntVector& o) {
    x -= o.x;
    y -= o.y;
    z -= o.z;
    return *this;
  }

  KOKKOS_INLINE_FUNCTION constexpr bool operator==(const IntVector& o) const {
    return x == o.x && y == o.y && z == o.z;
  }
  KOKKOS_INLINE_FUNCTION constexpr bool operator!=(const IntVector& o) const {
    return !(*this == o);
  }
  // Lexicographic with z most significant, so sorted cells follow memory order.
  KOKKOS_INLINE_FUNCTION constexpr bool operator<(const IntVector& o) const {
    if (z != o.z) return z < o.z;
    if (y != o.y) return y < o.y;
    return x < o.x;
  }

  // Component-wise comparisons, for box tests.
  KOKKOS_INLINE_FUNCTION constexpr bool allLessThan(const IntVector& o) const {
    return x < o.x && y < o.y && z < o.z;
  }
  KOKKOS_INLINE_FUNCTION constexpr bool allLessEqual(const IntVector& o) const {
    return x <= o.x && y <= o.y && z <= o.z;
  }

  KOKKOS_INLINE_FUNCTION constexpr std::int64_t product() const {
    return static_cast<std::int64_t>(x) * y * z;
  }
  KOKKOS_INLINE_FUNCTION constexpr int minComponent() const {
    return x < y ? (x < z ? x : z) : (y < z ? y : z);
  }
  KOKKOS_INLINE_FUNCTION constexpr int maxComponent() const {
    return x > y ? (x > z ? x : z) : (y > z ? y : z);
  }
};

KOKKOS_INLINE_FUNCTION constexpr IntVector min(const IntVector& a, const IntVector& b) {
  return {a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z};
}
KOKKOS_INLINE_FUNCTION constexpr IntVector max(const IntVector& a, const IntVector& b) {
  return {a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z};
}

inline std::ostream& operator<<(std::ostream& out, const IntVector& v) {
  return out << '[' << v.x << ", " << v.y << ", " << v.z << ']';
}

}  // namespace tessera
