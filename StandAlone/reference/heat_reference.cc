// heat-reference: the stencil component's heat kernel as one small
// hand-written OpenMP program, with no framework: the yardstick
// scripts/bench/stencil.py measures Tessera against in the same run.
//
// u_t = alpha Laplacian(u) on the unit cube by explicit Euler, the star of
// radius r (1 to 4) with the central differences of order 2r per axis
// (Components/Stencil/StarWeights.h), cell-centred cells (cell i at
// (i + 1/2) dx), and Dirichlet values from the exact solution
// sin(pi x) sin(pi y) sin(pi z) exp(-3 pi^2 alpha t) in r layers of extra
// cells on every face of the domain, written after each step at its end
// time. The grid is cut into P^3 blocks (--patches P per axis), each an
// array with r ghost layers; each step copies the face ghosts between
// blocks by hand (AMReX's FillBoundary with cross = true: faces only, as a
// star reads no edge or corner), sweeps the blocks from one array into the
// other, writes the boundary values and swaps the two arrays (no copies).
// --patches 1 is the whole grid as one array with its extra cells.
//
// The arithmetic is written exactly as Components/Stencil/HeatKernel.cc
// writes it (same weights, same order of operations, same timestep), so the
// final field has the same digest as `sus` on the same deck: the benchmark
// checks that both did the same work. The boundary values come from 1D
// tables of sin (what a careful programmer does), which are the same bits
// as Tessera's per-cell sin: the same arguments, the same products.
//
// The first --warmup steps are not timed; the rate counts the --steps steps
// after them; the digest is of the field after all warmup + steps steps.
// With --huge-pages 1 the arrays ask for transparent huge pages, as
// Tessera's cell variables do (Core/Util/HugePages.h).
//
//   heat-reference [--resolution N] [--patches P] [--radius R] [--steps S]
//                  [--warmup W] [--alpha A] [--multiplier M] [--max-time T]
//                  [--huge-pages 0|1]
// Threads: OMP_NUM_THREADS.

#include "Core/Grid/Variables/FieldDigest.h"
#include "Core/Util/HugePages.h"
#include "StandAlone/reference/ReferenceSupport.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr int kMaxRadius = 4;

struct Options {
  int resolution = 128;
  int patches = 1;  // per axis
  int radius = 1;
  int steps = 20;   // timed
  int warmup = 2;   // before the timed steps
  double alpha = 1.0;
  double multiplier = 0.5;
  double maxTime = 1e9;
  bool hugePages = false;
};

Options parse(int argc, char** argv) {
  Options options;
  tessera::reference::parseOptions(
      argc, argv, "heat-reference",
      {{"--resolution", [&](const char* v) { options.resolution = std::atoi(v); }},
       {"--patches", [&](const char* v) { options.patches = std::atoi(v); }},
       {"--radius", [&](const char* v) { options.radius = std::atoi(v); }},
       {"--steps", [&](const char* v) { options.steps = std::atoi(v); }},
       {"--warmup", [&](const char* v) { options.warmup = std::atoi(v); }},
       {"--alpha", [&](const char* v) { options.alpha = std::atof(v); }},
       {"--multiplier", [&](const char* v) { options.multiplier = std::atof(v); }},
       {"--max-time", [&](const char* v) { options.maxTime = std::atof(v); }},
       {"--huge-pages", [&](const char* v) { options.hugePages = std::atoi(v) != 0; }}});
  if (options.resolution < 1 || options.patches < 1 ||
      options.resolution % options.patches != 0 || options.radius < 1 ||
      options.radius > kMaxRadius || options.resolution / options.patches < options.radius ||
      options.steps < 0 || options.warmup < 0 || !(options.alpha > 0.0) ||
      !(options.multiplier > 0.0)) {
    std::fprintf(stderr,
                 "heat-reference: bad options (the patches must divide the resolution, the "
                 "radius be 1 to 4 and no wider than a block, alpha and the multiplier "
                 "positive)\n");
    std::exit(1);
  }
  return options;
}

// As Components/Stencil/StarWeights.h: the second derivative's central
// differences of order 2r (times h^2), w[0] at the centre, w[j] at +-j.
std::array<double, kMaxRadius + 1> secondDerivative(int radius) {
  switch (radius) {
    case 1: return {-2.0, 1.0, 0.0, 0.0, 0.0};
    case 2: return {-5.0 / 2.0, 4.0 / 3.0, -1.0 / 12.0, 0.0, 0.0};
    case 3: return {-49.0 / 18.0, 3.0 / 2.0, -3.0 / 20.0, 1.0 / 90.0, 0.0};
    default: return {-205.0 / 72.0, 8.0 / 5.0, -1.0 / 5.0, 8.0 / 315.0, -1.0 / 560.0};
  }
}

// The largest magnitude of the weights' symbol (4 for r = 1, 16/3 for r = 2).
double largestSymbol(const std::array<double, kMaxRadius + 1>& w, int radius) {
  double sum = w[0] < 0 ? -w[0] : w[0];
  for (int j = 1; j <= radius; ++j)
    sum += 2.0 * (w[j] < 0 ? -w[j] : w[j]);
  return sum;
}

using Cells = tessera::reference::FirstTouchArray;
using tessera::reference::advance;
using tessera::reference::nextDelT;

// A cube of cells [lo, lo + size) per axis with r ghost (or extra) layers
// on every side, indexed by global cell, x fastest.
struct Block {
  std::array<int, 3> lo{};
  std::array<int, 3> index{};  // position in the layout of blocks
  Cells u, next;
};

struct Geometry {
  int size = 0;  // interior cells per axis
  int r = 0;     // ghost layers
  long m = 0;    // size + 2 r
  long at(const Block& b, int i, int j, int k) const {
    return ((static_cast<long>(k - b.lo[2] + r)) * m + (j - b.lo[1] + r)) * m + (i - b.lo[0] + r);
  }
};

// A box of cells [lo, hi) of one block's array to fill: face ghosts from a
// neighbour (`from`), or boundary values (`from` null).
struct Slab {
  Block* block = nullptr;
  const Block* from = nullptr;
  std::array<int, 3> lo{}, hi{};
};

// The r-deep slab of `b` outside its face (axis, side), as wide as the
// interior along the other axes.
Slab faceSlab(Block& b, const Geometry& g, int axis, int side) {
  Slab s;
  s.block = &b;
  s.lo = b.lo;
  s.hi = {b.lo[0] + g.size, b.lo[1] + g.size, b.lo[2] + g.size};
  s.lo[axis] = side == 0 ? b.lo[axis] - g.r : b.lo[axis] + g.size;
  s.hi[axis] = s.lo[axis] + g.r;
  return s;
}

// Calls row(slab, j, k) for every x row of the slabs, shared out among the
// threads of the enclosing parallel region (the slabs are disjoint).
template <class F>
void forSlabRows(const std::vector<Slab>& slabs, const F& row) {
  for (const Slab& s : slabs) {
    const long ny = s.hi[1] - s.lo[1];
    const long rows = ny * (s.hi[2] - s.lo[2]);
#pragma omp for schedule(static) nowait
    for (long r = 0; r < rows; ++r)
      row(s, s.lo[1] + static_cast<int>(r % ny), s.lo[2] + static_cast<int>(r / ny));
  }
}

template <int R>
int run(const Options& options) {
  const int n = options.resolution;
  const int patches = options.patches;
  Geometry g;
  g.size = n / patches;
  g.r = R;
  g.m = g.size + 2 * R;
  const int size = g.size;
  const long sy = g.m;
  const long sz = g.m * g.m;

  // As HeatKernel: the unit cube, kappa = pi on every axis.
  const double pi = 3.14159265358979323846;
  const double dx = (1.0 - 0.0) / n;
  const double kappa = 1 * pi;
  const double decay = options.alpha * (kappa * kappa + kappa * kappa + kappa * kappa);
  const std::array<double, kMaxRadius + 1> weights = secondDerivative(R);
  const double stable =
      2.0 / (options.alpha * largestSymbol(weights, R) *
             (1.0 / (dx * dx) + 1.0 / (dx * dx) + 1.0 / (dx * dx)));
  // sin(kappa x) at the cell centres [-r, n + r): sines[i + r] is cell i.
  std::vector<double> sines(static_cast<std::size_t>(n + 2 * R));
  for (int i = -R; i < n + R; ++i)
    sines[static_cast<std::size_t>(i + R)] = std::sin(kappa * (0.0 + (i + 0.5) * dx));
  const double* const sine = sines.data() + R;

  std::vector<Block> blocks;
  for (int bz = 0; bz < patches; ++bz)
    for (int by = 0; by < patches; ++by)
      for (int bx = 0; bx < patches; ++bx) {
        Block b;
        b.index = {bx, by, bz};
        b.lo = {bx * size, by * size, bz * size};
        b.u = Cells(static_cast<std::size_t>(g.m * g.m * g.m), options.hugePages);
        b.next = Cells(static_cast<std::size_t>(g.m * g.m * g.m), options.hugePages,
                       Cells::kStagger);  // not in u's cache sets (Cells says why)
        blocks.push_back(std::move(b));
      }
  auto blockAt = [&](std::array<int, 3> at) -> Block* {
    for (int axis = 0; axis < 3; ++axis)
      if (at[axis] < 0 || at[axis] >= patches) return nullptr;
    return &blocks[static_cast<std::size_t>((at[2] * patches + at[1]) * patches + at[0])];
  };
  // The face ghosts each block takes from its neighbours, and the extra
  // cells on the domain's faces that take boundary values.
  std::vector<Slab> ghosts, boundary;
  for (Block& b : blocks)
    for (int axis = 0; axis < 3; ++axis)
      for (int side = 0; side < 2; ++side) {
        std::array<int, 3> at = b.index;
        at[axis] += side == 0 ? -1 : 1;
        Slab s = faceSlab(b, g, axis, side);
        if (const Block* from = blockAt(at)) {
          s.from = from;
          ghosts.push_back(s);
        } else {
          boundary.push_back(s);
        }
      }
  const long planes = static_cast<long>(blocks.size()) * size;  // (block, k) pairs to share out

  // The initial state at t = 0 on every cell of every array (interior,
  // ghosts and extra cells), first touched by the threads that sweep it.
  double time = 0.0;
  {
    const double e0 = std::exp(-decay * time);
#pragma omp parallel for schedule(static)
    for (long p = 0; p < planes; ++p) {
      Block& b = blocks[static_cast<std::size_t>(p / size)];
      const int k = b.lo[2] + static_cast<int>(p % size);
      const int kFirst = k == b.lo[2] ? k - R : k;
      const int kLast = k == b.lo[2] + size - 1 ? k + R : k;
      for (int kk = kFirst; kk <= kLast; ++kk)
        for (int j = b.lo[1] - R; j < b.lo[1] + size + R; ++j)
          for (int i = b.lo[0] - R; i < b.lo[0] + size + R; ++i) {
            const auto c = static_cast<std::size_t>(g.at(b, i, j, kk));
            b.u[c] = sine[i] * sine[j] * sine[kk] * e0;
            b.next[c] = 0.0;
          }
    }
  }

  double w[R + 1];
  for (int d = 0; d <= R; ++d)
    w[d] = weights[static_cast<std::size_t>(d)];
  const double w0 = w[0];

  auto step = [&] {
    const double delT = nextDelT(stable, options.multiplier, time, options.maxTime);
    const double after = advance(time, delT, options.maxTime);
    // c_a = dt alpha / dx_a^2, as HeatKernel::timeAdvance.
    const double a = delT * options.alpha;
    const double cx = a / (dx * dx);
    const double cy = a / (dx * dx);
    const double cz = a / (dx * dx);

    // Face ghosts from the neighbouring blocks (none with one block).
    if (!ghosts.empty()) {
#pragma omp parallel
      forSlabRows(ghosts, [&](const Slab& s, int j, int k) {
        double* __restrict to = s.block->u.data() + g.at(*s.block, s.lo[0], j, k);
        const double* __restrict from = s.from->u.data() + g.at(*s.from, s.lo[0], j, k);
        for (int i = 0; i < s.hi[0] - s.lo[0]; ++i)
          to[i] = from[i];
      });
    }

    // One sweep per block: the same expression as HeatKernel's eulerStep.
#pragma omp parallel for schedule(static)
    for (long plane = 0; plane < planes; ++plane) {
      Block& b = blocks[static_cast<std::size_t>(plane / size)];
      const int k = b.lo[2] + static_cast<int>(plane % size);
      const double* __restrict in = b.u.data();
      double* __restrict out = b.next.data();
      for (int j = b.lo[1]; j < b.lo[1] + size; ++j) {
        const long row = g.at(b, b.lo[0], j, k);
#pragma GCC ivdep
        for (int i = 0; i < size; ++i) {
          const long c0 = row + i;
          const double centre = in[c0];
          double dxx = w0 * centre;
          double dyy = w0 * centre;
          double dzz = w0 * centre;
          for (int d = 1; d <= R; ++d) {
            dxx += w[d] * (in[c0 - d] + in[c0 + d]);
            dyy += w[d] * (in[c0 - d * sy] + in[c0 + d * sy]);
            dzz += w[d] * (in[c0 - d * sz] + in[c0 + d * sz]);
          }
          out[c0] = centre + (cx * dxx + cy * dyy + cz * dzz);
        }
      }
    }

    // Dirichlet values at t + dt in the extra cells on the domain's faces.
    const double e = std::exp(-decay * after);
#pragma omp parallel
    forSlabRows(boundary, [&](const Slab& s, int j, int k) {
      double* __restrict to = s.block->next.data() + g.at(*s.block, s.lo[0], j, k);
      const double sj = sine[j];
      const double sk = sine[k];
      for (int i = s.lo[0]; i < s.hi[0]; ++i)
        to[i - s.lo[0]] = sine[i] * sj * sk * e;
    });

    for (Block& b : blocks)
      b.u.swap(b.next);
    time = after;
  };

  int warmup = 0;
  while (warmup < options.warmup && time < options.maxTime) {
    step();
    ++warmup;
  }
  int timed = 0;
  const auto start = std::chrono::steady_clock::now();
  while (timed < options.steps && time < options.maxTime) {
    step();
    ++timed;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // The digest of the interior cells, as sus computes it (FieldDigest.h).
  std::uint64_t digest = 0;
#pragma omp parallel for schedule(static) reduction(+ : digest)
  for (long p = 0; p < planes; ++p) {
    const Block& b = blocks[static_cast<std::size_t>(p / size)];
    const int k = b.lo[2] + static_cast<int>(p % size);
    for (int j = b.lo[1]; j < b.lo[1] + size; ++j)
      for (int i = b.lo[0]; i < b.lo[0] + size; ++i)
        digest += tessera::cellDigest(
            i, j, k, tessera::valueBits(b.u[static_cast<std::size_t>(g.at(b, i, j, k))]));
  }
  const double updates = static_cast<double>(n) * n * n * timed;
  std::printf(
      "reference: %d timesteps (%d warm-up, %d timed) to time %.9g with %d thread(s), %d^3 "
      "block(s), radius %d\n",
      warmup + timed, warmup, timed, time, omp_get_max_threads(), patches, R);
  std::printf("  wall time %.4g s, %.4g ms per timestep, %.3e cell updates per second\n", seconds,
              timed > 0 ? seconds / timed * 1e3 : 0.0, seconds > 0.0 ? updates / seconds : 0.0);
  std::printf("digest u %016llx\n", static_cast<unsigned long long>(digest));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  switch (options.radius) {
    case 1: return run<1>(options);
    case 2: return run<2>(options);
    case 3: return run<3>(options);
    default: return run<4>(options);
  }
}
