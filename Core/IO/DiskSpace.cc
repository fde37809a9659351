#include "Core/IO/DiskSpace.h"

#include "Core/IO/FaultInjection.h"
#include "Core/Util/Error.h"

#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace tessera {

void requireFreeSpace(const std::string& path, std::uint64_t bytes) {
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (folder.empty()) folder = ".";
  struct statvfs fs {};
  if (::statvfs(folder.c_str(), &fs) != 0) {
    throw Error("cannot tell the free space for '" + path + "': " + std::strerror(errno));
  }
  std::uint64_t available = static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
  if (injectedIoFault("space", path, 0)) available = 0;
  if (available < bytes) {
    throw Error("no space left for '" + path + "': it needs " + std::to_string(bytes) +
                " bytes, the file system has " + std::to_string(available) + " free");
  }
}

}  // namespace tessera
