#include "CCA/Components/Schedulers/HostScheduler.h"

#include "CCA/Components/Schedulers/ExecutionState.h"
#include "CCA/Components/Schedulers/Watchdog.h"
#include "Core/Parallel/LoopHelpers.h"

#include <algorithm>

namespace tessera {

HostScheduler::HostScheduler(const Communicator& world, const SchedulerOptions& options)
    : GraphScheduler(world, [&] {
        // host.sync offloads nothing, so it never stages tiles in a
        // scratchpad; on a CPU its stencils are blocked for the cache like
        // every other mode's (tiles walked in place), or untiled when
        // scheduler.tiling is false.
        SchedulerOptions blocked = options;
        blocked.tiling.enabled =
            options.tileStencils && runsOnHost<Kokkos::DefaultExecutionSpace>;
        return blocked;
      }()) {}

void HostScheduler::execute(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                           OnDemandDataWarehouse& newDW) {
  TraceTrack* const track = mainTrack();
  ExecutionState state(graph, oldDW, newDW, m_comm, m_stats, nextExecution(graph), m_buffers, track,
                       m_options.messageChunkBytes);
  Watchdog watchdog(m_options.watchdogSeconds);
  const auto idle = [&] {
    if (watchdog.expired()) watchdogFail(state, watchdog.limitSeconds(), m_comm.rank());
  };
  try {
    state.start();
    for (const DetailedTask& node : graph.detailedTasks) {
      if (node.kind == DetailedTask::Kind::Reduction) {
        state.postReduction(node);
        const ScopedTimer waiting(m_stats.waitSeconds);
        const TraceScope traced(track, "wait: reduction", "wait", node.id);
        while (true) {
          const auto done = state.progressReductions();
          if (std::find(done.begin(), done.end(), node.id) != done.end()) break;
          if (!state.progressMessages()) idle();
        }
      } else {
        if (!state.inputsArrived(node)) {
          const ScopedTimer waiting(m_stats.waitSeconds);
          const TraceScope traced(track, "wait: messages", "wait", node.id);
          state.waitForInputs(node, idle);
        }
        state.performFills(node);
        state.recordSeconds(
            node.id, runTask(state.graph(), node, oldDW, newDW, m_options.tiling, m_stats, track));
      }
      state.finish(node.id);
      state.progressMessages();
      watchdog.progressed();
    }
    const ScopedTimer waiting(m_stats.waitSeconds);
    const TraceScope traced(track, "wait: last sends", "wait");
    state.complete(idle);
    recordPatchSeconds(state);
  } catch (...) {
    state.abandon(std::current_exception());
    throw;
  }
}

}  // namespace tessera
