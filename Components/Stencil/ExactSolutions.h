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

#include <cmath>

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

// One factor of a separable solution along one axis, tabulated at the cell
// centres of the level's extended box (computed once on the host).
struct AxisTable {
  Kokkos::View<const double*> values;
  int first = 0;  // the index of values(0)
  KOKKOS_INLINE_FUNCTION double operator()(int i) const { return values(i - first); }
};

// f(lower + (i + 1/2) dx) for the cells of `box` along `axis`.
template <class F>
AxisTable tabulate(const Box& box, int axis, double lower, double dx, const F& f) {
  Kokkos::View<double*> values("stencil::AxisTable", box.hi()[axis] - box.lo()[axis]);
  const auto host = Kokkos::create_mirror_view(values);
  for (int i = box.lo()[axis]; i < box.hi()[axis]; ++i)
    host(i - box.lo()[axis]) = f(lower + (i + 0.5) * dx);
  Kokkos::deep_copy(values, host);
  return {values, box.lo()[axis]};
}

// The heat solution is separable: three tables of sines, and the decay
// factor of the time at hand, so that boundary values cost no
// transcendental function per cell.
struct HeatSolution {
  AxisTable sx, sy, sz;
  double decay = 0.0;  // alpha |kappa|^2

  static HeatSolution forLevel(const Level& level, int wavenumber, double alpha) {
    const Vector3 kappa = waveNumbers(level, wavenumber);
    const Box box = level.extendedCellBox();
    const Vector3 lower = level.spec().lower;
    const Vector3 dx = level.spacing();
    HeatSolution s;
    s.sx = tabulate(box, 0, lower.x, dx.x, [&](double x) { return std::sin(kappa.x * x); });
    s.sy = tabulate(box, 1, lower.y, dx.y, [&](double y) { return std::sin(kappa.y * y); });
    s.sz = tabulate(box, 2, lower.z, dx.z, [&](double z) { return std::sin(kappa.z * z); });
    s.decay = alpha * (kappa.x * kappa.x + kappa.y * kappa.y + kappa.z * kappa.z);
    return s;
  }
};

// The heat solution at one time.
struct HeatSolutionAt {
  HeatSolution solution;
  double factor;  // exp(-decay t)

  HeatSolutionAt(const HeatSolution& s, double t) : solution(s), factor(std::exp(-s.decay * t)) {}
  KOKKOS_INLINE_FUNCTION double operator()(int i, int j, int k) const {
    return solution.sx(i) * solution.sy(j) * solution.sz(k) * factor;
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
