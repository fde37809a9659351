// burgers-reference: the Burgers model problem as one hand-written, fused
// OpenMP program, with no framework: the yardstick scripts/bench/burgers.py
// measures Tessera against in the same run.
//
// It does per step what a careful programmer would do by hand (and what a
// hand-written AMReX program does): phi tables at t, the stable timestep
// from them (separable, O(n)), one fused sweep of the upwind/central stencil,
// and Dirichlet values at t + dt in the extra cells from the tables at t + dt.
// The arithmetic is written exactly as Tessera's Burgers component writes it,
// so the final field must have the same digest as `sus` on the same deck:
// the benchmark checks that both did the same work.
//
//   burgers-reference [--resolution N] [--steps S] [--viscosity NU]
//                     [--multiplier M] [--max-time T]
// Threads: OMP_NUM_THREADS.

#include "Core/Grid/Variables/FieldDigest.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
  int resolution = 128;
  int steps = 20;
  double viscosity = 0.01;
  double multiplier = 0.9;
  double maxTime = 1.0;
};

Options parse(int argc, char** argv) {
  Options options;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (a + 1 >= argc) {
      std::fprintf(stderr, "burgers-reference: %s needs a value\n", arg.c_str());
      std::exit(1);
    }
    const char* value = argv[++a];
    if (arg == "--resolution") {
      options.resolution = std::atoi(value);
    } else if (arg == "--steps") {
      options.steps = std::atoi(value);
    } else if (arg == "--viscosity") {
      options.viscosity = std::atof(value);
    } else if (arg == "--multiplier") {
      options.multiplier = std::atof(value);
    } else if (arg == "--max-time") {
      options.maxTime = std::atof(value);
    } else {
      std::fprintf(stderr, "burgers-reference: unknown option %s\n", arg.c_str());
      std::exit(1);
    }
  }
  if (options.resolution < 2 || options.steps < 0 || !(options.viscosity > 0.0)) {
    std::fprintf(stderr, "burgers-reference: bad options\n");
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

// The unit cube with n cells per axis and one extra cell on every side;
// index e = i + 1 for cell i in [-1, n].
class Grid {
 public:
  explicit Grid(int n) : n(n), m(n + 2), h(1.0 / n) {}
  std::size_t at(int i, int j, int k) const {
    return (static_cast<std::size_t>(k + 1) * m + static_cast<std::size_t>(j + 1)) * m +
           static_cast<std::size_t>(i + 1);
  }
  std::size_t cells() const { return static_cast<std::size_t>(m) * m * m; }
  double centre(int i) const { return 0.0 + (i + 0.5) * h; }

  const int n;
  const int m;
  const double h;
};

// phi at the cell centres [-1, n] of each axis (the grid is a cube: one table).
void tabulate(const Grid& g, double t, double nu, std::vector<double>& table) {
  for (int i = -1; i <= g.n; ++i)
    table[static_cast<std::size_t>(i + 1)] = phi(g.centre(i), t, nu);
}

// The stable timestep at the time of `table`: the bound of Tessera's Burgers
// (max over cells of a sum of per-axis terms = sum of per-axis maxima).
double stableTimestep(const Grid& g, const std::vector<double>& table, double nu) {
  double largest = 0.0;
  for (int i = 0; i < g.n; ++i)
    largest = std::max(largest, std::fabs(table[static_cast<std::size_t>(i + 1)]) / g.h);
  const double diffusion = 2.0 * nu * (1.0 / (g.h * g.h) + 1.0 / (g.h * g.h) + 1.0 / (g.h * g.h));
  return 1.0 / (largest + largest + largest + diffusion);
}

double nextDelT(double stable, double multiplier, double time, double maxTime) {
  double delT = stable * multiplier;
  if (time + delT >= maxTime) delT = maxTime - time;
  return delT;
}

double advance(double time, double delT, double maxTime) {
  const double next = time + delT;
  return (next >= maxTime || delT >= maxTime - time) ? maxTime : next;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  const Grid g(options.resolution);
  const double nu = options.viscosity;
  const int n = g.n;
  const std::size_t sy = static_cast<std::size_t>(g.m);
  const std::size_t sz = sy * sy;
  std::vector<double> uStorage(g.cells()), nextStorage(g.cells());
  std::vector<double> phiNow(static_cast<std::size_t>(g.m)), phiNext(phiNow.size());
  double* u = uStorage.data();
  double* next = nextStorage.data();

  double time = 0.0;
  tabulate(g, time, nu, phiNow);
  // First touch by the threads that will sweep each plane.
#pragma omp parallel for schedule(static)
  for (int k = -1; k <= n; ++k)
    for (int j = -1; j <= n; ++j)
      for (int i = -1; i <= n; ++i) {
        const std::size_t c = g.at(i, j, k);
        u[c] = phiNow[i + 1] * phiNow[j + 1] * phiNow[k + 1];
        next[c] = 0.0;
      }
  double stable = stableTimestep(g, phiNow, nu);

  const double invH = 1.0 / g.h;
  const double invH2 = invH * invH;
  int steps = 0;
  const auto start = std::chrono::steady_clock::now();
  while (steps < options.steps && time < options.maxTime) {
    const double dt = nextDelT(stable, options.multiplier, time, options.maxTime);
    const double after = advance(time, dt, options.maxTime);
    const double* p = phiNow.data() + 1;  // p[i] = phi at cell i
    const double* __restrict in = u;
    double* __restrict out = next;
    // One fused sweep: the same expression as Burgers::timeAdvance.
#pragma omp parallel for schedule(static)
    for (int k = 0; k < n; ++k) {
      for (int j = 0; j < n; ++j) {
        const double py = p[j];
        const double pz = p[k];
        const std::size_t row = g.at(0, j, k);
        for (int i = 0; i < n; ++i) {
          const std::size_t c0 = row + static_cast<std::size_t>(i);
          const double c = in[c0];
          const double advection = p[i] * (c - in[c0 - 1]) * invH +
                                   py * (c - in[c0 - sy]) * invH +
                                   pz * (c - in[c0 - sz]) * invH;
          const double diffusion = (in[c0 + 1] - 2.0 * c + in[c0 - 1]) * invH2 +
                                   (in[c0 + sy] - 2.0 * c + in[c0 - sy]) * invH2 +
                                   (in[c0 + sz] - 2.0 * c + in[c0 - sz]) * invH2;
          out[c0] = c + dt * (nu * diffusion - advection);
        }
      }
    }
    // Dirichlet values at t + dt on the six faces, from the tables at t + dt.
    tabulate(g, after, nu, phiNext);
    const double* q = phiNext.data() + 1;
#pragma omp parallel for schedule(static)
    for (int b = -1; b <= n; ++b) {
      for (int a = -1; a <= n; ++a) {
        out[g.at(-1, a, b)] = q[-1] * q[a] * q[b];
        out[g.at(n, a, b)] = q[n] * q[a] * q[b];
        out[g.at(a, -1, b)] = q[a] * q[-1] * q[b];
        out[g.at(a, n, b)] = q[a] * q[n] * q[b];
        out[g.at(a, b, -1)] = q[a] * q[b] * q[-1];
        out[g.at(a, b, n)] = q[a] * q[b] * q[n];
      }
    }
    stable = stableTimestep(g, phiNext, nu);
    std::swap(u, next);
    std::swap(phiNow, phiNext);
    time = after;
    ++steps;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::uint64_t digest = 0;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        digest += tessera::cellDigest(i, j, k, tessera::valueBits(u[g.at(i, j, k)]));
  const double updates = static_cast<double>(n) * n * n * steps;
  std::printf("reference: %d timesteps to time %.9g with %d thread(s)\n", steps, time,
              omp_get_max_threads());
  std::printf("  wall time %.4g s, %.4g ms per timestep, %.3e cell updates per second\n", seconds,
              steps > 0 ? seconds / steps * 1e3 : 0.0, seconds > 0.0 ? updates / seconds : 0.0);
  std::printf("digest u %016llx\n", static_cast<unsigned long long>(digest));
  return 0;
}
