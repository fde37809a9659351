#pragma once
// Whether a rank can run one more thread than its compute threads without
// taking a core from them (or from another rank's): what decides whether
// the async scheduler's control thread may work while kernels run. The
// CPUs counted are those the ranks may really use: their affinity masks
// (mpirun's binding, a cpuset), capped by the cgroup's CPU quota.

#include "Core/Parallel/Communicator.h"

#include <optional>
#include <string>
#include <vector>

namespace tessera {

// True when this rank may use more CPUs than `threadsPerRank` and the
// CPUs the node's ranks may use (the union of their affinity masks, at
// most the cgroup quota) hold every rank's `threadsPerRank` threads plus
// one each. Collective over `world`.
bool coreLeftForOneMoreThread(const Communicator& world, int threadsPerRank);

// The CPU for the control thread of the rank `localRank` of its node: one
// this thread may use other than the one it runs on, the highest for local
// rank 0, the next below for local rank 1, and so on (wrapping; the next
// lower where that is the rank's own), so that the ranks of a node do not
// all put their control threads on one CPU; -1 if there is no other.
int controlThreadCpu(int localRank);
// The same choice from `allowed` CPUs (ascending) and the `current` one.
int chooseControlThreadCpu(const std::vector<int>& allowed, int current, int localRank);

// Binds the calling thread to `cpu`; false if the system refuses.
bool bindThisThreadTo(int cpu);

// Whole CPUs a cgroup v2 "cpu.max" text grants ("max 100000": no limit;
// "150000 100000": 1); at least 1.
std::optional<int> cgroupCpuQuota(const std::string& cpuMax);

}  // namespace tessera
