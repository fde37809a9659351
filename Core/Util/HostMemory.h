#pragma once
// Freed host memory kept for the next allocation instead of returned to the
// operating system.
//
// A regrid frees the storage of the patches it removes and allocates that
// of the patches it makes: tens of arrays of a few hundred kilobytes to a
// few megabytes each. glibc's malloc serves such sizes from fresh mmap
// regions once they pass its (adaptive) threshold and trims freed memory
// at the top of its heap, so every regrid's arrays came back as new pages
// whose first touch faults inside the next timestep's kernels: 26,000
// faults in 60 steps of the swirl (regrids every 2), 12 % of its run time
// (docs/amr.md, "Memory across regrids"). AMReX keeps its own arena for
// the same reason. Here the allocator is told to serve arrays below its
// largest mmap threshold (32 MiB) from the heap and to keep what is freed,
// so a regrid's new arrays reuse the old ones' pages. Larger arrays, which
// a regrid rarely makes, still come from mmap.
//
// Process-wide allocator settings: Environment applies them once, before
// anything is allocated, unless the user chose them (MALLOC_MMAP_THRESHOLD_
// or MALLOC_TRIM_THRESHOLD_ in the environment). Elsewhere than glibc
// nothing changes.

namespace tessera {

// Whether the settings were applied (false where the allocator has none or
// the user set them).
bool keepFreedHostMemory();

}  // namespace tessera
