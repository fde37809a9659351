#pragma once
// The device schedulers of the seed paper, on Kokkos. The device (the CPE
// cluster: here the Kokkos execution space, launched from the thread that
// initialised Kokkos) runs one task's tiled kernels at a time, and that
// thread schedules between its kernels (see DeviceRunner.h):
//   Sync  (acc.sync):  device tasks in graph order; while a kernel runs
//     nothing else progresses: no overlap.
//   Async (acc.async): while a kernel runs, a control thread (the paper's
//     MPE) tests MPI requests, unpacks arrived ghosts, posts reductions,
//     runs host tasks and, on a core of its own, makes local ghost copies.
//     Ready tasks run most urgent first (those whose outputs other ranks
//     wait for), in the order their data arrives.
// See docs/threading.md.

#include "CCA/Components/Schedulers/DeviceRunner.h"
#include "CCA/Components/Schedulers/GraphScheduler.h"

#include <thread>

namespace tessera {

class DeviceScheduler final : public GraphScheduler {
 public:
  using Mode = DeviceRunner::Offload;

  DeviceScheduler(const Communicator& world, const SchedulerOptions& options, Mode mode);
  // With the control thread's part decided by the caller rather than by the
  // cores this rank has (options.controlThread): a test makes the own-core
  // path run on any machine.
  DeviceScheduler(const Communicator& world, const SchedulerOptions& options, Mode mode,
                  DeviceRunner::Help help);
  // Stops and joins the control thread, if async started one.
  ~DeviceScheduler() override;
  std::string modeName() const override { return m_mode == Mode::Sync ? "sync" : "async"; }

  // Call on the thread that initialised Kokkos: it schedules and runs the
  // kernels. In async the control thread is started the first time a kernel
  // could use its help and serves every later graph (none is created per
  // timestep).
  void execute(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
               OnDemandDataWarehouse& newDW) override;

 private:
  Mode m_mode;
  DeviceRunner::Help m_help;
  int m_localRank;  // on this node: which CPU its control thread takes (controlThreadCpu)
  DeviceRunner m_runner;
  std::thread m_control;  // async: lives in m_runner.help()
};

}  // namespace tessera
