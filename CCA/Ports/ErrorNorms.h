#pragma once
// The error of a field against an exact solution: the sums of squares and
// of magnitudes (exact, so the L2 and L1 norms have the same bits on any
// layout) and the largest magnitude, over a box or over the cells of a patch that make the
// composite solution of a refined grid. Burgers and the heat and Jacobi
// stencils report them.

#include "CCA/Ports/ExecutionContext.h"
#include "Core/Grid/Level.h"
#include "Core/Grid/Variables/CellArray.h"
#include "Core/Util/ExactSum.h"

namespace tessera {

struct ErrorNorms {
  ExactSum squared;
  ExactSum absolute;
  double largest = 0.0;
};

// Over `box`; `exact(i, j, k)` is the solution at cell (i, j, k). Each
// square is multiplied by `weight` (exact for a power of two).
template <class Exact>
ErrorNorms errorNorms(ExecutionContext& exec, const Box& box, const CellArray<const double>& u,
                      const Exact& exact, double weight = 1.0) {
  ErrorNorms norms;
  exec.parallelReduce(
      box,
      KOKKOS_LAMBDA(int i, int j, int k, ExactSum& sum) {
        const double e = u(i, j, k) - exact(i, j, k);
        sum.add(e * e * weight);
      },
      Kokkos::Sum<ExactSum>(norms.squared));
  exec.parallelReduce(
      box,
      KOKKOS_LAMBDA(int i, int j, int k, ExactSum& sum) {
        sum.add(Kokkos::Experimental::fabs(u(i, j, k) - exact(i, j, k)) * weight);
      },
      Kokkos::Sum<ExactSum>(norms.absolute));
  exec.parallelReduce(
      box,
      KOKKOS_LAMBDA(int i, int j, int k, double& worst) {
        const double e = Kokkos::Experimental::fabs(u(i, j, k) - exact(i, j, k));
        if (e > worst) worst = e;
      },
      Kokkos::Max<double>(norms.largest));
  return norms;
}

// Over the cells of `patch` no finer level covers (Level::compositeCells),
// each square weighted by the patch's cell volume over a level-0 cell's:
// the sums over every level's patches, divided by level 0's cell count,
// are the mean square over the domain of the composite solution (on one
// level, the plain mean square, with the same bits).
template <class Exact>
ErrorNorms compositeErrorNorms(ExecutionContext& exec, const Patch& patch,
                               const CellArray<const double>& u, const Exact& exact) {
  const Level& level = patch.level();
  ErrorNorms norms;
  for (const Box& box : level.compositeCells(patch)) {
    const ErrorNorms part = errorNorms(exec, box, u, exact, level.cellVolumeFraction());
    norms.squared += part.squared;
    norms.absolute += part.absolute;
    if (part.largest > norms.largest) norms.largest = part.largest;
  }
  return norms;
}

// The integral of `u` over the cells of `patch` no finer level covers, in
// level-0 cells (each value weighted by the patch's cell volume over a
// level-0 cell's), added exactly: the sum over every level's patches is
// the composite solution's integral over the domain in those units, with
// the same bits on any layout.
inline ExactSum compositeTotal(ExecutionContext& exec, const Patch& patch,
                               const CellArray<const double>& u) {
  const double weight = patch.level().cellVolumeFraction();
  ExactSum total;
  for (const Box& box : patch.level().compositeCells(patch)) {
    ExactSum part;
    exec.parallelReduce(
        box, KOKKOS_LAMBDA(int i, int j, int k, ExactSum& sum) { sum.add(u(i, j, k) * weight); },
        Kokkos::Sum<ExactSum>(part));
    total += part;
  }
  return total;
}

}  // namespace tessera
