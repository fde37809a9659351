#include "CCA/Components/Schedulers/Watchdog.h"

#include "CCA/Components/Schedulers/ExecutionState.h"

#include <iostream>
#include <sstream>

namespace tessera {

namespace {
// What unfinished task `id` waits for: predecessors, messages, or the other
// ranks' part of a posted reduction.
std::string describeWaiting(const ExecutionState& state, int id) {
  const DetailedTask& task = state.node(id);
  std::vector<std::string> reasons;
  for (int p : task.predecessors) {
    if (!state.finished(p))
      reasons.push_back("task " + state.node(p).describe(state.graph().tasks));
  }
  for (std::string& message : state.messages().describeMissingMessages(task))
    reasons.push_back(std::move(message));
  if (task.kind == DetailedTask::Kind::Reduction && state.reductionPosted(id))
    reasons.push_back("the other ranks' contributions (MPI_Iallgatherv)");
  std::ostringstream out;
  out << task.describe(state.graph().tasks) << " waits for ";
  for (std::size_t r = 0; r < reasons.size(); ++r)
    out << (r ? ", " : "") << reasons[r];
  if (reasons.empty()) out << "nothing (ready)";
  return out.str();
}
}  // namespace

void watchdogFail(const ExecutionState& state, double limitSeconds, int rank) {
  std::ostringstream report;
  report << "watchdog: no progress for " << limitSeconds << " s on rank " << rank << " in graph '"
         << state.graph().name << "'";
  int listed = 0;
  for (const DetailedTask& task : state.graph().detailedTasks) {
    if (state.finished(task.id)) continue;
    if (listed++ == 20) {
      report << "\n  ...";
      break;
    }
    report << "\n  " << describeWaiting(state, task.id);
  }
  for (const std::string& send : state.messages().describeOutstandingSends())
    report << "\n  " << send;
  // Reported once, by whoever catches it (sus prints it before it aborts).
  throw WatchdogError(report.str());
}

}  // namespace tessera
