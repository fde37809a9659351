#pragma once
// What every scheduler does while it runs one compiled graph, whatever its
// threading: the message buffers and requests, packing sends, ghost fills,
// non-blocking reductions and the bookkeeping of which task may run next.
// Only the control thread touches it.

#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Components/Schedulers/SchedulerStats.h"
#include "Core/Parallel/Communicator.h"

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

namespace tessera {

// Message buffers that outlive one execution: the next execution of a graph
// finds them sized, so a timestep neither allocates nor zero-fills them.
struct MessageBuffers {
  std::vector<std::vector<std::byte>> receives;
  std::vector<std::vector<std::byte>> sends;

  // Sizes the buffers for `graph`, keeping those already of the right size.
  void prepare(const CompiledGraph& graph);
};

class ExecutionState {
 public:
  // `execution` counts the executions on `comm` (the same on every rank): each
  // uses its own window of MPI tags, so that a message a failed execution left
  // behind never matches a receive of a later one.
  ExecutionState(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                 OnDemandDataWarehouse& newDW, const Communicator& comm, SchedulerStats& stats,
                 int execution, MessageBuffers& buffers);
  ExecutionState(const ExecutionState&) = delete;
  ExecutionState& operator=(const ExecutionState&) = delete;
  // Cancels whatever is still outstanding (after a failure).
  ~ExecutionState();

  const CompiledGraph& graph() const { return m_graph; }
  const DetailedTask& node(int id) const {
    return m_graph.detailedTasks[static_cast<std::size_t>(id)];
  }
  const Task& taskOf(const DetailedTask& node) const {
    return m_graph.tasks[static_cast<std::size_t>(node.taskIndex)];
  }
  OnDemandDataWarehouse& oldDW() { return m_oldDW; }
  OnDemandDataWarehouse& newDW() { return m_newDW; }

  // Tells the state whether the device is computing, so that time spent on
  // communication can be counted as overlapped with device work.
  void setDeviceBusyProbe(std::function<bool()> probe) { m_deviceBusy = std::move(probe); }
  // Posts every receive and the sends that need no task (old warehouse data).
  // With `deferInitialSends` the caller posts them (postInitialSends) after
  // it has given the device its first task, so that packing overlaps it.
  void start(bool deferInitialSends = false);
  void postInitialSends();

  // ---- dependencies ----
  // Tasks whose predecessors have all finished and that have not started.
  bool isReady(int id) const {
    return m_pendingPredecessors[static_cast<std::size_t>(id)] == 0 &&
           !m_started[static_cast<std::size_t>(id)];
  }
  void markStarted(int id) { m_started[static_cast<std::size_t>(id)] = true; }
  // Records a finished task: releases successors and posts the sends it completes.
  // Returns the successors that became ready.
  std::vector<int> finish(int id);
  bool allFinished() const { return m_finished == static_cast<int>(m_graph.detailedTasks.size()); }
  bool finished(int id) const { return m_done[static_cast<std::size_t>(id)]; }

  // ---- messages ----
  // Tests outstanding receives and sends without blocking; true if any completed.
  bool progressMessages();
  // True when every message the task's ghost fills need has arrived.
  bool inputsArrived(const DetailedTask& node) const;
  // Blocks until the task's messages have arrived (calls `onIdle` while waiting).
  template <class OnIdle>
  void waitForInputs(const DetailedTask& node, const OnIdle& onIdle) {
    while (!inputsArrived(node)) {
      if (!progressMessages()) onIdle();
    }
  }
  // Fills the ghost cells the task reads (its messages must have arrived).
  void performFills(const DetailedTask& node);
  bool messagesOutstanding() const;

  // ---- reductions ----
  // Posts the non-blocking combination of a reduction whose contributors finished.
  void postReduction(const DetailedTask& node);
  // Completes posted reductions that MPI has finished; returns their node ids.
  std::vector<int> progressReductions();
  bool reductionPosted(int id) const;

  // What the task with id `id` waits for, for the watchdog.
  std::string describeWaiting(int id) const;
  // The posted sends no receiver has taken yet, for the watchdog.
  std::vector<std::string> describeOutstandingSends() const;
  // Waits for the last sends (calls `onIdle` while waiting); throws if a
  // receive was never consumed.
  template <class OnIdle>
  void complete(const OnIdle& onIdle) {
    while (sendsOutstanding()) {
      if (!progressMessages()) onIdle();
    }
    checkComplete();
  }

 private:
  struct PendingReduction {
    int node = -1;
    MPI_Request request = MPI_REQUEST_NULL;
    std::vector<std::byte> local;
    std::vector<std::byte> all;
    std::vector<int> counts;
    std::vector<int> displacements;
  };

  // Times communication work, and the part of it done while the device computes.
  class CommTimer {
   public:
    explicit CommTimer(ExecutionState& state);
    ~CommTimer();

   private:
    ExecutionState& m_state;
    bool m_overlapped;
    double m_start;
  };

  const Patch& patch(int id) const;
  int mpiTag(const Message& message) const { return m_tagBase + message.tag; }
  bool sendsOutstanding() const;
  void checkComplete();
  void postSend(int index);
  // Makes eager copy `index` in the new warehouse (see EagerCopy).
  void performEagerCopy(int index);
  void combineReduction(PendingReduction& pending);

  const CompiledGraph& m_graph;
  OnDemandDataWarehouse& m_oldDW;
  OnDemandDataWarehouse& m_newDW;
  const Communicator& m_comm;
  SchedulerStats& m_stats;
  int m_tagBase = 0;

  std::vector<int> m_pendingPredecessors;
  std::vector<bool> m_started;
  std::vector<bool> m_done;
  int m_finished = 0;

  MessageBuffers& m_buffers;
  std::vector<MPI_Request> m_recvRequests;
  std::vector<bool> m_recvDone;
  std::vector<MPI_Request> m_sendRequests;
  std::vector<bool> m_sendDone;
  std::vector<int> m_pendingProducers;
  std::vector<bool> m_fillDone;
  std::vector<int> m_pendingEagerProducers;  // per eager copy
  std::vector<int> m_eagerCopiesLeft;        // per fill
  std::vector<PendingReduction> m_reductions;
  bool m_completed = false;
  std::function<bool()> m_deviceBusy;
};

}  // namespace tessera
