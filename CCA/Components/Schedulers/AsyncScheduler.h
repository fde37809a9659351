#pragma once
// The device schedulers of the seed paper, on Kokkos. A control thread (the
// paper's MPE) owns MPI and the task graph; the device (the CPE cluster:
// here the Kokkos execution space, served by the thread that initialised
// Kokkos) runs one task's tiled kernels at a time.
//   Sync  (acc.sync):  offload a task, spin until it completes, no overlap.
//   Async (acc.async): offload a task and return at once; while the device
//     computes, test MPI requests, unpack arrived ghosts, post the sends of
//     finished tasks, run host tasks and reductions; when the device frees
//     up, dispatch the next ready task, preferring those whose outputs other
//     ranks wait for.
// See docs/threading.md.

#include "CCA/Components/Schedulers/GraphScheduler.h"

namespace tessera {

class AsyncScheduler final : public GraphScheduler {
 public:
  enum class Mode { Sync, Async };

  AsyncScheduler(const Communicator& world, const SchedulerOptions& options, Mode mode);
  std::string modeName() const override { return m_mode == Mode::Sync ? "sync" : "async"; }

  // Call on the thread that initialised Kokkos: it becomes the device while
  // a control thread runs the graph.
  void execute(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
               OnDemandDataWarehouse& newDW) override;

 private:
  class ControlLoop;
  Mode m_mode;
};

}  // namespace tessera
