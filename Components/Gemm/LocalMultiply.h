#pragma once
// The GEMM's local multiply on one rank: c += alpha a b (or c = alpha a b),
// with row-major operands given by pointer and leading dimension.
//   blas    OpenBLAS's dgemm (Debian's libopenblas), on the host;
//   kokkos  a Kokkos team kernel that stages tiles of a and b through team
//           scratch sized to the scheduler's scratchpad budget: the shape a
//           GPU's shared memory or an LDM wants (portable; slower than BLAS
//           on a CPU).

#include "CCA/Ports/ExecutionContext.h"

#include <cstdint>

namespace tessera::gemm {

enum class LocalKernel { Blas, Kokkos };

struct MatrixRef {
  const double* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t ld = 0;  // row stride
};

struct MutableMatrixRef {
  double* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t ld = 0;
};

// c = alpha a b (accumulate false) or c += alpha a b; a is c.rows x inner,
// b inner x c.cols.
void multiply(LocalKernel kernel, ExecutionContext& exec, double alpha, const MatrixRef& a,
              const MatrixRef& b, const MutableMatrixRef& c, bool accumulate);

// The square tile edge the kokkos kernel stages (a and b tiles both fit
// `scratchpadBytes`), at least 1.
int kokkosTile(std::size_t scratchpadBytes);

}  // namespace tessera::gemm
