#include "CCA/Components/Schedulers/HostScheduler.h"

#include "CCA/Components/Schedulers/ExecutionState.h"
#include "CCA/Components/Schedulers/Watchdog.h"
#include "Core/Parallel/LoopHelpers.h"

#include <algorithm>
#include <set>
#include <vector>

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

namespace {

// A task other ranks wait for: one that contributes to a reduction, or
// whose outputs are sent.
bool othersWaitFor(const DetailedTask& node, const std::vector<DetailedTask>& nodes) {
  if (node.kind == DetailedTask::Kind::Reduction) return false;  // posted in graph order
  if (!node.sendsToRelease.empty()) return true;
  return std::any_of(node.successors.begin(), node.successors.end(), [&](int id) {
    return nodes[static_cast<std::size_t>(id)].kind == DetailedTask::Kind::Reduction;
  });
}

}  // namespace

void HostScheduler::execute(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                           OnDemandDataWarehouse& newDW) {
  TraceTrack* const track = mainTrack();
  ExecutionState state(graph, oldDW, newDW, m_comm, m_stats, nextExecution(graph), m_buffers, track,
                       m_options.messageChunkBytes);
  Watchdog watchdog(m_options.watchdogSeconds);
  const auto idle = [&] {
    if (watchdog.expired()) watchdogFail(state, watchdog.limitSeconds(), m_comm.rank());
  };
  const std::vector<DetailedTask>& nodes = graph.detailedTasks;
  // Ready tasks other ranks wait for, in graph order.
  std::set<int> urgent;
  // Reductions are collective: every rank posts them in graph order.
  std::vector<int> reductions;
  std::size_t nextReduction = 0;
  const auto release = [&](const std::vector<int>& ready) {
    for (const int id : ready)
      if (othersWaitFor(nodes[static_cast<std::size_t>(id)], nodes)) urgent.insert(id);
  };
  const auto progressReductions = [&] {
    const std::vector<int> done = state.progressReductions();
    for (const int id : done)
      release(state.finish(id));
    return !done.empty();
  };
  const auto run = [&](const DetailedTask& node) {
    state.markStarted(node.id);
    if (node.kind == DetailedTask::Kind::Reduction) {
      // Finished when every rank's contributions are in (progressReductions).
      state.postReduction(node);
      return;
    }
    urgent.erase(node.id);
    state.performFills(node);
    state.recordSeconds(node.id,
                        runTask(state.graph(), node, oldDW, newDW, m_options.tiling, m_stats, track,
                                state.sweepFollower(node.id)));
    release(state.finish(node.id));
    state.progressMessages();
    watchdog.progressed();
  };
  const auto postReadyReductions = [&] {
    while (nextReduction < reductions.size() && state.isReady(reductions[nextReduction]))
      run(nodes[static_cast<std::size_t>(reductions[nextReduction++])]);
  };
  // An urgent task whose messages are here, or -1.
  const auto takeUrgent = [&] {
    for (const int id : urgent)
      if (state.inputsArrived(nodes[static_cast<std::size_t>(id)])) return id;
    return -1;
  };
  try {
    state.start();
    for (const DetailedTask& node : nodes) {
      if (node.kind == DetailedTask::Kind::Reduction) reductions.push_back(node.id);
      if (state.isReady(node.id) && othersWaitFor(node, nodes)) urgent.insert(node.id);
    }
    // Graph order, except that what other ranks wait for runs as soon as it
    // can without waiting: a rank that is ahead then posts its part of a
    // reduction and its sends early, and does not wait at the reduction
    // for the others before its own kernels. Only the first task in graph
    // order not yet started is waited for, as before, so nothing can
    // deadlock: every rank waits only for what comes earlier in that order.
    for (std::size_t next = 0;;) {
      progressReductions();
      postReadyReductions();
      while (next < nodes.size() && state.started(nodes[next].id))
        ++next;
      if (next == nodes.size()) break;
      if (const int id = takeUrgent(); id >= 0) {
        run(nodes[static_cast<std::size_t>(id)]);
        continue;
      }
      const DetailedTask& node = nodes[next];
      if (!state.isReady(node.id)) {  // it reads a reduction's result
        const ScopedTimer waiting(m_stats.waitSeconds);
        const TraceScope traced(track, "wait: reduction", "wait", node.id);
        while (!state.isReady(node.id))
          if (!progressReductions() && !state.progressMessages()) idle();
        continue;  // the reductions it released come first
      }
      if (!state.inputsArrived(node)) {
        const ScopedTimer waiting(m_stats.waitSeconds);
        const TraceScope traced(track, "wait: messages", "wait", node.id);
        state.waitForInputs(node, idle);
      }
      run(node);
    }
    if (state.reductionsPending()) {
      const ScopedTimer waiting(m_stats.waitSeconds);
      const TraceScope traced(track, "wait: reduction", "wait");
      while (state.reductionsPending())
        if (!progressReductions() && !state.progressMessages()) idle();
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
