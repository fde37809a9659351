#pragma once
// The error of a field against an exact solution over a box: the sum of
// squares (exact, so the L2 norm has the same bits on any layout) and the
// largest magnitude. The heat and Jacobi kernels report both.

#include "CCA/Ports/ExecutionContext.h"
#include "Core/Grid/Variables/CellArray.h"
#include "Core/Util/ExactSum.h"

namespace tessera::stencil {

struct ErrorNorms {
  ExactSum squared;
  double largest = 0.0;
};

// `exact(i, j, k)` is the solution at cell (i, j, k).
template <class Exact>
ErrorNorms errorNorms(ExecutionContext& exec, const Box& box, const CellArray<const double>& u,
                      const Exact& exact) {
  ErrorNorms norms;
  exec.parallelReduce(
      box,
      KOKKOS_LAMBDA(int i, int j, int k, ExactSum& sum) {
        const double e = u(i, j, k) - exact(i, j, k);
        sum.add(e * e);
      },
      Kokkos::Sum<ExactSum>(norms.squared));
  exec.parallelReduce(
      box,
      KOKKOS_LAMBDA(int i, int j, int k, double& worst) {
        const double e = Kokkos::Experimental::fabs(u(i, j, k) - exact(i, j, k));
        if (e > worst) worst = e;
      },
      Kokkos::Max<double>(norms.largest));
  return norms;
}

}  // namespace tessera::stencil
