#pragma once
// The destination end of block data in one execution of a graph (see
// BlockDependencies.h): the parts a task reads that messages
// (MessageExchange) brought, and the array sums it reads, handed to its
// warehouse just before it runs. Used by the control thread only.

#include "CCA/Components/Schedulers/CommTimer.h"
#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "CCA/Components/Schedulers/MessageBuffers.h"
#include "CCA/Components/Schedulers/MessageExchange.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"

namespace tessera {

class BlockFills {
 public:
  BlockFills(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
             OnDemandDataWarehouse& newDW, CommContext& context, const MessageExchange& messages,
             MessageBuffers& buffers);
  BlockFills(const BlockFills&) = delete;
  BlockFills& operator=(const BlockFills&) = delete;
  ~BlockFills() { finish(); }

  // Hands the task its arrived parts and sums (its messages must have arrived).
  void performFills(const DetailedTask& task);
  // The execution is over (or abandoned): the warehouses drop the arrived
  // parts and sums, whose buffers the next execution reuses (or a failed
  // one sets aside). Done again, it does nothing.
  void finish();

 private:
  OnDemandDataWarehouse& dw(Task::WhichDW which) {
    return which == Task::OldDW ? m_oldDW : m_newDW;
  }
  void computeSum(int index);

  const CompiledGraph& m_graph;
  OnDemandDataWarehouse& m_oldDW;
  OnDemandDataWarehouse& m_newDW;
  CommContext& m_context;
  const MessageExchange& m_messages;
  MessageBuffers& m_buffers;
};

}  // namespace tessera
