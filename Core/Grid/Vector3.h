#pragma once
// A point or a displacement in physical space.

#include <Kokkos_Macros.hpp>

#include <ostream>

namespace tessera {

struct Vector3 {
  double x = 0.0;
  double y = 0.0;
  double z = 0.0;

  KOKKOS_INLINE_FUNCTION constexpr Vector3() = default;
  KOKKOS_INLINE_FUNCTION constexpr Vector3(double x_, double y_, double z_) : x(x_), y(y_), z(z_) {}

  KOKKOS_INLINE_FUNCTION constexpr double operator[](int axis) const {
    return axis == 0 ? x : (axis == 1 ? y : z);
  }
  KOKKOS_INLINE_FUNCTION constexpr double& operator[](int axis) {
    return axis == 0 ? x : (axis == 1 ? y : z);
  }
  KOKKOS_INLINE_FUNCTION constexpr Vector3 operator+(const Vector3& o) const {
    return {x + o.x, y + o.y, z + o.z};
  }
  KOKKOS_INLINE_FUNCTION constexpr Vector3 operator-(const Vector3& o) const {
    return {x - o.x, y - o.y, z - o.z};
  }
  KOKKOS_INLINE_FUNCTION constexpr Vector3 operator*(double s) const {
    return {x * s, y * s, z * s};
  }
  KOKKOS_INLINE_FUNCTION constexpr bool operator==(const Vector3& o) const {
    return x == o.x && y == o.y && z == o.z;
  }
  KOKKOS_INLINE_FUNCTION constexpr bool operator!=(const Vector3& o) const { return !(*this == o); }
};

inline std::ostream& operator<<(std::ostream& out, const Vector3& v) {
  return out << '[' << v.x << ", " << v.y << ", " << v.z << ']';
}

}  // namespace tessera
