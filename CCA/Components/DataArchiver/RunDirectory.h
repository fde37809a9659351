#pragma once
// Run directories are versioned like Uintah's .uda.000, .001: a new run
// never overwrites an old one, and `base` is a symbolic link to the newest.

#include <string>

namespace tessera {

// Creates the next free `base.NNN` and points the link `base` at it; returns
// its path. Throws Error naming the path and the reason when it cannot.
std::string createVersionedRunDirectory(const std::string& base);

// Follows `path` if it is the link to the newest version.
std::string resolveRunDirectory(const std::string& path);

}  // namespace tessera
