#include "CCA/Components/DataArchiver/RunDirectory.h"

#include "Core/Util/Error.h"

#include <cstdio>
#include <filesystem>
#include <system_error>

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

std::string resolveRunDirectory(const std::string& path) {
  std::error_code error;
  const fs::path resolved = fs::canonical(path, error);
  if (error) throw InputError("cannot open the run directory '" + path + "': " + error.message());
  return resolved.string();
}

}  // namespace tessera
