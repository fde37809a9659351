#include "CCA/Components/Schedulers/GhostExchange.h"

#include "CCA/Components/Schedulers/MessageRequests.h"

#include "Core/Grid/Grid.h"

#include <algorithm>
#include <sstream>
#include <utility>

namespace tessera {

GhostExchange::GhostExchange(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
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
  m_fillDone.assign(graph.fills.size(), false);
  m_pendingEagerProducers.resize(graph.eagerCopies.size());
  for (std::size_t e = 0; e < graph.eagerCopies.size(); ++e)
    m_pendingEagerProducers[e] = static_cast<int>(graph.eagerCopies[e].producers.size());
  m_eagerCopiesLeft.resize(graph.fills.size());
  for (std::size_t f = 0; f < graph.fills.size(); ++f)
    m_eagerCopiesLeft[f] = graph.fills[f].eagerCopies;
}

GhostExchange::~GhostExchange() {
  abandon();
}

void GhostExchange::abandon() {
  if (m_completed) return;
  m_completed = true;
  // What is still in flight keeps its buffers, set aside until MPI is done.
  m_buffers.setAside(cancelAndCollect(m_recvRequests, m_sendRequests));
}

const Patch& GhostExchange::patch(int id) const {
  return m_graph.grid->patchById(id);
}

std::int64_t GhostExchange::flowId(const Message& message, int source, int destination) const {
  const std::int64_t phases = static_cast<std::int64_t>(m_graph.tasks.size()) + 1;
  const std::int64_t ranks = m_comm.size();
  return ((static_cast<std::int64_t>(m_execution) * phases + message.tag) * ranks + source) *
             ranks +
         destination;
}

void GhostExchange::start(bool deferInitialSends, bool deferEagerCopies) {
  const CommTimer timer(m_context);
  m_deferEagerCopies = deferEagerCopies;
  m_eagerQueue.assign(m_graph.eagerCopies.size(), -1);  // see EagerBatch
  m_eagerReleased = 0;
  m_eagerDone = 0;
  m_recvFirst = chunkOffsets(m_graph.receives, m_chunkBytes);
  m_recvRequests.assign(m_recvFirst.back(), MPI_REQUEST_NULL);
  m_recvDone.assign(m_graph.receives.size(), false);
  for (std::size_t r = 0; r < m_graph.receives.size(); ++r) {
    const Message& message = m_graph.receives[r];
    postChunkedReceive(m_buffers.receives[r].data(), message.bytes, m_chunkBytes, message.peer,
                       mpiTag(message), m_comm.get(), &m_recvRequests[m_recvFirst[r]]);
  }
  m_sendFirst = chunkOffsets(m_graph.sends, m_chunkBytes);
  m_sendRequests.assign(m_sendFirst.back(), MPI_REQUEST_NULL);
  m_sendPosted.assign(m_graph.sends.size(), false);
  m_sendDone.assign(m_graph.sends.size(), false);
  m_pendingProducers.resize(m_graph.sends.size());
  for (std::size_t s = 0; s < m_graph.sends.size(); ++s)
    m_pendingProducers[s] = static_cast<int>(m_graph.sends[s].producers.size());
  if (!deferInitialSends) postInitialSends();
}

void GhostExchange::postInitialSends() {
  for (std::size_t s = 0; s < m_graph.sends.size(); ++s) {
    if (m_graph.sends[s].producers.empty() && !m_sendPosted[s]) postSend(static_cast<int>(s));
  }
}

void GhostExchange::taskFinished(const DetailedTask& task) {
  for (int send : task.sendsToRelease) {
    if (--m_pendingProducers[static_cast<std::size_t>(send)] == 0) postSend(send);
  }
  if (task.eagerCopiesToRelease.empty()) return;
  for (int copy : task.eagerCopiesToRelease) {
    if (--m_pendingEagerProducers[static_cast<std::size_t>(copy)] == 0)
      m_eagerQueue[m_eagerReleased++] = copy;
  }
  if (!m_deferEagerCopies) performPendingEagerCopies();
}

void GhostExchange::performPendingEagerCopies() {
  if (!eagerCopiesPending()) return;
  const CommTimer timer(m_context, &m_context.stats.packSeconds);
  const TraceScope traced(m_context.trace, "eager ghost copies", "comm");
  const EagerBatch batch = takePendingEagerCopies();
  makeEagerCopies(batch);
  recordEagerCopies(batch);
}

GhostExchange::EagerBatch GhostExchange::takePendingEagerCopies() {
  const EagerBatch batch{m_eagerDone, m_eagerReleased};
  m_eagerDone = batch.last;
  return batch;
}

void GhostExchange::makeEagerCopies(EagerBatch batch) const {
  for (std::size_t k = batch.first; k < batch.last; ++k)
    makeEagerCopy(m_eagerQueue[k]);
}

void GhostExchange::makeEagerCopy(int index) const {
  const EagerCopy& eager = m_graph.eagerCopies[static_cast<std::size_t>(index)];
  const GhostFill& fill = m_graph.fills[static_cast<std::size_t>(eager.fill)];
  const GhostPiece& piece = fill.localCopies[static_cast<std::size_t>(eager.piece)];
  const auto destination = m_newDW.findGridVariable(fill.label, patch(fill.patchId));
  const auto source = m_newDW.findGridVariable(fill.label, patch(piece.sourcePatch));
  TESSERA_REQUIRE_THROWS(destination != nullptr && source != nullptr,
                         "eager ghost copy of '" << fill.label->name() << "' from patch "
                                                 << piece.sourcePatch << " to patch "
                                                 << fill.patchId << ": not in " << m_newDW.name());
  destination->copyFrom(*source, piece.sourceBox, piece.offset);
}

void GhostExchange::eagerCopiesMade(EagerBatch batch, double seconds, bool overlapped) {
  m_context.charge(seconds, overlapped, &m_context.stats.packSeconds);
  recordEagerCopies(batch);
}

void GhostExchange::recordEagerCopies(EagerBatch batch) {
  for (std::size_t k = batch.first; k < batch.last; ++k) {
    const auto f = static_cast<std::size_t>(
        m_graph.eagerCopies[static_cast<std::size_t>(m_eagerQueue[k])].fill);
    const GhostFill& fill = m_graph.fills[f];
    if (--m_eagerCopiesLeft[f] == 0)
      m_newDW.markLocalGhostsFilled(fill.label, patch(fill.patchId), fill.numGhost, fill.type);
  }
}

void GhostExchange::postSend(int index) {
  const CommTimer timer(m_context);
  const Message& message = m_graph.sends[static_cast<std::size_t>(index)];
  const TraceScope traced(m_context.trace, "pack + send", "comm");
  if (m_context.trace) {
    m_context.trace->flow(TraceEvent::Kind::FlowStart, flowId(message, m_comm.rank(), message.peer),
                          m_context.trace->now());
  }
  std::vector<std::byte>& buffer = m_buffers.sends[static_cast<std::size_t>(index)];
  {
    const ScopedTimer packing(m_context.stats.packSeconds);
    for (const GhostPiece& piece : message.pieces) {
      OnDemandDataWarehouse& dw = piece.dw == Task::OldDW ? m_oldDW : m_newDW;
      const auto var = dw.findGridVariable(piece.label, patch(piece.sourcePatch));
      TESSERA_REQUIRE_THROWS(var != nullptr, "cannot send '" << piece.label->name() << "' of patch "
                                                             << piece.sourcePatch << ": not in "
                                                             << dw.name());
      var->pack(piece.sourceBox, buffer.data() + piece.byteOffset);
    }
  }
  const auto s = static_cast<std::size_t>(index);
  postChunkedSend(buffer.data(), message.bytes, m_chunkBytes, message.peer, mpiTag(message),
                  m_comm.get(), &m_sendRequests[m_sendFirst[s]]);
  m_sendPosted[s] = true;
  m_context.sent(message.bytes);
}

bool GhostExchange::progress() {
  if (m_recvRequests.empty() && m_sendRequests.empty()) return false;
  const CommTimer timer(m_context);
  bool progressed = false;
  // All of a message's chunks, tested at once (one request, almost always).
  for (std::size_t r = 0; r < m_recvDone.size(); ++r) {
    if (m_recvDone[r] || !allArrived(m_recvRequests, m_recvFirst[r], m_recvFirst[r + 1])) continue;
    m_recvDone[r] = true;
    progressed = true;
    const Message& message = m_graph.receives[r];
    m_context.arrived(message.bytes, "message arrived",
                      flowId(message, message.peer, m_comm.rank()));
  }
  for (std::size_t s = 0; s < m_sendDone.size(); ++s) {
    if (!m_sendPosted[s] || m_sendDone[s]) continue;
    if (allArrived(m_sendRequests, m_sendFirst[s], m_sendFirst[s + 1])) m_sendDone[s] = true;
  }
  return progressed;
}

bool GhostExchange::outstanding() const {
  return receivesOutstanding() || sendsOutstanding();
}

bool GhostExchange::receivesOutstanding() const {
  for (bool done : m_recvDone)
    if (!done) return true;
  return false;
}

bool GhostExchange::sendsOutstanding() const {
  for (std::size_t s = 0; s < m_sendDone.size(); ++s)
    if (m_sendPosted[s] && !m_sendDone[s]) return true;
  return false;
}

bool GhostExchange::inputsArrived(const DetailedTask& task) const {
  for (int fill : task.fills) {
    for (const auto& [message, piece] :
         m_graph.fills[static_cast<std::size_t>(fill)].remotePieces) {
      if (!m_recvDone[static_cast<std::size_t>(message)]) return false;
    }
  }
  return true;
}

void GhostExchange::performFills(const DetailedTask& task) {
  TESSERA_REQUIRE_THROWS(inputsArrived(task), "ghost fill of " << task.describe(m_graph.tasks)
                                                               << " before its messages arrived");
  if (task.fills.empty()) return;
  const CommTimer timer(m_context, &m_context.stats.packSeconds);
  const TraceScope traced(m_context.trace, "ghost fill", "comm", task.id);
  for (int index : task.fills) {
    if (m_fillDone[static_cast<std::size_t>(index)]) continue;
    const GhostFill& fill = m_graph.fills[static_cast<std::size_t>(index)];
    OnDemandDataWarehouse& dw = fill.dw == Task::OldDW ? m_oldDW : m_newDW;
    const Patch& target = patch(fill.patchId);
    dw.ensureGhostRoom(fill.label, target, fill.numGhost);
    const auto destination = dw.findGridVariable(fill.label, target);
    // The previous step may have made the local copies already, while their
    // data was in cache.
    const bool copiedAhead = fill.dw == Task::OldDW &&
                             dw.localGhostsFilled(fill.label, target, fill.numGhost, fill.type);
    const auto copy = [&](const GhostPiece& piece) {
      const auto source = dw.findGridVariable(piece.label, patch(piece.sourcePatch));
      TESSERA_REQUIRE_THROWS(source != nullptr, "ghost cells of '"
                                                    << piece.label->name() << "' need patch "
                                                    << piece.sourcePatch << ", which is not in "
                                                    << dw.name());
      destination->copyFrom(*source, piece.sourceBox, piece.offset);
    };
    if (!copiedAhead) std::for_each(fill.localCopies.begin(), fill.localCopies.end(), copy);
    if (!fill.groupCopies.empty() &&
        !dw.inGroupStorage(fill.label, fill.groupStorageKey, *destination))
      std::for_each(fill.groupCopies.begin(), fill.groupCopies.end(), copy);
    for (const auto& [message, pieceIndex] : fill.remotePieces) {
      const GhostPiece& piece = m_graph.receives[static_cast<std::size_t>(message)]
                                    .pieces[static_cast<std::size_t>(pieceIndex)];
      destination->unpack(
          piece.sourceBox.shift(piece.offset),
          m_buffers.receives[static_cast<std::size_t>(message)].data() + piece.byteOffset);
    }
    m_fillDone[static_cast<std::size_t>(index)] = true;
  }
}

void GhostExchange::checkComplete() {
  TESSERA_MPI_CHECK(MPI_Waitall(static_cast<int>(m_sendRequests.size()), m_sendRequests.data(),
                                MPI_STATUSES_IGNORE));
  for (std::size_t r = 0; r < m_recvDone.size(); ++r) {
    TESSERA_REQUIRE_THROWS(m_recvDone[r], "a message from rank " << m_graph.receives[r].peer
                                                                 << " (phase "
                                                                 << m_graph.receives[r].phase
                                                                 << ") was never consumed");
  }
  m_completed = true;
}

std::vector<std::string> GhostExchange::describeMissingMessages(const DetailedTask& task) const {
  std::vector<std::string> missing;
  for (int fill : task.fills) {
    for (const auto& [message, piece] :
         m_graph.fills[static_cast<std::size_t>(fill)].remotePieces) {
      if (m_recvDone[static_cast<std::size_t>(message)]) continue;
      const Message& m = m_graph.receives[static_cast<std::size_t>(message)];
      std::ostringstream reason;
      reason << "message from rank " << m.peer << " (phase " << m.phase << ", tag " << mpiTag(m)
             << ", " << m.bytes << " bytes)";
      if (std::find(missing.begin(), missing.end(), reason.str()) == missing.end())
        missing.push_back(reason.str());
    }
  }
  return missing;
}

std::vector<std::string> GhostExchange::describeOutstandingSends() const {
  std::vector<std::string> sends;
  for (std::size_t s = 0; s < m_sendDone.size(); ++s) {
    if (!m_sendPosted[s] || m_sendDone[s]) continue;
    const Message& m = m_graph.sends[s];
    std::ostringstream out;
    out << "send to rank " << m.peer << " (phase " << m.phase << ", tag " << mpiTag(m) << ", "
        << m.bytes << " bytes) not yet received";
    sends.push_back(out.str());
  }
  return sends;
}

}  // namespace tessera
