#include "Core/Parallel/CoreBudget.h"

#include <cstdint>

#include <sched.h>
#include <unistd.h>

namespace tessera {

bool coreLeftForOneMoreThread(const Communicator& world, int threadsPerRank) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const int mine = sched_getaffinity(0, sizeof(allowed), &allowed) == 0 ? CPU_COUNT(&allowed) : 0;
  const Communicator node = Communicator::node(world.get());
  const std::int64_t wanted = node.allreduceSum(threadsPerRank + 1);
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return mine > threadsPerRank && cpus > 0 && wanted <= cpus;
}

}  // namespace tessera
