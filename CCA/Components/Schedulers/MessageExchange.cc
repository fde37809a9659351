#include "CCA/Components/Schedulers/MessageExchange.h"

#include "CCA/Components/Schedulers/MessageRequests.h"
#include "Core/Grid/Grid.h"
#include "Core/Util/Error.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <utility>

namespace tessera {

MessageExchange::MessageExchange(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                                 OnDemandDataWarehouse& newDW, const Communicator& comm,
                                 CommContext& context, int execution, int tagBase,
                                 MessageBuffers& buffers, std::size_t chunkBytes)
    : m_graph(graph),
      m_oldDW(oldDW),
      m_newDW(newDW),
      m_comm(comm),
      m_context(context),
      m_buffers(buffers),
      m_execution(std::max(execution, 0)),
      m_tagBase(tagBase),
      m_chunkBytes(chunkBytes) {
  m_buffers.prepare(graph);
}

MessageExchange::~MessageExchange() {
  abandon();
}

std::int64_t MessageExchange::flowId(const Message& message, int source, int destination) const {
  const std::int64_t ranks = m_comm.size();
  const std::int64_t tag =
      static_cast<std::int64_t>(m_execution) * m_graph.tagsPerExecution + message.tag;
  return (tag * ranks + source) * ranks + destination;
}

void MessageExchange::start(bool deferInitialSends) {
  const CommTimer timer(m_context);
  m_recvFirst = chunkOffsets(m_graph.receives, m_chunkBytes);
  m_recvRequests.assign(m_recvFirst.back(), MPI_REQUEST_NULL);
  m_recvPosted.assign(m_graph.receives.size(), false);
  m_recvDone.assign(m_graph.receives.size(), false);
  m_gatePending.resize(m_graph.receives.size());
  m_slotOccupant.assign(m_graph.blockSlotBytes.size(), -1);
  for (std::size_t r = 0; r < m_graph.receives.size(); ++r) {
    m_gatePending[r] = static_cast<int>(m_graph.receives[r].gate.size());
    if (m_gatePending[r] == 0) postReceive(static_cast<int>(r));
  }
  m_sendFirst = chunkOffsets(m_graph.sends, m_chunkBytes);
  m_sendRequests.assign(m_sendFirst.back(), MPI_REQUEST_NULL);
  m_sendPosted.assign(m_graph.sends.size(), false);
  m_sendDone.assign(m_graph.sends.size(), false);
  m_sentFrom.assign(m_graph.sends.size(), nullptr);
  m_pendingProducers.resize(m_graph.sends.size());
  for (std::size_t s = 0; s < m_graph.sends.size(); ++s)
    m_pendingProducers[s] = static_cast<int>(m_graph.sends[s].producers.size());
  if (!deferInitialSends) postInitialSends();
}

void MessageExchange::postInitialSends() {
  for (std::size_t s = 0; s < m_graph.sends.size(); ++s) {
    if (m_graph.sends[s].producers.empty() && !m_sendPosted[s]) postSend(static_cast<int>(s));
  }
}

std::byte* MessageExchange::receiveBuffer(int index) const {
  const Message& message = m_graph.receives[static_cast<std::size_t>(index)];
  if (message.kind == Message::Kind::Block)
    return m_buffers.blockSlots[static_cast<std::size_t>(message.block.slot)].data();
  return m_buffers.receives.data(static_cast<std::size_t>(index));
}

void MessageExchange::postReceive(int index) {
  const auto r = static_cast<std::size_t>(index);
  const Message& message = m_graph.receives[r];
  if (message.kind == Message::Kind::Block) {
    // The part that held the slot before is gone: its readers are done.
    const auto slot = static_cast<std::size_t>(message.block.slot);
    if (const int previous = m_slotOccupant[slot]; previous >= 0) {
      const BlockTransfer& old = m_graph.receives[static_cast<std::size_t>(previous)].block;
      dw(old.dw).dropArrivedBlock(old.label, old.part);
    }
    m_slotOccupant[slot] = index;
  }
  postChunkedReceive(receiveBuffer(index), message.bytes, m_chunkBytes,
                     message.peer, mpiTag(message), m_comm.get(), &m_recvRequests[m_recvFirst[r]]);
  m_recvPosted[r] = true;
}

void MessageExchange::packCells(int index) {
  const ScopedTimer packing(m_context.stats.packSeconds);
  const Message& message = m_graph.sends[static_cast<std::size_t>(index)];
  std::byte* buffer = m_buffers.sends.data(static_cast<std::size_t>(index));
  for (const GhostPiece& piece : message.pieces) {
    if (piece.sharesData) continue;  // packed with the piece that holds it
    const Patch& source = m_graph.grid->patchById(piece.sourcePatch);
    const auto var = dw(piece.dw).findGridVariable(piece.label, source);
    TESSERA_REQUIRE_THROWS(var != nullptr, "cannot send '" << piece.label->name() << "' of patch "
                                                           << piece.sourcePatch << ": not in "
                                                           << dw(piece.dw).name());
    if (piece.averaged) {
      // Fine cells averaged onto the coarse cells `sourceBox` (CoarsenFill).
      var->packCoarsened(piece.sourceBox, source.level().refinementRatio(),
                         piece.label->levelTransfer().coarsen, buffer + piece.byteOffset);
      continue;
    }
    var->pack(piece.sourceBox, buffer + piece.byteOffset);
  }
}

const std::byte* MessageExchange::blockData(int index) {
  const auto s = static_cast<std::size_t>(index);
  const BlockTransfer& transfer = m_graph.sends[s].block;
  const auto block = dw(transfer.dw).findBlock(transfer.label, transfer.part.block);
  TESSERA_REQUIRE_THROWS(block != nullptr, "cannot send block " << transfer.part.block << " of '"
                                                                << transfer.label->name()
                                                                << "': not in "
                                                                << dw(transfer.dw).name());
  const std::byte* data = block->data() + static_cast<std::size_t>(transfer.part.rowBegin) *
                                              static_cast<std::size_t>(block->extent().cols) *
                                              block->elementBytes();
  if (!transfer.copy) {
    m_sentFrom[s] = block;  // read in place until the send completes
    return data;
  }
  const ScopedTimer packing(m_context.stats.packSeconds);
  std::memcpy(m_buffers.sends.data(s), data, m_graph.sends[s].bytes);
  return m_buffers.sends.data(s);
}

void MessageExchange::postSend(int index) {
  const CommTimer timer(m_context);
  const auto s = static_cast<std::size_t>(index);
  const Message& message = m_graph.sends[s];
  const bool cells = message.kind == Message::Kind::Cells;
  const TraceScope traced(m_context.trace, cells ? "pack + send" : "block send", "comm");
  if (m_context.trace) {
    m_context.trace->flow(TraceEvent::Kind::FlowStart, flowId(message, m_comm.rank(), message.peer),
                          m_context.trace->now());
  }
  const std::byte* data = nullptr;
  if (cells) {
    packCells(index);
    data = m_buffers.sends.data(s);
  } else {
    data = blockData(index);
  }
  postChunkedSend(data, message.bytes, m_chunkBytes, message.peer, mpiTag(message), m_comm.get(),
                  &m_sendRequests[m_sendFirst[s]]);
  m_sendPosted[s] = true;
  m_context.sent(message.bytes);
}

void MessageExchange::taskFinished(const DetailedTask& task) {
  for (int send : task.sendsToRelease) {
    if (--m_pendingProducers[static_cast<std::size_t>(send)] == 0) postSend(send);
  }
  if (task.receiveGates.empty()) return;
  const CommTimer timer(m_context);
  for (int receive : task.receiveGates) {
    if (--m_gatePending[static_cast<std::size_t>(receive)] == 0) postReceive(receive);
  }
}

bool MessageExchange::progress() {
  if (m_recvRequests.empty() && m_sendRequests.empty()) return false;
  const CommTimer timer(m_context);
  bool progressed = false;
  // All of a message's chunks, tested at once (one request, almost always).
  for (std::size_t r = 0; r < m_recvDone.size(); ++r) {
    if (!m_recvPosted[r] || m_recvDone[r]) continue;
    if (!allArrived(m_recvRequests, m_recvFirst[r], m_recvFirst[r + 1])) continue;
    m_recvDone[r] = true;
    progressed = true;
    const Message& message = m_graph.receives[r];
    m_context.arrived(message.bytes, "message arrived",
                      flowId(message, message.peer, m_comm.rank()));
  }
  for (std::size_t s = 0; s < m_sendDone.size(); ++s) {
    if (!m_sendPosted[s] || m_sendDone[s]) continue;
    if (allArrived(m_sendRequests, m_sendFirst[s], m_sendFirst[s + 1])) {
      m_sendDone[s] = true;
      m_sentFrom[s].reset();
    }
  }
  return progressed;
}

bool MessageExchange::inputsArrived(const DetailedTask& task) const {
  for (int r : task.receivesRead)
    if (!m_recvDone[static_cast<std::size_t>(r)]) return false;
  return true;
}

bool MessageExchange::receivesOutstanding() const {
  return std::find(m_recvDone.begin(), m_recvDone.end(), false) != m_recvDone.end();
}

bool MessageExchange::sendsOutstanding() const {
  for (std::size_t s = 0; s < m_sendDone.size(); ++s)
    if (m_sendPosted[s] && !m_sendDone[s]) return true;
  return false;
}

void MessageExchange::checkComplete() {
  TESSERA_MPI_CHECK(MPI_Waitall(static_cast<int>(m_sendRequests.size()), m_sendRequests.data(),
                                MPI_STATUSES_IGNORE));
  for (std::size_t r = 0; r < m_recvDone.size(); ++r) {
    TESSERA_REQUIRE_THROWS(m_recvDone[r], describe(m_graph.receives[r], false)
                                              << " was never consumed");
  }
  m_sentFrom.clear();
  m_completed = true;
}

void MessageExchange::abandon() {
  if (m_completed) return;
  m_completed = true;
  // What is still in flight keeps its buffers, and the blocks sends read in
  // place, set aside until MPI is done.
  std::vector<std::shared_ptr<const void>> keepAlive;
  for (auto& block : m_sentFrom)
    if (block) keepAlive.push_back(std::move(block));
  m_buffers.setAside(cancelAndCollect(m_recvRequests, m_sendRequests), std::move(keepAlive));
}

std::string MessageExchange::describe(const Message& m, bool sending) const {
  std::ostringstream out;
  if (m.kind == Message::Kind::Cells) {
    out << (sending ? "send to" : "message from") << " rank " << m.peer << " (phase " << m.phase;
  } else {
    out << m.block.part << " of '" << m.block.label->name() << "' (" << dwName(m.block.dw) << ") "
        << (sending ? "to" : "from") << " rank " << m.peer << " (block message "
        << m.block.sequence;
  }
  out << ", tag " << mpiTag(m) << ", " << m.bytes << " bytes)";
  return out.str();
}

std::vector<std::string> MessageExchange::describeMissingMessages(const DetailedTask& task) const {
  std::vector<std::string> missing;
  for (int r : task.receivesRead) {
    if (!m_recvDone[static_cast<std::size_t>(r)])
      missing.push_back(describe(m_graph.receives[static_cast<std::size_t>(r)], false));
  }
  return missing;
}

std::vector<std::string> MessageExchange::describeOutstandingSends() const {
  std::vector<std::string> sends;
  for (std::size_t s = 0; s < m_sendDone.size(); ++s) {
    if (m_sendPosted[s] && !m_sendDone[s])
      sends.push_back(describe(m_graph.sends[s], true) + " not yet received");
  }
  return sends;
}

}  // namespace tessera
