#include "Core/Parallel/CgroupFiles.h"

#include <fstream>
#include <sstream>

namespace tessera {

std::string readTextFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return in ? text.str() : std::string();
}

std::string readCgroupFile(const std::string& name) {
  std::istringstream lines(readTextFile("/proc/self/cgroup"));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("0::", 0) == 0) return readTextFile("/sys/fs/cgroup" + line.substr(3) + "/" + name);
  }
  return {};
}

}  // namespace tessera
