#include "Core/IO/H5Files.h"

#include <array>
#include <vector>

namespace tessera {

namespace {

template <class T>
void writeArrayAttribute(hid_t object, const std::string& name, hid_t type, const T* data, hsize_t count) {
  const H5Dataspace space(count == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr),
                          "attribute dataspace");
  const H5Attribute attribute(H5Acreate2(object, name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                              "attribute");
  TESSERA_HDF5_CHECK(H5Awrite(attribute.get(), type, data));
}

template <class T>
std::vector<T> readArrayAttribute(hid_t object, const std::string& name, hid_t type) {
  if (!hasAttribute(object, name)) throw InputError("missing attribute '" + name + "'");
  const H5Attribute attribute(H5Aopen(object, name.c_str(), H5P_DEFAULT), "attribute");
  const H5Dataspace space(H5Aget_space(attribute.get()), "attribute dataspace");
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count < 0) throw H5CallError("cannot count the values of attribute '" + name + "'");
  if (count == 0) throw InputError("attribute '" + name + "' holds no value");
  std::vector<T> values(static_cast<std::size_t>(count));
  TESSERA_HDF5_CHECK(H5Aread(attribute.get(), type, values.data()));
  return values;
}

H5PropertyList mpiAccess(MPI_Comm comm) {
  H5PropertyList access(H5Pcreate(H5P_FILE_ACCESS), "file access list");
  TESSERA_HDF5_CHECK(H5Pset_fapl_mpio(access.get(), comm, MPI_INFO_NULL));
  return access;
}

}  // namespace

H5File createParallelFile(const std::string& path, MPI_Comm comm) {
  const H5PropertyList access = mpiAccess(comm);
  const hid_t id = H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, access.get());
  if (id < 0) throw Error("cannot create the HDF5 file '" + path + "' (does the directory exist and is it writable?)");
  return H5File(id);
}

H5File openParallelFile(const std::string& path, MPI_Comm comm) {
  const H5PropertyList access = mpiAccess(comm);
  const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, access.get());
  if (id < 0) throw InputError("'" + path + "' is not a readable HDF5 file (missing, truncated or corrupt)");
  return H5File(id);
}

H5File openSerialFile(const std::string& path) {
  const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (id < 0) throw InputError("'" + path + "' is not a readable HDF5 file (missing, truncated or corrupt)");
  return H5File(id);
}

hid_t hdf5ValueType(const std::string& valueType) {
  if (valueType == "double") return H5T_NATIVE_DOUBLE;
  if (valueType == "float") return H5T_NATIVE_FLOAT;
  if (valueType == "int") return H5T_NATIVE_INT;
  if (valueType == "int64") return H5T_NATIVE_INT64;
  throw Error("no HDF5 type for values of type '" + valueType + "'");
}

// An error (negative) is an error, never "absent".
bool hasAttribute(hid_t object, const std::string& name) {
  const htri_t found = H5Aexists(object, name.c_str());
  if (found < 0) throw H5CallError("cannot tell whether attribute '" + name + "' exists");
  return found > 0;
}

// Component by component: H5Lexists fails for a path whose group is
// missing, and that absence must not read as an error either.
bool hasLink(hid_t file, const std::string& path) {
  const H5ErrorSilencer quiet;
  std::string prefix;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = path.find('/', start);
    prefix = path.substr(0, slash);
    const htri_t found = H5Lexists(file, prefix.c_str(), H5P_DEFAULT);
    if (found < 0) throw H5CallError("cannot tell whether '" + prefix + "' exists");
    if (found == 0) return false;
    if (slash == std::string::npos) return true;
    start = slash + 1;
  }
  return true;
}

void writeAttribute(hid_t object, const std::string& name, double value) {
  writeArrayAttribute(object, name, H5T_NATIVE_DOUBLE, &value, 1);
}
void writeAttribute(hid_t object, const std::string& name, std::int64_t value) {
  writeArrayAttribute(object, name, H5T_NATIVE_INT64, &value, 1);
}
void writeAttribute(hid_t object, const std::string& name, std::uint64_t value) {
  writeArrayAttribute(object, name, H5T_NATIVE_UINT64, &value, 1);
}
void writeAttribute(hid_t object, const std::string& name, const IntVector& value) {
  const std::array<int, 3> data{value.x, value.y, value.z};
  writeArrayAttribute(object, name, H5T_NATIVE_INT, data.data(), 3);
}
void writeAttribute(hid_t object, const std::string& name, const Vector3& value) {
  const std::array<double, 3> data{value.x, value.y, value.z};
  writeArrayAttribute(object, name, H5T_NATIVE_DOUBLE, data.data(), 3);
}
void writeAttribute(hid_t object, const std::string& name, const std::string& value) {
  const H5Datatype type(H5Tcopy(H5T_C_S1), "string type");
  TESSERA_HDF5_CHECK(H5Tset_size(type.get(), value.empty() ? 1 : value.size()));
  const H5Dataspace space(H5Screate(H5S_SCALAR), "attribute dataspace");
  const H5Attribute attribute(
      H5Acreate2(object, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), "attribute");
  TESSERA_HDF5_CHECK(H5Awrite(attribute.get(), type.get(), value.empty() ? "" : value.data()));
}

double readDoubleAttribute(hid_t object, const std::string& name) {
  return readArrayAttribute<double>(object, name, H5T_NATIVE_DOUBLE).at(0);
}
std::int64_t readIntAttribute(hid_t object, const std::string& name) {
  return readArrayAttribute<std::int64_t>(object, name, H5T_NATIVE_INT64).at(0);
}
std::uint64_t readUnsignedAttribute(hid_t object, const std::string& name) {
  return readArrayAttribute<std::uint64_t>(object, name, H5T_NATIVE_UINT64).at(0);
}
IntVector readIntVectorAttribute(hid_t object, const std::string& name) {
  const auto v = readArrayAttribute<int>(object, name, H5T_NATIVE_INT);
  if (v.size() != 3) throw InputError("attribute '" + name + "' is not a triple");
  return {v[0], v[1], v[2]};
}
Vector3 readVector3Attribute(hid_t object, const std::string& name) {
  const auto v = readArrayAttribute<double>(object, name, H5T_NATIVE_DOUBLE);
  if (v.size() != 3) throw InputError("attribute '" + name + "' is not a triple");
  return {v[0], v[1], v[2]};
}
std::string readStringAttribute(hid_t object, const std::string& name) {
  if (!hasAttribute(object, name)) throw InputError("missing attribute '" + name + "'");
  const H5Attribute attribute(H5Aopen(object, name.c_str(), H5P_DEFAULT), "attribute");
  const H5Datatype type(H5Aget_type(attribute.get()), "attribute type");
  const std::size_t size = H5Tget_size(type.get());
  if (size == 0) throw H5CallError("cannot read the size of attribute '" + name + "'");
  std::string value(size, '\0');
  TESSERA_HDF5_CHECK(H5Aread(attribute.get(), type.get(), value.data()));
  while (!value.empty() && value.back() == '\0') value.pop_back();
  return value;
}

}  // namespace tessera
