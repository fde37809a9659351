#pragma once
// The device schedulers of the seed paper, on Kokkos. The device (the CPE
// cluster: here the Kokkos execution space, launched from the thread that
// initialised Kokkos) runs one task's tiled kernels at a time; a control
// thread (the paper's MPE) keeps MPI moving.
//   Sync  (acc.sync):  the control thread runs the graph; it offloads a
//     task, waits until it completes, then goes on: no overlap.
//   Async (acc.async): the device's thread schedules between its kernels
//     (see AsyncRunner.h); while a kernel runs, the control thread tests
//     MPI requests, unpacks arrived ghosts, posts reductions and runs host
//     tasks. Ready tasks run most urgent first (those whose outputs other
//     ranks wait for), in the order their data arrives.
// See docs/threading.md.

#include "CCA/Components/Schedulers/AsyncRunner.h"
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

  // Call on the thread that initialised Kokkos: it runs the kernels (and in
  // acc.async schedules them too). The control thread is started by the
  // first call and serves every later one (none is created per timestep).
  void execute(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
               OnDemandDataWarehouse& newDW) override;

 private:
  class SyncControlLoop;
  // acc.sync: one graph handed to the control thread.
  struct Job {
    ExecutionState* state = nullptr;
    SchedulerStats* controlStats = nullptr;
    SchedulerStats* deviceStats = nullptr;
    std::exception_ptr failure;
  };
  void controlThread();
  void startControlThread();
  void executeSync(ExecutionState& state, SchedulerStats& controlStats,
                   SchedulerStats& deviceStats);
  void executeAsync(ExecutionState& state, SchedulerStats& controlStats,
                    SchedulerStats& deviceStats);

  Mode m_mode;
  DeviceThread m_device;  // acc.sync
  AsyncRunner m_async;    // acc.async: its control thread lives in m_async.help()
  std::thread m_control;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  Job* m_job = nullptr;  // set by execute, cleared by the control thread when taken
  bool m_stopping = false;
  // m_job set, or m_stopping: what the control thread spins on before it sleeps.
  std::atomic<bool> m_jobOrStop{false};
};

}  // namespace tessera
