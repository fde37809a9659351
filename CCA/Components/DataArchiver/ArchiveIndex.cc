#include "CCA/Components/DataArchiver/ArchiveIndex.h"

#include "Core/IO/DurableFiles.h"
#include "Core/Util/Error.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <sstream>

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

void emitLabels(YAML::Emitter& out, const char* key, const std::vector<ArchivedLabel>& labels) {
  out << YAML::Key << key << YAML::Value << YAML::BeginSeq;
  for (const ArchivedLabel& l : labels) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << l.name
        << YAML::Key << "kind" << YAML::Value << (l.block ? "block" : "cell") << YAML::Key
        << "value_type" << YAML::Value << l.valueType;
    if (l.block) {
      out << YAML::Key << "shape" << YAML::Value << YAML::Flow << YAML::BeginSeq << l.rows
          << l.cols << YAML::EndSeq;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

std::vector<ArchivedLabel> readLabels(const YAML::Node& node) {
  std::vector<ArchivedLabel> labels;
  if (!node) return labels;
  for (const YAML::Node& item : node) {
    ArchivedLabel label{item["name"].as<std::string>(), item["kind"].as<std::string>() == "block",
                        item["value_type"].as<std::string>(), 0, 0};
    if (label.block) {
      label.rows = item["shape"][0].as<std::int64_t>();
      label.cols = item["shape"][1].as<std::int64_t>();
    }
    labels.push_back(std::move(label));
  }
  return labels;
}

}  // namespace

void ArchiveIndex::save(const std::string& directory) const {
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << YAML::BeginMap;
  out << YAML::Key << "component" << YAML::Value << component;
  out << YAML::Key << "tessera_version" << YAML::Value << tesseraVersion;
  out << YAML::Key << "deck" << YAML::Value << deck;
  if (!restartedFrom.empty()) out << YAML::Key << "restarted_from" << YAML::Value << restartedFrom;
  emitLabels(out, "output_variables", outputVariables);
  emitLabels(out, "checkpoint_variables", checkpointVariables);
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
    index.outputVariables = readLabels(root["output_variables"]);
    index.checkpointVariables = readLabels(root["checkpoint_variables"]);
    return index;
  } catch (const YAML::Exception& e) {
    throw InputError("'" + path + "' is not a valid run index: " + e.what());
  }
}

}  // namespace tessera
