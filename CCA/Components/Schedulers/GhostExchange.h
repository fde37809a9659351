#pragma once
// The ghost data of one execution of a graph: receives posted up front,
// sends packed and posted once their producers finish, ghost cells filled
// from local copies and arrived messages, and local copies made eagerly
// when their sources are done. Used by the control thread only.

#include "CCA/Components/Schedulers/CommTimer.h"
#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "CCA/Components/Schedulers/MessageBuffers.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "Core/Parallel/ChunkedMessages.h"
#include "Core/Parallel/Communicator.h"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

class GhostExchange {
 public:
  // `execution` counts the executions on `comm` (the same on every rank);
  // the phases' tags start at `tagBase`, a window of tasks + 1 tags no
  // nearby execution shares (TagWindows.h), so that a message a failed
  // execution left behind never matches a receive of a later one.
  GhostExchange(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                OnDemandDataWarehouse& newDW, const Communicator& comm, CommContext& context,
                int execution, int tagBase, MessageBuffers& buffers,
                std::size_t chunkBytes = kMaxMessageChunkBytes);
  GhostExchange(const GhostExchange&) = delete;
  GhostExchange& operator=(const GhostExchange&) = delete;
  // After a failure: completes or cancels what is posted (see abandon).
  ~GhostExchange();

  // Posts every receive and, unless deferred, the sends that need no task.
  // With `deferEagerCopies`, a finished task's eager copies wait for
  // performPendingEagerCopies (a control thread makes them while the next
  // kernel runs) instead of being made at once.
  void start(bool deferInitialSends, bool deferEagerCopies = false);
  void postInitialSends();
  // A task finished: posts the sends and makes (or queues) the eager copies
  // it completes.
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

  // Tests outstanding receives and sends without blocking; true if any completed.
  bool progress();
  // True when every message the task's ghost fills need has arrived.
  bool inputsArrived(const DetailedTask& task) const;
  // Fills the ghost cells the task reads (its messages must have arrived).
  void performFills(const DetailedTask& task);
  bool outstanding() const;
  bool receivesOutstanding() const;
  bool sendsOutstanding() const;
  // Waits for the sends; throws if a receive was never consumed.
  void checkComplete();
  // After a failure: cancels the receives no message matched and sets what
  // is still in flight aside with its buffers (MessageBuffers::setAside).
  void abandon();

  // For the watchdog: the messages `task` still waits for, and the sends no
  // receiver has taken yet.
  std::vector<std::string> describeMissingMessages(const DetailedTask& task) const;
  std::vector<std::string> describeOutstandingSends() const;

 private:
  const Patch& patch(int id) const;
  int mpiTag(const Message& message) const { return m_tagBase + message.tag; }
  // The same number on the sending and the receiving rank: a trace's arrow.
  std::int64_t flowId(const Message& message, int source, int destination) const;
  void postSend(int index);
  void makeEagerCopy(int index) const;
  // Counts the batch's copies per fill, marking each fill they complete.
  void recordEagerCopies(EagerBatch batch);

  const CompiledGraph& m_graph;
  OnDemandDataWarehouse& m_oldDW;
  OnDemandDataWarehouse& m_newDW;
  const Communicator& m_comm;
  CommContext& m_context;
  MessageBuffers& m_buffers;
  int m_execution = 0;
  int m_tagBase = 0;

  // Each message's chunks (see ChunkedMessages.h): message m's requests are
  // [first[m], first[m + 1]) of the flat request vectors.
  std::size_t m_chunkBytes;
  std::vector<std::size_t> m_recvFirst;
  std::vector<std::size_t> m_sendFirst;
  std::vector<MPI_Request> m_recvRequests;
  std::vector<bool> m_recvDone;  // per message
  std::vector<MPI_Request> m_sendRequests;
  std::vector<bool> m_sendPosted;            // per message
  std::vector<bool> m_sendDone;              // per message
  std::vector<int> m_pendingProducers;       // per send
  std::vector<bool> m_fillDone;              // per fill
  std::vector<int> m_pendingEagerProducers;  // per eager copy
  std::vector<int> m_eagerCopiesLeft;        // per fill
  bool m_deferEagerCopies = false;
  std::vector<int> m_eagerQueue;    // released eager copies, in release order
  std::size_t m_eagerReleased = 0;  // ... the slots filled
  std::size_t m_eagerDone = 0;      // ... of which taken
  bool m_completed = false;
};

}  // namespace tessera
