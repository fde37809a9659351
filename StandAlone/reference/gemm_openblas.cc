// gemm-openblas: C = A B (alpha 1, beta 0) in doubles by one call of
// OpenBLAS's cblas_dgemm, row-major, in one process: the single-node
// yardstick scripts/bench/gemm.py holds Tessera's distributed GEMM against.
//
// A (m x k), B (k x n) and C (m x n) are filled from their indices by the
// same formulas as gemm-scalapack (small integers, so every product and sum
// is exact). One untimed call warms up (OpenBLAS's thread pool, the pages);
// then --runs calls are timed one by one. It prints one JSON line:
//   {"program":"openblas","m":..,"n":..,"k":..,"threads":..,"seconds":[..],
//    "median_seconds":..,"gflops":..}
// with gflops = 2 m n k / median_seconds / 1e9.
//
//   gemm-openblas --m M --n N --k K [--runs R]
// Threads: OPENBLAS_NUM_THREADS (as OpenBLAS reads it; "threads" reports it).

#include "StandAlone/reference/ReferenceSupport.h"

#include "StandAlone/reference/GemmFill.h"

#include <cblas.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <vector>

namespace {

struct Options {
  long m = 0, n = 0, k = 0;
  int runs = 5;
};

Options parse(int argc, char** argv) {
  Options options;
  tessera::reference::parseOptions(
      argc, argv, "gemm-openblas",
      {{"--m", [&](const char* v) { options.m = std::atol(v); }},
       {"--n", [&](const char* v) { options.n = std::atol(v); }},
       {"--k", [&](const char* v) { options.k = std::atol(v); }},
       {"--runs", [&](const char* v) { options.runs = std::atoi(v); }}});
  if (options.m < 1 || options.n < 1 || options.k < 1 || options.runs < 1) {
    std::fprintf(stderr, "gemm-openblas: --m, --n, --k (and --runs) must be positive\n");
    std::exit(1);
  }
  return options;
}

using tessera::reference::median;
// The fill formulas (GemmFill.h).
double aValue(std::int64_t i, std::int64_t j) { return tessera::reference::gemmA(i, j); }
double bValue(std::int64_t i, std::int64_t j) { return tessera::reference::gemmB(i, j); }
double cValue(std::int64_t i, std::int64_t j) { return tessera::reference::gemmC(i, j); }

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::vector<double> a(std::size_t(o.m) * o.k), b(std::size_t(o.k) * o.n),
      c(std::size_t(o.m) * o.n);
  for (long i = 0; i < o.m; ++i)
    for (long j = 0; j < o.k; ++j)
      a[std::size_t(i) * o.k + j] = aValue(i, j);
  for (long i = 0; i < o.k; ++i)
    for (long j = 0; j < o.n; ++j)
      b[std::size_t(i) * o.n + j] = bValue(i, j);
  for (long i = 0; i < o.m; ++i)
    for (long j = 0; j < o.n; ++j)
      c[std::size_t(i) * o.n + j] = cValue(i, j);

  const auto multiply = [&] {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(o.m), int(o.n), int(o.k), 1.0,
                a.data(), int(o.k), b.data(), int(o.n), 0.0, c.data(), int(o.n));
  };
  multiply();  // warm-up
  std::vector<double> seconds;
  for (int r = 0; r < o.runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    multiply();
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  const double med = median(seconds);
  const nlohmann::ordered_json out = {
      {"program", "openblas"},
      {"m", o.m},
      {"n", o.n},
      {"k", o.k},
      {"threads", openblas_get_num_threads()},
      {"seconds", seconds},
      {"median_seconds", med},
      {"gflops", 2.0 * double(o.m) * double(o.n) * double(o.k) / med / 1e9}};
  std::cout << out.dump() << std::endl;
  return 0;
}
