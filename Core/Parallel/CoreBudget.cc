#include "Core/Parallel/CoreBudget.h"

#include "Core/Parallel/CgroupFiles.h"

#include <algorithm>
#include <cstdint>
#include <sstream>

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

namespace tessera {

namespace {

std::vector<int> allowedCpus() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  return cpus;
}

}  // namespace

std::optional<int> cgroupCpuQuota(const std::string& cpuMax) {
  std::istringstream in(cpuMax);
  std::string quota;
  std::int64_t period = 0;
  if (!(in >> quota >> period) || quota == "max" || period <= 0) return std::nullopt;
  std::int64_t microseconds = 0;
  std::istringstream number(quota);
  if (!(number >> microseconds) || microseconds <= 0) return std::nullopt;
  return static_cast<int>(std::max<std::int64_t>(1, microseconds / period));
}

bool coreLeftForOneMoreThread(const Communicator& world, int threadsPerRank) {
  const std::vector<int> mine = allowedCpus();
  const Communicator node = Communicator::node(world.get());
  // The node's usable CPUs: the union of its ranks' masks.
  constexpr int kWords = CPU_SETSIZE / 64;
  std::vector<std::uint64_t> mask(kWords, 0), all(kWords, 0);
  for (int cpu : mine)
    mask[static_cast<std::size_t>(cpu / 64)] |= std::uint64_t{1} << (cpu % 64);
  TESSERA_MPI_CHECK(
      MPI_Allreduce(mask.data(), all.data(), kWords, MPI_UINT64_T, MPI_BOR, node.get()));
  std::int64_t usable = 0;
  for (std::uint64_t word : all)
    usable += __builtin_popcountll(word);
  if (const auto quota = cgroupCpuQuota(readCgroupFile("cpu.max"))) usable = std::min<std::int64_t>(usable, *quota);
  const std::int64_t wanted = node.allreduceSum(threadsPerRank + 1);
  return static_cast<int>(mine.size()) > threadsPerRank && wanted <= usable;
}

int chooseControlThreadCpu(const std::vector<int>& allowed, int current, int localRank) {
  const auto n = static_cast<int>(allowed.size());
  if (n == 0) return -1;
  // From the localRank-th highest CPU downwards (wrapping), past the current one.
  const int start = n - 1 - std::max(localRank, 0) % n;
  for (int step = 0; step < n; ++step) {
    const int cpu = allowed[static_cast<std::size_t>((start - step + n) % n)];
    if (cpu != current) return cpu;
  }
  return -1;
}

int controlThreadCpu(int localRank) {
  return chooseControlThreadCpu(allowedCpus(), sched_getcpu(), localRank);
}

bool bindThisThreadTo(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t only;
  CPU_ZERO(&only);
  CPU_SET(cpu, &only);
  return pthread_setaffinity_np(pthread_self(), sizeof(only), &only) == 0;
}

}  // namespace tessera
