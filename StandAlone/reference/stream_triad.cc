// stream-triad: STREAM's triad, a[i] = b[i] + s c[i], over three arrays of
// doubles, as one small OpenMP program: the memory bandwidth that
// scripts/bench/stencil.py measures in the same run as the stencils and
// divides by the bytes a cell update moves, to say how close a stencil
// comes to what the memory system allows.
//
// The arrays are initialised in parallel with the same static schedule as
// the triad (first touch: each thread's pages are local to it). One
// untimed triad warms up; then --repeats triads are timed one by one. It
// prints the best and the median bandwidth two ways, one line each:
//   triad bandwidth (24 B/element, STREAM): best X GB/s, median Y GB/s
//   triad bandwidth (32 B/element, with write-allocate): best X GB/s, median Y GB/s
// 24 bytes per element is STREAM's count (read b and c, write a); 32 adds
// the read of a's cache line that a store miss costs (write-allocate),
// which is what the memory bus carries without streaming stores. GB = 1e9
// bytes.
//
//   stream-triad [--elements N] [--repeats R] [--huge-pages 0|1]
// Threads: OMP_NUM_THREADS.

#include "Core/Util/HugePages.h"
#include "StandAlone/reference/ReferenceSupport.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Options {
  long elements = 1L << 25;
  int repeats = 10;
  bool hugePages = false;
};

Options parse(int argc, char** argv) {
  Options options;
  tessera::reference::parseOptions(
      argc, argv, "stream-triad",
      {{"--elements", [&](const char* v) { options.elements = std::atol(v); }},
       {"--repeats", [&](const char* v) { options.repeats = std::atoi(v); }},
       {"--huge-pages", [&](const char* v) { options.hugePages = std::atoi(v) != 0; }}});
  if (options.elements < 1 || options.repeats < 1) {
    std::fprintf(stderr, "stream-triad: --elements and --repeats must be positive\n");
    std::exit(1);
  }
  return options;
}

void triad(double* __restrict a, const double* __restrict b, const double* __restrict c,
           double s, long n) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i)
    a[i] = b[i] + s * c[i];
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  const long n = options.elements;
  using tessera::reference::FirstTouchArray;
  const std::size_t count = static_cast<std::size_t>(n);
  const FirstTouchArray aArray(count, options.hugePages);
  const FirstTouchArray bArray(count, options.hugePages);
  const FirstTouchArray cArray(count, options.hugePages);
  double* const a = aArray.data();
  double* const b = bArray.data();
  double* const c = cArray.data();
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    a[i] = 0.0;
    b[i] = 2.0;
    c[i] = 0.5;
  }
  const double s = 3.0;

  triad(a, b, c, s, n);  // warm-up, untimed
  std::vector<double> seconds;
  for (int r = 0; r < options.repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    triad(a, b, c, s, n);
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }

  // Every a[i] must be 2 + 3 * 0.5 = 3.5 (exact in binary): checks the
  // work was done and keeps the compiler from dropping it.
  long wrong = 0;
#pragma omp parallel for schedule(static) reduction(+ : wrong)
  for (long i = 0; i < n; ++i)
    wrong += a[i] != 3.5 ? 1 : 0;
  if (wrong != 0) {
    std::fprintf(stderr, "stream-triad: %ld wrong results\n", wrong);
    return 1;
  }

  const double best = *std::min_element(seconds.begin(), seconds.end());
  const double middle = median(seconds);
  const double elements = static_cast<double>(n);
  std::printf("stream-triad: %ld elements, 3 arrays of %.1f MiB, %d timed repeats, %d thread(s)\n",
              n, elements * sizeof(double) / (1024.0 * 1024.0), options.repeats,
              omp_get_max_threads());
  std::printf("triad bandwidth (24 B/element, STREAM): best %.4f GB/s, median %.4f GB/s\n",
              24.0 * elements / best * 1e-9, 24.0 * elements / middle * 1e-9);
  std::printf(
      "triad bandwidth (32 B/element, with write-allocate): best %.4f GB/s, median %.4f GB/s\n",
      32.0 * elements / best * 1e-9, 32.0 * elements / middle * 1e-9);
  return 0;
}
