#pragma once
// The last line of defence against a hang: a library's collective call
// (HDF5 closing a file after a failed write, say) that does not return in
// time ends the whole job with MPI_Abort and a message, rather than
// leaving it waiting until the allocation runs out.
//
//   { const AbortTimer guard(comm, 10.0, 2, "closing the file"); file.close(); }
//
// The timer's thread calls MPI only where MPI granted MPI_THREAD_MULTIPLE
// (the main thread may be inside a collective); under the SERIALIZED level
// Tessera asks for, it prints its message and ends the process with the
// exit code, and mpirun ends the other ranks (see docs/runtime.md).

#include <mpi.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace tessera {

class AbortTimer {
 public:
  AbortTimer(MPI_Comm comm, double seconds, int exitCode, std::string what);
  AbortTimer(const AbortTimer&) = delete;
  AbortTimer& operator=(const AbortTimer&) = delete;
  ~AbortTimer();  // disarms the timer

 private:
  std::mutex m_mutex;
  std::condition_variable m_done;
  bool m_disarmed = false;
  std::thread m_thread;
};

}  // namespace tessera
