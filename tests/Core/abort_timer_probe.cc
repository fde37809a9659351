// A job for test_abort_timer.sh: rank 0 waits in a barrier that rank 1
// joins only after 60 s, guarded by an AbortTimer of 1 s. The job must end
// with the timer's exit code and one message, and the timer may call MPI
// from its own thread only where MPI granted MPI_THREAD_MULTIPLE: the MPI
// functions it could call are wrapped here (MPI's profiling interface) to
// end the probe with exit code 99 if called from another thread without it.
#include "Core/Parallel/AbortTimer.h"
#include "Core/Parallel/Environment.h"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {

std::thread::id mainThread;  // a probe's own bookkeeping

void requireThreadLevelFor(const char* function) {
  if (std::this_thread::get_id() == mainThread) return;
  int level = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&level);
  if (level == MPI_THREAD_MULTIPLE) return;
  std::fprintf(stderr, "probe: %s called from a second thread under MPI thread level %d\n",
               function, level);
  std::_Exit(99);
}

}  // namespace

extern "C" int MPI_Abort(MPI_Comm comm, int code) {
  requireThreadLevelFor("MPI_Abort");
  return PMPI_Abort(comm, code);
}

extern "C" int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  requireThreadLevelFor("MPI_Comm_rank");
  return PMPI_Comm_rank(comm, rank);
}

int main(int argc, char** argv) {
  mainThread = std::this_thread::get_id();
  const tessera::Environment environment(argc, argv, tessera::EnvironmentOptions{});
  const tessera::Communicator& world = environment.world();
  if (world.rank() == 0) {
    const tessera::AbortTimer guard(world.get(), 1.0, 2, "the probe's barrier");
    MPI_Barrier(world.get());
  } else {
    std::this_thread::sleep_for(std::chrono::seconds(60));
    MPI_Barrier(world.get());
  }
  std::fprintf(stderr, "probe: the barrier completed: the timer did not end the job\n");
  return 0;
}
