#include "CCA/Components/DataArchiver/ArchiveReader.h"

#include "CCA/Components/DataArchiver/RunDirectory.h"
#include "Core/IO/H5Files.h"

#include <cstring>
#include <optional>

namespace tessera {

namespace {
herr_t collectName(hid_t, const char* name, const H5L_info_t*, void* out) {
  static_cast<std::vector<std::string>*>(out)->push_back(name);
  return 0;
}
}  // namespace

bool ArchivedVariable::contains(const IntVector& cell) const {
  return indexLo.allLessEqual(cell) && (cell - indexLo).allLessThan(size);
}

double ArchivedVariable::at(const IntVector& cell) const {
  const IntVector c = cell - indexLo;
  return values[(static_cast<std::size_t>(c.z) * size.y + c.y) * size.x + c.x];
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

constexpr const char* kBlockGroup = "blocks";  // see ArchiveFile.h

std::vector<std::string> linksIn(hid_t group) {
  std::vector<std::string> names;
  TESSERA_HDF5_CHECK(H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, collectName, &names));
  return names;
}

// The dataset of `variable`: at the root for a cell variable, in /blocks for
// a block variable; nullopt when neither exists.
std::optional<std::string> datasetPath(hid_t file, const std::string& variable) {
  if (variable.empty() || variable == "reductions" || variable == kBlockGroup) return std::nullopt;
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
    if (name != "reductions" && name != kBlockGroup) add(h5.get(), name, false);  // the groups
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
  return grid;
}

ArchivedVariable ArchiveReader::read(const ArchiveEntry& entry, const std::string& variable) const {
  const H5ErrorSilencer quiet;
  const std::string file = path(entry);
  const H5File h5 = openSerialFile(file);
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
  if (H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, result.values.data()) < 0) {
    throw InputError("'" + file + "': cannot read '" + variable + "' (truncated or corrupt file)");
  }
  const hid_t type = hdf5ValueType(result.valueType);
  result.raw.resize(count * H5Tget_size(type));
  TESSERA_HDF5_CHECK(H5Dread(dataset.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, result.raw.data()));
  return result;
}

std::vector<ArchiveReader::Reduction> ArchiveReader::reductions(const ArchiveEntry& entry) const {
  const H5ErrorSilencer quiet;
  const std::string file = path(entry);
  const H5File h5 = openSerialFile(file);
  std::vector<Reduction> found;
  if (!hasLink(h5.get(), "reductions")) return found;
  const H5Group group(H5Gopen2(h5.get(), "reductions", H5P_DEFAULT), "group");
  std::vector<std::string> names;
  TESSERA_HDF5_CHECK(
      H5Literate(group.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collectName, &names));
  for (const std::string& name : names) {
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
