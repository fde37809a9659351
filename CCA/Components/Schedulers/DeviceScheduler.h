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

#include "CCA/Components/Schedulers/DeviceThread.h"
#include "CCA/Components/Schedulers/GraphScheduler.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace tessera {

class DeviceScheduler final : public GraphScheduler {
 public:
  enum class Mode { Sync, Async };

  DeviceScheduler(const Communicator& world, const SchedulerOptions& options, Mode mode);
  // Stops and joins the control thread.
  ~DeviceScheduler() override;
  std::string modeName() const override { return m_mode == Mode::Sync ? "sync" : "async"; }

  // Call on the thread that initialised Kokkos: it becomes the device while
  // the control thread runs the graph. The control thread is started by the
  // first call and serves every later one (none is created per timestep).
  void execute(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
               OnDemandDataWarehouse& newDW) override;

 private:
  class ControlLoop;
  // One graph handed to the control thread.
  struct Job {
    ExecutionState* state = nullptr;
    SchedulerStats* controlStats = nullptr;
    SchedulerStats* deviceStats = nullptr;
    std::exception_ptr failure;
  };
  void controlThread();

  Mode m_mode;
  DeviceThread m_device;
  std::thread m_control;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  Job* m_job = nullptr;  // set by execute, cleared by the control thread when taken
  bool m_stopping = false;
  // m_job set, or m_stopping: what the control thread spins on before it sleeps.
  std::atomic<bool> m_jobOrStop{false};
};

}  // namespace tessera
