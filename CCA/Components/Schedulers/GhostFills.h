#pragma once
// The destination end of ghost data in one execution of a graph: a task's
// ghost cells filled, just before it runs, from local copies and from the
// messages (MessageExchange) that brought its neighbours' cells; and local
// copies made eagerly when their sources are done. Used by the control
// thread only (eager copies: see EagerBatch).

#include "CCA/Components/Schedulers/CommTimer.h"
#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "CCA/Components/Schedulers/MessageBuffers.h"
#include "CCA/Components/Schedulers/MessageExchange.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "CCA/Components/Schedulers/SweepAverages.h"
#include "CCA/Components/Schedulers/TaskDependencies.h"

#include <cstddef>
#include <memory>
#include <vector>

namespace tessera {

// The part of `staging` (coarse cells a refinement reads) that `coarse`
// can hold: beyond a wall its extra cells, if any, and no more (the rest
// repeats their last plane: repeatPastHeld); across a periodic axis all
// of it (an image).
Box heldPart(const Level& coarse, const Box& staging);

// Coarse cells gathered for a refinement (`staging`) hold only `held`, the
// part the coarse level has; beyond a wall the last held plane repeats,
// layer by layer and axis by axis, so that edges and corners repeat it too.
void repeatPastHeld(GridVariableBase& staging, const Box& held);

class GhostFills {
 public:
  GhostFills(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
             OnDemandDataWarehouse& newDW, CommContext& context, const MessageExchange& messages,
             MessageBuffers& buffers);
  GhostFills(const GhostFills&) = delete;
  GhostFills& operator=(const GhostFills&) = delete;

  // With `deferEagerCopies`, a finished task's eager copies wait for
  // performPendingEagerCopies (a control thread makes them while the next
  // kernel runs) instead of being made at once.
  void start(bool deferEagerCopies);
  // A task finished: makes (or queues) the eager copies it completes.
  void taskFinished(const DetailedTask& task);
  bool eagerCopiesPending() const { return m_eagerDone < m_eagerReleased; }
  // How many eager copies finished tasks have released, and how many of
  // them were taken (made, or being made).
  std::size_t eagerCopiesReleased() const { return m_eagerReleased; }
  std::size_t eagerCopiesTaken() const { return m_eagerDone; }
  void performPendingEagerCopies();
  // An eager copy writes ghost cells that no task of this execution reads
  // or writes (planEagerCopies), from values no later task changes, so a
  // thread may make copies without the caller's lock: it takes a batch
  // with the lock, makes it without it, and records it with it again. (A
  // task reading a group of patches made one by one copies them, ghost
  // cells included, into one allocation: not beside groups of several.)
  // A batch is a range of the release queue, an array sized for every copy
  // at start() and never resized while the execution runs: a release
  // writes one slot past the batches already taken (under the lock), so
  // no entry a batch reads is ever written again.
  struct EagerBatch {
    std::size_t first = 0;
    std::size_t last = 0;
  };
  EagerBatch takePendingEagerCopies();
  void makeEagerCopies(EagerBatch batch) const;
  void eagerCopiesMade(EagerBatch batch, double seconds, bool overlapped);

  // Fills the ghost cells the task reads (its messages must have arrived).
  void performFills(const DetailedTask& task);
  // The averages the task may make in its sweep (SweepAverage) whose
  // coarse cells are ready (every task their reader waits for but their
  // fine cells' writers has finished), followed by sweepFollower(task).
  // Call after performFills, before the task runs.
  void prepareSweepAverages(const DetailedTask& task, const TaskDependencies& dependencies);
  SweepFollower* sweepFollower(int taskId) const {
    return m_sweepAveragers[static_cast<std::size_t>(taskId)].get();
  }

 private:
  const Patch& patch(int id) const;
  OnDemandDataWarehouse& warehouse(Task::WhichDW dw) {
    return dw == Task::OldDW ? m_oldDW : m_newDW;
  }
  // The variable a piece comes from, or an error naming `what` needs it.
  const GridVariableBase& sourceOf(const GhostPiece& piece, const OnDemandDataWarehouse& dw,
                                   const char* what) const;
  // The coarse-fine ghost cells of `fill` (GhostFill::coarseFineBoxes),
  // refined into `destination` from the coarse cells gathered for them
  // (from the warehouse each piece names: another time's, when subcycling).
  void fillFromCoarser(int index, int taskId, GridVariableBase& destination);
  std::shared_ptr<const GridVariableBase> coarseWhereItLies(const GhostFill& fill);
  // The variable of the first of `pieces` when one allocation holds all
  // their variables (a patch group's), else null.
  const GridVariableBase* oneAllocationOf(const std::vector<GhostPiece>& pieces);
  // A GroupRefinement, if its fills' variables (`fineStorage`: theirs, all
  // one) are windows on the group's allocation and the coarse cells lie in
  // one allocation: false (and nothing written) otherwise.
  bool refineForGroup(const GroupRefinement& group, const void* fineStorage, int taskId);
  // The task's averages from the finer level (CoarsenFill), into its patches' variables.
  void averageFromFiner(const DetailedTask& task);
  void makeEagerCopy(int index) const;
  // Counts the batch's copies per fill, marking each fill they complete.
  void recordEagerCopies(EagerBatch batch);

  const CompiledGraph& m_graph;
  OnDemandDataWarehouse& m_oldDW;
  OnDemandDataWarehouse& m_newDW;
  CommContext& m_context;
  const MessageExchange& m_messages;
  MessageBuffers& m_buffers;

  std::vector<bool> m_fillDone;              // per fill
  std::vector<bool> m_coarsenDone;           // per coarsen fill
  // Per task: the averages it makes in its sweep, until it finishes.
  std::vector<std::unique_ptr<SweepAverager>> m_sweepAveragers;
  // Per coarsen fill: how many of its local pieces a sweep made.
  std::vector<std::size_t> m_sweptPieces;
  std::vector<int> m_pendingEagerProducers;  // per eager copy
  std::vector<int> m_eagerCopiesLeft;        // per fill
  bool m_deferEagerCopies = false;
  std::vector<int> m_eagerQueue;    // released eager copies, in release order
  std::size_t m_eagerReleased = 0;  // ... the slots filled
  std::size_t m_eagerDone = 0;      // ... of which taken
};

}  // namespace tessera
