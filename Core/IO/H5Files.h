#pragma once
// Opening HDF5 files (collectively over MPI-IO, or serially for tools) and
// reading and writing the small typed attributes archives carry.

#include "Core/Grid/IntVector.h"
#include "Core/Grid/Vector3.h"
#include "Core/IO/H5Handle.h"

#include <mpi.h>

#include <cstdint>
#include <string>

namespace tessera {

// Creates `path` (failing if it exists) for collective parallel writes.
H5File createParallelFile(const std::string& path, MPI_Comm comm);
// Opens `path` read-only for collective parallel reads.
H5File openParallelFile(const std::string& path, MPI_Comm comm);
// Opens `path` read-only in this process alone (inspection tools).
H5File openSerialFile(const std::string& path);

// The HDF5 memory type of a Tessera value type ("double", "float", "int", "int64").
hid_t hdf5ValueType(const std::string& valueType);

// Whether the attribute (the link, group by group) exists; an HDF5 failure
// throws H5CallError, never reads as "absent".
bool hasAttribute(hid_t object, const std::string& name);
bool hasLink(hid_t file, const std::string& path);

// Attributes are written collectively in parallel files: every rank passes
// the same value.
void writeAttribute(hid_t object, const std::string& name, double value);
void writeAttribute(hid_t object, const std::string& name, std::int64_t value);
void writeAttribute(hid_t object, const std::string& name, std::uint64_t value);
void writeAttribute(hid_t object, const std::string& name, const std::string& value);
void writeAttribute(hid_t object, const std::string& name, const IntVector& value);
void writeAttribute(hid_t object, const std::string& name, const Vector3& value);

double readDoubleAttribute(hid_t object, const std::string& name);
std::int64_t readIntAttribute(hid_t object, const std::string& name);
std::uint64_t readUnsignedAttribute(hid_t object, const std::string& name);
std::string readStringAttribute(hid_t object, const std::string& name);
IntVector readIntVectorAttribute(hid_t object, const std::string& name);
Vector3 readVector3Attribute(hid_t object, const std::string& name);

}  // namespace tessera
