#pragma once
// Run directories are versioned like Uintah's .uda.000, .001: a new run
// never overwrites an old one, and `base` is a symbolic link to the newest.

#include <string>
#include <vector>

namespace tessera {

// Held by the process that writes a run directory, for as long as it may
// write there (an exclusive flock on DIR/.lock): a temporary file in a
// directory whose lock nobody holds is proof of an interrupted write.
class RunDirectoryLock {
 public:
  RunDirectoryLock() = default;
  // Takes the lock if it is free; held() says whether it was.
  explicit RunDirectoryLock(const std::string& directory);
  RunDirectoryLock(RunDirectoryLock&& other) noexcept;
  RunDirectoryLock& operator=(RunDirectoryLock&& other) noexcept;
  RunDirectoryLock(const RunDirectoryLock&) = delete;
  RunDirectoryLock& operator=(const RunDirectoryLock&) = delete;
  ~RunDirectoryLock();
  bool held() const { return m_fd >= 0; }

 private:
  int m_fd = -1;
};

// Removes the *.tmp files an interrupted write left in `directory` and its
// checkpoints/ folder, if no process holds the directory's lock; returns
// what it removed. Returns nothing, touching nothing, while a writer lives.
std::vector<std::string> removeStaleTemporaries(const std::string& directory);

// Creates the next free `base.NNN` and points the link `base` at it; returns
// its path. Throws Error naming the path and the reason when it cannot.
std::string createVersionedRunDirectory(const std::string& base);

// Follows `path` if it is the link to the newest version.
std::string resolveRunDirectory(const std::string& path);

}  // namespace tessera
