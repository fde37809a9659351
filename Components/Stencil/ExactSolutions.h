#pragma once
// The exact solutions the stencil kernels are checked against, usable in
// kernels on any execution space. Cell (i, j, k) has its centre at
// lower + (index + 1/2) dx.
//
// heat:   u = S_x(x) S_y(y) S_z(z) exp(-alpha (kx^2 + ky^2 + kz^2) t),
//         S_a = sin(kappa_a a), kappa_a = k pi on a Dirichlet axis (zero at
//         0 and 1 on the unit cube) and 2 k pi on a periodic one.
// jacobi: u = S_x(x) S_y(y) sinh(kz z) / sinh(kz upper_z) with
//         kz = sqrt(kx^2 + ky^2): harmonic (Laplace's equation) for any
//         wave numbers; z is never periodic.

#include "Core/Grid/Level.h"
#include "Core/Grid/Vector3.h"

#include <Kokkos_Core.hpp>

namespace tessera::stencil {

struct CellCentres {
  Vector3 lower;
  Vector3 dx;

  KOKKOS_INLINE_FUNCTION Vector3 at(int i, int j, int k) const {
    return {lower.x + (i + 0.5) * dx.x, lower.y + (j + 0.5) * dx.y, lower.z + (k + 0.5) * dx.z};
  }
};

// kappa_a of the exact solutions: k pi on a Dirichlet axis (half a wave per
// unit length, zero at 0 and 1), 2 k pi on a periodic one (a whole wave).
inline Vector3 waveNumbers(const Level& level, int k) {
  const double pi = 3.14159265358979323846;
  const auto kappa = [&](int axis) { return level.periodic(axis) ? 2 * k * pi : k * pi; };
  return {kappa(0), kappa(1), kappa(2)};
}

struct HeatSolution {
  CellCentres cells;
  Vector3 kappa;  // per axis
  double decay;   // alpha |kappa|^2

  KOKKOS_INLINE_FUNCTION double at(int i, int j, int k, double t) const {
    using Kokkos::Experimental::exp;
    using Kokkos::Experimental::sin;
    const Vector3 x = cells.at(i, j, k);
    return sin(kappa.x * x.x) * sin(kappa.y * x.y) * sin(kappa.z * x.z) * exp(-decay * t);
  }
};

// The heat solution at one time, as the error norms take it.
struct HeatSolutionAt {
  HeatSolution solution;
  double t;
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const {
    return solution.at(i, j, k, t);
  }
};

struct HarmonicSolution {
  CellCentres cells;
  Vector3 kappa;  // x and y as given; z = sqrt(kx^2 + ky^2)
  double upperZ;

  KOKKOS_INLINE_FUNCTION double at(int i, int j, int k) const {
    using Kokkos::Experimental::sin;
    using Kokkos::Experimental::sinh;
    const Vector3 x = cells.at(i, j, k);
    return sin(kappa.x * x.x) * sin(kappa.y * x.y) * sinh(kappa.z * x.z) / sinh(kappa.z * upperZ);
  }
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const { return at(i, j, k); }
};

}  // namespace tessera::stencil
