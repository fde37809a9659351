#pragma once
// One execution of a compiled graph, whatever the scheduler's threading:
// which tasks may run (TaskDependencies), the messages of every kind
// (MessageExchange) and what the destination does with them (GhostFills,
// BlockFills), and the reductions (ReductionExchange), tied together so that
// a finished task releases its successors, its sends and its eager copies at
// once. One thread at a time touches it (async: the one holding its lock).

#include "CCA/Components/Schedulers/BlockFills.h"
#include "CCA/Components/Schedulers/CommTimer.h"
#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "CCA/Components/Schedulers/GhostFills.h"
#include "CCA/Components/Schedulers/MessageBuffers.h"
#include "CCA/Components/Schedulers/MessageExchange.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Components/Schedulers/ReductionExchange.h"
#include "CCA/Components/Schedulers/SchedulerStats.h"
#include "CCA/Components/Schedulers/TaskDependencies.h"
#include "Core/Parallel/Communicator.h"
#include "Core/Util/Trace.h"

#include <exception>

#include <functional>
#include <vector>

namespace tessera {

// Which execution this is on its scheduler's communicator (numbering the
// trace's arrows), and the first MPI tag of its window (TagWindows.h).
struct ExecutionTags {
  int execution = 0;
  int tagBase = 0;
};

class ExecutionState {
 public:
  // `trace` is the control thread's track, or null.
  ExecutionState(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                 OnDemandDataWarehouse& newDW, const Communicator& comm, SchedulerStats& stats,
                 const ExecutionTags& tags, MessageBuffers& buffers, TraceTrack* trace = nullptr,
                 std::size_t messageChunkBytes = kMaxMessageChunkBytes);
  ExecutionState(const ExecutionState&) = delete;
  ExecutionState& operator=(const ExecutionState&) = delete;

  const CompiledGraph& graph() const { return m_graph; }
  const DetailedTask& node(int id) const {
    return m_graph.detailedTasks[static_cast<std::size_t>(id)];
  }
  const Task& taskOf(const DetailedTask& node) const {
    return m_graph.tasks[static_cast<std::size_t>(node.taskIndex)];
  }
  OnDemandDataWarehouse& oldDW() { return m_oldDW; }
  OnDemandDataWarehouse& newDW() { return m_newDW; }
  TraceTrack* trace() const { return m_context.trace; }
  // Where later communication work is traced: the calling thread's track
  // (async: whichever of its two threads holds the state's lock).
  void useTrace(TraceTrack* trace) { m_context.trace = trace; }

  // Tells the state whether the device is computing, so that time spent on
  // communication can be counted as overlapped with device work.
  void setDeviceBusyProbe(std::function<bool()> probe) { m_context.deviceBusy = std::move(probe); }
  // Posts every receive and the sends that need no task (old warehouse data).
  // With `deferInitialSends` the caller posts them (postInitialSends) after
  // it has given the device its first task, so that packing overlaps it.
  // With `deferEagerCopies` the caller makes the local ghost copies that
  // finished tasks release (performPendingEagerCopies), by complete() at
  // the latest.
  void start(bool deferInitialSends = false, bool deferEagerCopies = false);
  void postInitialSends() { m_messages.postInitialSends(); }

  // ---- dependencies ----
  bool isReady(int id) const { return m_dependencies.isReady(id); }
  void markStarted(int id) { m_dependencies.markStarted(id); }
  bool started(int id) const { return m_dependencies.started(id); }
  // Records a finished task: releases successors and posts the sends it
  // completes. Returns the successors that became ready.
  std::vector<int> finish(int id);
  bool allFinished() const { return m_dependencies.allFinished(); }

  // ---- what the tasks cost (the load balancer's measure) ----
  // Each task records its own slot, on whichever thread ran it.
  void recordSeconds(int id, double seconds) {
    m_taskSeconds[static_cast<std::size_t>(id)] = seconds;
  }
  const std::vector<double>& taskSeconds() const { return m_taskSeconds; }
  bool finished(int id) const { return m_dependencies.finished(id); }

  // ---- messages, ghost cells and blocks ----
  bool progressMessages() { return m_messages.progress(); }
  bool inputsArrived(const DetailedTask& node) const { return m_messages.inputsArrived(node); }
  // Blocks until the task's messages have arrived (calls `onIdle` while waiting).
  template <class OnIdle>
  void waitForInputs(const DetailedTask& node, const OnIdle& onIdle) {
    while (!inputsArrived(node)) {
      if (!progressMessages()) onIdle();
    }
  }
  void performFills(const DetailedTask& node) {
    m_ghostFills.performFills(node);
    m_blockFills.performFills(node);
    m_ghostFills.prepareSweepAverages(node, m_dependencies);
  }
  // What follows the task's sweeps (set up by performFills), or null: for
  // its ExecutionContext (GraphScheduler::runTask).
  SweepFollower* sweepFollower(int id) const { return m_ghostFills.sweepFollower(id); }
  bool messagesOutstanding() const { return m_messages.outstanding(); }
  bool receivesOutstanding() const { return m_messages.receivesOutstanding(); }
  bool eagerCopiesPending() const { return m_ghostFills.eagerCopiesPending(); }
  std::size_t eagerCopiesReleased() const { return m_ghostFills.eagerCopiesReleased(); }
  std::size_t eagerCopiesTaken() const { return m_ghostFills.eagerCopiesTaken(); }
  void performPendingEagerCopies() { m_ghostFills.performPendingEagerCopies(); }
  // See GhostFills: taken and recorded with the caller's lock, made without it.
  GhostFills::EagerBatch takePendingEagerCopies() { return m_ghostFills.takePendingEagerCopies(); }
  void makeEagerCopies(GhostFills::EagerBatch batch) const { m_ghostFills.makeEagerCopies(batch); }
  void eagerCopiesMade(GhostFills::EagerBatch batch, double seconds, bool overlapped) {
    m_ghostFills.eagerCopiesMade(batch, seconds, overlapped);
  }
  const MessageExchange& messages() const { return m_messages; }

  // ---- reductions ----
  void postReduction(const DetailedTask& node) { m_reductions.post(node); }
  std::vector<int> progressReductions() { return m_reductions.progress(); }
  bool reductionPosted(int id) const { return m_reductions.posted(id); }
  bool reductionsPending() const { return m_reductions.pending(); }

  // After a failure: cancels the receives no message matched, sets what is
  // still in flight aside with its buffers, and completes posted reductions
  // (or aborts the job printing the failure: see AbandonRequests.h).
  void abandon(const std::exception_ptr& failure);

  // Makes the eager copies still pending, then waits for the last sends
  // (calls `onIdle` while waiting); throws if a receive was never consumed.
  template <class OnIdle>
  void complete(const OnIdle& onIdle) {
    m_ghostFills.performPendingEagerCopies();
    while (m_messages.sendsOutstanding()) {
      if (!progressMessages()) onIdle();
    }
    m_messages.checkComplete();
    m_blockFills.finish();
  }

 private:
  const CompiledGraph& m_graph;
  OnDemandDataWarehouse& m_oldDW;
  OnDemandDataWarehouse& m_newDW;
  CommContext m_context;
  TaskDependencies m_dependencies;
  MessageExchange m_messages;
  GhostFills m_ghostFills;
  BlockFills m_blockFills;
  ReductionExchange m_reductions;
  std::vector<double> m_taskSeconds;  // per detailed task
};

}  // namespace tessera
