// prk-reference: the Parallel Research Kernels' Stencil as the PRK writes
// it, with no framework: the yardstick scripts/bench/stencil.py measures
// Tessera's `kernel: prk` against in the same run.
//
// The PRK's algorithm, in place on two arrays: each sweep adds the star of
// `in` to `out` at every point at least r cells from the domain's edges
// (out += star(in)), then adds 1 to every value of `in`. `in` starts as
// i + j (+ k in 3D), `out` as 0; the first sweep is an untimed warm-up and
// --iterations sweeps are timed after it (the PRK's `stencil <iterations>
// <n>`). The check and the printed lines are the PRK's: the mean absolute
// output over the active points equals sweeps x axes within 1e-8, then
// "Solution validates" and "Rate (MFlops/s): ...  Avg time (s): ...", with
// the PRK's flop count (2 stencil_size + 1 per active point, stencil_size =
// 2 axes r + 1) and the slowest rank's time.
//
// The star is written in the order Components/Stencil/PrkKernel.cc writes
// it, out += w_d (in(+d) - in(-d)) along x, y (and z) for d = 1 .. r, with
// the same weights (StarWeights.h: w_d = 1 / (2 d r)), so that the final
// fields have the digests sus prints: the benchmark checks that both did
// the same work. (The PRK's own code adds the 4r (6r) weighted points one
// by one: the same values up to rounding, more flops than it counts.)
//
// MPI ranks own slabs of whole planes (whole rows in 2D) along the last
// axis, with r ghost planes each side exchanged before every sweep (the
// PRK's MPI1 code cuts a 2D grid of ranks instead: on 1 and 2 ranks the
// same cut); OpenMP threads share each rank's planes (rows).
//
//   prk-reference [--dims 2|3] [--resolution N] [--radius R]
//                 [--iterations I] [--huge-pages 0|1]
// Threads: OMP_NUM_THREADS; ranks: mpirun.

#include "Core/Grid/Variables/FieldDigest.h"
#include "Core/Util/HugePages.h"
#include "StandAlone/reference/ReferenceSupport.h"

#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

constexpr int kMaxRadius = 4;
constexpr double kEpsilon = 1e-8;  // the PRK's

struct Options {
  int dims = 2;
  long resolution = 1000;
  int radius = 2;
  int iterations = 10;  // timed, after one warm-up sweep
  bool hugePages = true;
};

Options parse(int argc, char** argv) {
  Options o;
  tessera::reference::parseOptions(
      argc, argv, "prk-reference",
      {{"--dims", [&](const char* v) { o.dims = std::atoi(v); }},
       {"--resolution", [&](const char* v) { o.resolution = std::atol(v); }},
       {"--radius", [&](const char* v) { o.radius = std::atoi(v); }},
       {"--iterations", [&](const char* v) { o.iterations = std::atoi(v); }},
       {"--huge-pages", [&](const char* v) { o.hugePages = std::atoi(v) != 0; }}});
  return o;
}

// One rank's slab: planes [lo, hi) of the last axis, with r ghost planes
// each side; x is the fastest index.
struct Slab {
  long n;       // points per axis
  int dims;
  long plane;   // points per plane of the last axis (a row in 2D)
  long lo, hi;  // the planes this rank owns
  int r;

  long planes() const { return hi - lo + 2 * r; }
  // Offset of plane p's first point (p global, lo - r <= p < hi + r).
  long at(long p) const { return (p - lo + r) * plane; }
};

template <int R, int Dims>
void sweep(const Slab& s, const std::array<double, kMaxRadius + 1>& w, double* in, double* out) {
  const long n = s.n;
  const long row = n;                           // the stride of y
  const long layer = Dims == 3 ? n * n : 0;     // the stride of z
  const long first = std::max(s.lo, static_cast<long>(R));
  const long last = std::min(s.hi, n - R);
  const long rowsPerPlane = Dims == 3 ? n - 2 * R : 1;
  // out += star(in) over the active points: one index per active row.
#pragma omp parallel for schedule(static)
  for (long index = 0; index < (last - first) * rowsPerPlane; ++index) {
    const long p = first + index / rowsPerPlane;
    const long j = Dims == 3 ? R + index % rowsPerPlane : p;
    const long offset = s.at(p) + (Dims == 3 ? j * row : 0);
    const double* c = in + offset;
    double* o = out + offset;
#pragma omp simd
    for (long i = R; i < n - R; ++i) {
      double v = o[i];
      for (int d = 1; d <= R; ++d) {
        v += w[d] * (c[i + d] - c[i - d]);
        v += w[d] * (c[i + d * row] - c[i - d * row]);
        if constexpr (Dims == 3) v += w[d] * (c[i + d * layer] - c[i - d * layer]);
      }
      o[i] = v;
    }
  }
  // in += 1 at every point this rank owns.
  double* mine = in + s.at(s.lo);
  const long count = (s.hi - s.lo) * s.plane;
#pragma omp parallel for simd schedule(static)
  for (long p = 0; p < count; ++p)
    mine[p] += 1.0;
}

// Sends the first and last r planes to the neighbours below and above and
// receives theirs into the ghost planes.
void exchange(const Slab& s, double* in, int rank, int size, MPI_Comm comm) {
  const int below = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int above = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  const int count = static_cast<int>(s.r * s.plane);
  MPI_Sendrecv(in + s.at(s.lo), count, MPI_DOUBLE, below, 0, in + s.at(s.hi), count, MPI_DOUBLE,
               above, 0, comm, MPI_STATUS_IGNORE);
  MPI_Sendrecv(in + s.at(s.hi - s.r), count, MPI_DOUBLE, above, 1, in + s.at(s.lo - s.r), count,
               MPI_DOUBLE, below, 1, comm, MPI_STATUS_IGNORE);
}

template <int R, int Dims>
int run(const Options& options, int rank, int size) {
  const long n = options.resolution;
  const long plane = Dims == 3 ? n * n : n;
  Slab s{n, Dims, plane, n * rank / size, n * (rank + 1) / size, R};
  if (n / size < R) {  // the thinnest slab, the same test on every rank
    if (rank == 0)
      std::fprintf(stderr, "prk-reference: %d ranks leave slabs thinner than the radius %d\n",
                   size, R);
    return 1;
  }
  std::array<double, kMaxRadius + 1> w{};
  for (int d = 1; d <= R; ++d)
    w[d] = 1.0 / (2.0 * d * R);  // StarWeights.h's prk(r)

  const std::size_t points = static_cast<std::size_t>(s.planes() * plane);
  // out staggered against in, as a careful hand-written code does
  // (FirstTouchArray says why): 0.254 s per sweep without, 0.141 s with.
  using tessera::reference::FirstTouchArray;
  FirstTouchArray inArray(points, options.hugePages);
  FirstTouchArray outArray(points, options.hugePages, FirstTouchArray::kStagger);
  double* in = inArray.data();
  double* out = outArray.data();
  const double zWeight = Dims == 3 ? 1.0 : 0.0;
#pragma omp parallel for schedule(static)
  for (long p = s.lo - R; p < s.hi + R; ++p) {
    for (long q = 0; q < plane; ++q) {
      const long i = q % n;
      const long j = Dims == 3 ? q / n : p;
      const long k = Dims == 3 ? p : 0;
      in[s.at(p) + q] = static_cast<double>(i) + static_cast<double>(j) + zWeight * k;
      out[s.at(p) + q] = 0.0;
    }
  }

  double start = 0.0;
  for (int iteration = 0; iteration <= options.iterations; ++iteration) {
    if (iteration == 1) {  // the PRK times every sweep but the first
      MPI_Barrier(MPI_COMM_WORLD);
      start = MPI_Wtime();
    }
    exchange(s, in, rank, size, MPI_COMM_WORLD);
    sweep<R, Dims>(s, w, in, out);
  }
  const double local = MPI_Wtime() - start;
  double seconds = 0.0;
  MPI_Reduce(&local, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

  // The PRK's check, and the digests of the points this rank owns.
  double localNorm = 0.0;
  std::uint64_t digests[2] = {0, 0};
  const long rows = Dims == 3 ? n : 1;
#pragma omp parallel for schedule(static) reduction(+ : localNorm, digests[:2])
  for (long index = 0; index < (s.hi - s.lo) * rows; ++index) {
    const long p = s.lo + index / rows;
    const long j = Dims == 3 ? index % rows : p;
    const long k = Dims == 3 ? p : 0;
    const long offset = s.at(p) + (Dims == 3 ? j * n : 0);
    const bool activeRow = p >= R && p < n - R && j >= R && j < n - R;
    for (long i = 0; i < n; ++i) {
      if (activeRow && i >= R && i < n - R) localNorm += std::fabs(out[offset + i]);
      const int ii = static_cast<int>(i), jj = static_cast<int>(j), kk = static_cast<int>(k);
      digests[0] += tessera::cellDigest(ii, jj, kk, tessera::valueBits(in[offset + i]));
      digests[1] += tessera::cellDigest(ii, jj, kk, tessera::valueBits(out[offset + i]));
    }
  }
  double norm = 0.0;
  std::uint64_t digest[2] = {0, 0};
  MPI_Reduce(&localNorm, &norm, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(digests, digest, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank != 0) return 0;

  const double activePoints = std::pow(static_cast<double>(n - 2 * R), Dims);
  norm /= activePoints;
  const double reference = static_cast<double>(options.iterations + 1) * Dims;
  std::printf("prk-reference: %dD, %ld^%d points, radius %d, %d timed iterations, %d rank(s) "
              "x %d thread(s)\n",
              Dims, n, Dims, R, options.iterations, size, omp_get_max_threads());
  // Written so that a NaN fails.
  if (!(std::fabs(norm - reference) <= kEpsilon)) {
    std::printf("ERROR: L1 norm = %.17g, Reference L1 norm = %.17g\n", norm, reference);
    return 1;
  }
  std::printf("Solution validates\n");
  const int stencilSize = 2 * Dims * R + 1;
  const double flops = (2.0 * stencilSize + 1.0) * activePoints;
  const double average = options.iterations > 0 ? seconds / options.iterations : 0.0;
  std::printf("Rate (MFlops/s): %.6f  Avg time (s): %.6f\n",
              average > 0.0 ? 1e-6 * flops / average : 0.0, average);
  std::printf("digest stencil.in %016llx\n", static_cast<unsigned long long>(digest[0]));
  std::printf("digest stencil.out %016llx\n", static_cast<unsigned long long>(digest[1]));
  return 0;
}

template <int Dims>
int runOfRadius(const Options& o, int rank, int size) {
  switch (o.radius) {
    case 1: return run<1, Dims>(o, rank, size);
    case 2: return run<2, Dims>(o, rank, size);
    case 3: return run<3, Dims>(o, rank, size);
    default: return run<4, Dims>(o, rank, size);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Options o = parse(argc, argv);
  int status = 0;
  if (o.dims != 2 && o.dims != 3) {
    if (rank == 0) std::fprintf(stderr, "prk-reference: --dims must be 2 or 3\n");
    status = 1;
  } else if (o.radius < 1 || o.radius > kMaxRadius || o.resolution <= 2L * o.radius ||
             o.iterations < 1) {
    if (rank == 0)
      std::fprintf(stderr,
                   "prk-reference: --radius must be 1 to %d, --resolution more than twice it and "
                   "--iterations at least 1\n",
                   kMaxRadius);
    status = 1;
  } else {
    status = o.dims == 3 ? runOfRadius<3>(o, rank, size) : runOfRadius<2>(o, rank, size);
  }
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
