#pragma once
// Whether a rank can run one more thread than its compute threads without
// taking a core from them (or from another rank's): what decides whether
// the async scheduler's control thread may work while kernels run.

#include "Core/Parallel/Communicator.h"

namespace tessera {

// True when this rank may use more CPUs than `threadsPerRank` and the
// node's CPUs hold every rank's `threadsPerRank` threads plus one each.
// Collective over `world`.
bool coreLeftForOneMoreThread(const Communicator& world, int threadsPerRank);

// A CPU the calling thread may use other than the one it runs on (the
// highest such), for a thread that should not share its core; -1 if none.
int otherCpuOfThisThread();

// Binds the calling thread to `cpu`; false if the system refuses.
bool bindThisThreadTo(int cpu);

}  // namespace tessera
