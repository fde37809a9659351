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
#include "Core/Util/Error.h"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

namespace tessera {

// The coarse cells refining `fineBox` with `op` reads.
inline Box refineFootprint(const Box& fineBox, const IntVector& ratio, RefineOp op) {
  const Box parents = coarsen(fineBox, ratio);
  return op == RefineOp::Constant ? parents : parents.grow(1);
}

namespace detail {
KOKKOS_INLINE_FUNCTION double magnitude(double v) {
  return v < 0.0 ? -v : v;
}
KOKKOS_INLINE_FUNCTION double smaller(double a, double b) {
  return a < b ? a : b;
}
// Every part computed and the result selected, no early return: a loop of
// them vectorises (a branch per slope mispredicts on data with fronts).
KOKKOS_INLINE_FUNCTION double mcSlope(double minus, double centre, double plus) {
  const double left = centre - minus;
  const double right = plus - centre;
  const double central = 0.5 * (plus - minus);
  const double bound = 2.0 * smaller(magnitude(left), magnitude(right));
  const double size = smaller(magnitude(central), bound);
  const double slope = central > 0.0 ? size : -size;
  return left * right <= 0.0 ? 0.0 : slope;
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

// One coarse cell under a face operator: the mean of the fine cells whose
// low (high) face along the axis lies on the coarse cell's, summed in
// x-fastest order and divided once.
template <class T>
struct CoarsenFace {
  CellArray<const T> fine;
  CellArray<T> coarse;
  IntVector ratio;
  int axis;
  bool high;

  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    IntVector lo{i * ratio.x, j * ratio.y, k * ratio.z};
    IntVector hi{lo.x + ratio.x, lo.y + ratio.y, lo.z + ratio.z};
    lo[axis] = high ? hi[axis] - 1 : lo[axis];
    hi[axis] = lo[axis] + 1;
    double sum = 0.0;
    for (int fk = lo.z; fk < hi.z; ++fk)
      for (int fj = lo.y; fj < hi.y; ++fj)
        for (int fi = lo.x; fi < hi.x; ++fi)
          sum += fine(fi, fj, fk);
    coarse(i, j, k) =
        static_cast<T>(sum / (static_cast<double>(ratio.x) * ratio.y * ratio.z / ratio[axis]));
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
    if (rx == 2 && ry == 2 && rz == 2) {
      // The common ratio unrolled, adding in the general loop's order.
      const int fi = 2 * i, fj = 2 * j, fk = 2 * k;
      sum += fine(fi, fj, fk);
      sum += fine(fi + 1, fj, fk);
      sum += fine(fi, fj + 1, fk);
      sum += fine(fi + 1, fj + 1, fk);
      sum += fine(fi, fj, fk + 1);
      sum += fine(fi + 1, fj, fk + 1);
      sum += fine(fi, fj + 1, fk + 1);
      sum += fine(fi + 1, fj + 1, fk + 1);
      coarse(i, j, k) = static_cast<T>(sum / 8.0);
      return;
    }
    for (int fk = k * rz; fk < (k + 1) * rz; ++fk)
      for (int fj = j * ry; fj < (j + 1) * ry; ++fj)
        for (int fi = i * rx; fi < (i + 1) * rx; ++fi)
          sum += fine(fi, fj, fk);
    coarse(i, j, k) = static_cast<T>(sum / (static_cast<double>(rx) * ry * rz));
  }
};

// fine(f) for every f of `fineBox` from `coarse`, which holds refineFootprint.
template <class ExecSpace, class T>
void refineCells(const ExecSpace& space, const CellArray<const T>& coarse, const CellArray<T>& fine,
                 const Box& fineBox, const IntVector& ratio, RefineOp op) {
  parallelFor("tessera::refineCells", space, fineBox, RefineCell<T>{coarse, fine, ratio, op});
}

// coarse(c) for every c of `coarseBox`: the mean of its fine cells in `fine`.
template <class ExecSpace, class T>
void coarsenCells(const ExecSpace& space, const CellArray<const T>& fine,
                  const CellArray<T>& coarse, const Box& coarseBox, const IntVector& ratio,
                  CoarsenOp op) {
  if (isFaceOp(op)) {
    parallelFor("tessera::coarsenFaces", space, coarseBox,
                CoarsenFace<T>{fine, coarse, ratio, faceAxis(op), highFace(op)});
    return;
  }
  parallelFor("tessera::coarsenCells", space, coarseBox, CoarsenCell<T>{fine, coarse, ratio});
}

// The same loops on the calling thread, for the runtime's ghost fills (made
// by whichever thread holds an execution, where no kernel may be launched):
// the same arithmetic, so the same bits.
template <class Body>
void forEachCellInline(const Box& box, const Body& body) {
  for (int k = box.lo().z; k < box.hi().z; ++k)
    for (int j = box.lo().y; j < box.hi().y; ++j)
      for (int i = box.lo().x; i < box.hi().x; ++i)
        body(i, j, k);
}

// A face operator at ratio 2 on the calling thread, x rows at a time: each
// coarse face the sum of its 4 fine faces in CoarsenFace's order (x
// fastest), from zero, divided once: the same bits as CoarsenFace, which
// finds its fine plane per cell (9 % of a refluxed swirl run's time).
template <class T>
void coarsenFacesRatio2(const CellArray<const T>& fine, const CellArray<T>& coarse,
                        const Box& coarseBox, int axis, bool high) {
  const int h = high ? 1 : 0;
  const int i0 = coarseBox.lo().x, n = coarseBox.hi().x - i0;
  for (int k = coarseBox.lo().z; k < coarseBox.hi().z; ++k) {
    for (int j = coarseBox.lo().y; j < coarseBox.hi().y; ++j) {
      T* out = &coarse(i0, j, k);
      if (axis == 0) {
        // One fine cell per row: four rows (fj, fk) in CoarsenFace's order.
        const T* r00 = &fine(2 * i0 + h, 2 * j, 2 * k);
        const T* r10 = &fine(2 * i0 + h, 2 * j + 1, 2 * k);
        const T* r01 = &fine(2 * i0 + h, 2 * j, 2 * k + 1);
        const T* r11 = &fine(2 * i0 + h, 2 * j + 1, 2 * k + 1);
        for (int i = 0; i < n; ++i) {
          double sum = 0.0;
          sum += r00[2 * i];
          sum += r10[2 * i];
          sum += r01[2 * i];
          sum += r11[2 * i];
          out[i] = static_cast<T>(sum / 4.0);
        }
      } else {
        // Two fine cells of each of two rows: along y the rows of planes
        // 2k and 2k + 1, along z the rows 2j and 2j + 1 of one plane.
        const T* first =
            axis == 1 ? &fine(2 * i0, 2 * j + h, 2 * k) : &fine(2 * i0, 2 * j, 2 * k + h);
        const T* second =
            axis == 1 ? &fine(2 * i0, 2 * j + h, 2 * k + 1) : &fine(2 * i0, 2 * j + 1, 2 * k + h);
        for (int i = 0; i < n; ++i) {
          double sum = 0.0;
          sum += first[2 * i];
          sum += first[2 * i + 1];
          sum += second[2 * i];
          sum += second[2 * i + 1];
          out[i] = static_cast<T>(sum / 4.0);
        }
      }
    }
  }
}

// coarsenCells on the calling thread, x rows at a time for the common
// ratio 2 (each coarse cell the sum of its 8 fine cells in CoarsenCell's
// order, divided once: the same bits).
template <class T>
void coarsenCellsInline(const CellArray<const T>& fine, const CellArray<T>& coarse,
                        const Box& coarseBox, const IntVector& ratio,
                        CoarsenOp op = CoarsenOp::Average) {
  if (isFaceOp(op)) {
    if (ratio == IntVector{2, 2, 2}) {
      coarsenFacesRatio2(fine, coarse, coarseBox, faceAxis(op), highFace(op));
    } else {
      forEachCellInline(coarseBox,
                        CoarsenFace<T>{fine, coarse, ratio, faceAxis(op), highFace(op)});
    }
    return;
  }
  if (ratio != IntVector{2, 2, 2}) {
    forEachCellInline(coarseBox, CoarsenCell<T>{fine, coarse, ratio});
    return;
  }
  for (int k = coarseBox.lo().z; k < coarseBox.hi().z; ++k) {
    for (int j = coarseBox.lo().y; j < coarseBox.hi().y; ++j) {
      const int i0 = coarseBox.lo().x;
      const T* r00 = &fine(2 * i0, 2 * j, 2 * k);
      const T* r10 = &fine(2 * i0, 2 * j + 1, 2 * k);
      const T* r01 = &fine(2 * i0, 2 * j, 2 * k + 1);
      const T* r11 = &fine(2 * i0, 2 * j + 1, 2 * k + 1);
      T* out = &coarse(i0, j, k);
      for (int i = 0; i < coarseBox.hi().x - i0; ++i) {
        const int f = 2 * i;
        double sum = 0.0;
        sum += r00[f];
        sum += r00[f + 1];
        sum += r10[f];
        sum += r10[f + 1];
        sum += r01[f];
        sum += r01[f + 1];
        sum += r11[f];
        sum += r11[f + 1];
        out[i] = static_cast<T>(sum / 8.0);
      }
    }
  }
}

// refineCellsInline at ratio 2 with slopes, a run of coarse cells along
// axis A at a time (x; y for a box one coarse cell thick in x, as an x
// face's ghost cells are): the run's slopes in a loop of their own (no
// branch: it vectorises), then each fine row along A the run covers, two
// fine cells per coarse cell, by RefineCell's expression (the same bits).
template <int A, bool Limited, class T>
void refineRatio2Inline(const CellArray<const T>& coarse, const CellArray<T>& fine,
                        const Box& fineBox) {
  static_assert(A == 0 || A == 1, "runs along x or y");
  constexpr int B = 1 - A;  // the other axis of a plane
  const Box parents = coarsen(fineBox, IntVector::uniform(2));
  // RefineCell's offsets ((f - 2 c) + 1/2) / 2 - 1/2 of the two fine cells.
  const double offset[2] = {0.5 / 2 - 0.5, 1.5 / 2 - 0.5};
  const std::int64_t coarseStride[3] = {1, coarse.strideY(), coarse.strideZ()};
  const std::int64_t along = coarseStride[A];
  const std::int64_t fineAlong = A == 0 ? 1 : fine.strideY();
  constexpr int kRun = 32;
  double centre[kRun], sx[kRun], sy[kRun], sz[kRun];
  const auto slope = [](double minus, double mid, double plus) {
    return Limited ? detail::mcSlope(minus, mid, plus) : 0.5 * (plus - minus);
  };
  for (int ck = parents.lo().z; ck < parents.hi().z; ++ck) {
    const int kLo = std::max(fineBox.lo().z, 2 * ck), kHi = std::min(fineBox.hi().z, 2 * ck + 2);
    for (int cb = parents.lo()[B]; cb < parents.hi()[B]; ++cb) {
      const int bLo = std::max(fineBox.lo()[B], 2 * cb);
      const int bHi = std::min(fineBox.hi()[B], 2 * cb + 2);
      for (int c0 = parents.lo()[A]; c0 < parents.hi()[A]; c0 += kRun) {
        const int n = std::min(kRun, parents.hi()[A] - c0);
        IntVector at{0, 0, ck};
        at[A] = c0;
        at[B] = cb;
        const T* const mid = &coarse(at.x, at.y, at.z);
        for (int c = 0; c < n; ++c) {
          const T* const here = mid + c * along;
          const double m = here[0];
          centre[c] = m;
          sx[c] = slope(here[-1], m, here[1]);
          sy[c] = slope(here[-coarseStride[1]], m, here[coarseStride[1]]);
          sz[c] = slope(here[-coarseStride[2]], m, here[coarseStride[2]]);
        }
        // The fine cells [first, last) of the run along A, counted from 2 c0.
        const int first = std::max(fineBox.lo()[A], 2 * c0) - 2 * c0;
        const int last = std::min(fineBox.hi()[A], 2 * (c0 + n)) - 2 * c0;
        for (int k = kLo; k < kHi; ++k) {
          const double oz = offset[k - 2 * ck];
          for (int fb = bLo; fb < bHi; ++fb) {
            const double across = offset[fb - 2 * cb];
            IntVector f{0, 0, k};
            f[A] = 2 * c0 + first;
            f[B] = fb;
            T* const row = &fine(f.x, f.y, f.z);  // fine cell `first` of the run
            const auto value = [&](int c, double o) {
              return A == 0 ? static_cast<T>(centre[c] + sx[c] * o + sy[c] * across + sz[c] * oz)
                            : static_cast<T>(centre[c] + sx[c] * across + sy[c] * o + sz[c] * oz);
            };
            // A lone fine cell at either end, pairs between.
            const int pairsFrom = (first + 1) / 2, pairsTo = last / 2;
            if (first % 2 == 1) row[0] = value(first / 2, offset[1]);
            T* const pairs = row + (2 * pairsFrom - first) * fineAlong;
            for (int c = pairsFrom; c < pairsTo; ++c) {
              T* const two = pairs + 2 * (c - pairsFrom) * fineAlong;
              two[0] = value(c, offset[0]);
              two[fineAlong] = value(c, offset[1]);
            }
            if (last % 2 == 1 && last - 1 >= first)
              row[(last - 1 - first) * fineAlong] = value((last - 1) / 2, offset[0]);
          }
        }
      }
    }
  }
}

// refineCells on the calling thread, coarse cell by coarse cell: each
// coarse cell's slopes once for all its fine cells in `fineBox` (RefineCell
// finds them again for each), every fine value by RefineCell's expression.
template <class T>
void refineCellsInline(const CellArray<const T>& coarse, const CellArray<T>& fine,
                       const Box& fineBox, const IntVector& ratio, RefineOp op) {
  if (op == RefineOp::Constant) {
    forEachCellInline(fineBox, RefineCell<T>{coarse, fine, ratio, op});
    return;
  }
  if (ratio == IntVector::uniform(2)) {
    const Box parents = coarsen(fineBox, ratio);
    const bool alongY = parents.size().x == 1 && parents.size().y > 1;
    const bool limited = op == RefineOp::LimitedLinear;
    if (alongY) {
      limited ? refineRatio2Inline<1, true>(coarse, fine, fineBox)
              : refineRatio2Inline<1, false>(coarse, fine, fineBox);
    } else {
      limited ? refineRatio2Inline<0, true>(coarse, fine, fineBox)
              : refineRatio2Inline<0, false>(coarse, fine, fineBox);
    }
    return;
  }
  const int rx = ratio.x, ry = ratio.y, rz = ratio.z;
  const bool limited = op == RefineOp::LimitedLinear;
  const Box parents = coarsen(fineBox, ratio);
  // RefineCell's offsets, each computed once: ((f - r c) + 1/2) / r - 1/2
  // for the fine cell's place f - r c in its coarse cell.
  constexpr int kMostRatio = 8;
  TESSERA_REQUIRE_THROWS(rx <= kMostRatio && ry <= kMostRatio && rz <= kMostRatio,
                         "refinement ratio " << ratio << " above " << kMostRatio);
  double offsetX[kMostRatio], offsetY[kMostRatio], offsetZ[kMostRatio];
  for (int a = 0; a < rx; ++a)
    offsetX[a] = (a + 0.5) / rx - 0.5;
  for (int a = 0; a < ry; ++a)
    offsetY[a] = (a + 0.5) / ry - 0.5;
  for (int a = 0; a < rz; ++a)
    offsetZ[a] = (a + 0.5) / rz - 0.5;
  for (int ck = parents.lo().z; ck < parents.hi().z; ++ck) {
    const int kLo = std::max(fineBox.lo().z, rz * ck),
              kHi = std::min(fineBox.hi().z, rz * (ck + 1));
    for (int cj = parents.lo().y; cj < parents.hi().y; ++cj) {
      const int jLo = std::max(fineBox.lo().y, ry * cj),
                jHi = std::min(fineBox.hi().y, ry * (cj + 1));
      for (int ci = parents.lo().x; ci < parents.hi().x; ++ci) {
        const int iLo = std::max(fineBox.lo().x, rx * ci),
                  iHi = std::min(fineBox.hi().x, rx * (ci + 1));
        const T centre = coarse(ci, cj, ck);
        const double xm = coarse(ci - 1, cj, ck), xp = coarse(ci + 1, cj, ck);
        const double ym = coarse(ci, cj - 1, ck), yp = coarse(ci, cj + 1, ck);
        const double zm = coarse(ci, cj, ck - 1), zp = coarse(ci, cj, ck + 1);
        const double sx = limited ? detail::mcSlope(xm, centre, xp) : 0.5 * (xp - xm);
        const double sy = limited ? detail::mcSlope(ym, centre, yp) : 0.5 * (yp - ym);
        const double sz = limited ? detail::mcSlope(zm, centre, zp) : 0.5 * (zp - zm);
        for (int k = kLo; k < kHi; ++k) {
          const double oz = offsetZ[k - rz * ck];
          for (int j = jLo; j < jHi; ++j) {
            const double oy = offsetY[j - ry * cj];
            T* row = &fine(iLo, j, k);
            for (int i = iLo; i < iHi; ++i)
              row[i - iLo] = static_cast<T>(centre + sx * offsetX[i - rx * ci] + sy * oy + sz * oz);
          }
        }
      }
    }
  }
}

// The host operators are compiled once, in LevelOperators.cc, for the cell
// types variables hold: CCVariable's virtual functions would instantiate
// them in every file that uses a variable (4 s of compilation per file for
// their vectorised loops).
#define TESSERA_HOST_LEVEL_OPERATORS(EXTERN, T)                                           \
  EXTERN template void refineCellsInline<T>(const CellArray<const T>&, const CellArray<T>&, \
                                            const Box&, const IntVector&, RefineOp);        \
  EXTERN template void coarsenCellsInline<T>(const CellArray<const T>&, const CellArray<T>&,\
                                             const Box&, const IntVector&, CoarsenOp);
TESSERA_HOST_LEVEL_OPERATORS(extern, double)
TESSERA_HOST_LEVEL_OPERATORS(extern, float)
TESSERA_HOST_LEVEL_OPERATORS(extern, int)
TESSERA_HOST_LEVEL_OPERATORS(extern, std::int64_t)

}  // namespace tessera
