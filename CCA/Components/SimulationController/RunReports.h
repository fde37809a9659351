#pragma once
// What the controller writes about a run besides its archive: the timestep
// graph as DOT (--emit-taskgraph), the graph a trace is checked against
// (--trace), a line of per-timestep statistics (--stats), and the numbers
// of its log lines.

#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "CCA/Components/Schedulers/GraphScheduler.h"
#include "CCA/Components/Schedulers/SchedulerStats.h"
#include "Core/Grid/Grid.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace tessera {

// Every rank's compiled timestep graph as one DOT file (rank 0 writes it).
void writeTaskGraph(const std::string& file, const GraphScheduler& sched, const Grid& grid,
                    const std::vector<int>& patchRanks, int numRanks);

// What a trace reader needs to check a trace against the timestep graph:
// this rank's detailed tasks (reductions apart), by id.
nlohmann::json describeForTrace(const CompiledGraph& graph);

// One JSON line of a timestep's statistics.
void writeStatsLine(std::ostream& out, int step, double time, double delT, double wall,
                    const std::string& scheduler, const SchedulerStats& s);

// Seconds as milliseconds with one decimal, for the log.
std::string ms(double seconds);
// A fraction as a percentage with one decimal, for the log.
std::string percent(double fraction);

}  // namespace tessera
