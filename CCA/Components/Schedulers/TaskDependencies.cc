#include "CCA/Components/Schedulers/TaskDependencies.h"

#include "Core/Util/Error.h"

namespace tessera {

TaskDependencies::TaskDependencies(const CompiledGraph& graph)
    : m_graph(graph),
      m_pendingPredecessors(graph.detailedTasks.size()),
      m_started(graph.detailedTasks.size(), false),
      m_done(graph.detailedTasks.size(), false) {
  for (const DetailedTask& task : graph.detailedTasks) {
    m_pendingPredecessors[static_cast<std::size_t>(task.id)] =
        static_cast<int>(task.predecessors.size());
  }
}

std::vector<int> TaskDependencies::finish(int id) {
  TESSERA_REQUIRE_THROWS(!m_done[static_cast<std::size_t>(id)], "task " << id << " finished twice");
  m_done[static_cast<std::size_t>(id)] = true;
  ++m_finished;
  std::vector<int> ready;
  for (int successor : m_graph.detailedTasks[static_cast<std::size_t>(id)].successors) {
    if (--m_pendingPredecessors[static_cast<std::size_t>(successor)] == 0)
      ready.push_back(successor);
  }
  return ready;
}

}  // namespace tessera
