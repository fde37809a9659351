#include "CCA/Components/DataArchiver/ArchiveFile.h"

#include "CCA/Components/DataArchiver/ArchiveLayout.h"

#include "CCA/Ports/LoadBalancer.h"
#include "Core/Grid/Grid.h"
#include "Core/Grid/Variables/BlockDigest.h"
#include "Core/Grid/Variables/CCVariable.h"
#include "Core/Grid/Variables/FieldDigest.h"
#include "Core/Grid/Variables/GridVariableFactory.h"
#include "Core/IO/FaultInjection.h"
#include "Core/IO/H5Files.h"
#include "Core/IO/DiskSpace.h"
#include "Core/Parallel/AbortTimer.h"
#include "Core/Parallel/Agreement.h"
#include "Core/Util/Version.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>

namespace tessera {

std::uint64_t digestOfText(const std::string& text) {
  std::uint64_t digest = mix64(text.size());
  for (std::size_t at = 0; at < text.size(); at += sizeof(std::uint64_t)) {
    std::uint64_t word = 0;
    std::memcpy(&word, text.data() + at, std::min(sizeof(word), text.size() - at));
    digest = mix64(digest ^ word);
  }
  return digest;
}

namespace {

std::array<hsize_t, 3> zyx(const IntVector& v) {
  return {static_cast<hsize_t>(v.z), static_cast<hsize_t>(v.y), static_cast<hsize_t>(v.x)};
}

// How long a collective close after a failed write may take before the
// job is aborted (with sus's runtime-failure code).
constexpr double kCloseAfterFailureSeconds = 10.0;
constexpr int kAbortExitCode = 2;

// Every rank takes the same number of transfer rounds, each agreed on.
int transferRounds(const Communicator& comm, std::size_t localPatches) {
  return static_cast<int>(comm.allreduceMax(static_cast<double>(localPatches)));
}

// Raw data moves with independent MPI-IO: in a collective write, an
// aggregator whose write failed (a full disk) returned while the other
// ranks waited inside MPI for it, for good (3 ranks, Open MPI's OMPIO),
// where no agreement can reach them. Independently, a failure stays on its
// rank until the agreement after the round. On this machine it cost
// nothing measurable: 128^3 checkpoints on 2 ranks took 0.08-0.14 s
// collective, 0.08-0.11 s independent (18 of each).
H5PropertyList independentTransfer() {
  H5PropertyList transfer(H5Pcreate(H5P_DATASET_XFER), "transfer list");
  TESSERA_HDF5_CHECK(H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_INDEPENDENT));
  return transfer;
}

// One transfer round: this rank's part of a dataset (or nothing) in the
// file, and the matching memory space.
struct RoundSelection {
  H5Dataspace file;
  H5Dataspace memory;
};
// The region [start, start + count) of an N-dimensional dataset; nothing
// when `count` is null or empty.
template <std::size_t N>
RoundSelection selectRegion(hid_t fileSpace, const std::array<hsize_t, N>& start,
                            const std::array<hsize_t, N>* count) {
  RoundSelection round{H5Dataspace(H5Scopy(fileSpace), "selection"), H5Dataspace()};
  const bool empty = count == nullptr ||
                     std::any_of(count->begin(), count->end(), [](hsize_t n) { return n == 0; });
  if (!empty) {
    TESSERA_HDF5_CHECK(H5Sselect_hyperslab(round.file.get(), H5S_SELECT_SET, start.data(), nullptr,
                                           count->data(), nullptr));
    round.memory = H5Dataspace(H5Screate_simple(N, count->data(), nullptr), "memory dataspace");
  } else {
    TESSERA_HDF5_CHECK(H5Sselect_none(round.file.get()));
    round.memory = H5Dataspace(H5Scopy(round.file.get()), "memory dataspace");
  }
  return round;
}

// A patch's extended box (or nothing) in a cell dataset whose first cell is `indexLo`.
RoundSelection selectRound(hid_t fileSpace, const Patch* patch, const IntVector& indexLo) {
  if (patch == nullptr) return selectRegion<3>(fileSpace, {}, nullptr);
  const Box box = patch->extendedBox();
  const auto count = zyx(box.size());
  return selectRegion(fileSpace, zyx(box.lo() - indexLo), &count);
}

// A block (or nothing) in a block variable's (rows, columns) dataset.
RoundSelection selectBlockRound(hid_t fileSpace, const BlockExtent* extent) {
  if (extent == nullptr) return selectRegion<2>(fileSpace, {}, nullptr);
  const std::array<hsize_t, 2> count{static_cast<hsize_t>(extent->rows),
                                     static_cast<hsize_t>(extent->cols)};
  return selectRegion<2>(
      fileSpace, {static_cast<hsize_t>(extent->row0), static_cast<hsize_t>(extent->col0)}, &count);
}

// This rank's part of one read round into `data` (null: none); an
// InputError naming the file and the variable when it fails.
void readRound(const H5Dataset& dataset, hid_t type, const RoundSelection& selection,
               const H5PropertyList& transfer, void* data, const VarLabel* label,
               const std::string& path, int rank) {
  const bool failed = H5Dread(dataset.get(), type, selection.memory.get(), selection.file.get(),
                              transfer.get(), data) < 0;
  const auto injected = injectedIoFault("read", path, rank);
  if (failed || injected) {
    throw InputError("'" + path + "': reading '" + label->name() + "' failed (" +
                     (injected ? *injected : std::string("truncated file?")) + ")");
  }
}

// Once every rank's parts are read: their digests must add up to the stored one.
void checkDatasetDigest(const Communicator& comm, const H5Dataset& dataset,
                        const std::string& path, const std::string& what,
                        std::uint64_t localDigest) {
  const std::uint64_t total = comm.allreduceSumWrapping(localDigest);
  agreeOn(comm, [&] {
    if (total != readUnsignedAttribute(dataset.get(), "digest"))
      throw InputError("'" + path + "': " + what + " fails its checksum (corrupt data)");
  });
}

std::string shapeText(std::int64_t rows, std::int64_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

std::uint64_t digestOfBytes(const std::byte* bytes, std::size_t size) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, bytes, std::min<std::size_t>(size, sizeof(bits)));
  return mix64(bits);
}


// Every rank takes a step of the write and they agree on its outcome
// (Agreement.h); `libraryFailed` records whether HDF5 itself failed here.
template <class Step>
auto writeStep(const Communicator& comm, bool& libraryFailed, Step&& step) {
  return agreeOn(comm, [&] {
    try {
      return step();
    } catch (const H5CallError&) {
      libraryFailed = true;
      throw;
    }
  });
}

// This rank's part of one transfer round (`data` null: none).
void writeRound(const H5Dataset& dataset, hid_t type, const RoundSelection& selection,
                const H5PropertyList& transfer, const void* data, const VarLabel* label,
                const std::string& path, int rank) {
  if (H5Dwrite(dataset.get(), type, selection.memory.get(), selection.file.get(), transfer.get(),
               data) < 0) {
    throw H5CallError("writing '" + label->name() + "' failed");
  }
  injectIoFault("write", path, rank);
}

// Once every rank's parts are in: the value type, and the digest of them all.
void writeDatasetAttributes(const Communicator& comm, bool& libraryFailed, const H5Dataset& dataset,
                            const VarLabel* label, std::uint64_t localDigest) {
  const std::uint64_t total = comm.allreduceSumWrapping(localDigest);
  writeStep(comm, libraryFailed, [&] {
    writeAttribute(dataset.get(), "value_type", label->valueType());
    writeAttribute(dataset.get(), "digest", total);
  });
}

// The block variables among `labels`: each block written by its owner into
// the global array, one round of transfers per block the busiest rank owns.
void writeBlockVariables(const H5File& file, const std::string& path, const Communicator& comm,
                         const std::vector<const VarLabel*>& labels,
                         const OnDemandDataWarehouse& dw, const H5PropertyList& transfer,
                         bool& libraryFailed) {
  const int rank = comm.rank();
  std::optional<H5Group> group;
  for (const VarLabel* label : labels) {
    if (label->kind() != VarKind::Block) continue;
    if (!group) {
      group = writeStep(comm, libraryFailed, [&] {
        return H5Group(H5Gcreate2(file.get(), kBlockGroup, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                       "group");
      });
    }
    const BlockLayout& layout = dw.blockLayout(label);
    const hid_t type = hdf5ValueType(label->valueType());
    const std::array<hsize_t, 2> dims{static_cast<hsize_t>(layout.arrayRows()),
                                      static_cast<hsize_t>(layout.arrayCols())};
    const H5Dataspace fileSpace(H5Screate_simple(2, dims.data(), nullptr), "dataspace");
    const H5Dataset dataset = writeStep(comm, libraryFailed, [&] {
      return H5Dataset(H5Dcreate2(group->get(), label->name().c_str(), type, fileSpace.get(),
                                  H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                       "dataset");
    });
    const std::vector<int> mine = layout.blocksOwnedBy(rank);
    const int rounds = transferRounds(comm, mine.size());
    std::uint64_t digest = 0;
    for (int round = 0; round < rounds; ++round) {
      std::shared_ptr<BlockData> data;
      writeStep(comm, libraryFailed, [&] {
        if (round >= static_cast<int>(mine.size())) return;
        const int block = mine[static_cast<std::size_t>(round)];
        data = dw.findBlock(label, block);
        TESSERA_REQUIRE_THROWS(data != nullptr, "cannot save '" << label->name() << "' block "
                                                                << block << ": not in " << dw.name());
        digest += blockDigest(*data);
      });
      writeStep(comm, libraryFailed, [&] {
        writeRound(dataset, type, selectBlockRound(fileSpace.get(), data ? &data->extent() : nullptr),
                   transfer, data && data->bytes() > 0 ? data->data() : nullptr, label, path, rank);
      });
    }
    writeDatasetAttributes(comm, libraryFailed, dataset, label, digest);
  }
}

// The cell variables among `labels` over one region: a dataset each in
// `location`, each patch written by its owner, one round of transfers per
// patch the busiest rank has there.
void writeCellVariables(hid_t location, const std::string& path, const Communicator& comm,
                        const RegionData& region, const std::vector<const VarLabel*>& labels,
                        const OnDemandDataWarehouse& dw, const H5PropertyList& transfer,
                        bool& libraryFailed) {
  const int rank = comm.rank();
  const auto dims = zyx(region.box.size());
  const int rounds = transferRounds(comm, region.mine.size());
  for (const VarLabel* label : labels) {
    if (label->kind() == VarKind::Block) continue;
    const hid_t type = hdf5ValueType(label->valueType());
    const H5Dataspace fileSpace(H5Screate_simple(3, dims.data(), nullptr), "dataspace");
    const H5Dataset dataset = writeStep(comm, libraryFailed, [&] {
      return H5Dataset(H5Dcreate2(location, label->name().c_str(), type, fileSpace.get(),
                                  H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                       "dataset");
    });
    std::uint64_t digest = 0;
    for (int round = 0; round < rounds; ++round) {
      std::vector<std::byte> buffer;
      const Patch* patch = round < static_cast<int>(region.mine.size())
                               ? region.mine[static_cast<std::size_t>(round)] : nullptr;
      writeStep(comm, libraryFailed, [&] {
        if (patch == nullptr) return;
        const auto var = dw.findGridVariable(label, *patch);
        TESSERA_REQUIRE_THROWS(var != nullptr, "cannot save '" << label->name() << "' on " << *patch
                                                               << ": not in " << dw.name());
        const Box box = patch->extendedBox();
        buffer.resize(static_cast<std::size_t>(box.volume()) * label->elementBytes());
        var->pack(box, buffer.data());
        digest += var->digest(box);
      });
      writeStep(comm, libraryFailed, [&] {
        writeRound(dataset, type, selectRound(fileSpace.get(), patch, region.box.lo()), transfer,
                   buffer.empty() ? nullptr : buffer.data(), label, path, rank);
      });
    }
    writeDatasetAttributes(comm, libraryFailed, dataset, label, digest);
  }
}

// Everything but creating and closing the file.
void writeContents(const H5File& file, const std::string& path, const Communicator& comm,
                   const ArchiveStep& step, const Grid& grid, const std::vector<int>& patchRanks,
                   const std::vector<const VarLabel*>& labels,
                   const std::vector<const VarLabel*>& reductions, const OnDemandDataWarehouse& dw,
                   bool& libraryFailed) {
  const int rank = comm.rank();
  // One collective call per agreed step at most, and nothing after it that
  // can fail: a rank that skipped a collective metadata call would leave
  // HDF5's metadata out of step across the ranks.
  writeStep(comm, libraryFailed, [&] { injectIoFault("create", path, rank); });
  writeStep(comm, libraryFailed, [&] { writeGridAttributes(file.get(), step, grid); });
  const H5PropertyList transfer = independentTransfer();
  const auto createGroup = [&](hid_t parent, const std::string& name) {
    return writeStep(comm, libraryFailed, [&] {
      return H5Group(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                     "group");
    });
  };
  // A small dataset `name` of `parent` that rank 0 writes whole from `data`.
  const auto writtenByRoot = [&](hid_t parent, const char* name, hid_t type,
                                 const H5Dataspace& space, const void* data) {
    H5Dataset dataset = writeStep(comm, libraryFailed, [&] {
      return H5Dataset(H5Dcreate2(parent, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                                  H5P_DEFAULT),
                       "dataset");
    });
    writeStep(comm, libraryFailed, [&] {
      const H5Dataspace selection(H5Scopy(space.get()), "selection");
      if (!comm.isRoot()) TESSERA_HDF5_CHECK(H5Sselect_none(selection.get()));
      TESSERA_HDF5_CHECK(H5Dwrite(dataset.get(), type, selection.get(), selection.get(),
                                  transfer.get(), data));
    });
    return dataset;
  };
  std::optional<H5Group> levels, level;
  for (const RegionData& region : regionsOf(grid, patchRanks, rank)) {
    if (region.level == 0) {
      writeCellVariables(file.get(), path, comm, region, labels, dw, transfer, libraryFailed);
      continue;
    }
    if (!levels) levels = createGroup(file.get(), kLevelsGroup);
    if (region.region == 0) {
      level = createGroup(levels->get(), std::to_string(region.level));
      writeStep(comm, libraryFailed,
                [&] { writeLevelAttributes(level->get(), grid.level(region.level)); });
    }
    const H5Group group = createGroup(level->get(), std::to_string(region.region));
    writeStep(comm, libraryFailed, [&] {
      writeRegionAttributes(group.get(), grid.level(region.level), region.region);
    });
    writeCellVariables(group.get(), path, comm, region, labels, dw, transfer, libraryFailed);
  }
  writeBlockVariables(file, path, comm, labels, dw, transfer, libraryFailed);
  {
    // Created with the first value held: a step that holds none (a
    // component without reductions) leaves no empty group behind.
    std::optional<H5Group> group;
    for (const VarLabel* label : reductions) {
      std::vector<std::byte> value(label->elementBytes());
      // Every rank holds the same reduced value, or none.
      if (!dw.reducedValue(label, value.data())) continue;
      if (!group) {
        group = writeStep(comm, libraryFailed, [&] {
          return H5Group(
              H5Gcreate2(file.get(), kReductionGroup, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "group");
        });
      }
      const hid_t type = hdf5ValueType(label->valueType());
      const H5Dataspace space(H5Screate(H5S_SCALAR), "dataspace");
      const H5Dataset dataset =
          writtenByRoot(group->get(), label->name().c_str(), type, space, value.data());
      writeStep(comm, libraryFailed, [&] {
        writeAttribute(dataset.get(), "value_type", label->valueType());
        writeAttribute(dataset.get(), "digest", digestOfBytes(value.data(), value.size()));
      });
    }
  }
  {
    // The placement the step ran with, for a restart on as many ranks
    // (dynamic balancing's, which the curve alone would not give back).
    const H5Group group = createGroup(file.get(), kBalanceGroup);
    const hsize_t patches = static_cast<hsize_t>(patchRanks.size());
    const H5Dataspace space(H5Screate_simple(1, &patches, nullptr), "dataspace");
    const H5Dataset dataset =
        writtenByRoot(group.get(), "patch_ranks", H5T_NATIVE_INT, space, patchRanks.data());
    writeStep(comm, libraryFailed, [&] {
      writeAttribute(dataset.get(), "ranks", static_cast<std::int64_t>(comm.size()));
    });
  }
}

// An upper bound of a file's size: the datasets plus room for the metadata.
std::uint64_t archiveBytes(const Grid& grid, const std::vector<const VarLabel*>& labels,
                           const std::vector<const VarLabel*>& reductions,
                           const OnDemandDataWarehouse& dw) {
  constexpr std::uint64_t kMetadataBytes = 64 * 1024;
  constexpr std::uint64_t kPerObjectBytes = 4 * 1024;
  std::uint64_t cells = 0;
  std::uint64_t regions = 0;
  for (int l = 0; l < grid.numLevels(); ++l) {
    const Level& level = grid.level(l);
    for (int k = 0; k < static_cast<int>(level.regions().size()); ++k, ++regions)
      cells += static_cast<std::uint64_t>(level.extendedRegionBox(k).volume());
  }
  std::uint64_t bytes = kMetadataBytes;
  for (const VarLabel* label : labels) {
    if (label->kind() == VarKind::Block) {
      const BlockLayout& layout = dw.blockLayout(label);
      bytes += static_cast<std::uint64_t>(layout.arrayRows() * layout.arrayCols()) *
                   label->elementBytes() + kPerObjectBytes;
    } else {
      bytes += cells * label->elementBytes() + regions * kPerObjectBytes;
    }
  }
  for (const VarLabel* label : reductions)
    bytes += label->elementBytes() + kPerObjectBytes;
  return bytes;
}

}  // namespace

void writeArchiveFile(const std::string& path, const Communicator& comm, const ArchiveStep& step,
                      const Grid& grid, const std::vector<int>& patchRanks,
                      const std::vector<const VarLabel*>& labels,
                      const std::vector<const VarLabel*>& reductions,
                      const OnDemandDataWarehouse& dw) {
  // Any step may fail on some ranks only (a full disk fails one rank's
  // write): the ranks agree after every collective call, so that they stay
  // in step and all leave together, closing the file collectively.
  const H5ErrorSilencer quiet;
  const int rank = comm.rank();
  agreeOn(comm, [&] {
    if (comm.isRoot()) requireFreeSpace(path, archiveBytes(grid, labels, reductions, dw));
  });
  const InjectedDiskFull full(path, rank);  // tests only: the disk fills during this write
  // (A file handle dies on every rank or on none: closing is collective.)
  bool libraryFailed = false;
  H5File file =
      writeStep(comm, libraryFailed, [&] { return createParallelFile(path, comm.get()); });
  try {
    writeContents(file, path, comm, step, grid, patchRanks, labels, reductions, dw, libraryFailed);
    writeStep(comm, libraryFailed, [&] {
      file.close();
      injectIoFault("close", path, rank);
    });
  } catch (const Error& failure) {
    // After an agreed failure every rank is here; after any other, only
    // this one, and the job is aborted anyway.
    const bool agreed = failure.agreedByAllRanks();
    if (!agreed || comm.allreduceMax(libraryFailed ? 1.0 : 0.0) > 0.0) {
      // HDF5 failed inside a call (a full disk): its view of the file may
      // differ between the ranks now, and it would flush the file again to
      // close it, which hung (several ranks) or crashed at MPI_Finalize
      // (one rank). The file is left unclosed and the job ends without
      // finalising: the caller removes the temporary and aborts.
      file.abandon();
      Error fatal(failure.what());
      if (agreed) fatal.markAgreedByAllRanks();
      fatal.markEndsTheProcess();
      throw fatal;
    }
    // Our own step failed, HDF5 did not: its collective close stays in step.
    // Should it hang all the same, it ends the job rather than the run.
    const AbortTimer guard(comm.get(), kCloseAfterFailureSeconds, kAbortExitCode,
                           "closing '" + path + "' after a failed write");
    file = H5File();
    throw;
  }
}

namespace {

// The block variables among `labels`, in the layouts `dw` has: every rank
// reads each block it holds (replicas too) from the global array, so any
// layout reads what any other wrote.
void readBlockVariables(const H5File& file, const std::string& path, const Communicator& comm,
                        const std::vector<const VarLabel*>& labels, OnDemandDataWarehouse& dw,
                        const H5PropertyList& transfer) {
  const int rank = comm.rank();
  for (const VarLabel* label : labels) {
    if (label->kind() != VarKind::Block) continue;
    const BlockLayout& layout = dw.blockLayout(label);
    const std::string link = blockPath(label);
    const H5Dataset dataset = agreeOn(comm, [&] {
      if (!hasLink(file.get(), link))
        throw InputError("'" + path + "' has no block variable '" + label->name() + "'");
      return H5Dataset(H5Dopen2(file.get(), link.c_str(), H5P_DEFAULT), "dataset");
    });
    const H5Dataspace fileSpace = agreeOn(comm, [&] {
      H5Dataspace space(H5Dget_space(dataset.get()), "dataspace");
      std::array<hsize_t, 2> dims{0, 0};
      if (H5Sget_simple_extent_ndims(space.get()) != 2)
        throw InputError("'" + path + "': block variable '" + label->name() + "' is not 2D");
      TESSERA_HDF5_CHECK(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr));
      const auto rows = static_cast<std::int64_t>(dims[0]);
      const auto cols = static_cast<std::int64_t>(dims[1]);
      if (rows != layout.arrayRows() || cols != layout.arrayCols()) {
        throw InputError("'" + path + "': block variable '" + label->name() + "' is " +
                         shapeText(rows, cols) + " there and " +
                         shapeText(layout.arrayRows(), layout.arrayCols()) +
                         " in this run (its sizes in the deck changed?)");
      }
      return space;
    });
    const hid_t type = hdf5ValueType(label->valueType());
    const std::vector<int> held = layout.blocksOf(rank);
    const int rounds = transferRounds(comm, held.size());
    std::uint64_t digest = 0;
    for (int round = 0; round < rounds; ++round) {
      agreeOn(comm, [&] {
        const int block = round < static_cast<int>(held.size())
                              ? held[static_cast<std::size_t>(round)] : -1;
        std::shared_ptr<BlockData> data;
        if (block >= 0) data = std::make_shared<BlockData>(layout.extent(block), label->elementBytes());
        readRound(dataset, type, selectBlockRound(fileSpace.get(), data ? &data->extent() : nullptr),
                  transfer, data && data->bytes() > 0 ? data->data() : nullptr, label, path, rank);
        if (!data) return;
        if (layout.owner(block) == rank) digest += blockDigest(*data);
        dw.putBlock(label, block, std::move(data));
      });
    }
    checkDatasetDigest(comm, dataset, path, "block variable '" + label->name() + "'", digest);
  }
}

}  // namespace

ArchiveStep readArchiveFile(const std::string& path, const Communicator& comm, const Grid& grid,
                            const std::vector<int>& patchRanks,
                            const std::vector<const VarLabel*>& labels,
                            const std::vector<const VarLabel*>& reductions,
                            OnDemandDataWarehouse& dw) {
  // Each rank may fail on its own (a corrupt block it reads): the ranks
  // agree after every collective call, so all succeed or all throw.
  const H5ErrorSilencer quiet;
  const int rank = comm.rank();
  const H5File file = agreeOn(comm, [&] { return openParallelFile(path, comm.get()); });
  const ArchiveStep step =
      agreeOn(comm, [&] { return readStepAttributes(file.get(), path, grid); });
  const H5PropertyList transfer = independentTransfer();
  for (const RegionData& region : regionsOf(grid, patchRanks, rank)) {
    const Level& level = grid.level(region.level);
    const std::string where = region.level == 0 ? "" : " on level " + std::to_string(region.level) +
                                                           " region " + std::to_string(region.region);
    const int rounds = transferRounds(comm, region.mine.size());
    for (const VarLabel* label : labels) {
      if (label->kind() == VarKind::Block) continue;  // below
      const std::string link =
          region.level == 0 ? label->name() : region.location() + "/" + label->name();
      const H5Dataset dataset = agreeOn(comm, [&] {
        if (!hasLink(file.get(), link))
          throw InputError("'" + path + "' has no variable '" + label->name() + "'" + where);
        return H5Dataset(H5Dopen2(file.get(), link.c_str(), H5P_DEFAULT), "dataset");
      });
      const H5Dataspace fileSpace =
          agreeOn(comm, [&] { return H5Dataspace(H5Dget_space(dataset.get()), "dataspace"); });
      const hid_t type = hdf5ValueType(label->valueType());
      std::uint64_t digest = 0;
      for (int round = 0; round < rounds; ++round) {
        const Patch* patch = round < static_cast<int>(region.mine.size())
                                 ? region.mine[static_cast<std::size_t>(round)] : nullptr;
        agreeOn(comm, [&] {
          std::vector<std::byte> buffer;
          if (patch != nullptr) {
            buffer.resize(static_cast<std::size_t>(patch->extendedBox().volume()) *
                          label->elementBytes());
          }
          readRound(dataset, type, selectRound(fileSpace.get(), patch, region.box.lo()), transfer,
                    buffer.empty() ? nullptr : buffer.data(), label, path, rank);
          if (patch == nullptr) return;
          const Box box = patch->extendedBox();
          auto var =
              makeGridVariable(label, level.ghostedBox(*patch, dw.ghostLayersToAllocate(label)));
          var->unpack(box, buffer.data());
          digest += var->digest(box);
          dw.putGridVariable(label, *patch, std::move(var));
        });
      }
      checkDatasetDigest(comm, dataset, path, "variable '" + label->name() + "'" + where, digest);
    }
  }
  readBlockVariables(file, path, comm, labels, dw, transfer);
  for (const VarLabel* label : reductions) {
    const std::string link = std::string(kReductionGroup) + "/" + label->name();
    if (!agreeOn(comm, [&] { return hasLink(file.get(), link); })) continue;
    agreeOn(comm, [&] {
      const H5Dataset dataset(H5Dopen2(file.get(), link.c_str(), H5P_DEFAULT), "dataset");
      std::vector<std::byte> value(label->elementBytes());
      TESSERA_HDF5_CHECK(H5Dread(dataset.get(), hdf5ValueType(label->valueType()), H5S_ALL,
                                 H5S_ALL, transfer.get(), value.data()));
      if (digestOfBytes(value.data(), value.size()) !=
          readUnsignedAttribute(dataset.get(), "digest")) {
        throw InputError("'" + path + "': reduction '" + label->name() +
                         "' fails its checksum (corrupt data)");
      }
      dw.setReducedValue(label, value.data());
    });
  }
  return step;
}

}  // namespace tessera
