#include "Core/Util/HostMemory.h"

#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tessera {

bool keepFreedHostMemory() {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
  if (std::getenv("MALLOC_MMAP_THRESHOLD_") != nullptr ||
      std::getenv("MALLOC_TRIM_THRESHOLD_") != nullptr)
    return false;
  // glibc's largest mmap threshold on 64-bit systems (DEFAULT_MMAP_THRESHOLD_MAX).
  constexpr int kLargestMmapThreshold = 32 << 20;
  // Trimming only above 1 GiB free at the heap's top: in practice never.
  constexpr int kTrimThreshold = 1 << 30;
  return mallopt(M_MMAP_THRESHOLD, kLargestMmapThreshold) == 1 &&
         mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1;
#else
  return false;
#endif
}

}  // namespace tessera
