#include "Core/IO/DurableFiles.h"

#include "Core/IO/FaultInjection.h"
#include "Core/Util/Error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <unistd.h>

namespace tessera {

namespace {

// An open file descriptor, closed once whatever happens.
class Descriptor {
 public:
  Descriptor(const std::string& path, int flags, mode_t mode = 0)
      : m_path(path), m_fd(::open(path.c_str(), flags, mode)) {
    if (m_fd < 0) throw Error("cannot open '" + path + "': " + std::strerror(errno));
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (m_fd >= 0) ::close(m_fd);
  }
  int get() const { return m_fd; }
  // The checked close: a failing close can be the first report of a lost write.
  void close() {
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0) throw Error("cannot write '" + m_path + "': " + std::strerror(errno));
  }

 private:
  std::string m_path;
  int m_fd;
};

void flush(const Descriptor& file, const std::string& what) {
  if (::fsync(file.get()) != 0)
    throw Error("cannot flush " + what + " to disk: " + std::strerror(errno));
}

std::string directoryOf(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

}  // namespace

void flushFile(const std::string& path, int rank) {
  Descriptor file(path, O_RDONLY);
  flush(file, "'" + path + "'");
  injectIoFault("sync", path, rank);
}

void renameDurably(const std::string& from, const std::string& to, int rank) {
  if (std::rename(from.c_str(), to.c_str()) != 0)
    throw Error("cannot rename '" + from + "' to '" + to + "': " + std::strerror(errno));
  const std::string directory = directoryOf(to);
  Descriptor folder(directory, O_RDONLY | O_DIRECTORY);
  flush(folder, "the directory '" + directory + "' (holding '" + to + "')");
  injectIoFault("dirsync", to, rank);
}

void writeFileAtomically(const std::string& path, const std::string& text, int rank) {
  const std::string temporary = path + ".tmp";
  try {
    Descriptor file(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = ::write(file.get(), text.data() + written, text.size() - written);
      if (n < 0) throw Error("cannot write '" + temporary + "': " + std::strerror(errno));
      written += static_cast<std::size_t>(n);
    }
    flush(file, "'" + temporary + "'");
    injectIoFault("sync", temporary, rank);
    file.close();
  } catch (const Error&) {
    ::unlink(temporary.c_str());
    throw;
  }
  renameDurably(temporary, path, rank);
}

}  // namespace tessera
