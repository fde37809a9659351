#pragma once
// The messages of one execution of a graph, of every kind (ghost cells,
// block parts: Message::Kind): receives posted up front, or once the tasks
// gating their buffer finish; sends packed (or, for a block, posted from its
// storage) once their producers finish; all of them tested by one poll,
// counted, traced and described alike. What happens to arrived data is the
// destination's business (GhostFills, BlockFills), which reads it through
// receiveBuffer. Used by the control thread only.

#include "CCA/Components/Schedulers/CommTimer.h"
#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "CCA/Components/Schedulers/MessageBuffers.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "Core/Parallel/ChunkedMessages.h"
#include "Core/Parallel/Communicator.h"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera {

class MessageExchange {
 public:
  // `execution` counts the executions on `comm` (the same on every rank);
  // the messages' tags start at `tagBase`, a window of the graph's
  // tagsPerExecution tags no nearby execution shares (TagWindows.h), so that
  // a message a failed execution left behind never matches a later receive.
  MessageExchange(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                  OnDemandDataWarehouse& newDW, const Communicator& comm, CommContext& context,
                  int execution, int tagBase, MessageBuffers& buffers,
                  std::size_t chunkBytes = kMaxMessageChunkBytes);
  MessageExchange(const MessageExchange&) = delete;
  MessageExchange& operator=(const MessageExchange&) = delete;
  // After a failure: completes or cancels what is posted (see abandon).
  ~MessageExchange();

  // Posts the receives nothing gates and, unless deferred, the sends that
  // need no task (old warehouse data).
  void start(bool deferInitialSends);
  void postInitialSends();
  // A task finished: posts the sends it completes and the receives it ungates.
  void taskFinished(const DetailedTask& task);

  // Tests outstanding receives and sends without blocking; true if a receive completed.
  bool progress();
  bool arrived(int receive) const { return m_recvDone[static_cast<std::size_t>(receive)]; }
  // True when every message `task` reads has arrived.
  bool inputsArrived(const DetailedTask& task) const;
  // Where receive `index` landed (see MessageBuffers).
  std::byte* receiveBuffer(int index) const;
  bool outstanding() const { return receivesOutstanding() || sendsOutstanding(); }
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
  OnDemandDataWarehouse& dw(Task::WhichDW which) const {
    return which == Task::OldDW ? m_oldDW : m_newDW;
  }
  int mpiTag(const Message& message) const { return m_tagBase + message.tag; }
  // The same number on the sending and the receiving rank: a trace's arrow.
  std::int64_t flowId(const Message& message, int source, int destination) const;
  void postReceive(int index);
  void postSend(int index);
  // Packs the ghost pieces of send `index` into its buffer.
  void packCells(int index);
  // The bytes of block send `index`: its storage, or a copy of it.
  const std::byte* blockData(int index);
  std::string describe(const Message& message, bool sending) const;

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
  std::vector<MPI_Request> m_sendRequests;
  std::vector<bool> m_recvPosted, m_recvDone;  // per receive
  std::vector<bool> m_sendPosted, m_sendDone;  // per send
  std::vector<int> m_gatePending;              // per receive: gate tasks not yet finished
  std::vector<int> m_pendingProducers;         // per send
  std::vector<int> m_slotOccupant;  // per block slot: the receive whose part it holds, or -1
  std::vector<std::shared_ptr<const void>> m_sentFrom;  // per send: a block read in place
  bool m_completed = false;
};

}  // namespace tessera
