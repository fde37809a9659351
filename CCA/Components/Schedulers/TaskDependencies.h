#pragma once
// Which detailed tasks of one execution may run: a count of unfinished
// predecessors per task, and which have started and finished.

#include "CCA/Components/Schedulers/CompiledGraph.h"

#include <vector>

namespace tessera {

class TaskDependencies {
 public:
  explicit TaskDependencies(const CompiledGraph& graph);

  // Predecessors all finished, and not started.
  bool isReady(int id) const {
    return m_pendingPredecessors[static_cast<std::size_t>(id)] == 0 &&
           !m_started[static_cast<std::size_t>(id)];
  }
  void markStarted(int id) { m_started[static_cast<std::size_t>(id)] = true; }
  bool started(int id) const { return m_started[static_cast<std::size_t>(id)]; }
  // Records a finished task; returns the successors that became ready.
  std::vector<int> finish(int id);
  bool finished(int id) const { return m_done[static_cast<std::size_t>(id)]; }
  bool allFinished() const { return m_finished == static_cast<int>(m_done.size()); }

 private:
  const CompiledGraph& m_graph;
  std::vector<int> m_pendingPredecessors;
  std::vector<bool> m_started;
  std::vector<bool> m_done;
  int m_finished = 0;
};

}  // namespace tessera
