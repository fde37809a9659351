#include "Core/Parallel/AbandonRequests.h"

#include "Core/Util/Timer.h"

#include <iostream>
#include <thread>

namespace tessera {

namespace {

constexpr int kRuntimeFailureExitCode = 2;

bool allNull(const std::vector<MPI_Request>& requests) {
  for (const MPI_Request& request : requests)
    if (request != MPI_REQUEST_NULL) return false;
  return true;
}

// Tests every request once (MPI_Test frees a completed one); true if all done.
bool testAll(std::vector<MPI_Request>& requests) {
  for (MPI_Request& request : requests) {
    if (request == MPI_REQUEST_NULL) continue;
    int done = 0;
    if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      request = MPI_REQUEST_NULL;  // an erroneous request is gone
      continue;
    }
  }
  return allNull(requests);
}

}  // namespace

void completeOrAbort(std::vector<MPI_Request>& receives, std::vector<MPI_Request>& sends,
                     std::vector<MPI_Request>& collectives, const Communicator& comm,
                     const std::string& reason, double matchSeconds, double seconds) {
  const Timer waited;
  const auto allDone = [&] {
    const bool r = testAll(receives);
    const bool s = testAll(sends);
    const bool c = testAll(collectives);
    return r && s && c;
  };
  bool cancelled = false;
  while (!allDone()) {
    if (!cancelled && waited.seconds() >= matchSeconds) {
      // What the peers have not matched by now they never will.
      for (MPI_Request& request : receives)
        if (request != MPI_REQUEST_NULL) MPI_Cancel(&request);
      for (MPI_Request& request : sends)
        if (request != MPI_REQUEST_NULL) MPI_Cancel(&request);
      cancelled = true;
    }
    if (waited.seconds() >= seconds) {
      std::cerr << "tessera: rank " << comm.rank() << ": " << reason
                << "\n  (messages or reductions this rank posted before the failure did not "
                   "complete within "
                << seconds << " s: the other ranks cannot go on; aborting the job)" << std::endl;
      MPI_Abort(comm.get(), kRuntimeFailureExitCode);
    }
    std::this_thread::yield();
  }
}

}  // namespace tessera
