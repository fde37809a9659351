#pragma once
// Runs a simulation from a deck: validates it, builds the grid and the load
// balance, lets the component schedule its tasks, and drives the time loop.

#include "CCA/Components/Parent/ComponentRegistry.h"
#include "CCA/Components/Schedulers/SchedulerStats.h"
#include "Core/ProblemSpec/ProblemSpec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

class Communicator;
class Logger;

struct RestartOptions {
  std::string directory;        // the run directory to continue
  std::optional<int> timestep;  // which checkpoint; the newest usable when absent
};

struct RunOptions {
  std::optional<RestartOptions> restart;
  std::optional<int> maxTimesteps;  // overrides time.max_timesteps
  std::string schedulerType;        // overrides scheduler.type when not empty
  std::string taskGraphFile;        // write the timestep graph as DOT here
  std::string statsFile;            // per-timestep statistics as JSON lines (rank 0)
  std::string traceFile;            // a Chrome trace-event timeline of the run (TraceFile.h)
};

struct FieldDigest {
  std::string name;
  std::uint64_t digest = 0;
};

// A reduction variable's value at the end of the run, converted to double
// (exact for every value type a reduction holds: double, float, int, int64
// below 2^53).
struct ReducedValue {
  std::string name;
  std::string valueType;
  double value = 0.0;
};

struct RunResult {
  int timesteps = 0;      // run by this invocation
  int firstTimestep = 0;  // the timestep it started from (a restart's checkpoint)
  double time = 0.0;
  double wallSeconds = 0.0;      // the time loop
  std::int64_t cellUpdates = 0;  // cells x timesteps (the cells of each timestep's grid)
  int regridChecks = 0;          // times the component tagged for a regrid
  int regrids = 0;               // ... and the levels changed
  std::vector<std::int64_t> levelCells;  // the cells of each level at the end
  int rebalances = 0;                    // dynamic load balancing's migrations
  std::int64_t patchesMoved = 0;         // ... the patches they moved
  std::vector<FieldDigest> digests;
  std::vector<std::pair<std::string, double>> analysis;
  std::vector<std::string> analysisReport;  // the component's lines of text
  std::vector<ReducedValue> reductions;  // of the last timestep, in name order
  SchedulerStats stats;  // counts summed over ranks, times of rank 0
  // Bytes each rank sent and received in the time loop, indexed by rank.
  std::vector<double> loopBytesSent;
  std::vector<double> loopBytesReceived;
  // Seconds each rank spent inside tasks in the time loop, indexed by rank:
  // the work the load balancer spread, as the ranks measured it.
  std::vector<double> loopTaskSeconds;
  std::string schedulerMode;
  std::string outputDirectory;       // empty without output or checkpoints
  std::int64_t checkpointBytes = 0;  // written by rank 0's view of the files
  double checkpointSeconds = 0.0;

  // max / mean - 1 of loopTaskSeconds (0: every rank worked as long; 1: the
  // busiest worked twice the mean), as Uintah reports its load imbalance;
  // 0 for one rank or no task time.
  double loadImbalance() const;
};

class SimulationController {
 public:
  SimulationController(ProblemSpec deck, const ComponentRegistry& components,
                       const Communicator& world, Logger& log);

  // Checks the whole deck (core sections and the component's own) without running.
  void validate() const;
  RunResult run(const RunOptions& options);

 private:
  ProblemSpec m_deck;
  const ComponentRegistry& m_components;
  const Communicator& m_world;
  Logger& m_log;
};

}  // namespace tessera
