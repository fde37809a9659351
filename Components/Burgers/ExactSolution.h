#pragma once
// The exact solution of the 3D Burgers model problem (the seed paper's test):
//   u(x, y, z, t) = phi(x, t) phi(y, t) phi(z, t)
//   phi(x, t) = (0.1 e^a + 0.5 e^b + e^c) / (e^a + e^b + e^c)
//   a = -0.05 (x - 0.5 + 4.95 t) / nu,  b = -0.25 (x - 0.5 + 0.75 t) / nu,
//   c = -0.5 (x - 0.375) / nu.
// u is the product of the three factors: PhiTables::product forms it from
// tabulated factors. Usable in kernels on any execution space.

#include <Kokkos_Core.hpp>

namespace tessera::burgers {

// Numerator and denominator are divided by the largest exponential, so no
// term overflows however small nu is.
KOKKOS_INLINE_FUNCTION double phi(double x, double t, double nu) {
  using Kokkos::Experimental::exp;
  using Kokkos::Experimental::fmax;
  const double a = -0.05 * (x - 0.5 + 4.95 * t) / nu;
  const double b = -0.25 * (x - 0.5 + 0.75 * t) / nu;
  const double c = -0.5 * (x - 0.375) / nu;
  const double largest = fmax(a, fmax(b, c));
  const double ea = exp(a - largest);
  const double eb = exp(b - largest);
  const double ec = exp(c - largest);
  return (0.1 * ea + 0.5 * eb + ec) / (ea + eb + ec);
}

}  // namespace tessera::burgers
