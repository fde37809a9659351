#include "Core/Parallel/AbortTimer.h"

#include <chrono>
#include <cstdlib>
#include <iostream>

namespace tessera {

AbortTimer::AbortTimer(MPI_Comm comm, double seconds, int exitCode, std::string what) {
  // Asked here, on the thread that owns MPI's calls: the timer's thread may
  // call MPI only where MPI granted MPI_THREAD_MULTIPLE.
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  const bool mayCallMpi = level == MPI_THREAD_MULTIPLE;
  m_thread = std::thread([this, comm, seconds, exitCode, rank, mayCallMpi, what = std::move(what)] {
    std::unique_lock<std::mutex> lock(m_mutex);
    if (m_done.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return m_disarmed; }))
      return;
    std::cerr << "tessera: rank " << rank << ": " << what << " did not finish within " << seconds
              << " s; aborting the job" << std::endl;
    if (mayCallMpi) MPI_Abort(comm, exitCode);
    // Without MPI_THREAD_MULTIPLE the main thread may be inside an MPI
    // call, so this thread calls none: the process ends, and the launcher
    // ends the job because a rank exited before MPI_Finalize.
    std::_Exit(exitCode);
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
