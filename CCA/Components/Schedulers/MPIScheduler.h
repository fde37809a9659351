#pragma once
// The synchronous scheduler (the seed paper's host.sync baseline): posts
// every receive first, runs the detailed tasks in their deterministic order
// on the calling thread, waits only for the messages a task needs, and sends
// a task's outputs as soon as the task finishes.

#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Components/Schedulers/SchedulerStats.h"
#include "CCA/Components/Schedulers/TaskGraph.h"
#include "CCA/Ports/Scheduler.h"
#include "Core/Parallel/Communicator.h"

#include <memory>
#include <string>
#include <vector>

namespace tessera {

class Grid;

class MPIScheduler final : public Scheduler {
 public:
  explicit MPIScheduler(const Communicator& world);

  // Starts recording a new graph; addTask adds to it.
  void beginGraph(const std::string& name);
  void addTask(Task task, const std::vector<const Patch*>& patches) override;
  // The graph being recorded.
  const TaskGraph& recordedGraph() const;
  CompiledGraph compile(const Grid& grid, const std::vector<int>& patchRanks) const;

  void execute(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
               OnDemandDataWarehouse& newDW);

  const Communicator& comm() const { return m_comm; }
  const SchedulerStats& stats() const { return m_stats; }

 private:
  class Execution;

  Communicator m_comm;
  std::unique_ptr<TaskGraph> m_recording;
  SchedulerStats m_stats;
};

}  // namespace tessera
