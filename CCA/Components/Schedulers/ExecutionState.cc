#include "CCA/Components/Schedulers/ExecutionState.h"

#include "Core/Grid/Grid.h"
#include "Core/Util/Timer.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <sstream>

namespace tessera {

namespace {
double now() {
  return std::chrono::duration<double>(Timer::Clock::now().time_since_epoch()).count();
}
}  // namespace

ExecutionState::CommTimer::CommTimer(ExecutionState& state)
    : m_state(state), m_overlapped(state.m_deviceBusy && state.m_deviceBusy()), m_start(now()) {}

ExecutionState::CommTimer::~CommTimer() {
  const double elapsed = now() - m_start;
  m_state.m_stats.commWorkSeconds += elapsed;
  if (m_overlapped) m_state.m_stats.commOverlapSeconds += elapsed;
}

void MessageBuffers::prepare(const CompiledGraph& graph) {
  receives.resize(graph.receives.size());
  for (std::size_t r = 0; r < graph.receives.size(); ++r)
    receives[r].resize(graph.receives[r].bytes);
  sends.resize(graph.sends.size());
  for (std::size_t s = 0; s < graph.sends.size(); ++s)
    sends[s].resize(graph.sends[s].bytes);
}

ExecutionState::ExecutionState(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                               OnDemandDataWarehouse& newDW, const Communicator& comm,
                               SchedulerStats& stats, int execution, MessageBuffers& buffers)
    : m_graph(graph),
      m_oldDW(oldDW),
      m_newDW(newDW),
      m_comm(comm),
      m_stats(stats),
      m_buffers(buffers) {
  TESSERA_REQUIRE_THROWS(graph.grid != nullptr && graph.rank == comm.rank(),
                         "graph '" << graph.name << "' was not compiled for this rank");
  // Phases 0 .. tasks.size() shifted into this execution's window of tags.
  const int phases = static_cast<int>(graph.tasks.size()) + 1;
  int* tagUpperBound = nullptr;
  int found = 0;
  TESSERA_MPI_CHECK(MPI_Comm_get_attr(comm.get(), MPI_TAG_UB, &tagUpperBound, &found));
  const int windows = found ? std::max(1, *tagUpperBound / phases) : 1;
  m_tagBase = (std::max(execution, 0) % windows) * phases;
  const std::size_t n = graph.detailedTasks.size();
  m_pendingPredecessors.resize(n);
  m_started.assign(n, false);
  m_done.assign(n, false);
  for (const DetailedTask& task : graph.detailedTasks) {
    m_pendingPredecessors[static_cast<std::size_t>(task.id)] =
        static_cast<int>(task.predecessors.size());
  }
  m_buffers.prepare(graph);
  m_fillDone.assign(graph.fills.size(), false);
  m_pendingEagerProducers.resize(graph.eagerCopies.size());
  for (std::size_t e = 0; e < graph.eagerCopies.size(); ++e)
    m_pendingEagerProducers[e] = static_cast<int>(graph.eagerCopies[e].producers.size());
  m_eagerCopiesLeft.resize(graph.fills.size());
  for (std::size_t f = 0; f < graph.fills.size(); ++f)
    m_eagerCopiesLeft[f] = graph.fills[f].eagerCopies;
  m_reductions.reserve(n);
}

ExecutionState::~ExecutionState() {
  if (m_completed) return;
  // A failure left requests behind: cancel receives, let sends finish. A
  // cancelled receive must still complete before its buffer goes (a message
  // already matched lands in it); MPI_Wait on it returns whatever the peers do.
  for (MPI_Request& request : m_recvRequests) {
    if (request != MPI_REQUEST_NULL) {
      MPI_Cancel(&request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
  }
  for (MPI_Request& request : m_sendRequests) {
    if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
  }
}

const Patch& ExecutionState::patch(int id) const {
  return m_graph.grid->patchById(id);
}

void ExecutionState::start(bool deferInitialSends) {
  m_newDW.setGhostLayers(m_graph.ghostLayers);
  const CommTimer timer(*this);
  m_recvRequests.assign(m_graph.receives.size(), MPI_REQUEST_NULL);
  m_recvDone.assign(m_graph.receives.size(), false);
  for (std::size_t r = 0; r < m_graph.receives.size(); ++r) {
    const Message& message = m_graph.receives[r];
    TESSERA_MPI_CHECK(MPI_Irecv(m_buffers.receives[r].data(), static_cast<int>(message.bytes),
                                MPI_BYTE, message.peer, mpiTag(message), m_comm.get(),
                                &m_recvRequests[r]));
  }
  m_sendRequests.assign(m_graph.sends.size(), MPI_REQUEST_NULL);
  m_sendDone.assign(m_graph.sends.size(), false);
  m_pendingProducers.resize(m_graph.sends.size());
  for (std::size_t s = 0; s < m_graph.sends.size(); ++s) {
    m_pendingProducers[s] = static_cast<int>(m_graph.sends[s].producers.size());
  }
  if (!deferInitialSends) postInitialSends();
}

void ExecutionState::postInitialSends() {
  for (std::size_t s = 0; s < m_graph.sends.size(); ++s) {
    if (m_graph.sends[s].producers.empty() && m_sendRequests[s] == MPI_REQUEST_NULL) {
      postSend(static_cast<int>(s));
    }
  }
}

std::vector<int> ExecutionState::finish(int id) {
  TESSERA_REQUIRE_THROWS(!m_done[static_cast<std::size_t>(id)], "task " << id << " finished twice");
  m_done[static_cast<std::size_t>(id)] = true;
  ++m_finished;
  std::vector<int> ready;
  for (int successor : node(id).successors) {
    if (--m_pendingPredecessors[static_cast<std::size_t>(successor)] == 0)
      ready.push_back(successor);
  }
  for (int send : node(id).sendsToRelease) {
    if (--m_pendingProducers[static_cast<std::size_t>(send)] == 0) postSend(send);
  }
  if (!node(id).eagerCopiesToRelease.empty()) {
    const CommTimer timer(*this);
    const ScopedTimer packing(m_stats.packSeconds);
    for (int copy : node(id).eagerCopiesToRelease) {
      if (--m_pendingEagerProducers[static_cast<std::size_t>(copy)] == 0) performEagerCopy(copy);
    }
  }
  return ready;
}

void ExecutionState::performEagerCopy(int index) {
  const EagerCopy& eager = m_graph.eagerCopies[static_cast<std::size_t>(index)];
  const GhostFill& fill = m_graph.fills[static_cast<std::size_t>(eager.fill)];
  const GhostPiece& piece = fill.localCopies[static_cast<std::size_t>(eager.piece)];
  const Patch& target = patch(fill.patchId);
  const auto destination = m_newDW.findGridVariable(fill.label, target);
  const auto source = m_newDW.findGridVariable(fill.label, patch(piece.sourcePatch));
  TESSERA_REQUIRE_THROWS(destination != nullptr && source != nullptr,
                         "eager ghost copy of '" << fill.label->name() << "' from patch "
                                                 << piece.sourcePatch << " to patch "
                                                 << fill.patchId << ": not in " << m_newDW.name());
  destination->copyFrom(*source, piece.sourceBox, piece.offset);
  if (--m_eagerCopiesLeft[static_cast<std::size_t>(eager.fill)] == 0)
    m_newDW.markLocalGhostsFilled(fill.label, target, fill.numGhost, fill.type);
}

void ExecutionState::postSend(int index) {
  const CommTimer timer(*this);
  const Message& message = m_graph.sends[static_cast<std::size_t>(index)];
  std::vector<std::byte>& buffer = m_buffers.sends[static_cast<std::size_t>(index)];
  {
    const ScopedTimer packing(m_stats.packSeconds);
    for (const GhostPiece& piece : message.pieces) {
      OnDemandDataWarehouse& dw = piece.dw == Task::OldDW ? m_oldDW : m_newDW;
      const auto var = dw.findGridVariable(piece.label, patch(piece.sourcePatch));
      TESSERA_REQUIRE_THROWS(var != nullptr, "cannot send '" << piece.label->name() << "' of patch "
                                                             << piece.sourcePatch << ": not in "
                                                             << dw.name());
      var->pack(piece.sourceBox, buffer.data() + piece.byteOffset);
    }
  }
  TESSERA_MPI_CHECK(MPI_Isend(buffer.data(), static_cast<int>(message.bytes), MPI_BYTE,
                              message.peer, mpiTag(message), m_comm.get(),
                              &m_sendRequests[static_cast<std::size_t>(index)]));
  ++m_stats.messagesSent;
  m_stats.bytesSent += static_cast<std::int64_t>(message.bytes);
}

bool ExecutionState::progressMessages() {
  const CommTimer timer(*this);
  bool progressed = false;
  for (std::size_t r = 0; r < m_recvRequests.size(); ++r) {
    if (m_recvDone[r]) continue;
    int done = 0;
    TESSERA_MPI_CHECK(MPI_Test(&m_recvRequests[r], &done, MPI_STATUS_IGNORE));
    if (!done) continue;
    m_recvDone[r] = true;
    progressed = true;
    ++m_stats.messagesReceived;
    m_stats.bytesReceived += static_cast<std::int64_t>(m_graph.receives[r].bytes);
  }
  for (std::size_t s = 0; s < m_sendRequests.size(); ++s) {
    if (m_sendRequests[s] == MPI_REQUEST_NULL || m_sendDone[s]) continue;
    int done = 0;
    TESSERA_MPI_CHECK(MPI_Test(&m_sendRequests[s], &done, MPI_STATUS_IGNORE));
    if (done) m_sendDone[s] = true;
  }
  return progressed;
}

bool ExecutionState::messagesOutstanding() const {
  for (bool done : m_recvDone)
    if (!done) return true;
  return sendsOutstanding();
}

bool ExecutionState::sendsOutstanding() const {
  for (std::size_t s = 0; s < m_sendRequests.size(); ++s)
    if (m_sendRequests[s] != MPI_REQUEST_NULL && !m_sendDone[s]) return true;
  return false;
}

bool ExecutionState::inputsArrived(const DetailedTask& task) const {
  for (int fill : task.fills) {
    for (const auto& [message, piece] :
         m_graph.fills[static_cast<std::size_t>(fill)].remotePieces) {
      if (!m_recvDone[static_cast<std::size_t>(message)]) return false;
    }
  }
  return true;
}

void ExecutionState::performFills(const DetailedTask& task) {
  TESSERA_REQUIRE_THROWS(inputsArrived(task), "ghost fill of " << task.describe(m_graph.tasks)
                                                               << " before its messages arrived");
  const CommTimer timer(*this);
  const ScopedTimer packing(m_stats.packSeconds);
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

void ExecutionState::postReduction(const DetailedTask& task) {
  const CommTimer timer(*this);
  const VarLabel* label = task.reduction;
  const ReductionOps& ops = label->reductionOps();
  const std::size_t record = sizeof(std::int64_t) + ops.bytes;
  PendingReduction pending;
  pending.node = task.id;
  const std::size_t mine = m_newDW.appendReductionRecords(label, pending.local);
  // Every rank knows from the graph how many patches contribute on each rank,
  // so one non-blocking gather suffices.
  pending.counts.assign(static_cast<std::size_t>(m_comm.size()), 0);
  for (std::size_t r = 0; r < task.contributionsPerRank.size() && r < pending.counts.size(); ++r) {
    pending.counts[r] = task.contributionsPerRank[r] * static_cast<int>(record);
  }
  TESSERA_REQUIRE_THROWS(pending.counts[static_cast<std::size_t>(m_comm.rank())] ==
                             static_cast<int>(pending.local.size()),
                         "reduction '" << label->name() << "' has " << mine
                                       << " contributions on this rank; the graph expects "
                                       << pending.counts[static_cast<std::size_t>(m_comm.rank())] /
                                              static_cast<int>(record));
  pending.displacements.assign(pending.counts.size(), 0);
  std::partial_sum(pending.counts.begin(), pending.counts.end() - 1,
                   pending.displacements.begin() + 1);
  pending.all.resize(
      static_cast<std::size_t>(pending.displacements.back() + pending.counts.back()));
  m_reductions.push_back(std::move(pending));
  PendingReduction& posted = m_reductions.back();
  TESSERA_MPI_CHECK(MPI_Iallgatherv(
      posted.local.data(), static_cast<int>(posted.local.size()), MPI_BYTE, posted.all.data(),
      posted.counts.data(), posted.displacements.data(), MPI_BYTE, m_comm.get(), &posted.request));
}

bool ExecutionState::reductionPosted(int id) const {
  for (const PendingReduction& pending : m_reductions)
    if (pending.node == id) return true;
  return false;
}

std::vector<int> ExecutionState::progressReductions() {
  std::vector<int> completed;
  const CommTimer timer(*this);
  for (PendingReduction& pending : m_reductions) {
    if (pending.request == MPI_REQUEST_NULL) continue;
    int done = 0;
    TESSERA_MPI_CHECK(MPI_Test(&pending.request, &done, MPI_STATUS_IGNORE));
    if (!done) continue;
    combineReduction(pending);
    completed.push_back(pending.node);
  }
  return completed;
}

// Combines every patch's contribution in patch-id order, so the result is the
// same bits for any number of ranks.
void ExecutionState::combineReduction(PendingReduction& pending) {
  const ScopedTimer timer(m_stats.reduceSeconds);
  const VarLabel* label = node(pending.node).reduction;
  const ReductionOps& ops = label->reductionOps();
  const std::size_t record = sizeof(std::int64_t) + ops.bytes;
  std::vector<std::pair<std::int64_t, const std::byte*>> byPatch;
  byPatch.reserve(pending.all.size() / record);
  for (std::size_t offset = 0; offset < pending.all.size(); offset += record) {
    std::int64_t id = 0;
    std::memcpy(&id, pending.all.data() + offset, sizeof(id));
    byPatch.emplace_back(id, pending.all.data() + offset + sizeof(id));
  }
  // Each rank's records arrive in id order; sorting the whole makes the order
  // the level's, whatever the distribution.
  std::sort(byPatch.begin(), byPatch.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::byte> result(ops.bytes);
  ops.identity(result.data());
  for (const auto& [id, value] : byPatch)
    ops.combine(result.data(), value);
  m_newDW.setReducedValue(label, result.data());
  ++m_stats.reductions;
}

std::string ExecutionState::describeWaiting(int id) const {
  const DetailedTask& task = node(id);
  std::ostringstream out;
  out << task.describe(m_graph.tasks);
  std::vector<std::string> reasons;
  for (int p : task.predecessors) {
    if (!m_done[static_cast<std::size_t>(p)])
      reasons.push_back("task " + node(p).describe(m_graph.tasks));
  }
  for (int fill : task.fills) {
    for (const auto& [message, piece] :
         m_graph.fills[static_cast<std::size_t>(fill)].remotePieces) {
      if (m_recvDone[static_cast<std::size_t>(message)]) continue;
      const Message& m = m_graph.receives[static_cast<std::size_t>(message)];
      std::ostringstream reason;
      reason << "message from rank " << m.peer << " (phase " << m.phase << ", tag " << mpiTag(m)
             << ", " << m.bytes << " bytes)";
      if (std::find(reasons.begin(), reasons.end(), reason.str()) == reasons.end())
        reasons.push_back(reason.str());
    }
  }
  if (task.kind == DetailedTask::Kind::Reduction && reductionPosted(id)) {
    reasons.push_back("the other ranks' contributions (MPI_Iallgatherv)");
  }
  out << " waits for ";
  for (std::size_t r = 0; r < reasons.size(); ++r)
    out << (r ? ", " : "") << reasons[r];
  if (reasons.empty()) out << "nothing (ready)";
  return out.str();
}

std::vector<std::string> ExecutionState::describeOutstandingSends() const {
  std::vector<std::string> sends;
  for (std::size_t s = 0; s < m_sendRequests.size(); ++s) {
    if (m_sendRequests[s] == MPI_REQUEST_NULL || m_sendDone[s]) continue;
    const Message& m = m_graph.sends[s];
    std::ostringstream out;
    out << "send to rank " << m.peer << " (phase " << m.phase << ", tag " << mpiTag(m) << ", "
        << m.bytes << " bytes) not yet received";
    sends.push_back(out.str());
  }
  return sends;
}

void ExecutionState::checkComplete() {
  TESSERA_MPI_CHECK(MPI_Waitall(static_cast<int>(m_sendRequests.size()), m_sendRequests.data(),
                                MPI_STATUSES_IGNORE));
  for (std::size_t r = 0; r < m_recvRequests.size(); ++r) {
    TESSERA_REQUIRE_THROWS(m_recvDone[r], "a message from rank " << m_graph.receives[r].peer
                                                                 << " (phase "
                                                                 << m_graph.receives[r].phase
                                                                 << ") was never consumed");
  }
  m_completed = true;
}

}  // namespace tessera
