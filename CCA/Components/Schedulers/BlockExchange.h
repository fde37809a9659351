#pragma once
// The block messages of one execution of a graph (see BlockDependencies.h):
// receives posted up front, or once the readers of their buffer's previous
// part have finished (a reused buffer); sends posted from the block's own
// storage as soon as the tasks that leave its version finish; arrived parts
// and array sums handed to the readers' warehouses just before they run.
// Used by the control thread only, like GhostExchange, and polled with it.

#include "CCA/Components/Schedulers/CommTimer.h"
#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "CCA/Components/Schedulers/MessageBuffers.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "Core/Parallel/ChunkedMessages.h"
#include "Core/Parallel/Communicator.h"

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera {

class BlockExchange {
 public:
  // `comm` is the scheduler's block communicator; the messages' tags start
  // at `tagBase`, this execution's window of blockTagStride tags (as for
  // ghost messages).
  BlockExchange(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                OnDemandDataWarehouse& newDW, const Communicator& comm, CommContext& context,
                int execution, int tagBase, MessageBuffers& buffers,
                std::size_t chunkBytes = kMaxMessageChunkBytes);
  BlockExchange(const BlockExchange&) = delete;
  BlockExchange& operator=(const BlockExchange&) = delete;
  ~BlockExchange();

  void start(bool deferInitialSends);
  void postInitialSends();
  void taskFinished(const DetailedTask& task);
  bool progress();
  bool inputsArrived(const DetailedTask& task) const;
  void performFills(const DetailedTask& task);
  bool outstanding() const;
  bool receivesOutstanding() const;
  bool sendsOutstanding() const;
  // Waits for the sends; throws if a receive was never consumed. Removes
  // the arrived parts and sums from the warehouses (their buffers are reused).
  void checkComplete();
  void abandon();

  std::vector<std::string> describeMissingMessages(const DetailedTask& task) const;
  std::vector<std::string> describeOutstandingSends() const;

 private:
  OnDemandDataWarehouse& dw(Task::WhichDW which) {
    return which == Task::OldDW ? m_oldDW : m_newDW;
  }
  int mpiTag(const BlockMessage& message) const { return m_tagBase + message.sequence; }
  std::int64_t flowId(const BlockMessage& message, int source, int destination) const;
  void postReceive(int index);
  void postSend(int index);
  void computeSum(int index);
  std::string describe(const BlockMessage& message, const char* direction) const;

  const CompiledGraph& m_graph;
  OnDemandDataWarehouse& m_oldDW;
  OnDemandDataWarehouse& m_newDW;
  const Communicator& m_comm;
  CommContext& m_context;
  MessageBuffers& m_buffers;
  std::size_t m_chunkBytes;
  int m_execution = 0;
  int m_tagBase = 0;

  std::vector<std::size_t> m_recvFirst;  // message m's chunks: [first[m], first[m + 1])
  std::vector<std::size_t> m_sendFirst;
  std::vector<MPI_Request> m_recvRequests;
  std::vector<MPI_Request> m_sendRequests;
  std::vector<bool> m_recvPosted, m_recvDone;
  std::vector<bool> m_sendPosted, m_sendDone;
  std::vector<int> m_gatePending;       // per receive: gate tasks not yet finished
  std::vector<int> m_pendingProducers;  // per send
  std::vector<int> m_slotOccupant;      // per slot: the receive whose part it holds, or -1
  std::vector<std::shared_ptr<const void>> m_sentFrom;  // per send: the block read in place
  bool m_completed = false;
};

}  // namespace tessera
