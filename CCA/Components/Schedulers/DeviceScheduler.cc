#include "CCA/Components/Schedulers/DeviceScheduler.h"

#include "CCA/Components/Schedulers/ExecutionState.h"
#include "Core/Parallel/CoreBudget.h"

#include <Kokkos_Core.hpp>

namespace tessera {

namespace {
// On a core the kernels use, the control thread only takes time from them:
// woken as a kernel starts, it delayed the kernel by about 95 us on this
// machine (sus --trace, Burgers on 2 ranks of one core each, with the
// stencil started before its ghosts arrived: docs/benchmarks.md).
DeviceRunner::Help controlThreadHelp(const Communicator& world, const SchedulerOptions& options,
                                     DeviceScheduler::Mode mode) {
  using Help = DeviceRunner::Help;
  if (mode != DeviceScheduler::Mode::Async ||
      options.controlThread == SchedulerOptions::ControlThread::Never)
    return Help::None;
  const bool ownCore =
      coreLeftForOneMoreThread(world, Kokkos::DefaultExecutionSpace().concurrency());
  if (ownCore) return Help::OnOwnCore;
  return options.controlThread == SchedulerOptions::ControlThread::Always ? Help::OnSharedCore
                                                                          : Help::None;
}
}  // namespace

DeviceScheduler::DeviceScheduler(const Communicator& world, const SchedulerOptions& options,
                                 Mode mode)
    : DeviceScheduler(world, options, mode, controlThreadHelp(world, options, mode)) {}

DeviceScheduler::DeviceScheduler(const Communicator& world, const SchedulerOptions& options,
                                 Mode mode, DeviceRunner::Help help)
    : GraphScheduler(world,
                     [&] {
                       SchedulerOptions tiled = options;
                       // The device runs stencils tile by tile unless told not to.
                       tiled.tiling.enabled = options.tileStencils;
                       return tiled;
                     }()),
      m_mode(mode),
      m_help(mode == Mode::Async ? help : DeviceRunner::Help::None),
      m_localRank(Communicator::node(world.get()).rank()),
      m_runner(m_options, m_comm.rank(), mode, m_help) {}

DeviceScheduler::~DeviceScheduler() {
  if (!m_control.joinable()) return;
  m_runner.stop();
  m_control.join();
}

void DeviceScheduler::execute(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                              OnDemandDataWarehouse& newDW) {
  SchedulerStats deviceStats;
  // The state counts communication here, whichever thread does it (under
  // the runner's lock); the control thread's host tasks are counted apart.
  SchedulerStats controlStats;
  SchedulerStats helpStats;
  const auto account = [&] {
    m_stats += controlStats;
    m_stats += helpStats;
    m_stats += deviceStats;
  };
  {
    ExecutionState state(graph, oldDW, newDW, m_comm, controlStats, nextExecution(graph), m_buffers,
                         mainTrack(), m_options.messageChunkBytes);
    try {
      m_runner.run(state, deviceStats, helpStats, mainTrack(), controlTrack(), [this] {
        if (m_control.joinable()) return;
        // With a core of its own, the control thread is bound to a CPU the
        // device's thread does not run on: the system otherwise starts it
        // (and wakes it) on the waker's core, where it waited milliseconds
        // behind a kernel before the load was balanced.
        const int cpu =
            m_help == DeviceRunner::Help::OnOwnCore ? controlThreadCpu(m_localRank) : -1;
        m_control = std::thread([this, cpu] {
          if (cpu >= 0) bindThisThreadTo(cpu);
          m_runner.help();
        });
      });
      recordPatchSeconds(state);
    } catch (...) {
      state.abandon(std::current_exception());
      account();
      throw;
    }
  }
  account();
}

}  // namespace tessera
