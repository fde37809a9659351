#include "CCA/Components/DataArchiver/ArchiveFile.h"

#include "CCA/Ports/LoadBalancer.h"
#include "Core/Grid/Variables/CCVariable.h"
#include "Core/Grid/Variables/FieldDigest.h"
#include "Core/Grid/Variables/GridVariableFactory.h"
#include "Core/IO/H5Files.h"
#include "Core/Util/Version.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace tessera {

namespace {

std::array<hsize_t, 3> zyx(const IntVector& v) {
  return {static_cast<hsize_t>(v.z), static_cast<hsize_t>(v.y), static_cast<hsize_t>(v.x)};
}

// Collective transfers need the same number of calls on every rank.
int transferRounds(const Communicator& comm, std::size_t localPatches) {
  return static_cast<int>(comm.allreduceMax(static_cast<double>(localPatches)));
}

H5PropertyList collectiveTransfer() {
  H5PropertyList transfer(H5Pcreate(H5P_DATASET_XFER), "transfer list");
  TESSERA_HDF5_CHECK(H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE));
  return transfer;
}

// Selects `box` (global cell indices) of a dataset whose first cell is `indexLo`.
void selectBox(hid_t fileSpace, const Box& box, const IntVector& indexLo) {
  const auto start = zyx(box.lo() - indexLo);
  const auto count = zyx(box.size());
  TESSERA_HDF5_CHECK(
      H5Sselect_hyperslab(fileSpace, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr));
}

// One collective transfer round: this rank's patch box (or nothing) in the
// file, and the matching memory space.
struct RoundSelection {
  H5Dataspace file;
  H5Dataspace memory;
};
RoundSelection selectRound(hid_t fileSpace, const Patch* patch, const IntVector& indexLo) {
  RoundSelection round{H5Dataspace(H5Scopy(fileSpace), "selection"), H5Dataspace()};
  if (patch != nullptr) {
    const Box box = patch->extendedBox();
    selectBox(round.file.get(), box, indexLo);
    const auto count = zyx(box.size());
    round.memory = H5Dataspace(H5Screate_simple(3, count.data(), nullptr), "memory dataspace");
  } else {
    TESSERA_HDF5_CHECK(H5Sselect_none(round.file.get()));
    round.memory = H5Dataspace(H5Scopy(round.file.get()), "memory dataspace");
  }
  return round;
}

std::uint64_t digestOfBytes(const std::byte* bytes, std::size_t size) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, bytes, std::min<std::size_t>(size, sizeof(bits)));
  return mix64(bits);
}

void writeGridAttributes(hid_t file, const ArchiveStep& step, const Level& level) {
  const LevelSpec& spec = level.spec();
  writeAttribute(file, "format_version", static_cast<std::int64_t>(kArchiveFormatVersion));
  writeAttribute(file, "tessera_version", std::string(kVersion));
  writeAttribute(file, "component", step.component);
  writeAttribute(file, "time", step.time);
  writeAttribute(file, "timestep", static_cast<std::int64_t>(step.timestep));
  writeAttribute(file, "delt", step.delt);
  writeAttribute(file, "lower", spec.lower);
  writeAttribute(file, "upper", spec.upper);
  writeAttribute(file, "resolution", spec.resolution);
  writeAttribute(file, "spacing", level.spacing());
  writeAttribute(file, "patches", spec.patches);
  writeAttribute(file, "extra_cells", level.extendedCellBox().lo() * -1);
  writeAttribute(file, "index_lo", level.extendedCellBox().lo());
}

void checkSameGrid(hid_t file, const std::string& path, const Level& level) {
  const LevelSpec& spec = level.spec();
  const auto differs = [&](const char* what) {
    throw InputError("'" + path + "' holds another grid: its " + what + " differs from the deck's");
  };
  if (readIntVectorAttribute(file, "resolution") != spec.resolution) differs("resolution");
  if (readIntVectorAttribute(file, "index_lo") != level.extendedCellBox().lo())
    differs("extra_cells");
  if (readVector3Attribute(file, "lower") != spec.lower) differs("lower corner");
  if (readVector3Attribute(file, "upper") != spec.upper) differs("upper corner");
}

}  // namespace

void writeArchiveFile(const std::string& path, const Communicator& comm, const ArchiveStep& step,
                      const Level& level, const std::vector<int>& patchRanks,
                      const std::vector<const VarLabel*>& labels,
                      const std::vector<const VarLabel*>& reductions,
                      const OnDemandDataWarehouse& dw) {
  H5File file = createParallelFile(path, comm.get());
  writeGridAttributes(file.get(), step, level);
  const Box domain = level.extendedCellBox();
  const auto dims = zyx(domain.size());
  const auto mine = patchesOwnedBy(level, patchRanks, comm.rank());
  const int rounds = transferRounds(comm, mine.size());
  const H5PropertyList transfer = collectiveTransfer();
  for (const VarLabel* label : labels) {
    const hid_t type = hdf5ValueType(label->valueType());
    const H5Dataspace fileSpace(H5Screate_simple(3, dims.data(), nullptr), "dataspace");
    const H5Dataset dataset(H5Dcreate2(file.get(), label->name().c_str(), type, fileSpace.get(),
                                       H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                            "dataset");
    std::uint64_t digest = 0;
    for (int round = 0; round < rounds; ++round) {
      std::vector<std::byte> buffer;
      const Patch* patch =
          round < static_cast<int>(mine.size()) ? mine[static_cast<std::size_t>(round)] : nullptr;
      if (patch != nullptr) {
        const auto var = dw.findGridVariable(label, *patch);
        TESSERA_REQUIRE_THROWS(var != nullptr, "cannot save '" << label->name() << "' on " << *patch
                                                               << ": not in " << dw.name());
        const Box box = patch->extendedBox();
        buffer.resize(static_cast<std::size_t>(box.volume()) * label->elementBytes());
        var->pack(box, buffer.data());
        digest += var->digest(box);
      }
      const RoundSelection selection = selectRound(fileSpace.get(), patch, domain.lo());
      TESSERA_HDF5_CHECK(H5Dwrite(dataset.get(), type, selection.memory.get(), selection.file.get(),
                                  transfer.get(), buffer.empty() ? nullptr : buffer.data()));
    }
    writeAttribute(dataset.get(), "value_type", label->valueType());
    writeAttribute(dataset.get(), "digest", comm.allreduceSumWrapping(digest));
  }
  if (!reductions.empty()) {
    const H5Group group(H5Gcreate2(file.get(), "reductions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                        "group");
    for (const VarLabel* label : reductions) {
      std::vector<std::byte> value(label->elementBytes());
      if (!dw.reducedValue(label, value.data())) continue;
      const hid_t type = hdf5ValueType(label->valueType());
      const H5Dataspace space(H5Screate(H5S_SCALAR), "dataspace");
      const H5Dataset dataset(H5Dcreate2(group.get(), label->name().c_str(), type, space.get(),
                                         H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                              "dataset");
      // Every rank holds the same reduced value; rank 0 writes it.
      const H5Dataspace selection(H5Scopy(space.get()), "selection");
      if (!comm.isRoot()) TESSERA_HDF5_CHECK(H5Sselect_none(selection.get()));
      TESSERA_HDF5_CHECK(H5Dwrite(dataset.get(), type, selection.get(), selection.get(),
                                  transfer.get(), value.data()));
      writeAttribute(dataset.get(), "value_type", label->valueType());
      writeAttribute(dataset.get(), "digest", digestOfBytes(value.data(), value.size()));
    }
  }
  file.close();
}

ArchiveStep readArchiveFile(const std::string& path, const Communicator& comm, const Level& level,
                            const std::vector<int>& patchRanks,
                            const std::vector<const VarLabel*>& labels,
                            const std::vector<const VarLabel*>& reductions,
                            OnDemandDataWarehouse& dw) {
  // Each rank may fail on its own (a corrupt block it reads); the ranks agree
  // on the outcome before anyone goes on.
  std::string failure;
  ArchiveStep step;
  try {
    const H5ErrorSilencer quiet;
    const H5File file = openParallelFile(path, comm.get());
    if (readIntAttribute(file.get(), "format_version") != kArchiveFormatVersion) {
      throw InputError("'" + path + "' has archive format " +
                       std::to_string(readIntAttribute(file.get(), "format_version")) +
                       ", this Tessera reads " + std::to_string(kArchiveFormatVersion));
    }
    checkSameGrid(file.get(), path, level);
    step.time = readDoubleAttribute(file.get(), "time");
    step.timestep = static_cast<int>(readIntAttribute(file.get(), "timestep"));
    step.delt = readDoubleAttribute(file.get(), "delt");
    step.component = readStringAttribute(file.get(), "component");
    const Box domain = level.extendedCellBox();
    const auto mine = patchesOwnedBy(level, patchRanks, comm.rank());
    const int rounds = transferRounds(comm, mine.size());
    const H5PropertyList transfer = collectiveTransfer();
    for (const VarLabel* label : labels) {
      if (!hasLink(file.get(), label->name()))
        throw InputError("'" + path + "' has no variable '" + label->name() + "'");
      const H5Dataset dataset(H5Dopen2(file.get(), label->name().c_str(), H5P_DEFAULT), "dataset");
      const H5Dataspace fileSpace(H5Dget_space(dataset.get()), "dataspace");
      const hid_t type = hdf5ValueType(label->valueType());
      std::uint64_t digest = 0;
      for (int round = 0; round < rounds; ++round) {
        std::vector<std::byte> buffer;
        const Patch* patch =
            round < static_cast<int>(mine.size()) ? mine[static_cast<std::size_t>(round)] : nullptr;
        if (patch != nullptr) {
          buffer.resize(static_cast<std::size_t>(patch->extendedBox().volume()) *
                        label->elementBytes());
        }
        const RoundSelection selection = selectRound(fileSpace.get(), patch, domain.lo());
        if (H5Dread(dataset.get(), type, selection.memory.get(), selection.file.get(),
                    transfer.get(), buffer.empty() ? nullptr : buffer.data()) < 0) {
          throw InputError("'" + path + "': reading '" + label->name() +
                           "' failed (truncated file?)");
        }
        if (patch == nullptr) continue;
        const Box box = patch->extendedBox();
        auto var =
            makeGridVariable(label, level.ghostedBox(*patch, dw.ghostLayersToAllocate(label)));
        var->unpack(box, buffer.data());
        digest += var->digest(box);
        dw.putGridVariable(label, *patch, std::move(var));
      }
      const std::uint64_t total = comm.allreduceSumWrapping(digest);
      if (total != readUnsignedAttribute(dataset.get(), "digest")) {
        throw InputError("'" + path + "': variable '" + label->name() +
                         "' fails its checksum (corrupt data)");
      }
    }
    for (const VarLabel* label : reductions) {
      const std::string link = "reductions/" + label->name();
      if (!hasLink(file.get(), link)) continue;
      const H5Dataset dataset(H5Dopen2(file.get(), link.c_str(), H5P_DEFAULT), "dataset");
      std::vector<std::byte> value(label->elementBytes());
      TESSERA_HDF5_CHECK(H5Dread(dataset.get(), hdf5ValueType(label->valueType()), H5S_ALL, H5S_ALL,
                                 transfer.get(), value.data()));
      if (digestOfBytes(value.data(), value.size()) !=
          readUnsignedAttribute(dataset.get(), "digest")) {
        throw InputError("'" + path + "': reduction '" + label->name() +
                         "' fails its checksum (corrupt data)");
      }
      dw.setReducedValue(label, value.data());
    }
  } catch (const std::exception& e) {
    failure = e.what();
  }
  const bool allOk = comm.allreduceMin(failure.empty() ? 1.0 : 0.0) > 0.5;
  if (!allOk) {
    throw InputError(failure.empty() ? "'" + path + "' could not be read on another rank"
                                     : failure);
  }
  return step;
}

}  // namespace tessera
