#include "Core/Parallel/AbortTimer.h"

#include <chrono>
#include <iostream>

namespace tessera {

AbortTimer::AbortTimer(MPI_Comm comm, double seconds, int exitCode, std::string what) {
  m_thread = std::thread([this, comm, seconds, exitCode, what = std::move(what)] {
    std::unique_lock<std::mutex> lock(m_mutex);
    if (m_done.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return m_disarmed; }))
      return;
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::cerr << "tessera: rank " << rank << ": " << what << " did not finish within " << seconds
              << " s; aborting the job" << std::endl;
    MPI_Abort(comm, exitCode);
  });
}

AbortTimer::~AbortTimer() {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_disarmed = true;
  }
  m_done.notify_one();
  m_thread.join();
}

}  // namespace tessera
