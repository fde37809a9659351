#pragma once
// How much memory a rank may count on: what the system can still give
// (MemAvailable, capped by the process's cgroup limit) shared evenly by the
// ranks of its node. A component that knows its allocations ahead (the
// GEMM's plan) refuses a run that cannot fit, rather than crashing in it.

#include "Core/Parallel/Communicator.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tessera {

struct MemoryBudget {
  std::int64_t bytesPerRank = 0;
  std::string source;  // how it was found, for messages
};

// Collective over `world` (it counts the node's ranks). nullopt where the
// system tells nothing (no /proc/meminfo).
std::optional<MemoryBudget> memoryBudgetPerRank(const Communicator& world);

// The parts, for tests: "MemAvailable:" of a meminfo text in bytes; a cgroup
// v2 memory.max ("max" or bytes) less memory.current.
std::optional<std::int64_t> memAvailableBytes(const std::string& meminfo);
std::optional<std::int64_t> cgroupHeadroomBytes(const std::string& memoryMax,
                                                const std::string& memoryCurrent);

}  // namespace tessera
