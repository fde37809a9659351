#include "Core/Parallel/MemoryBudget.h"

#include "Core/Parallel/CgroupFiles.h"

#include <algorithm>
#include <sstream>

namespace tessera {

namespace {

std::optional<std::int64_t> parseBytes(const std::string& text) {
  std::istringstream in(text);
  std::int64_t value = 0;
  if (!(in >> value) || value < 0) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::int64_t> memAvailableBytes(const std::string& meminfo) {
  std::istringstream lines(meminfo);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    std::int64_t kib = 0;
    std::string unit;
    if (fields >> kib >> unit && unit == "kB" && kib >= 0) return kib * 1024;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::int64_t> cgroupHeadroomBytes(const std::string& memoryMax,
                                                const std::string& memoryCurrent) {
  const auto limit = parseBytes(memoryMax);  // "max" (no limit) parses as nothing
  if (!limit) return std::nullopt;
  return std::max<std::int64_t>(0, *limit - parseBytes(memoryCurrent).value_or(0));
}

std::optional<MemoryBudget> memoryBudgetPerRank(const Communicator& world) {
  const Communicator node = Communicator::node(world.get());
  const auto available = memAvailableBytes(readTextFile("/proc/meminfo"));
  if (!available) return std::nullopt;
  std::int64_t bytes = *available;
  std::string source = "MemAvailable";
  const auto headroom =
      cgroupHeadroomBytes(readCgroupFile("memory.max"), readCgroupFile("memory.current"));
  if (headroom && *headroom < bytes) {
    bytes = *headroom;
    source = "the cgroup's memory.max less memory.current";
  }
  MemoryBudget budget;
  budget.bytesPerRank = bytes / std::max(node.size(), 1);
  budget.source = source + " (" + std::to_string(bytes) + " bytes) shared by the node's " +
                  std::to_string(node.size()) + " rank(s)";
  return budget;
}

}  // namespace tessera
