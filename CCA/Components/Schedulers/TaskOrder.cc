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

std::map<const VarLabel*, std::vector<int>> collectWriters(const std::vector<const Task*>& tasks,
                                                           std::map<const VarLabel*, int>& producers) {
  std::map<const VarLabel*, std::vector<int>> chains;
  // Computing tasks first, so that each chain starts with its producers (a
  // task that carries the label forward from OldDW computes it in NewDW).
  // Several producers must run on different patches (each level's, say):
  // TaskGraph::compile, which knows the patches, checks that. Blocks have one.
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    for (const Task::Dependency& dep : tasks[i]->dependencies()) {
      if (dep.access != Task::Access::Computes && !dep.carriesForward()) continue;
      auto& chain = chains[dep.label];
      if (!chain.empty() && dep.label->kind() == VarKind::Block) {
        TESSERA_FAIL("variable '" << dep.label->name() << "' in NewDW is computed by two tasks: '"
                                  << tasks[static_cast<std::size_t>(chain.front())]->name()
                                  << "' and '" << tasks[i]->name()
                                  << "' (one task computes a variable; others may modifiesVar it)");
      }
      chain.push_back(static_cast<int>(i));
      ++producers[dep.label];
    }
  }
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    for (const Task::Dependency& dep : tasks[i]->dependencies()) {
      if (dep.access != Task::Access::Modifies || dep.carriesForward()) continue;
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
    const std::map<const VarLabel*, std::vector<int>>& chains,
    const std::map<const VarLabel*, int>& producers) {
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
      const int computers = producers.at(dep.label);
      if (position >= 0 && position < computers) {
        TESSERA_FAIL("task '" << tasks[i]->name() << "' requires '" << dep.label->name()
                              << "' from NewDW, which it computes itself");
      }
      if (position >= computers && dep.numGhost > 0) {
        TESSERA_FAIL("task '" << tasks[i]->name() << "' requires ghost cells of '"
                              << dep.label->name() << "' from NewDW, which it modifies");
      }
      // Readers see the final version; a modifier sees the version before it.
      // When that version is the producers' (one per level, say), it is all of
      // theirs: the task may read any of their patches (the finer level's).
      const int seen = position > 0 ? position - 1 : static_cast<int>(chain.size()) - 1;
      if (seen < computers) {
        for (int k = 0; k < computers; ++k)
          before[i].push_back({chain[static_cast<std::size_t>(k)], dep.label});
      } else {
        before[i].push_back({chain[static_cast<std::size_t>(seen)], dep.label});
      }
    }
  }
  return before;
}

bool takesOldStorage(const Task& task, const VarLabel* label) {
  for (const Task::Dependency& dep : task.dependencies())
    if (dep.label == label && dep.takesOldStorage()) return true;
  return false;
}

// Write-after-read edges: a task that takes a label's old storage (carries
// it forward from OldDW, or computes it in place) runs after every other
// task reading the old version. Only for labels no other task reads with
// ghost cells (see Task::modifiesVar(WhichDW, label) and
// Task::computesVarInPlace), and only one task may take them.
std::set<const VarLabel*> carriedLabels(const std::vector<const Task*>& tasks) {
  std::set<const VarLabel*> carried;
  std::set<const VarLabel*> excluded;
  std::map<const VarLabel*, int> takers;
  for (const Task* task : tasks) {
    for (const Task::Dependency& dep : task->dependencies()) {
      if (dep.takesOldStorage()) {
        carried.insert(dep.label);
        ++takers[dep.label];
      }
      if (dep.access == Task::Access::Requires && dep.numGhost > 0 &&
          !takesOldStorage(*task, dep.label))
        excluded.insert(dep.label);
    }
  }
  for (const auto& [label, count] : takers)
    if (count > 1) excluded.insert(label);
  for (const VarLabel* label : excluded)
    carried.erase(label);
  return carried;
}

void addCarryEdges(const std::vector<const Task*>& tasks, const std::set<const VarLabel*>& carried,
                   std::vector<std::vector<Edge>>& before) {
  for (std::size_t c = 0; c < tasks.size(); ++c) {
    for (const Task::Dependency& carry : tasks[c]->dependencies()) {
      if (!carry.takesOldStorage() || !carried.count(carry.label)) continue;
      for (std::size_t i = 0; i < tasks.size(); ++i) {
        if (i == c) continue;
        for (const Task::Dependency& dep : tasks[i]->dependencies()) {
          if (dep.access == Task::Access::Requires && dep.dw == Task::OldDW &&
              dep.label == carry.label)
            before[c].push_back({static_cast<int>(i), carry.label});
        }
      }
    }
  }
}

// Kahn's algorithm; among ready tasks the earliest added runs first, so the
// order is the same on every rank and for every run. Empty on a cycle.
std::vector<int> topologicalOrder(const std::vector<std::vector<Edge>>& before,
                                  std::set<int>* unsorted) {
  const std::size_t n = before.size();
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> after(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::set<int> distinct;
    for (const Edge& e : before[i])
      distinct.insert(e.from);
    pending[i] = static_cast<int>(distinct.size());
    for (int from : distinct)
      after[static_cast<std::size_t>(from)].push_back(static_cast<int>(i));
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push(static_cast<int>(i));
  std::vector<int> order;
  while (!ready.empty()) {
    const int next = ready.top();
    ready.pop();
    order.push_back(next);
    for (int successor : after[static_cast<std::size_t>(next)])
      if (--pending[static_cast<std::size_t>(successor)] == 0) ready.push(successor);
  }
  if (order.size() == n) return order;
  for (std::size_t i = 0; i < n; ++i)
    if (pending[i] > 0 && unsorted) unsorted->insert(static_cast<int>(i));
  return {};
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
  result.writerChains = collectWriters(tasks, result.producers);
  const auto before = collectEdges(tasks, result.writerChains, result.producers);
  if (tasks.empty()) return result;

  // Carrying forward in place needs the write-after-read edges; when they
  // close a cycle (a reader of the old version needs the new one), the
  // carries copy instead and the order is the one without them.
  const std::set<const VarLabel*> carried = carriedLabels(tasks);
  if (!carried.empty()) {
    auto withCarries = before;
    addCarryEdges(tasks, carried, withCarries);
    result.order = topologicalOrder(withCarries, nullptr);
    if (!result.order.empty()) {
      result.carriedInPlace = carried;
      return result;
    }
  }
  std::set<int> unsorted;
  result.order = topologicalOrder(before, &unsorted);
  if (result.order.empty()) TESSERA_FAIL(describeCycle(tasks, before, unsorted));
  return result;
}

}  // namespace tessera
