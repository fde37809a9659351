#include "Core/Parallel/AbandonRequests.h"

#include "Core/Util/Timer.h"

#include <iostream>
#include <thread>

namespace tessera {

namespace {
constexpr int kRuntimeFailureExitCode = 2;
}  // namespace

void completeOrAbort(std::vector<MPI_Request>& collectives, const Communicator& comm,
                     const std::string& reason, double seconds) {
  const Timer waited;
  while (true) {
    int done = 0;
    MPI_Testall(static_cast<int>(collectives.size()), collectives.data(), &done,
                MPI_STATUSES_IGNORE);
    if (done) return;
    if (waited.seconds() >= seconds) break;
    std::this_thread::yield();
  }
  std::cerr << "tessera: rank " << comm.rank() << ": " << reason
            << "\n  (a reduction this rank posted before the failure did not complete within "
            << seconds
            << " s: the ranks' collectives would go out of step; aborting the job)" << std::endl;
  MPI_Abort(comm.get(), kRuntimeFailureExitCode);
}

}  // namespace tessera
