#pragma once
// The calling process's peak resident memory so far, from getrusage.

#include <sys/resource.h>

#include <cstdint>

namespace tessera {

inline std::int64_t peakResidentBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::int64_t>(usage.ru_maxrss) * 1024;  // ru_maxrss is in KiB on Linux
}

}  // namespace tessera
