#pragma once
// Task-level analysis of a graph: who writes each variable of the new
// warehouse, which task must run before which, and a deterministic
// topological order. Errors name the tasks, the variable and the warehouse.

#include "CCA/Ports/Task.h"

#include <map>
#include <set>
#include <vector>

namespace tessera {

struct TaskOrder {
  // For each label of the new warehouse: the computing tasks (several when
  // they run on different patches: one per level, say), then the modifying
  // tasks, each in the order they were added (indices into the task list).
  std::map<const VarLabel*, std::vector<int>> writerChains;
  // How many of each chain's first tasks compute the label.
  std::map<const VarLabel*, int> producers;
  // The order to run the tasks in (indices into the task list).
  std::vector<int> order;
  // The labels carried forward from OldDW in place (Task::modifiesVar(OldDW,
  // label)), or computed in their old storage (Task::computesVarInPlace);
  // the other carried labels are copied, the others computed afresh.
  std::set<const VarLabel*> carriedInPlace;
};

// Throws Error on a missing or duplicate producer, or a cycle.
TaskOrder orderTasks(const std::vector<const Task*>& tasks);

}  // namespace tessera
