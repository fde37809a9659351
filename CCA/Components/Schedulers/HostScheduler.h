#pragma once
// The synchronous scheduler (the seed paper's host.sync baseline): posts
// every receive first, runs the detailed tasks on the calling thread in
// their deterministic order, except that what other ranks wait for (a
// reduction's contributions, the reduction itself, tasks whose outputs are
// sent) runs as soon as it can without waiting; waits only for the
// messages a task needs (and a reduction only where a task reads it, or at
// the end), and sends a task's outputs as soon as the task finishes.

#include "CCA/Components/Schedulers/GraphScheduler.h"

namespace tessera {

class HostScheduler final : public GraphScheduler {
 public:
  HostScheduler(const Communicator& world, const SchedulerOptions& options = {});
  std::string modeName() const override { return "host"; }
  void execute(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
               OnDemandDataWarehouse& newDW) override;
};

}  // namespace tessera
