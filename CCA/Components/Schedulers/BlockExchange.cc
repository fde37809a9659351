#include "CCA/Components/Schedulers/BlockExchange.h"

#include "CCA/Components/Schedulers/MessageRequests.h"

#include "Core/Util/Error.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <utility>

namespace tessera {

namespace {

// out = parts[0] + parts[1] + ..., in that order, element by element.
template <class T>
void sumInOrder(std::byte* out, const std::vector<const std::byte*>& parts, std::int64_t count) {
  T* result = reinterpret_cast<T*>(out);
  const T* first = reinterpret_cast<const T*>(parts.front());
  std::copy(first, first + count, result);
  for (std::size_t p = 1; p < parts.size(); ++p) {
    const T* part = reinterpret_cast<const T*>(parts[p]);
    for (std::int64_t i = 0; i < count; ++i)
      result[i] += part[i];
  }
}

}  // namespace

BlockExchange::BlockExchange(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                             OnDemandDataWarehouse& newDW, const Communicator& comm,
                             CommContext& context, int execution, int tagBase,
                             MessageBuffers& buffers, std::size_t chunkBytes)
    : m_graph(graph),
      m_oldDW(oldDW),
      m_newDW(newDW),
      m_comm(comm),
      m_context(context),
      m_buffers(buffers),
      m_chunkBytes(chunkBytes),
      m_execution(std::max(execution, 0)),
      m_tagBase(tagBase) {}

BlockExchange::~BlockExchange() {
  abandon();
}

std::int64_t BlockExchange::flowId(const BlockMessage& message, int source, int destination) const {
  const std::int64_t ranks = m_comm.size();
  const std::int64_t id =
      ((static_cast<std::int64_t>(m_execution) * m_graph.blockTagStride + message.sequence) *
           ranks +
       source) *
          ranks +
      destination;
  return id | (std::int64_t{1} << 62);  // apart from ghost messages' arrows
}

void BlockExchange::start(bool deferInitialSends) {
  if (m_graph.blockReceives.empty() && m_graph.blockSends.empty()) return;
  const CommTimer timer(m_context);
  m_recvFirst = chunkOffsets(m_graph.blockReceives, m_chunkBytes);
  m_recvRequests.assign(m_recvFirst.back(), MPI_REQUEST_NULL);
  m_recvPosted.assign(m_graph.blockReceives.size(), false);
  m_recvDone.assign(m_graph.blockReceives.size(), false);
  m_gatePending.resize(m_graph.blockReceives.size());
  m_slotOccupant.assign(m_graph.blockSlotBytes.size(), -1);
  for (std::size_t r = 0; r < m_graph.blockReceives.size(); ++r) {
    m_gatePending[r] = static_cast<int>(m_graph.blockReceives[r].gate.size());
    if (m_gatePending[r] == 0) postReceive(static_cast<int>(r));
  }
  m_sendFirst = chunkOffsets(m_graph.blockSends, m_chunkBytes);
  m_sendRequests.assign(m_sendFirst.back(), MPI_REQUEST_NULL);
  m_sendPosted.assign(m_graph.blockSends.size(), false);
  m_sendDone.assign(m_graph.blockSends.size(), false);
  m_sentFrom.assign(m_graph.blockSends.size(), nullptr);
  m_pendingProducers.resize(m_graph.blockSends.size());
  for (std::size_t s = 0; s < m_graph.blockSends.size(); ++s)
    m_pendingProducers[s] = static_cast<int>(m_graph.blockSends[s].producers.size());
  if (!deferInitialSends) postInitialSends();
}

void BlockExchange::postInitialSends() {
  for (std::size_t s = 0; s < m_graph.blockSends.size(); ++s) {
    if (m_graph.blockSends[s].producers.empty() && !m_sendPosted[s]) postSend(static_cast<int>(s));
  }
}

void BlockExchange::postReceive(int index) {
  const auto r = static_cast<std::size_t>(index);
  const BlockMessage& message = m_graph.blockReceives[r];
  const auto slot = static_cast<std::size_t>(message.slot);
  // The part that held the buffer before is gone: its readers are done.
  if (const int previous = m_slotOccupant[slot]; previous >= 0) {
    const BlockMessage& old = m_graph.blockReceives[static_cast<std::size_t>(previous)];
    dw(old.dw).dropArrivedBlock(old.label, old.part);
  }
  m_slotOccupant[slot] = index;
  postChunkedReceive(m_buffers.blockSlots[slot].data(), message.bytes, m_chunkBytes, message.peer,
                     mpiTag(message), m_comm.get(), &m_recvRequests[m_recvFirst[r]]);
  m_recvPosted[r] = true;
}

void BlockExchange::postSend(int index) {
  const CommTimer timer(m_context);
  const auto s = static_cast<std::size_t>(index);
  const BlockMessage& message = m_graph.blockSends[s];
  const TraceScope traced(m_context.trace, "block send", "comm");
  if (m_context.trace) {
    m_context.trace->flow(TraceEvent::Kind::FlowStart, flowId(message, m_comm.rank(), message.peer),
                          m_context.trace->now());
  }
  const auto block = dw(message.dw).findBlock(message.label, message.part.block);
  TESSERA_REQUIRE_THROWS(block != nullptr, "cannot send block " << message.part.block << " of '"
                                                                << message.label->name()
                                                                << "': not in "
                                                                << dw(message.dw).name());
  const std::byte* data = block->data() + static_cast<std::size_t>(message.part.rowBegin) *
                                              static_cast<std::size_t>(block->extent().cols) *
                                              block->elementBytes();
  if (message.copy) {
    const ScopedTimer packing(m_context.stats.packSeconds);
    std::memcpy(m_buffers.blockSends[s].data(), data, message.bytes);
    data = m_buffers.blockSends[s].data();
  } else {
    m_sentFrom[s] = block;
  }
  postChunkedSend(data, message.bytes, m_chunkBytes, message.peer, mpiTag(message), m_comm.get(),
                  &m_sendRequests[m_sendFirst[s]]);
  m_sendPosted[s] = true;
  m_context.sent(message.bytes);
}

void BlockExchange::taskFinished(const DetailedTask& task) {
  for (int send : task.blockSendsToRelease) {
    if (--m_pendingProducers[static_cast<std::size_t>(send)] == 0) postSend(send);
  }
  if (task.blockGates.empty()) return;
  const CommTimer timer(m_context);
  for (int receive : task.blockGates) {
    if (--m_gatePending[static_cast<std::size_t>(receive)] == 0) postReceive(receive);
  }
}

bool BlockExchange::progress() {
  if (m_recvRequests.empty() && m_sendRequests.empty()) return false;
  const CommTimer timer(m_context);
  bool progressed = false;
  for (std::size_t r = 0; r < m_recvDone.size(); ++r) {
    if (!m_recvPosted[r] || m_recvDone[r]) continue;
    if (!allArrived(m_recvRequests, m_recvFirst[r], m_recvFirst[r + 1])) continue;
    m_recvDone[r] = true;
    progressed = true;
    const BlockMessage& message = m_graph.blockReceives[r];
    m_context.arrived(message.bytes, "block arrived", flowId(message, message.peer, m_comm.rank()));
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

bool BlockExchange::inputsArrived(const DetailedTask& task) const {
  for (int r : task.blockReceives)
    if (!m_recvDone[static_cast<std::size_t>(r)]) return false;
  return true;
}

void BlockExchange::performFills(const DetailedTask& task) {
  if (task.blockReceives.empty() && task.blockSums.empty()) return;
  TESSERA_REQUIRE_THROWS(inputsArrived(task), "block inputs of " << task.describe(m_graph.tasks)
                                                                 << " used before they arrived");
  const CommTimer timer(m_context, &m_context.stats.packSeconds);
  const TraceScope traced(m_context.trace, "block fill", "comm", task.id);
  for (int r : task.blockReceives) {
    const BlockMessage& message = m_graph.blockReceives[static_cast<std::size_t>(r)];
    dw(message.dw)
        .putArrivedBlock(message.label, message.part,
                         std::make_shared<BlockData>(
                             message.extent, message.label->elementBytes(),
                             m_buffers.blockSlots[static_cast<std::size_t>(message.slot)].data()));
  }
  for (int s : task.blockSums)
    computeSum(s);
}

void BlockExchange::computeSum(int index) {
  const BlockSum& sum = m_graph.blockSums[static_cast<std::size_t>(index)];
  OnDemandDataWarehouse& where = dw(sum.dw);
  std::vector<const std::byte*> parts;
  std::vector<std::shared_ptr<BlockData>> held;  // kept alive while summing
  for (std::size_t p = 0; p < sum.parts.size(); ++p) {
    const BlockRef& part = sum.parts[p];
    const int receive = sum.receives[p];
    if (receive >= 0) {
      const BlockMessage& message = m_graph.blockReceives[static_cast<std::size_t>(receive)];
      parts.push_back(m_buffers.blockSlots[static_cast<std::size_t>(message.slot)].data());
      continue;
    }
    auto block = where.findBlock(sum.label, part.block);
    TESSERA_REQUIRE_THROWS(block != nullptr, "the sum of '" << sum.label->name() << "' for index "
                                                            << sum.index << " needs block "
                                                            << part.block << ", not in "
                                                            << where.name());
    parts.push_back(block->data() + static_cast<std::size_t>(part.rowBegin) *
                                        static_cast<std::size_t>(block->extent().cols) *
                                        block->elementBytes());
    held.push_back(std::move(block));
  }
  std::byte* out = m_buffers.blockSums[static_cast<std::size_t>(index)].data();
  const std::int64_t count = sum.extent.size();
  const std::string& type = sum.label->valueType();
  if (type == "double") {
    sumInOrder<double>(out, parts, count);
  } else if (type == "float") {
    sumInOrder<float>(out, parts, count);
  } else if (type == "int") {
    sumInOrder<int>(out, parts, count);
  } else if (type == "int64") {
    sumInOrder<std::int64_t>(out, parts, count);
  } else {
    TESSERA_FAIL("cannot sum blocks of '" << sum.label->name() << "' (values of type " << type
                                          << ")");
  }
  where.putBlockSum(sum.label, sum.index,
                    std::make_shared<BlockData>(sum.extent, sum.label->elementBytes(), out));
}

bool BlockExchange::outstanding() const { return receivesOutstanding() || sendsOutstanding(); }

bool BlockExchange::receivesOutstanding() const {
  for (bool done : m_recvDone)
    if (!done) return true;
  return false;
}

bool BlockExchange::sendsOutstanding() const {
  for (std::size_t s = 0; s < m_sendDone.size(); ++s)
    if (m_sendPosted[s] && !m_sendDone[s]) return true;
  return false;
}

void BlockExchange::checkComplete() {
  TESSERA_MPI_CHECK(MPI_Waitall(static_cast<int>(m_sendRequests.size()), m_sendRequests.data(),
                                MPI_STATUSES_IGNORE));
  for (std::size_t r = 0; r < m_recvDone.size(); ++r) {
    TESSERA_REQUIRE_THROWS(m_recvDone[r], describe(m_graph.blockReceives[r], "from")
                                              << " was never consumed");
  }
  m_sentFrom.clear();
  m_oldDW.dropBorrowedBlocks();
  m_newDW.dropBorrowedBlocks();
  m_completed = true;
}

void BlockExchange::abandon() {
  if (m_completed) return;
  m_completed = true;
  m_oldDW.dropBorrowedBlocks();
  m_newDW.dropBorrowedBlocks();
  std::vector<MPI_Request> inFlight = cancelAndCollect(m_recvRequests, m_sendRequests);
  std::vector<std::shared_ptr<const void>> keepAlive;
  for (auto& block : m_sentFrom)
    if (block) keepAlive.push_back(std::move(block));
  m_buffers.setAsideBlocks(std::move(inFlight), std::move(keepAlive));
}

std::string BlockExchange::describe(const BlockMessage& m, const char* direction) const {
  std::ostringstream out;
  out << m.part << " of '" << m.label->name() << "' (" << dwName(m.dw) << ") " << direction
      << " rank " << m.peer << " (tag " << mpiTag(m) << ", " << m.bytes << " bytes)";
  return out.str();
}

std::vector<std::string> BlockExchange::describeMissingMessages(const DetailedTask& task) const {
  std::vector<std::string> missing;
  for (int r : task.blockReceives) {
    if (m_recvDone[static_cast<std::size_t>(r)]) continue;
    missing.push_back(describe(m_graph.blockReceives[static_cast<std::size_t>(r)], "from"));
  }
  return missing;
}

std::vector<std::string> BlockExchange::describeOutstandingSends() const {
  std::vector<std::string> sends;
  for (std::size_t s = 0; s < m_sendDone.size(); ++s) {
    if (!m_sendPosted[s] || m_sendDone[s]) continue;
    sends.push_back(describe(m_graph.blockSends[s], "to") + " not yet received");
  }
  return sends;
}

}  // namespace tessera
