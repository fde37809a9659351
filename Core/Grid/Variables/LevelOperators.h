#pragma once
// How a cell-centred variable moves between levels whose cells differ by
// `ratio` per axis (docs/amr.md, "Operators"):
//
// - refine (coarse -> fine: a fine patch's coarse-fine ghost cells, new fine
//   cells): every fine cell of coarse cell C takes
//     u_f = u_C + sum_a s_a * x_a,   x_a = ((f_a - r_a C_a) + 1/2) / r_a - 1/2,
//   the coarse cell's value plus its slope s_a (per coarse cell) times the
//   fine cell centre's offset from C's centre (in coarse cells). Linear:
//   central slopes (u_{C+1} - u_{C-1}) / 2, second order for smooth fields;
//   LimitedLinear: the same slope limited by monotonised central (MC:
//   min(|central|, 2|u_C - u_{C-1}|, 2|u_{C+1} - u_C|), zero at an extremum),
//   second order where smooth and no new extremum at a shock; Constant: u_C.
//   All three conserve: the fine cells of C average to u_C (the offsets of
//   its fine cells sum to zero). Linear reads the coarse cells one around
//   coarsen(fineBox), Constant coarsen(fineBox) alone (refineFootprint).
// - coarsen (fine -> coarse: coarse cells a finer level covers): the mean of
//   the coarse cell's r_x r_y r_z fine cells, summed in x-fastest order and
//   divided once, so the bits depend on nothing but the values.
//
// One kernel body for every execution space: the loops take the arrays
// (CellArray), never the variables.

#include "Core/Grid/Box.h"
#include "Core/Grid/LevelTransfer.h"
#include "Core/Grid/Variables/CellArray.h"
#include "Core/Parallel/LoopHelpers.h"

#include <Kokkos_Core.hpp>

#include <string>

namespace tessera {

// The coarse cells refining `fineBox` with `op` reads.
inline Box refineFootprint(const Box& fineBox, const IntVector& ratio, RefineOp op) {
  const Box parents = coarsen(fineBox, ratio);
  return op == RefineOp::Constant ? parents : parents.grow(1);
}

namespace detail {
KOKKOS_INLINE_FUNCTION double magnitude(double v) { return v < 0.0 ? -v : v; }
KOKKOS_INLINE_FUNCTION double smaller(double a, double b) { return a < b ? a : b; }
KOKKOS_INLINE_FUNCTION double mcSlope(double minus, double centre, double plus) {
  const double left = centre - minus;
  const double right = plus - centre;
  if (left * right <= 0.0) return 0.0;
  const double central = 0.5 * (plus - minus);
  const double bound = 2.0 * smaller(magnitude(left), magnitude(right));
  const double size = smaller(magnitude(central), bound);
  return central > 0.0 ? size : -size;
}
}  // namespace detail

// One fine cell refined from `coarse` (which holds refineFootprint): the
// body of every refining loop.
template <class T>
struct RefineCell {
  CellArray<const T> coarse;
  CellArray<T> fine;
  IntVector ratio;
  RefineOp op;

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    const int rx = ratio.x, ry = ratio.y, rz = ratio.z;
    const int ci = floorDiv(i, rx), cj = floorDiv(j, ry), ck = floorDiv(k, rz);
    const T centre = coarse(ci, cj, ck);
    if (op == RefineOp::Constant) {
      fine(i, j, k) = centre;
      return;
    }
    // Offsets of the fine cell's centre from the coarse cell's, in coarse cells.
    const double ox = ((i - rx * ci) + 0.5) / rx - 0.5;
    const double oy = ((j - ry * cj) + 0.5) / ry - 0.5;
    const double oz = ((k - rz * ck) + 0.5) / rz - 0.5;
    const double xm = coarse(ci - 1, cj, ck), xp = coarse(ci + 1, cj, ck);
    const double ym = coarse(ci, cj - 1, ck), yp = coarse(ci, cj + 1, ck);
    const double zm = coarse(ci, cj, ck - 1), zp = coarse(ci, cj, ck + 1);
    const bool limited = op == RefineOp::LimitedLinear;
    const double sx = limited ? detail::mcSlope(xm, centre, xp) : 0.5 * (xp - xm);
    const double sy = limited ? detail::mcSlope(ym, centre, yp) : 0.5 * (yp - ym);
    const double sz = limited ? detail::mcSlope(zm, centre, zp) : 0.5 * (zp - zm);
    fine(i, j, k) = static_cast<T>(centre + sx * ox + sy * oy + sz * oz);
  }
};

// One coarse cell: the mean of its fine cells in `fine`.
template <class T>
struct CoarsenCell {
  CellArray<const T> fine;
  CellArray<T> coarse;
  IntVector ratio;

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    const int rx = ratio.x, ry = ratio.y, rz = ratio.z;
    double sum = 0.0;
    for (int fk = k * rz; fk < (k + 1) * rz; ++fk)
      for (int fj = j * ry; fj < (j + 1) * ry; ++fj)
        for (int fi = i * rx; fi < (i + 1) * rx; ++fi)
          sum += fine(fi, fj, fk);
    coarse(i, j, k) = static_cast<T>(sum / (static_cast<double>(rx) * ry * rz));
  }
};

// fine(f) for every f of `fineBox` from `coarse`, which holds refineFootprint.
template <class ExecSpace, class T>
void refineCells(const ExecSpace& space, const CellArray<const T>& coarse,
                 const CellArray<T>& fine, const Box& fineBox, const IntVector& ratio,
                 RefineOp op) {
  parallelFor("tessera::refineCells", space, fineBox, RefineCell<T>{coarse, fine, ratio, op});
}

// coarse(c) for every c of `coarseBox`: the mean of its fine cells in `fine`.
template <class ExecSpace, class T>
void coarsenCells(const ExecSpace& space, const CellArray<const T>& fine,
                  const CellArray<T>& coarse, const Box& coarseBox, const IntVector& ratio,
                  CoarsenOp op) {
  (void)op;  // Average is the one operator so far.
  parallelFor("tessera::coarsenCells", space, coarseBox, CoarsenCell<T>{fine, coarse, ratio});
}

// The same loops on the calling thread, for the runtime's ghost fills (made
// by whichever thread holds an execution, where no kernel may be launched):
// the same body, so the same bits.
template <class Body>
void forEachCellInline(const Box& box, const Body& body) {
  for (int k = box.lo().z; k < box.hi().z; ++k)
    for (int j = box.lo().y; j < box.hi().y; ++j)
      for (int i = box.lo().x; i < box.hi().x; ++i)
        body(i, j, k);
}

}  // namespace tessera
