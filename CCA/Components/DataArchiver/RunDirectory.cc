#include "CCA/Components/DataArchiver/RunDirectory.h"

#include "Core/Util/Error.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <system_error>
#include <utility>

namespace fs = std::filesystem;

namespace tessera {

std::string createVersionedRunDirectory(const std::string& base) {
  const fs::path link(base);
  std::error_code error;
  if (!link.parent_path().empty()) fs::create_directories(link.parent_path(), error);
  if (error) throw Error("cannot create '" + link.parent_path().string() + "': " + error.message());
  if (fs::exists(fs::symlink_status(link)) && !fs::is_symlink(fs::symlink_status(link))) {
    throw Error("cannot use '" + base + "' as the output link: a file or directory of that name exists");
  }
  for (int version = 0; version < 1000; ++version) {
    char suffix[8];
    std::snprintf(suffix, sizeof(suffix), ".%03d", version);
    const fs::path directory(base + suffix);
    // create_directory is atomic: it fails if another run took the name.
    if (!fs::create_directory(directory, error)) {
      if (error) throw Error("cannot create the run directory '" + directory.string() + "': " + error.message());
      continue;
    }
    const fs::path temporaryLink(base + ".link.tmp");
    fs::remove(temporaryLink, error);
    fs::create_directory_symlink(directory.filename(), temporaryLink, error);
    if (!error) fs::rename(temporaryLink, link, error);
    if (error) throw Error("cannot point '" + base + "' at '" + directory.string() + "': " + error.message());
    return directory.string();
  }
  throw Error("'" + base + "' has 1000 versions already; choose another output.dir");
}

RunDirectoryLock::RunDirectoryLock(const std::string& directory) {
  const std::string path = directory + "/.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return;
  }
  m_fd = fd;
}

RunDirectoryLock::RunDirectoryLock(RunDirectoryLock&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)) {}

RunDirectoryLock& RunDirectoryLock::operator=(RunDirectoryLock&& other) noexcept {
  if (this != &other) {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = std::exchange(other.m_fd, -1);
  }
  return *this;
}

RunDirectoryLock::~RunDirectoryLock() {
  if (m_fd >= 0) ::close(m_fd);  // closing releases the flock
}

std::vector<std::string> removeStaleTemporaries(const std::string& directory) {
  std::vector<std::string> removed;
  const RunDirectoryLock lock(directory);
  if (!lock.held()) return removed;
  for (const fs::path& folder : {fs::path(directory), fs::path(directory) / "checkpoints"}) {
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(folder, error)) {
      if (entry.path().extension() != ".tmp" || !entry.is_regular_file(error)) continue;
      if (fs::remove(entry.path(), error)) removed.push_back(entry.path().string());
    }
  }
  return removed;
}

std::string resolveRunDirectory(const std::string& path) {
  std::error_code error;
  const fs::path resolved = fs::canonical(path, error);
  if (error) throw InputError("cannot open the run directory '" + path + "': " + error.message());
  return resolved.string();
}

}  // namespace tessera
