#pragma once
// The swirl: the deformational flow of the streamfunction
//   psi(x, y, t) = sin^2(pi x) sin^2(pi y) cos(pi t / 2) / pi
// with u = -dpsi/dy, v = dpsi/dx, w = 0 (LeVeque 1996; AMReX ships it as
// Advection_AmrCore). It stretches a blob into a thin spiral until t = 1,
// then reverses, so that at t = 2 the exact solution is the initial one.
//
// psi is a product A(x) B(y) c(t). A face velocity is the difference of psi
// at the face's two corners over the face's length, so the discrete
// divergence of every cell vanishes (the four corner values cancel) and a
// constant field stays constant; and all of them come from two lines of
// values per level and one number per step.

#include "Core/Grid/Vector3.h"

#include <Kokkos_Core.hpp>

namespace tessera::swirl {

// A and B at the cell faces (the corners' coordinates) of one level, from
// face -kPad to face n + kPad along each axis. Indices wrap around the
// periodic unit square, so a face seen from either side of the domain's
// boundary has the same bits.
struct FaceLines {
  static constexpr int kPad = 4;
  Kokkos::View<double*> a;  // sin^2(pi x) at the x faces
  Kokkos::View<double*> b;  // sin^2(pi y) at the y faces
  Kokkos::View<double*>::HostMirror hostA;
  Kokkos::View<double*>::HostMirror hostB;

  // For a level of nx by ny cells on the unit square.
  static FaceLines make(int nx, int ny);
};

// c(t) = cos(pi t / 2) / pi: the time factor of psi.
double timeFactor(double t);

// The initial blob, phi = 1 + exp(-((x - 0.5)^2 + (y - 0.75)^2) / 0.01).
KOKKOS_INLINE_FUNCTION double initialPhi(double x, double y) {
  const double dx = x - 0.5;
  const double dy = y - 0.75;
  return 1.0 + Kokkos::Experimental::exp(-(dx * dx + dy * dy) / 0.01);
}

// The monotonized central slope (van Leer 1977): the central difference,
// limited to twice either one-sided difference, zero at an extremum.
KOKKOS_INLINE_FUNCTION double monotonizedCentralSlope(double left, double centre, double right) {
  using Kokkos::Experimental::fabs;
  const double down = centre - left;
  const double up = right - centre;
  if (down * up <= 0.0) return 0.0;
  const double central = 0.5 * (right - left);
  const double twiceSmaller = 2.0 * (fabs(down) < fabs(up) ? fabs(down) : fabs(up));
  const double size = fabs(central) < twiceSmaller ? fabs(central) : twiceSmaller;
  return central > 0.0 ? size : -size;
}

// One step of the unsplit second-order Godunov scheme on the fluxes of
// phi (corner transport upwind, Colella 1990, with upwind transverse
// differences): each face takes the upwind cell's value extrapolated to
// the face at the half step along the normal (limited slope) and across
// it (the transverse velocity's upwind difference), times the face
// velocity at the half step.
struct SwirlFluxes {
  const double* a;  // FaceLines::a's values (raw: copied into every kernel)
  const double* b;
  double c;   // the time factor at the half step
  double dt;  // the step
  double invDx;
  double invDy;

  KOKKOS_INLINE_FUNCTION double A(int i) const { return a[i + FaceLines::kPad]; }
  KOKKOS_INLINE_FUNCTION double B(int j) const { return b[j + FaceLines::kPad]; }
  // u on the x face i (between cells i - 1 and i) of row j.
  KOKKOS_INLINE_FUNCTION double uFace(int i, int j) const {
    return -c * A(i) * (B(j + 1) - B(j)) * invDy;
  }
  // v on the y face j (between rows j - 1 and j) of column i.
  KOKKOS_INLINE_FUNCTION double vFace(int i, int j) const {
    return c * (A(i + 1) - A(i)) * invDx * B(j);
  }

  // The flux of phi through the x face i of cell row (j, k).
  template <class Phi>
  KOKKOS_INLINE_FUNCTION double x(const Phi& phi, int i, int j, int k) const {
    using Kokkos::Experimental::fabs;
    const double u = uFace(i, j);
    const bool fromLeft = u >= 0.0;
    const int up = fromLeft ? i - 1 : i;
    const double centre = phi(up, j, k);
    const double slope = monotonizedCentralSlope(phi(up - 1, j, k), centre, phi(up + 1, j, k));
    const double across = 0.5 * (vFace(up, j) + vFace(up, j + 1));
    const double dPhi = across > 0.0 ? centre - phi(up, j - 1, k) : phi(up, j + 1, k) - centre;
    const double face = centre + (fromLeft ? 0.5 : -0.5) * (1.0 - fabs(u) * dt * invDx) * slope -
                        0.5 * dt * invDy * across * dPhi;
    return u * face;
  }

  // The flux of phi through the y face j of cell column (i, k).
  template <class Phi>
  KOKKOS_INLINE_FUNCTION double y(const Phi& phi, int i, int j, int k) const {
    using Kokkos::Experimental::fabs;
    const double v = vFace(i, j);
    const bool fromBelow = v >= 0.0;
    const int up = fromBelow ? j - 1 : j;
    const double centre = phi(i, up, k);
    const double slope = monotonizedCentralSlope(phi(i, up - 1, k), centre, phi(i, up + 1, k));
    const double across = 0.5 * (uFace(i, up) + uFace(i + 1, up));
    const double dPhi = across > 0.0 ? centre - phi(i - 1, up, k) : phi(i + 1, up, k) - centre;
    const double face = centre + (fromBelow ? 0.5 : -0.5) * (1.0 - fabs(v) * dt * invDy) * slope -
                        0.5 * dt * invDx * across * dPhi;
    return v * face;
  }

  // phi after the step in cell (i, j, k): the flux form. w = 0, so no
  // flux crosses a z face.
  template <class Phi>
  KOKKOS_INLINE_FUNCTION double updated(const Phi& phi, int i, int j, int k) const {
    return step(phi(i, j, k), x(phi, i, j, k), x(phi, i + 1, j, k), y(phi, i, j, k),
                y(phi, i, j + 1, k));
  }
  // The same from the fluxes through the cell's faces.
  KOKKOS_INLINE_FUNCTION double step(double phi, double xLow, double xHigh, double yLow,
                                     double yHigh) const {
    return phi - dt * ((xHigh - xLow) * invDx + (yHigh - yLow) * invDy);
  }
};

}  // namespace tessera::swirl
