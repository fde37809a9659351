#pragma once
// The synchronous scheduler (the seed paper's host.sync baseline): posts
// every receive first, runs the detailed tasks in their deterministic order
// on the calling thread with untiled kernels, waits only for the messages a
// task needs, and sends a task's outputs as soon as the task finishes.

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
