#pragma once
// What the system says of this process's resources, as text: a file's
// contents, and the files of its cgroup (v2), which hold the limits a
// container or a batch system's job imposes (memory.max, cpu.max).

#include <string>

namespace tessera {

// The whole file, or "" when it cannot be read.
std::string readTextFile(const std::string& path);

// The contents of `name` in this process's cgroup (from /proc/self/cgroup's
// "0::/path"), or "" when there is none.
std::string readCgroupFile(const std::string& name);

}  // namespace tessera
