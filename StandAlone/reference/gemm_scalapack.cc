// gemm-scalapack: C = A B (alpha 1, beta 0) in doubles by ScaLAPACK's
// pdgemm over MPI: the distributed yardstick scripts/bench/gemm.py holds
// Tessera's GEMM against.
//
// The ranks form a PR x PC BLACS grid (row-major; by default the most square
// PR x PC = ranks with PR <= PC, or --grid PRxPC). A (m x k), B (k x n) and
// C (m x n) are laid out 2D block-cyclically in NB x NB blocks, each rank
// filling its own entries from their global indices by the same formulas as
// gemm-openblas (small integers: every product and partial sum is exact, so
// any summation order gives the same bits). One untimed pdgemm warms up;
// then --runs pdgemms are timed, each after an MPI_Barrier, a run's time the
// slowest rank's (MPI_Allreduce MAX). Rank 0 prints one JSON line:
//   {"program":"scalapack","ranks":P,"grid":[PR,PC],"nb":NB,"m":..,"n":..,
//    "k":..,"seconds":[..],"median_seconds":..,"gflops":..}
// with gflops = 2 m n k / median_seconds / 1e9.
//
// --check compares entries of the last product with the exact values
// sum_l A(i,l) B(l,j) computed from the fill formulas, each by the rank that
// owns it (nothing is gathered): every entry when m n k <= 1e8, else 64
// sampled ones. It adds "check_entries" and "check_max_error" (the largest
// absolute difference over the ranks; 0 when right) to the JSON line.
//
//   mpirun -n P gemm-scalapack --m M --n N --k K [--nb NB] [--runs R]
//                              [--grid PRxPC] [--check]
// Threads: OPENBLAS_NUM_THREADS (1 per rank is what the benchmark uses).

#include "StandAlone/reference/ReferenceSupport.h"

#include "StandAlone/reference/GemmFill.h"

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

// BLACS's C interface and ScaLAPACK's (PBLAS's) Fortran-callable routines,
// as libscalapack-openmpi exports them. pdgemm_ is written in C, so its
// character arguments carry no hidden lengths.
extern "C" {
void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int notDone);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb,
               const int* irsrc, const int* icsrc, const int* context, const int* lld, int* info);
void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
             const double* alpha, const double* a, const int* ia, const int* ja, const int* desca,
             const double* b, const int* ib, const int* jb, const int* descb, const double* beta,
             double* c, const int* ic, const int* jc, const int* descc);
}

namespace {

struct Options {
  int m = 0, n = 0, k = 0;
  int nb = 128;
  int runs = 5;
  int pr = 0, pc = 0;  // 0: the most square grid
  bool check = false;
};

[[noreturn]] void fail(int rank, const std::string& message) {
  if (rank == 0) std::fprintf(stderr, "gemm-scalapack: %s\n", message.c_str());
  MPI_Finalize();
  std::exit(1);
}

Options parse(int argc, char** argv, int rank) {
  Options options;
  // --check takes no value: take it out before the `--name value` pairs.
  std::vector<char*> rest{argv[0]};
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--check") == 0)
      options.check = true;
    else
      rest.push_back(argv[a]);
  }
  std::string grid;
  tessera::reference::parseOptions(int(rest.size()), rest.data(), "gemm-scalapack",
                                   {{"--m", [&](const char* v) { options.m = std::atoi(v); }},
                                    {"--n", [&](const char* v) { options.n = std::atoi(v); }},
                                    {"--k", [&](const char* v) { options.k = std::atoi(v); }},
                                    {"--nb", [&](const char* v) { options.nb = std::atoi(v); }},
                                    {"--runs", [&](const char* v) { options.runs = std::atoi(v); }},
                                    {"--grid", [&](const char* v) { grid = v; }}});
  if (options.m < 1 || options.n < 1 || options.k < 1 || options.nb < 1 || options.runs < 1)
    fail(rank, "--m, --n, --k (and --nb, --runs) must be positive");
  if (!grid.empty()) {
    const auto x = grid.find('x');
    if (x == std::string::npos || x == 0 || x + 1 == grid.size())
      fail(rank, "--grid must be PRxPC, e.g. 2x4, not '" + grid + "'");
    options.pr = std::atoi(grid.substr(0, x).c_str());
    options.pc = std::atoi(grid.substr(x + 1).c_str());
    if (options.pr < 1 || options.pc < 1) fail(rank, "--grid: both counts must be positive");
  }
  return options;
}

using tessera::reference::median;
// The fill formulas (GemmFill.h).
double aValue(std::int64_t i, std::int64_t j) { return tessera::reference::gemmA(i, j); }
double bValue(std::int64_t i, std::int64_t j) { return tessera::reference::gemmB(i, j); }
double cValue(std::int64_t i, std::int64_t j) { return tessera::reference::gemmC(i, j); }

// One block-cyclic dimension: nb-blocks dealt round-robin to `procs`
// processes starting at process 0.
struct Cyclic {
  int nb, procs, me;
  int global(int local) const { return ((local / nb) * procs + me) * nb + local % nb; }
  int owner(int global) const { return (global / nb) % procs; }
  int local(int global) const { return (global / (nb * procs)) * nb + global % nb; }
};

// A distributed matrix: this rank's column-major local block and its descriptor.
struct Matrix {
  int rows = 0, cols = 0, localRows = 0, localCols = 0, lld = 1;
  int desc[9] = {};
  std::vector<double> local;

  template <class Value>
  void init(int r, int c, int nb, int context, const Cyclic& rowMap, const Cyclic& colMap,
            Value value) {
    rows = r;
    cols = c;
    const int zero = 0;
    localRows = numroc_(&rows, &nb, &rowMap.me, &zero, &rowMap.procs);
    localCols = numroc_(&cols, &nb, &colMap.me, &zero, &colMap.procs);
    lld = std::max(1, localRows);
    int info = 0;
    descinit_(desc, &rows, &cols, &nb, &nb, &zero, &zero, &context, &lld, &info);
    if (info != 0) {
      std::fprintf(stderr, "gemm-scalapack: descinit_ failed (info %d)\n", info);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    local.assign(std::size_t(lld) * std::max(1, localCols), 0.0);
    for (int lj = 0; lj < localCols; ++lj) {
      const int gj = colMap.global(lj);
      for (int li = 0; li < localRows; ++li)
        local[std::size_t(lj) * lld + li] = value(rowMap.global(li), gj);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options o = parse(argc, argv, rank);
  if (o.pr == 0) {
    o.pr = 1;
    for (int d = 1; d * d <= size; ++d)
      if (size % d == 0) o.pr = d;
    o.pc = size / o.pr;
  }
  if (o.pr * o.pc != size)
    fail(rank, "--grid " + std::to_string(o.pr) + "x" + std::to_string(o.pc) + " needs " +
                   std::to_string(o.pr * o.pc) + " ranks, not " + std::to_string(size));

  int blacsRank = 0, blacsSize = 0, context = 0;
  Cblacs_pinfo(&blacsRank, &blacsSize);
  Cblacs_get(-1, 0, &context);
  Cblacs_gridinit(&context, "Row", o.pr, o.pc);
  int pr = 0, pc = 0, myRow = 0, myCol = 0;
  Cblacs_gridinfo(context, &pr, &pc, &myRow, &myCol);
  const Cyclic rowMap{o.nb, pr, myRow}, colMap{o.nb, pc, myCol};

  Matrix a, b, c;
  a.init(o.m, o.k, o.nb, context, rowMap, colMap, aValue);
  b.init(o.k, o.n, o.nb, context, rowMap, colMap, bValue);
  c.init(o.m, o.n, o.nb, context, rowMap, colMap, cValue);

  const int one = 1;
  const double alpha = 1.0, beta = 0.0;
  const auto multiply = [&] {
    pdgemm_("N", "N", &o.m, &o.n, &o.k, &alpha, a.local.data(), &one, &one, a.desc, b.local.data(),
            &one, &one, b.desc, &beta, c.local.data(), &one, &one, c.desc);
  };
  multiply();  // warm-up
  std::vector<double> seconds;
  for (int r = 0; r < o.runs; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    multiply();
    double elapsed = MPI_Wtime() - start;
    MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    seconds.push_back(elapsed);
  }

  double maxError = 0.0;
  long long checked = 0;
  if (o.check) {
    const auto checkEntry = [&](int i, int j) {
      if (rowMap.owner(i) != myRow || colMap.owner(j) != myCol) return;
      double exact = 0.0;
      for (int l = 0; l < o.k; ++l)
        exact += aValue(i, l) * bValue(l, j);
      const double got = c.local[std::size_t(colMap.local(j)) * c.lld + rowMap.local(i)];
      maxError = std::max(maxError, std::fabs(got - exact));
      ++checked;
    };
    if (double(o.m) * o.n * o.k <= 1e8) {
      for (int i = 0; i < o.m; ++i)
        for (int j = 0; j < o.n; ++j)
          checkEntry(i, j);
    } else {
      // The four corners, then pseudo-random entries (the same on every rank).
      checkEntry(0, 0);
      checkEntry(0, o.n - 1);
      checkEntry(o.m - 1, 0);
      checkEntry(o.m - 1, o.n - 1);
      std::uint64_t state = 12345;
      const auto next = [&] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return state >> 33;
      };
      for (int s = 4; s < 64; ++s) {
        const int i = int(next() % std::uint64_t(o.m));
        checkEntry(i, int(next() % std::uint64_t(o.n)));
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, &maxError, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &checked, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  }

  if (rank == 0) {
    const double med = median(seconds);
    nlohmann::ordered_json out = {{"program", "scalapack"},
                                  {"ranks", size},
                                  {"grid", {pr, pc}},
                                  {"nb", o.nb},
                                  {"m", o.m},
                                  {"n", o.n},
                                  {"k", o.k},
                                  {"seconds", seconds},
                                  {"median_seconds", med},
                                  {"gflops", 2.0 * double(o.m) * o.n * o.k / med / 1e9}};
    if (o.check) {
      out["check_entries"] = checked;
      out["check_max_error"] = maxError;
    }
    std::cout << out.dump() << std::endl;
  }
  Cblacs_gridexit(context);
  Cblacs_exit(1);  // 1: MPI stays up for MPI_Finalize
  MPI_Finalize();
  return 0;
}
