#include "CCA/Components/Schedulers/MPIScheduler.h"

#include "CCA/Ports/ExecutionContext.h"
#include "Core/Grid/Grid.h"
#include "Core/Util/Timer.h"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstring>

namespace tessera {

// The state of one run of one compiled graph.
class MPIScheduler::Execution {
 public:
  Execution(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW, OnDemandDataWarehouse& newDW,
            const Communicator& comm, SchedulerStats& stats)
      : m_graph(graph), m_oldDW(oldDW), m_newDW(newDW), m_comm(comm), m_stats(stats) {}

  void run() {
    m_newDW.setGhostLayers(m_graph.ghostLayers);
    postReceives();
    m_pendingProducers.resize(m_graph.sends.size());
    m_sendBuffers.resize(m_graph.sends.size());
    m_sendRequests.assign(m_graph.sends.size(), MPI_REQUEST_NULL);
    for (std::size_t s = 0; s < m_graph.sends.size(); ++s) {
      m_pendingProducers[s] = static_cast<int>(m_graph.sends[s].producers.size());
      if (m_pendingProducers[s] == 0) postSend(static_cast<int>(s));
    }
    m_fillDone.assign(m_graph.fills.size(), false);
    for (const DetailedTask& node : m_graph.detailedTasks) {
      if (node.kind == DetailedTask::Kind::Reduction) {
        reduce(node);
      } else {
        for (int fill : node.fills)
          performFill(fill);
        runTask(node);
      }
      for (int send : node.sendsToRelease) {
        if (--m_pendingProducers[static_cast<std::size_t>(send)] == 0) postSend(send);
      }
    }
    finish();
  }

 private:
  OnDemandDataWarehouse& warehouse(Task::WhichDW dw) {
    return dw == Task::OldDW ? m_oldDW : m_newDW;
  }
  const Patch& patch(int id) const { return m_graph.grid->patchById(id); }

  void postReceives() {
    m_recvBuffers.resize(m_graph.receives.size());
    m_recvRequests.assign(m_graph.receives.size(), MPI_REQUEST_NULL);
    m_recvDone.assign(m_graph.receives.size(), false);
    for (std::size_t r = 0; r < m_graph.receives.size(); ++r) {
      const Message& message = m_graph.receives[r];
      m_recvBuffers[r].resize(message.bytes);
      TESSERA_MPI_CHECK(MPI_Irecv(m_recvBuffers[r].data(), static_cast<int>(message.bytes),
                                  MPI_BYTE, message.peer, message.tag, m_comm.get(),
                                  &m_recvRequests[r]));
    }
  }

  void postSend(int index) {
    const Message& message = m_graph.sends[static_cast<std::size_t>(index)];
    std::vector<std::byte>& buffer = m_sendBuffers[static_cast<std::size_t>(index)];
    {
      ScopedTimer timer(m_stats.packSeconds);
      buffer.resize(message.bytes);
      for (const GhostPiece& piece : message.pieces) {
        const auto var =
            warehouse(piece.dw).findGridVariable(piece.label, patch(piece.sourcePatch));
        TESSERA_REQUIRE_THROWS(var != nullptr, "cannot send '" << piece.label->name()
                                                               << "' of patch " << piece.sourcePatch
                                                               << ": not in "
                                                               << warehouse(piece.dw).name());
        var->pack(piece.sourceBox, buffer.data() + piece.byteOffset);
      }
    }
    TESSERA_MPI_CHECK(MPI_Isend(buffer.data(), static_cast<int>(message.bytes), MPI_BYTE,
                                message.peer, message.tag, m_comm.get(),
                                &m_sendRequests[static_cast<std::size_t>(index)]));
    ++m_stats.messagesSent;
    m_stats.bytesSent += static_cast<std::int64_t>(message.bytes);
    releaseFinishedSends();
  }

  // Frees the buffers of sends that have completed.
  void releaseFinishedSends() {
    for (std::size_t s = 0; s < m_sendRequests.size(); ++s) {
      if (m_sendRequests[s] == MPI_REQUEST_NULL || m_sendBuffers[s].empty()) continue;
      int done = 0;
      TESSERA_MPI_CHECK(MPI_Test(&m_sendRequests[s], &done, MPI_STATUS_IGNORE));
      if (done) std::vector<std::byte>().swap(m_sendBuffers[s]);
    }
  }

  void waitReceive(int index) {
    if (m_recvDone[static_cast<std::size_t>(index)]) return;
    {
      ScopedTimer timer(m_stats.waitSeconds);
      TESSERA_MPI_CHECK(
          MPI_Wait(&m_recvRequests[static_cast<std::size_t>(index)], MPI_STATUS_IGNORE));
    }
    m_recvDone[static_cast<std::size_t>(index)] = true;
    ++m_stats.messagesReceived;
    m_stats.bytesReceived +=
        static_cast<std::int64_t>(m_graph.receives[static_cast<std::size_t>(index)].bytes);
  }

  void performFill(int index) {
    if (m_fillDone[static_cast<std::size_t>(index)]) return;
    const GhostFill& fill = m_graph.fills[static_cast<std::size_t>(index)];
    OnDemandDataWarehouse& dw = warehouse(fill.dw);
    const Patch& target = patch(fill.patchId);
    dw.ensureGhostRoom(fill.label, target, fill.numGhost);
    const auto destination = dw.findGridVariable(fill.label, target);
    for (const auto& [message, piece] : fill.remotePieces)
      waitReceive(message);
    ScopedTimer timer(m_stats.packSeconds);
    for (const GhostPiece& copy : fill.localCopies) {
      const auto source = dw.findGridVariable(copy.label, patch(copy.sourcePatch));
      TESSERA_REQUIRE_THROWS(source != nullptr, "ghost cells of '"
                                                    << copy.label->name() << "' need patch "
                                                    << copy.sourcePatch << ", which is not in "
                                                    << dw.name());
      destination->copyFrom(*source, copy.sourceBox, copy.offset);
    }
    for (const auto& [message, pieceIndex] : fill.remotePieces) {
      const GhostPiece& piece = m_graph.receives[static_cast<std::size_t>(message)]
                                    .pieces[static_cast<std::size_t>(pieceIndex)];
      destination->unpack(
          piece.sourceBox.shift(piece.offset),
          m_recvBuffers[static_cast<std::size_t>(message)].data() + piece.byteOffset);
    }
    m_fillDone[static_cast<std::size_t>(index)] = true;
  }

  void runTask(const DetailedTask& node) {
    const Task& task = m_graph.tasks[static_cast<std::size_t>(node.taskIndex)];
    ScopedTimer timer(m_stats.taskSeconds);
    ExecutionContext exec(task.name());
    task.callback()(*node.patch, m_oldDW, m_newDW, exec);
    exec.fence();
    ++m_stats.tasksRun;
  }

  // Combines every patch's contribution in patch-id order, so the result is
  // the same bits for any number of ranks.
  void reduce(const DetailedTask& node) {
    ScopedTimer timer(m_stats.reduceSeconds);
    const VarLabel* label = node.reduction;
    const ReductionOps& ops = label->reductionOps();
    const std::size_t record = sizeof(std::int64_t) + ops.bytes;
    const auto mine = m_newDW.reductionContributions(label);
    std::vector<std::byte> local(mine.size() * record);
    std::size_t at = 0;
    for (const auto& [patchId, value] : mine) {
      const std::int64_t id = patchId;
      std::memcpy(local.data() + at, &id, sizeof(id));
      std::memcpy(local.data() + at + sizeof(id), value.data(), ops.bytes);
      at += record;
    }
    const int count = static_cast<int>(local.size());
    std::vector<int> counts(static_cast<std::size_t>(m_comm.size()));
    TESSERA_MPI_CHECK(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, m_comm.get()));
    std::vector<int> displacements(counts.size(), 0);
    for (std::size_t r = 1; r < counts.size(); ++r)
      displacements[r] = displacements[r - 1] + counts[r - 1];
    std::vector<std::byte> all(static_cast<std::size_t>(displacements.back() + counts.back()));
    TESSERA_MPI_CHECK(MPI_Allgatherv(local.data(), count, MPI_BYTE, all.data(), counts.data(),
                                     displacements.data(), MPI_BYTE, m_comm.get()));
    std::map<std::int64_t, const std::byte*> byPatch;
    for (std::size_t offset = 0; offset < all.size(); offset += record) {
      std::int64_t id = 0;
      std::memcpy(&id, all.data() + offset, sizeof(id));
      byPatch[id] = all.data() + offset + sizeof(id);
    }
    std::vector<std::byte> result(ops.bytes);
    ops.identity(result.data());
    for (const auto& [id, value] : byPatch)
      ops.combine(result.data(), value);
    m_newDW.setReducedValue(label, result.data());
    ++m_stats.reductions;
  }

  void finish() {
    ScopedTimer timer(m_stats.waitSeconds);
    TESSERA_MPI_CHECK(MPI_Waitall(static_cast<int>(m_sendRequests.size()), m_sendRequests.data(),
                                  MPI_STATUSES_IGNORE));
    for (std::size_t r = 0; r < m_recvRequests.size(); ++r) {
      TESSERA_REQUIRE_THROWS(m_recvDone[r], "a message from rank " << m_graph.receives[r].peer
                                                                   << " (phase "
                                                                   << m_graph.receives[r].phase
                                                                   << ") was never consumed");
    }
  }

  const CompiledGraph& m_graph;
  OnDemandDataWarehouse& m_oldDW;
  OnDemandDataWarehouse& m_newDW;
  const Communicator& m_comm;
  SchedulerStats& m_stats;
  std::vector<std::vector<std::byte>> m_recvBuffers;
  std::vector<MPI_Request> m_recvRequests;
  std::vector<bool> m_recvDone;
  std::vector<std::vector<std::byte>> m_sendBuffers;
  std::vector<MPI_Request> m_sendRequests;
  std::vector<int> m_pendingProducers;
  std::vector<bool> m_fillDone;
};

MPIScheduler::MPIScheduler(const Communicator& world)
    : m_comm(Communicator::duplicate(world.get())) {}

void MPIScheduler::beginGraph(const std::string& name) {
  m_recording = std::make_unique<TaskGraph>(name);
}

void MPIScheduler::addTask(Task task, const std::vector<const Patch*>& patches) {
  TESSERA_REQUIRE_THROWS(m_recording != nullptr,
                         "addTask('" << task.name() << "') outside of a graph being recorded");
  m_recording->addTask(std::move(task), patches);
}

const TaskGraph& MPIScheduler::recordedGraph() const {
  TESSERA_REQUIRE_THROWS(m_recording != nullptr, "no graph is being recorded");
  return *m_recording;
}

CompiledGraph MPIScheduler::compile(const Grid& grid, const std::vector<int>& patchRanks) const {
  return recordedGraph().compile(grid, patchRanks, m_comm.rank());
}

void MPIScheduler::execute(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                           OnDemandDataWarehouse& newDW) {
  TESSERA_REQUIRE_THROWS(graph.grid != nullptr && graph.rank == m_comm.rank(),
                         "graph '" << graph.name << "' was not compiled for this rank");
  Execution(graph, oldDW, newDW, m_comm, m_stats).run();
}

}  // namespace tessera
