#include "CCA/Components/DataArchiver/ArchiveReader.h"

#include "CCA/Components/DataArchiver/ArchiveLayout.h"
#include "CCA/Components/DataArchiver/RunDirectory.h"
#include "Core/IO/H5Files.h"

#include <cstring>
#include <limits>
#include <optional>
#include <utility>

namespace tessera {

namespace {
herr_t collectName(hid_t, const char* name, const H5L_info_t*, void* out) {
  static_cast<std::vector<std::string>*>(out)->push_back(name);
  return 0;
}
}  // namespace

namespace {
std::size_t offsetIn(const IntVector& cell, const IntVector& lo, const IntVector& size) {
  const IntVector c = cell - lo;
  return (static_cast<std::size_t>(c.z) * size.y + c.y) * size.x + c.x;
}
}  // namespace

bool ArchivedVariable::contains(const IntVector& cell) const {
  return indexLo.allLessEqual(cell) && (cell - indexLo).allLessThan(size) &&
         (covered.empty() || covered[offsetIn(cell, indexLo, size)] != 0);
}

double ArchivedVariable::at(const IntVector& cell) const {
  return values[offsetIn(cell, indexLo, size)];
}

ArchiveReader::ArchiveReader(const std::string& runDirectory)
    : m_directory(resolveRunDirectory(runDirectory)), m_index(ArchiveIndex::load(m_directory)) {}

const ArchiveEntry& ArchiveReader::output(int timestep) const {
  std::string available;
  for (const ArchiveEntry& entry : m_index.outputs) {
    if (entry.timestep == timestep) return entry;
    available += (available.empty() ? "" : ", ") + std::to_string(entry.timestep);
  }
  throw InputError("'" + m_directory + "' has no output at timestep " + std::to_string(timestep) +
                   " (outputs: " + available + ")");
}

namespace {

bool isGroupName(const std::string& name) {
  return name == kBlockGroup || name == kLevelsGroup || name == kReductionGroup ||
         name == kBalanceGroup;
}

// "u@level2" -> ("u", 2); "u" -> ("u", 0).
std::pair<std::string, int> splitLevel(const std::string& variable) {
  const std::size_t at = variable.rfind("@level");
  if (at == std::string::npos || at + 6 == variable.size()) return {variable, 0};
  const std::string digits = variable.substr(at + 6);
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 3)
    return {variable, 0};
  return {variable.substr(0, at), std::stoi(digits)};
}

std::string levelName(const std::string& name, int level) {
  return level == 0 ? name : name + "@level" + std::to_string(level);
}

std::vector<std::string> linksIn(hid_t group) {
  std::vector<std::string> names;
  TESSERA_HDF5_CHECK(H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, collectName, &names));
  return names;
}

// The finer levels of an output file: its `levels` attribute less level 0
// (none before format 3).
int finerLevelsIn(hid_t file) {
  return H5Aexists(file, "levels") > 0 ? static_cast<int>(readIntAttribute(file, "levels")) - 1 : 0;
}

ArchivedLevel readLevel(hid_t file, const std::string& path, int level) {
  const H5Group group = openLevelGroup(file, path, level);
  ArchivedLevel found;
  found.refinementRatio = readIntVectorAttribute(group.get(), "refinement_ratio");
  found.resolution = readIntVectorAttribute(group.get(), "resolution");
  found.spacing = readVector3Attribute(group.get(), "spacing");
  const std::int64_t regions = readIntAttribute(group.get(), "regions");
  if (regions < 1) {
    throw InputError("'" + path + "': level " + std::to_string(level) + " has " +
                     std::to_string(regions) + " regions (a corrupt archive)");
  }
  for (int k = 0; k < regions; ++k) {
    const H5Group region = openLevelGroup(file, path, level, k);
    found.regions.emplace_back(readIntVectorAttribute(region.get(), "cells_lo"),
                               readIntVectorAttribute(region.get(), "cells_hi"));
    found.patches.push_back(readIntVectorAttribute(region.get(), "patches"));
  }
  return found;
}

// The dataset of `variable`: at the root for a cell variable, in /blocks for
// a block variable; nullopt when neither exists.
std::optional<std::string> datasetPath(hid_t file, const std::string& variable) {
  if (variable.empty() || isGroupName(variable)) return std::nullopt;
  if (hasLink(file, variable)) return variable;
  const std::string inBlocks = std::string(kBlockGroup) + "/" + variable;
  if (hasLink(file, kBlockGroup) && hasLink(file, inBlocks)) return inBlocks;
  return std::nullopt;
}

// Dims of a cell (z, y, x) or block (rows, columns) dataset as x, y, z.
IntVector sizeOf(hid_t dataset, bool block, const std::string& file, const std::string& variable) {
  const H5Dataspace space(H5Dget_space(dataset), "dataspace");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank != (block ? 2 : 3)) {
    throw InputError("'" + file + "': '" + variable + "' is not " + (block ? "2D" : "3D"));
  }
  hsize_t dims[3] = {0, 0, 0};
  TESSERA_HDF5_CHECK(H5Sget_simple_extent_dims(space.get(), dims, nullptr));
  return block ? IntVector{static_cast<int>(dims[1]), static_cast<int>(dims[0]), 1}
               : IntVector{static_cast<int>(dims[2]), static_cast<int>(dims[1]),
                           static_cast<int>(dims[0])};
}

// The dataset of `name` in each region of a finer level, where it starts,
// and the box around them all.
struct RegionPiece {
  H5Dataset dataset;
  IntVector lo, size;
};
std::vector<RegionPiece> levelPieces(hid_t h5, const std::string& file, const std::string& name,
                                     int level, const std::string& variable, Box& around) {
  if (level > finerLevelsIn(h5)) throw InputError("'" + file + "' has no level " + std::to_string(level));
  const ArchivedLevel shape = readLevel(h5, file, level);
  std::vector<RegionPiece> pieces;
  for (std::size_t k = 0; k < shape.regions.size(); ++k) {
    const H5Group region = openLevelGroup(h5, file, level, static_cast<int>(k));
    const std::string link = regionPath(level, static_cast<int>(k)) + "/" + name;
    if (!hasLink(h5, link)) throw InputError("'" + file + "' has no variable '" + variable + "'");
    H5Dataset dataset(H5Dopen2(h5, link.c_str(), H5P_DEFAULT), "dataset");
    const IntVector lo = readIntVectorAttribute(region.get(), "index_lo");
    const IntVector size = sizeOf(dataset.get(), false, file, variable);
    const Box box(lo, lo + size);
    around = k == 0 ? box : Box(min(around.lo(), box.lo()), max(around.hi(), box.hi()));
    pieces.push_back({std::move(dataset), lo, size});
  }
  return pieces;
}

}  // namespace

std::vector<ArchivedVariableInfo> ArchiveReader::describe(const ArchiveEntry& entry) const {
  const H5ErrorSilencer quiet;
  const std::string file = path(entry);
  const H5File h5 = openSerialFile(file);
  std::vector<ArchivedVariableInfo> found;
  const auto add = [&](hid_t group, const std::string& name, bool block) {
    const H5Dataset dataset(H5Dopen2(group, name.c_str(), H5P_DEFAULT), "dataset");
    found.push_back({name, readStringAttribute(dataset.get(), "value_type"), block,
                     sizeOf(dataset.get(), block, file, name)});
  };
  for (const std::string& name : linksIn(h5.get()))
    if (!isGroupName(name)) add(h5.get(), name, false);
  // A finer level's variable: named after the level, sized by the box
  // around its regions.
  for (int l = 1; l <= finerLevelsIn(h5.get()); ++l) {
    const H5Group first = openLevelGroup(h5.get(), file, l, 0);
    for (const std::string& name : linksIn(first.get())) {
      Box around;
      const std::vector<RegionPiece> pieces = levelPieces(h5.get(), file, name, l, levelName(name, l), around);
      found.push_back({levelName(name, l), readStringAttribute(pieces.front().dataset.get(), "value_type"),
                       false, around.size()});
    }
  }
  if (hasLink(h5.get(), kBlockGroup)) {
    const H5Group blocks(H5Gopen2(h5.get(), kBlockGroup, H5P_DEFAULT), "group");
    for (const std::string& name : linksIn(blocks.get()))
      add(blocks.get(), name, true);
  }
  return found;
}

std::vector<std::string> ArchiveReader::variables(const ArchiveEntry& entry) const {
  std::vector<std::string> names;
  for (const ArchivedVariableInfo& info : describe(entry))
    names.push_back(info.name);
  return names;
}

ArchivedGrid ArchiveReader::grid(const ArchiveEntry& entry) const {
  const H5ErrorSilencer quiet;
  const H5File file = openSerialFile(path(entry));
  ArchivedGrid grid;
  grid.lower = readVector3Attribute(file.get(), "lower");
  grid.upper = readVector3Attribute(file.get(), "upper");
  grid.spacing = readVector3Attribute(file.get(), "spacing");
  grid.resolution = readIntVectorAttribute(file.get(), "resolution");
  grid.extraCells = readIntVectorAttribute(file.get(), "extra_cells");
  grid.patches = readIntVectorAttribute(file.get(), "patches");
  for (int l = 1; l <= finerLevelsIn(file.get()); ++l)
    grid.finerLevels.push_back(readLevel(file.get(), path(entry), l));
  if (hasLink(file.get(), kBalanceGroup) && hasLink(file.get(), kPatchRanksDataset)) {
    const H5Dataset dataset(H5Dopen2(file.get(), kPatchRanksDataset, H5P_DEFAULT), "dataset");
    const H5Dataspace space(H5Dget_space(dataset.get()), "dataspace");
    grid.patchRanks.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
    TESSERA_HDF5_CHECK(H5Dread(dataset.get(), H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                               grid.patchRanks.data()));
    grid.placementRanks = static_cast<int>(readIntAttribute(dataset.get(), "ranks"));
  }
  return grid;
}

namespace {

// Reads a whole dataset as doubles and as its stored bytes.
void readDataset(const H5Dataset& dataset, hid_t type, const std::string& file,
                 const std::string& variable, std::vector<double>& values,
                 std::vector<std::uint8_t>& raw) {
  if (H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0) {
    throw InputError("'" + file + "': cannot read '" + variable + "' (truncated or corrupt file)");
  }
  raw.resize(values.size() * H5Tget_size(type));
  TESSERA_HDF5_CHECK(H5Dread(dataset.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()));
}

std::size_t cellsOf(const IntVector& size) {
  return static_cast<std::size_t>(size.x) * static_cast<std::size_t>(size.y) *
         static_cast<std::size_t>(size.z);
}

// A finer level's variable: every region's dataset placed in the box around them.
ArchivedVariable readFinerLevel(hid_t h5, const std::string& file, const std::string& name,
                                int level, const std::string& variable) {
  Box around;
  const std::vector<RegionPiece> pieces = levelPieces(h5, file, name, level, variable, around);
  ArchivedVariable result;
  result.name = variable;
  result.level = level;
  result.indexLo = around.lo();
  result.size = around.size();
  result.valueType = readStringAttribute(pieces.front().dataset.get(), "value_type");
  const hid_t type = hdf5ValueType(result.valueType);
  const std::size_t bytes = H5Tget_size(type);
  result.values.assign(cellsOf(result.size), std::numeric_limits<double>::quiet_NaN());
  result.raw.assign(result.values.size() * bytes, 0);
  result.covered.assign(result.values.size(), 0);
  for (const RegionPiece& piece : pieces) {
    std::vector<double> values(cellsOf(piece.size));
    std::vector<std::uint8_t> raw;
    readDataset(piece.dataset, type, file, variable, values, raw);
    std::size_t from = 0;
    for (int k = 0; k < piece.size.z; ++k)
      for (int j = 0; j < piece.size.y; ++j)
        for (int i = 0; i < piece.size.x; ++i, ++from) {
          const std::size_t to = offsetIn(piece.lo + IntVector{i, j, k}, result.indexLo, result.size);
          result.values[to] = values[from];
          std::memcpy(&result.raw[to * bytes], &raw[from * bytes], bytes);
          result.covered[to] = 1;
        }
  }
  return result;
}

}  // namespace

ArchivedVariable ArchiveReader::read(const ArchiveEntry& entry, const std::string& variable) const {
  const H5ErrorSilencer quiet;
  const std::string file = path(entry);
  const H5File h5 = openSerialFile(file);
  const auto [base, level] = splitLevel(variable);
  if (level > 0) return readFinerLevel(h5.get(), file, base, level, variable);
  const std::optional<std::string> where = datasetPath(h5.get(), variable);
  if (!where) throw InputError("'" + file + "' has no variable '" + variable + "'");
  ArchivedVariable result;
  result.name = variable;
  result.block = *where != variable;
  result.indexLo = result.block ? IntVector{0, 0, 0} : readIntVectorAttribute(h5.get(), "index_lo");
  const H5Dataset dataset(H5Dopen2(h5.get(), where->c_str(), H5P_DEFAULT), "dataset");
  result.valueType = readStringAttribute(dataset.get(), "value_type");
  result.size = sizeOf(dataset.get(), result.block, file, variable);
  const std::size_t count = static_cast<std::size_t>(result.size.x) *
                            static_cast<std::size_t>(result.size.y) *
                            static_cast<std::size_t>(result.size.z);
  result.values.resize(count);
  readDataset(dataset, hdf5ValueType(result.valueType), file, variable, result.values, result.raw);
  return result;
}

std::vector<ArchiveReader::Reduction> ArchiveReader::reductions(const ArchiveEntry& entry) const {
  const H5ErrorSilencer quiet;
  const std::string file = path(entry);
  const H5File h5 = openSerialFile(file);
  std::vector<Reduction> found;
  if (!hasLink(h5.get(), kReductionGroup)) return found;
  const H5Group group(H5Gopen2(h5.get(), kReductionGroup, H5P_DEFAULT), "group");
  for (const std::string& name : linksIn(group.get())) {
    const H5Dataset dataset(H5Dopen2(group.get(), name.c_str(), H5P_DEFAULT), "dataset");
    const hid_t type = hdf5ValueType(readStringAttribute(dataset.get(), "value_type"));
    Reduction reduction{name, 0.0, std::vector<std::uint8_t>(H5Tget_size(type))};
    if (H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                &reduction.value) < 0 ||
        H5Dread(dataset.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, reduction.raw.data()) < 0) {
      throw InputError("'" + file + "': cannot read the reduction '" + name + "'");
    }
    found.push_back(std::move(reduction));
  }
  return found;
}

}  // namespace tessera
