#pragma once
// The tasks of one graph (initialisation, or one timestep) as the component
// added them, and their compilation into one rank's detailed graph.

#include "CCA/Components/Schedulers/CompiledGraph.h"
#include "CCA/Ports/Task.h"
#include "CCA/Ports/TaskSpace.h"
#include "Core/Grid/BlockLayout.h"
#include "Core/Grid/Grid.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessera {

class TaskGraph {
 public:
  explicit TaskGraph(std::string name) : m_name(std::move(name)) {}

  using BlockLayouts = std::map<const VarLabel*, BlockLayout>;

  void addTask(Task task, std::vector<const Patch*> patches);
  // A task run once per index of `space` (Task's IndexCallback).
  void addTask(Task task, TaskSpace space);
  const std::string& name() const { return m_name; }
  std::size_t numTasks() const { return m_entries.size(); }
  bool empty() const { return m_entries.empty(); }

  // Orders the tasks by the data they declare (never by the order of
  // addTask) and expands them into `rank`'s detailed tasks and messages, for
  // patch owners `patchRanks` (indexed by patch id). A variable read from the
  // new warehouse that no task computes, two tasks computing one variable,
  // or a cycle, throws an Error naming the tasks, the variable and the warehouse.
  // With `patchGroups` false every patch is a group of its own (tasks that
  // run per group then run once per patch).
  // `blockLayouts` places the block variables the index tasks use.
  CompiledGraph compile(const Grid& grid, const std::vector<int>& patchRanks, int rank,
                        bool patchGroups = true,
                        std::shared_ptr<const BlockLayouts> blockLayouts = nullptr) const;

 private:
  struct Entry {
    Task task;
    std::vector<const Patch*> patches;
    std::optional<TaskSpace> space;  // index tasks
  };
  std::vector<int> topologicalOrder() const;

  std::string m_name;
  std::vector<Entry> m_entries;
};

}  // namespace tessera
