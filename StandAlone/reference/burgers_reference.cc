// burgers-reference: the Burgers model problem as one small hand-written
// OpenMP program, with no framework: the yardstick scripts/bench/burgers.py
// measures Tessera against in the same run.
//
// It does per step what a careful programmer would do by hand (and what a
// hand-written AMReX program does): phi tables at t, the stable timestep
// from them (separable, O(n)), one fused sweep of the upwind/central stencil,
// and Dirichlet values at t + dt in the extra cells from the tables at t + dt.
// Two layouts:
//   --patches 1 (default): the whole grid is one array, swept by one loop
//     nest: no ghost cells, no decomposition at all;
//   --patches P: the grid is cut into P^3 blocks, each an array with one
//     ghost layer, and each step first copies the face ghosts between blocks
//     by hand (AMReX's FillBoundary with cross = true), then sweeps the
//     blocks: the same data layout as Tessera's patches, without a runtime.
// The arithmetic is written exactly as Tessera's Burgers component writes it,
// so the final field has the same digest as `sus` on the same deck: the
// benchmark checks that both did the same work.
//
// With --huge-pages 1 its arrays ask for transparent huge pages, as Tessera's
// cell variables do (Core/Util/HugePages.h): the benchmark runs the fused
// loop both ways, so the page size is not mistaken for the framework's merit.
//
//   burgers-reference [--resolution N] [--patches P] [--steps S]
//                     [--viscosity NU] [--multiplier M] [--max-time T]
//                     [--huge-pages 0|1]
// Threads: OMP_NUM_THREADS.

#include "Core/Grid/Variables/FieldDigest.h"
#include "Core/Util/HugePages.h"
#include "StandAlone/reference/ReferenceSupport.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Options {
  int resolution = 128;
  int patches = 1;  // per axis
  int steps = 20;
  double viscosity = 0.01;
  double multiplier = 0.9;
  double maxTime = 1.0;
  bool hugePages = false;
};

Options parse(int argc, char** argv) {
  Options options;
  tessera::reference::parseOptions(
      argc, argv, "burgers-reference",
      {{"--resolution", [&](const char* v) { options.resolution = std::atoi(v); }},
       {"--patches", [&](const char* v) { options.patches = std::atoi(v); }},
       {"--steps", [&](const char* v) { options.steps = std::atoi(v); }},
       {"--viscosity", [&](const char* v) { options.viscosity = std::atof(v); }},
       {"--multiplier", [&](const char* v) { options.multiplier = std::atof(v); }},
       {"--max-time", [&](const char* v) { options.maxTime = std::atof(v); }},
       {"--huge-pages", [&](const char* v) { options.hugePages = std::atoi(v) != 0; }}});
  if (options.resolution < 2 || options.patches < 1 || options.resolution % options.patches != 0 ||
      options.steps < 0 || !(options.viscosity > 0.0)) {
    std::fprintf(stderr,
                 "burgers-reference: bad options (the patches must divide the resolution)\n");
    std::exit(1);
  }
  return options;
}

// The exact solution's 1D factor, as Components/Burgers/ExactSolution.h.
double phi(double x, double t, double nu) {
  const double a = -0.05 * (x - 0.5 + 4.95 * t) / nu;
  const double b = -0.25 * (x - 0.5 + 0.75 * t) / nu;
  const double c = -0.5 * (x - 0.375) / nu;
  const double largest = std::fmax(a, std::fmax(b, c));
  const double ea = std::exp(a - largest);
  const double eb = std::exp(b - largest);
  const double ec = std::exp(c - largest);
  return (0.1 * ea + 0.5 * eb + ec) / (ea + eb + ec);
}

// phi at the cell centres [-1, n] of the unit interval cut into n cells (the
// grid is a cube: one table serves the three axes); table[i + 1] is cell i.
void tabulate(int n, double t, double nu, std::vector<double>& table) {
  const double h = 1.0 / n;
  for (int i = -1; i <= n; ++i)
    table[static_cast<std::size_t>(i + 1)] = phi(0.0 + (i + 0.5) * h, t, nu);
}

// The stable timestep at the time of `table`: the bound of Tessera's Burgers
// (max over cells of a sum of per-axis terms = sum of per-axis maxima).
double stableTimestep(int n, const std::vector<double>& table, double nu) {
  const double h = 1.0 / n;
  double largest = 0.0;
  for (int i = 0; i < n; ++i)
    largest = std::max(largest, std::fabs(table[static_cast<std::size_t>(i + 1)]) / h);
  const double diffusion = 2.0 * nu * (1.0 / (h * h) + 1.0 / (h * h) + 1.0 / (h * h));
  return 1.0 / (largest + largest + largest + diffusion);
}

using Cells = tessera::reference::FirstTouchArray;
using tessera::reference::advance;
using tessera::reference::nextDelT;

// A cube of cells [lo, lo + size) per axis with one ghost (or extra) layer,
// indexed by global cell, x fastest.
struct Block {
  std::array<int, 3> lo{};
  std::array<int, 3> index{};  // position in the layout of blocks
  int size = 0;
  long m = 0;  // size + 2
  Cells u, next;

  long at(int i, int j, int k) const {
    return ((k - lo[2] + 1) * m + (j - lo[1] + 1)) * m + (i - lo[0] + 1);
  }
};

class Layout {
 public:
  Layout(int n, int patches, bool hugePages)
      : m_n(n), m_patches(patches), m_size(n / patches) {
    for (int bz = 0; bz < patches; ++bz)
      for (int by = 0; by < patches; ++by)
        for (int bx = 0; bx < patches; ++bx) {
          Block b;
          b.index = {bx, by, bz};
          b.lo = {bx * m_size, by * m_size, bz * m_size};
          b.size = m_size;
          b.m = m_size + 2;
          b.u = Cells(static_cast<std::size_t>(b.m * b.m * b.m), hugePages);
          b.next = Cells(static_cast<std::size_t>(b.m * b.m * b.m), hugePages,
                         Cells::kStagger);  // not in u's cache sets (Cells says why)
          m_blocks.push_back(std::move(b));
        }
  }
  std::vector<Block>& blocks() { return m_blocks; }
  int size() const { return m_size; }
  // The neighbour of `b` across (axis, side), or nullptr at the domain's edge.
  Block* neighbour(const Block& b, int axis, int side) {
    std::array<int, 3> at = b.index;
    at[axis] += side == 0 ? -1 : 1;
    if (at[axis] < 0 || at[axis] >= m_patches) return nullptr;
    return &m_blocks[static_cast<std::size_t>((at[2] * m_patches + at[1]) * m_patches + at[0])];
  }
  bool onDomainEdge(const Block& b, int axis, int side) const {
    return side == 0 ? b.lo[axis] == 0 : b.lo[axis] + m_size == m_n;
  }

 private:
  int m_n;
  int m_patches;
  int m_size;
  std::vector<Block> m_blocks;
};

// Calls f(i, j, k) for the cells of the ghost slab of `b` across (axis,
// side), as wide as the interior along the other axes.
template <class F>
void forFaceSlab(const Block& b, int axis, int side, const F& f) {
  std::array<int, 3> lo = b.lo;
  std::array<int, 3> hi = {b.lo[0] + b.size, b.lo[1] + b.size, b.lo[2] + b.size};
  lo[axis] = side == 0 ? b.lo[axis] - 1 : b.lo[axis] + b.size;
  hi[axis] = lo[axis] + 1;
  for (int k = lo[2]; k < hi[2]; ++k)
    for (int j = lo[1]; j < hi[1]; ++j)
      for (int i = lo[0]; i < hi[0]; ++i)
        f(i, j, k);
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  const int n = options.resolution;
  const double nu = options.viscosity;
  const double invH = 1.0 / (1.0 / n);
  const double invH2 = invH * invH;
  Layout layout(n, options.patches, options.hugePages);
  std::vector<Block>& blocks = layout.blocks();
  const int size = layout.size();
  const long planes = static_cast<long>(blocks.size()) * size;  // (block, k) pairs to share out
  std::vector<double> phiNow(static_cast<std::size_t>(n + 2)), phiNext(phiNow.size());

  double time = 0.0;
  tabulate(n, time, nu, phiNow);
  {
    const double* q = phiNow.data() + 1;
    // First touch by the threads that will sweep each plane.
#pragma omp parallel for schedule(static)
    for (long p = 0; p < planes; ++p) {
      Block& b = blocks[static_cast<std::size_t>(p / size)];
      const int k = b.lo[2] + static_cast<int>(p % size);
      for (int kk = (k == b.lo[2] ? k - 1 : k); kk <= (k == b.lo[2] + size - 1 ? k + 1 : k); ++kk)
        for (int j = b.lo[1] - 1; j <= b.lo[1] + size; ++j)
          for (int i = b.lo[0] - 1; i <= b.lo[0] + size; ++i) {
            b.u[static_cast<std::size_t>(b.at(i, j, kk))] = q[i] * q[j] * q[kk];
            b.next[static_cast<std::size_t>(b.at(i, j, kk))] = 0.0;
          }
    }
  }
  double stable = stableTimestep(n, phiNow, nu);

  int steps = 0;
  const auto start = std::chrono::steady_clock::now();
  while (steps < options.steps && time < options.maxTime) {
    const double dt = nextDelT(stable, options.multiplier, time, options.maxTime);
    const double after = advance(time, dt, options.maxTime);
    const double* p = phiNow.data() + 1;  // p[i] = phi at cell i

    // Face ghosts from the neighbouring blocks (none with one block).
    if (blocks.size() > 1) {
#pragma omp parallel for schedule(static)
      for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
        Block& b = blocks[bi];
        for (int axis = 0; axis < 3; ++axis)
          for (int side = 0; side < 2; ++side) {
            const Block* from = layout.neighbour(b, axis, side);
            if (from == nullptr) continue;
            forFaceSlab(b, axis, side, [&](int i, int j, int k) {
              b.u[static_cast<std::size_t>(b.at(i, j, k))] =
                  from->u[static_cast<std::size_t>(from->at(i, j, k))];
            });
          }
      }
    }

    // Dirichlet values at t + dt in the extra cells on the domain's faces,
    // from the tables at t + dt (the cells the stencil reads): those of the
    // x faces with the sweep's rows, whose first and last cells share their
    // cache lines (as Burgers::timeAdvance does), the others below.
    tabulate(n, after, nu, phiNext);
    const double* q = phiNext.data() + 1;

    // One fused sweep per block: the same expression as Burgers::timeAdvance.
#pragma omp parallel for schedule(static)
    for (long plane = 0; plane < planes; ++plane) {
      Block& b = blocks[static_cast<std::size_t>(plane / size)];
      const int k = b.lo[2] + static_cast<int>(plane % size);
      const long sy = b.m;
      const long sz = b.m * b.m;
      const double* __restrict in = b.u.data();
      double* __restrict out = b.next.data();
      const double pz = p[k];
      const bool west = layout.onDomainEdge(b, 0, 0);
      const bool east = layout.onDomainEdge(b, 0, 1);
      for (int j = b.lo[1]; j < b.lo[1] + size; ++j) {
        const double py = p[j];
        const long row = b.at(b.lo[0], j, k);
        for (int i = b.lo[0]; i < b.lo[0] + size; ++i) {
          const long c0 = row + (i - b.lo[0]);
          const double c = in[c0];
          const double advection = p[i] * (c - in[c0 - 1]) * invH + py * (c - in[c0 - sy]) * invH +
                                   pz * (c - in[c0 - sz]) * invH;
          const double diffusion = (in[c0 + 1] - 2.0 * c + in[c0 - 1]) * invH2 +
                                   (in[c0 + sy] - 2.0 * c + in[c0 - sy]) * invH2 +
                                   (in[c0 + sz] - 2.0 * c + in[c0 - sz]) * invH2;
          out[c0] = c + dt * (nu * diffusion - advection);
        }
        if (west) out[row - 1] = q[b.lo[0] - 1] * q[j] * q[k];
        if (east) out[row + size] = q[b.lo[0] + size] * q[j] * q[k];
      }
    }

#pragma omp parallel for schedule(static)
    for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
      Block& b = blocks[bi];
      for (int axis = 1; axis < 3; ++axis)
        for (int side = 0; side < 2; ++side) {
          if (!layout.onDomainEdge(b, axis, side)) continue;
          forFaceSlab(b, axis, side, [&](int i, int j, int k) {
            b.next[static_cast<std::size_t>(b.at(i, j, k))] = q[i] * q[j] * q[k];
          });
        }
    }
    stable = stableTimestep(n, phiNext, nu);
    for (Block& b : blocks)
      b.u.swap(b.next);
    std::swap(phiNow, phiNext);
    time = after;
    ++steps;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::uint64_t digest = 0;
  for (const Block& b : blocks)
    for (int k = b.lo[2]; k < b.lo[2] + size; ++k)
      for (int j = b.lo[1]; j < b.lo[1] + size; ++j)
        for (int i = b.lo[0]; i < b.lo[0] + size; ++i)
          digest += tessera::cellDigest(
              i, j, k, tessera::valueBits(b.u[static_cast<std::size_t>(b.at(i, j, k))]));
  const double updates = static_cast<double>(n) * n * n * steps;
  std::printf("reference: %d timesteps to time %.9g with %d thread(s), %d^3 block(s)\n", steps,
              time, omp_get_max_threads(), options.patches);
  std::printf("  wall time %.4g s, %.4g ms per timestep, %.3e cell updates per second\n", seconds,
              steps > 0 ? seconds / steps * 1e3 : 0.0, seconds > 0.0 ? updates / seconds : 0.0);
  std::printf("digest u %016llx\n", static_cast<unsigned long long>(digest));
  return 0;
}
