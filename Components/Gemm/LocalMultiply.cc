#include "Components/Gemm/LocalMultiply.h"

#include "Core/Util/Error.h"

#include <cblas.h>

#include <algorithm>

namespace tessera::gemm {

int kokkosTile(std::size_t scratchpadBytes) {
  int tile = 1;
  while (2 * static_cast<std::size_t>(2 * tile) * static_cast<std::size_t>(2 * tile) *
             sizeof(double) <=
         scratchpadBytes)
    tile *= 2;
  return tile;
}

namespace {

void blasMultiply(double alpha, const MatrixRef& a, const MatrixRef& b, const MutableMatrixRef& c,
                  bool accumulate) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(c.rows),
              static_cast<blasint>(c.cols), static_cast<blasint>(a.cols), alpha, a.data,
              static_cast<blasint>(a.ld), b.data, static_cast<blasint>(b.ld),
              accumulate ? 1.0 : 0.0, c.data, static_cast<blasint>(c.ld));
}

void kokkosMultiply(const std::string& label, std::size_t scratchpadBytes, double alpha,
                    const MatrixRef& a, const MatrixRef& b, const MutableMatrixRef& c,
                    bool accumulate) {
  using Space = Kokkos::DefaultExecutionSpace;
  using Policy = Kokkos::TeamPolicy<Space>;
  using Scratch = Kokkos::View<double**, Kokkos::LayoutRight, Space::scratch_memory_space,
                               Kokkos::MemoryUnmanaged>;
  const std::int64_t tile = kokkosTile(scratchpadBytes);
  const std::int64_t tilesM = (c.rows + tile - 1) / tile;
  const std::int64_t tilesN = (c.cols + tile - 1) / tile;
  const std::int64_t inner = a.cols;
  const std::size_t scratch = 2 * Scratch::shmem_size(tile, tile);
  const double* const A = a.data;
  const double* const B = b.data;
  double* const C = c.data;
  const std::int64_t lda = a.ld, ldb = b.ld, ldc = c.ld, rows = c.rows, cols = c.cols;
  Kokkos::parallel_for(
      label,
      Policy(static_cast<int>(tilesM * tilesN), Kokkos::AUTO)
          .set_scratch_size(0, Kokkos::PerTeam(scratch)),
      KOKKOS_LAMBDA(const Policy::member_type& team) {
        const std::int64_t i0 = (team.league_rank() / tilesN) * tile;
        const std::int64_t j0 = (team.league_rank() % tilesN) * tile;
        const std::int64_t mi = rows - i0 < tile ? rows - i0 : tile;
        const std::int64_t nj = cols - j0 < tile ? cols - j0 : tile;
        Scratch aTile(team.team_scratch(0), tile, tile);
        Scratch bTile(team.team_scratch(0), tile, tile);
        for (std::int64_t k0 = 0; k0 < inner || (k0 == 0 && inner == 0); k0 += tile) {
          const std::int64_t kk = inner - k0 < tile ? inner - k0 : tile;
          team.team_barrier();
          Kokkos::parallel_for(
              Kokkos::TeamThreadRange(team, static_cast<int>(tile * tile)), [&](int e) {
                const std::int64_t r = e / tile, s = e % tile;
                aTile(r, s) = (r < mi && s < kk) ? A[(i0 + r) * lda + k0 + s] : 0.0;
                bTile(r, s) = (r < kk && s < nj) ? B[(k0 + r) * ldb + j0 + s] : 0.0;
              });
          team.team_barrier();
          const bool first = k0 == 0 && !accumulate;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, static_cast<int>(mi * nj)),
                               [&](int e) {
                                 const std::int64_t r = e / nj, s = e % nj;
                                 double sum = 0.0;
                                 for (std::int64_t q = 0; q < kk; ++q)
                                   sum += aTile(r, q) * bTile(q, s);
                                 double& out = C[(i0 + r) * ldc + j0 + s];
                                 out = first ? alpha * sum : out + alpha * sum;
                               });
          if (inner == 0) break;
        }
      });
}

}  // namespace

void multiply(LocalKernel kernel, ExecutionContext& exec, double alpha, const MatrixRef& a,
              const MatrixRef& b, const MutableMatrixRef& c, bool accumulate) {
  TESSERA_REQUIRE_THROWS(a.rows == c.rows && b.cols == c.cols && a.cols == b.rows,
                         "multiply of " << a.rows << " x " << a.cols << " by " << b.rows << " x "
                                        << b.cols << " into " << c.rows << " x " << c.cols);
  if (c.rows == 0 || c.cols == 0) return;
  exec.countKernel();
  if (kernel == LocalKernel::Blas) {
    blasMultiply(alpha, a, b, c, accumulate);
  } else {
    kokkosMultiply(exec.label(), exec.tiling().scratchpadBytes, alpha, a, b, c, accumulate);
  }
}

}  // namespace tessera::gemm
