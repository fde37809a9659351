#include "CCA/Components/Schedulers/ExecutionState.h"

#include "Core/Util/Error.h"

namespace tessera {

namespace {
const CompiledGraph& compiledFor(const CompiledGraph& graph, const Communicator& comm) {
  TESSERA_REQUIRE_THROWS(graph.grid != nullptr && graph.rank == comm.rank(),
                         "graph '" << graph.name << "' was not compiled for this rank");
  return graph;
}
}  // namespace

ExecutionState::ExecutionState(const CompiledGraph& graph, OnDemandDataWarehouse& oldDW,
                               OnDemandDataWarehouse& newDW, const Communicator& comm,
                               SchedulerStats& stats, const ExecutionTags& tags,
                               MessageBuffers& buffers,
                               TraceTrack* trace, std::size_t messageChunkBytes)
    : m_graph(compiledFor(graph, comm)),
      m_oldDW(oldDW),
      m_newDW(newDW),
      m_context{stats, {}, trace},
      m_dependencies(graph),
      m_messages(graph, oldDW, newDW, comm, m_context, tags.execution, tags.tagBase, buffers,
                 messageChunkBytes),
      m_ghostFills(graph, oldDW, newDW, m_context, m_messages, buffers),
      m_blockFills(graph, oldDW, newDW, m_context, m_messages, buffers),
      m_reductions(graph, newDW, comm, m_context),
      m_taskSeconds(graph.detailedTasks.size(), 0.0) {}

void ExecutionState::start(bool deferInitialSends, bool deferEagerCopies) {
  m_newDW.setGhostLayers(m_graph.ghostLayers);
  m_oldDW.setBlockLayouts(m_graph.blockLayouts);
  m_newDW.setBlockLayouts(m_graph.blockLayouts);
  m_ghostFills.start(deferEagerCopies);
  m_messages.start(deferInitialSends);
}

void ExecutionState::abandon(const std::exception_ptr& failure) {
  std::string reason = "graph '" + m_graph.name + "' failed";
  try {
    if (failure) std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    reason += ": " + std::string(e.what());
  } catch (...) {
  }
  m_reductions.abandon(reason);
  m_blockFills.finish();
  m_messages.abandon();
}

std::vector<int> ExecutionState::finish(int id) {
  std::vector<int> ready = m_dependencies.finish(id);
  m_messages.taskFinished(node(id));
  m_ghostFills.taskFinished(node(id));
  return ready;
}

}  // namespace tessera
