#include "CCA/Components/DataArchiver/ArchiveIndex.h"

#include "Core/Util/Error.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <unistd.h>

namespace tessera {

namespace {

void emitEntries(YAML::Emitter& out, const char* key, const std::vector<ArchiveEntry>& entries) {
  out << YAML::Key << key << YAML::Value << YAML::BeginSeq;
  for (const ArchiveEntry& e : entries) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "timestep" << YAML::Value << e.timestep
        << YAML::Key << "time" << YAML::Value << e.time << YAML::Key << "delt" << YAML::Value << e.delt
        << YAML::Key << "file" << YAML::Value << e.file << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

std::vector<ArchiveEntry> readEntries(const YAML::Node& node) {
  std::vector<ArchiveEntry> entries;
  if (!node) return entries;
  for (const YAML::Node& item : node) {
    entries.push_back({item["timestep"].as<int>(), item["time"].as<double>(), item["delt"].as<double>(),
                       item["file"].as<std::string>()});
  }
  return entries;
}

}  // namespace

void writeFileAtomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw Error("cannot write '" + temporary + "': " + std::strerror(errno));
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      const std::string reason = std::strerror(errno);
      ::close(fd);
      ::unlink(temporary.c_str());
      throw Error("cannot write '" + temporary + "': " + reason);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    throw Error("cannot write '" + temporary + "': " + reason);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    throw Error("cannot rename '" + temporary + "' to '" + path + "': " + std::strerror(errno));
  }
}

void ArchiveIndex::save(const std::string& directory) const {
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << YAML::BeginMap;
  out << YAML::Key << "component" << YAML::Value << component;
  out << YAML::Key << "tessera_version" << YAML::Value << tesseraVersion;
  out << YAML::Key << "deck" << YAML::Value << deck;
  if (!restartedFrom.empty()) out << YAML::Key << "restarted_from" << YAML::Value << restartedFrom;
  emitEntries(out, "outputs", outputs);
  emitEntries(out, "checkpoints", checkpoints);
  out << YAML::EndMap;
  writeFileAtomically(directory + "/index.yaml", std::string("# Tessera run index\n") + out.c_str() + "\n");
}

ArchiveIndex ArchiveIndex::load(const std::string& directory) {
  const std::string path = directory + "/index.yaml";
  if (!std::filesystem::exists(path)) {
    throw InputError("'" + directory + "' is not a Tessera run directory: no index.yaml");
  }
  try {
    const YAML::Node root = YAML::LoadFile(path);
    ArchiveIndex index;
    index.component = root["component"].as<std::string>();
    index.tesseraVersion = root["tessera_version"].as<std::string>("");
    index.deck = root["deck"].as<std::string>("input.yaml");
    index.restartedFrom = root["restarted_from"].as<std::string>("");
    index.outputs = readEntries(root["outputs"]);
    index.checkpoints = readEntries(root["checkpoints"]);
    return index;
  } catch (const YAML::Exception& e) {
    throw InputError("'" + path + "' is not a valid run index: " + e.what());
  }
}

}  // namespace tessera
