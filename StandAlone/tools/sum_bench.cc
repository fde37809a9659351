// tessera-sum-bench: what exact sums cost. Times Burgers' squared-error
// reduction (the L2 norm's kernel: e = u - phi(x) phi(y) phi(z), sum of e^2)
// over an n^3 box, as a plain double sum (Kokkos::Sum<double>) and as an
// exact one (Kokkos::Sum<ExactSum>), interleaved, and prints one JSON line:
//   {"cells": ..., "threads": ..., "double_seconds": [...], "exact_seconds": [...],
//    "double_value": ..., "exact_value": ...}
//
//   tessera-sum-bench [--cells 128] [--repeat 7]
// Exit codes: 0 success, 1 bad arguments.

#include "Core/Grid/Box.h"
#include "Core/Parallel/LoopHelpers.h"
#include "Core/Util/ExactSum.h"
#include "Core/Util/Timer.h"

#include "StandAlone/CliChecks.h"

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  using namespace tessera;
  CLI::App app{"tessera-sum-bench: the cost of exact sums on Burgers' error norm", "tessera-sum-bench"};
  int cells = 128;
  int repeat = 7;
  app.add_option("--cells", cells, "cells along each axis")->check(kPositive);
  app.add_option("--repeat", repeat, "timed runs of each sum")->check(kPositive);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  const Kokkos::ScopeGuard kokkos(argc, argv);
  const Box box({0, 0, 0}, {cells, cells, cells});
  const auto n = static_cast<std::size_t>(cells);
  // A field close to the product of 1D tables, as after a Burgers run.
  std::vector<double> field(n * n * n);
  std::vector<double> phi(n);
  for (std::size_t i = 0; i < n; ++i)
    phi[i] = 0.5 + 0.4 * std::sin(0.37 * static_cast<double>(i));
  for (std::size_t c = 0; c < field.size(); ++c)
    field[c] = phi[c % n] * phi[(c / n) % n] * phi[c / (n * n)] * (1.0 + 1e-3 * std::cos(0.1 * c));
  const double* u = field.data();
  const double* table = phi.data();
  const auto error = [=](int i, int j, int k) {
    const auto at = (static_cast<std::size_t>(k) * n + static_cast<std::size_t>(j)) * n + i;
    return u[at] - table[i] * table[j] * table[k];
  };
  nlohmann::json out = {{"cells", cells},
                        {"threads", Kokkos::DefaultExecutionSpace().concurrency()},
                        {"double_seconds", nlohmann::json::array()},
                        {"exact_seconds", nlohmann::json::array()}};
  double plain = 0.0;
  ExactSum exact;
  for (int r = 0; r < repeat; ++r) {
    {
      plain = 0.0;
      const Timer timer;
      parallelReduce(
          "double sum", box,
          KOKKOS_LAMBDA(int i, int j, int k, double& s) {
            const double e = error(i, j, k);
            s += e * e;
          },
          Kokkos::Sum<double>(plain));
      out["double_seconds"].push_back(timer.seconds());
    }
    {
      exact = ExactSum();
      const Timer timer;
      parallelReduce(
          "exact sum", box,
          KOKKOS_LAMBDA(int i, int j, int k, ExactSum& s) {
            const double e = error(i, j, k);
            s.add(e * e);
          },
          Kokkos::Sum<ExactSum>(exact));
      out["exact_seconds"].push_back(timer.seconds());
    }
  }
  out["double_value"] = plain;
  out["exact_value"] = exact.value();
  std::cout << out.dump() << "\n";
  return 0;
}
