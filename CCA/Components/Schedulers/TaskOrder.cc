#include "CCA/Components/Schedulers/TaskOrder.h"

#include "Core/Util/Error.h"

#include <functional>
#include <queue>
#include <set>
#include <sstream>

namespace tessera {

namespace {

struct Edge {
  int from;  // must run first
  const VarLabel* label;
};

// Position of `task` in a writer chain, or -1.
int chainPosition(const std::vector<int>& chain, int task) {
  for (std::size_t k = 0; k < chain.size(); ++k)
    if (chain[k] == task) return static_cast<int>(k);
  return -1;
}

std::map<const VarLabel*, std::vector<int>> collectWriters(const std::vector<const Task*>& tasks) {
  std::map<const VarLabel*, std::vector<int>> chains;
  // Computing tasks first, so that each chain starts with its producer.
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    for (const Task::Dependency& dep : tasks[i]->dependencies()) {
      if (dep.access != Task::Access::Computes) continue;
      auto& chain = chains[dep.label];
      if (!chain.empty()) {
        TESSERA_FAIL("variable '" << dep.label->name() << "' in NewDW is computed by two tasks: '"
                                  << tasks[static_cast<std::size_t>(chain.front())]->name()
                                  << "' and '" << tasks[i]->name()
                                  << "' (one task computes a variable; others may modifiesVar it)");
      }
      chain.push_back(static_cast<int>(i));
    }
  }
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    for (const Task::Dependency& dep : tasks[i]->dependencies()) {
      if (dep.access != Task::Access::Modifies) continue;
      auto found = chains.find(dep.label);
      TESSERA_REQUIRE_THROWS(found != chains.end(),
                             "task '" << tasks[i]->name() << "' modifies '" << dep.label->name()
                                      << "' in NewDW, but no task computes it");
      TESSERA_REQUIRE_THROWS(chainPosition(found->second, static_cast<int>(i)) < 0,
                             "task '" << tasks[i]->name() << "' both computes and modifies '"
                                      << dep.label->name() << "'");
      found->second.push_back(static_cast<int>(i));
    }
  }
  return chains;
}

std::vector<std::vector<Edge>> collectEdges(
    const std::vector<const Task*>& tasks,
    const std::map<const VarLabel*, std::vector<int>>& chains) {
  std::vector<std::vector<Edge>> before(tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const int self = static_cast<int>(i);
    for (const Task::Dependency& dep : tasks[i]->dependencies()) {
      if (dep.dw != Task::NewDW || dep.access == Task::Access::Computes) continue;
      auto found = chains.find(dep.label);
      if (found == chains.end()) {
        TESSERA_FAIL("task '" << tasks[i]->name() << "' requires '" << dep.label->name()
                              << "' from NewDW, but no task computes it (is it in OldDW?)");
      }
      const std::vector<int>& chain = found->second;
      const int position = chainPosition(chain, self);
      if (position == 0) {
        TESSERA_FAIL("task '" << tasks[i]->name() << "' requires '" << dep.label->name()
                              << "' from NewDW, which it computes itself");
      }
      if (position > 0 && dep.numGhost > 0) {
        TESSERA_FAIL("task '" << tasks[i]->name() << "' requires ghost cells of '"
                              << dep.label->name() << "' from NewDW, which it modifies");
      }
      // Readers see the final version; a modifier sees the version before it.
      const int writer =
          position > 0 ? chain[static_cast<std::size_t>(position - 1)] : chain.back();
      before[i].push_back({writer, dep.label});
    }
  }
  return before;
}

std::string describeCycle(const std::vector<const Task*>& tasks,
                          const std::vector<std::vector<Edge>>& before,
                          const std::set<int>& unsorted) {
  // Walk predecessor edges inside the unsorted set until a task repeats.
  std::vector<int> path;
  std::vector<const VarLabel*> via;
  std::map<int, std::size_t> seenAt;
  int current = *unsorted.begin();
  while (seenAt.find(current) == seenAt.end()) {
    seenAt[current] = path.size();
    path.push_back(current);
    for (const Edge& e : before[static_cast<std::size_t>(current)]) {
      if (unsorted.count(e.from)) {
        via.push_back(e.label);
        current = e.from;
        break;
      }
    }
  }
  std::ostringstream out;
  out << "the tasks form a cycle through NewDW: ";
  const std::size_t start = seenAt[current];
  for (std::size_t k = start; k < path.size(); ++k) {
    out << "'" << tasks[static_cast<std::size_t>(path[k])]->name() << "' needs '" << via[k]->name()
        << "' from ";
  }
  out << "'" << tasks[static_cast<std::size_t>(current)]->name() << "'";
  return out.str();
}

}  // namespace

TaskOrder orderTasks(const std::vector<const Task*>& tasks) {
  TaskOrder result;
  result.writerChains = collectWriters(tasks);
  const auto before = collectEdges(tasks, result.writerChains);

  std::vector<int> pending(tasks.size(), 0);
  std::vector<std::vector<int>> after(tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    std::set<int> distinct;
    for (const Edge& e : before[i])
      distinct.insert(e.from);
    pending[i] = static_cast<int>(distinct.size());
    for (int from : distinct)
      after[static_cast<std::size_t>(from)].push_back(static_cast<int>(i));
  }
  // Kahn's algorithm; among ready tasks the earliest added runs first, so the
  // order is the same on every rank and for every run.
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (std::size_t i = 0; i < tasks.size(); ++i)
    if (pending[i] == 0) ready.push(static_cast<int>(i));
  while (!ready.empty()) {
    const int next = ready.top();
    ready.pop();
    result.order.push_back(next);
    for (int successor : after[static_cast<std::size_t>(next)])
      if (--pending[static_cast<std::size_t>(successor)] == 0) ready.push(successor);
  }
  if (result.order.size() != tasks.size()) {
    std::set<int> unsorted;
    for (std::size_t i = 0; i < tasks.size(); ++i)
      if (pending[i] > 0) unsorted.insert(static_cast<int>(i));
    TESSERA_FAIL(describeCycle(tasks, before, unsorted));
  }
  return result;
}

}  // namespace tessera
