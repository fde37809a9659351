#include "CCA/Components/Schedulers/Watchdog.h"

#include "CCA/Components/Schedulers/ExecutionState.h"

#include <iostream>
#include <sstream>

namespace tessera {

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
    report << "\n  " << state.describeWaiting(task.id);
  }
  for (const std::string& send : state.describeOutstandingSends())
    report << "\n  " << send;
  // Print at once: the caller may abort before the message travels further.
  std::cerr << report.str() << std::endl;
  throw WatchdogError(report.str());
}

}  // namespace tessera
