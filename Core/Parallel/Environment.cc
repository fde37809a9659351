#include "Core/Parallel/Environment.h"

#include "Core/Util/HostMemory.h"

#include <Kokkos_Core.hpp>

namespace tessera {

namespace {
int initialiseMpi(int& argc, char**& argv, int required, bool& owns) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  int provided = MPI_THREAD_SINGLE;
  if (initialised) {
    MPI_Query_thread(&provided);
  } else {
    TESSERA_MPI_CHECK(MPI_Init_thread(&argc, &argv, required, &provided));
    owns = true;
  }
  TESSERA_REQUIRE_THROWS(provided >= required, "MPI provides thread level " << provided
                                                                            << " but Tessera needs "
                                                                            << required);
  return provided;
}
}  // namespace

Environment::Environment(int& argc, char**& argv, const EnvironmentOptions& options)
    : m_keepsFreedMemory(keepFreedHostMemory()),
      m_providedThreadLevel(initialiseMpi(argc, argv, options.mpiThreadLevel, m_ownsMpi)),
      m_world(Communicator::borrow(MPI_COMM_WORLD)) {
  if (!Kokkos::is_initialized()) {
    Kokkos::InitArguments args;
    args.num_threads = options.numThreads > 0 ? options.numThreads : -1;
    args.disable_warnings = true;
    Kokkos::initialize(args);
    m_ownsKokkos = true;
  }
}

Environment::~Environment() {
  if (m_ownsKokkos) Kokkos::finalize();
  if (m_ownsMpi) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
}

}  // namespace tessera
