#pragma once
// A file is written only where it fits. A parallel HDF5 write that runs out
// of space part-way fails on some ranks only, and HDF5's own collective
// close is then no longer in step across ranks; checking the free space
// first turns a full disk into one clean, agreed error before HDF5 starts.

#include <cstdint>
#include <string>

namespace tessera {

// Throws Error naming `path`, the bytes it needs and the bytes free, if the
// file system that will hold `path` has less than `bytes` available.
void requireFreeSpace(const std::string& path, std::uint64_t bytes);

}  // namespace tessera
