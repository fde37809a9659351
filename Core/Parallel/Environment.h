#pragma once
// Owns the process-wide runtimes, MPI and Kokkos, for the lifetime of one
// object (like Kokkos::ScopeGuard). Everything that holds a Kokkos View must
// be destroyed before it.

#include "Core/Parallel/Communicator.h"

namespace tessera {

struct EnvironmentOptions {
  // Threads of the Kokkos OpenMP space; 0 leaves the choice to Kokkos/OMP_NUM_THREADS.
  int numThreads = 0;
  // The MPI thread level needed; Environment fails if MPI provides less.
  // Serialized: the device schedulers call MPI from a control thread that is
  // not the one that initialised it, never from two threads at once.
  int mpiThreadLevel = MPI_THREAD_SERIALIZED;
};

class Environment {
 public:
  Environment(int& argc, char**& argv, const EnvironmentOptions& options);
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;
  ~Environment();

  const Communicator& world() const { return m_world; }
  int mpiThreadLevel() const { return m_providedThreadLevel; }
  // Whether freed host memory is kept for reuse (Core/Util/HostMemory.h):
  // always asked for, since a regrid frees and allocates arrays every few
  // steps; false where the allocator has no such settings or the user set them.
  bool keepsFreedMemory() const { return m_keepsFreedMemory; }

 private:
  // First: the allocator's settings apply before MPI or Kokkos allocates.
  bool m_keepsFreedMemory = false;
  bool m_ownsMpi = false;
  bool m_ownsKokkos = false;
  int m_providedThreadLevel = MPI_THREAD_SINGLE;
  Communicator m_world;
};

}  // namespace tessera
