// tessera-compile-bench: what compiling one rank's task graph costs on a
// large machine, measured on this one. Compilation needs no communication
// (every rank derives its own part from the grid and the load balance), so
// one process can build the graph of any single rank of any rank count.
//
//   tessera-compile-bench --patches 100,100,100 --ranks 10000 [--rank R] [--cells 16]
//
// The graph is Burgers' timestep graph in shape: a task reading a cell
// variable from the old warehouse with one layer of face ghosts and
// computing it, and a per-patch task feeding a min-reduction. Patches are
// placed by the Hilbert-curve load balancer. Prints the time and memory of
// each stage and the size of the compiled graph.
// Exit codes: 0 success, 1 bad arguments.

#include "CCA/Components/LoadBalancers/LoadBalancerFactory.h"
#include "CCA/Components/Schedulers/TaskGraph.h"
#include "CCA/Ports/Task.h"
#include "Core/Grid/Grid.h"
#include "Core/Grid/Variables/CCVariable.h"
#include "Core/Grid/Variables/ReductionVariable.h"
#include "Core/Util/PeakMemory.h"
#include "Core/Util/Timer.h"

#include "StandAlone/CliChecks.h"

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>

namespace {

using namespace tessera;

double peakMegabytes() { return static_cast<double>(peakResidentBytes()) / (1024.0 * 1024.0); }

void noop(const Patch&, const DataWarehouse&, DataWarehouse&, ExecutionContext&) {}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tessera-compile-bench: time the task graph compiler for one rank of many",
               "tessera-compile-bench"};
  std::vector<int> layout{32, 32, 32};
  int ranks = 2;
  int rank = 0;
  int cells = 4;
  app.add_option("--patches", layout, "patch layout, e.g. 100,100,100")
      ->delimiter(',')
      ->expected(3);
  app.add_option("--ranks", ranks, "number of ranks the patches are spread over")
      ->check(tessera::kPositive);
  app.add_option("--rank", rank, "the rank whose graph is compiled")->check(tessera::kNonNegative);
  app.add_option("--cells", cells, "cells per patch along each axis")->check(tessera::kPositive);
  try {
    app.parse(argc, argv);
    if (rank >= ranks) throw CLI::ValidationError("--rank", "must be below --ranks");
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  // Kokkos is initialised because the labels' variable types are Kokkos
  // types; no kernel runs.
  const Kokkos::ScopeGuard kokkos(argc, argv);

  const Timer total;
  Timer stage;
  LevelSpec spec;
  spec.patches = {layout[0], layout[1], layout[2]};
  spec.resolution = spec.patches * cells;
  spec.extraCells = {1, 1, 1};
  Grid grid;
  const Level& level = grid.addLevel(spec);
  const double gridSeconds = stage.seconds();

  stage.reset();
  const std::vector<int> owners = makeLoadBalancer("sfc", "hilbert")->assign(grid, ranks);
  const double balanceSeconds = stage.seconds();

  VarLabelRegistry labels;
  const VarLabel* u = labels.create<CCVariable<double>>("u");
  const VarLabel* delT = labels.create<MinVariable<double>>("delT");
  TaskGraph graph("timestep");
  stage.reset();
  Task advance("advance", noop);
  advance.requiresVar(Task::OldDW, u, Ghost::AroundFaces, 1).computesVar(u);
  graph.addTask(std::move(advance), level.eachPatch());
  Task stable("stable", noop, Task::Kind::Host);
  stable.computesVar(delT);
  graph.addTask(std::move(stable), level.eachPatch());
  const double recordSeconds = stage.seconds();

  stage.reset();
  const CompiledGraph compiled = graph.compile(grid, owners, rank);
  const double compileSeconds = stage.seconds();

  const auto local = static_cast<long>(std::count(owners.begin(), owners.end(), rank));
  std::size_t pieces = 0;
  for (const Message& m : compiled.sends)
    pieces += m.pieces.size();
  std::printf("level: %d x %d x %d = %d patches of %d^3 cells; %d ranks; rank %d owns %ld\n",
              layout[0], layout[1], layout[2], level.numPatches(), cells, ranks, rank, local);
  std::printf("build the grid:        %9.2f ms\n", gridSeconds * 1e3);
  std::printf("load balance (SFC):    %9.2f ms\n", balanceSeconds * 1e3);
  std::printf("record the tasks:      %9.2f ms\n", recordSeconds * 1e3);
  std::printf("compile rank %-6d    %9.2f ms\n", rank, compileSeconds * 1e3);
  std::printf(
      "compiled graph: %zu detailed tasks, %zu ghost fills, %zu sends (%zu pieces, %zu bytes), "
      "%zu receives (%zu bytes)\n",
      compiled.detailedTasks.size(), compiled.fills.size(), compiled.sends.size(), pieces,
      compiled.bytesSent(), compiled.receives.size(), compiled.bytesReceived());
  std::printf("peak memory %.1f MB, total %.2f ms\n", peakMegabytes(), total.seconds() * 1e3);
  return 0;
}
