#include "Core/Parallel/CoreBudget.h"

#include <cstdint>

#include <pthread.h>
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

int otherCpuOfThisThread() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return -1;
  const int current = sched_getcpu();
  for (int cpu = CPU_SETSIZE - 1; cpu >= 0; --cpu)
    if (CPU_ISSET(cpu, &allowed) && cpu != current) return cpu;
  return -1;
}

bool bindThisThreadTo(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t only;
  CPU_ZERO(&only);
  CPU_SET(cpu, &only);
  return pthread_setaffinity_np(pthread_self(), sizeof(only), &only) == 0;
}

}  // namespace tessera
