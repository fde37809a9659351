#pragma once
// One timestep of an archive as a parallel-HDF5 file:
//   attributes   format_version, component, tessera_version, time, timestep,
//                delt, deck_digest (of the run directory's input.yaml), lower,
//                upper, resolution, spacing, patches, extra_cells, index_lo
//                (global index of the datasets' first cell), metadata_digest
//                (a checksum of every attribute a restart uses)
//   /<label>     one dataset per cell variable over the level's cells plus
//                extra cells, dims (z, y, x), written collectively (each rank
//                its patches as hyperslabs), with attributes value_type and
//                digest (the order-independent checksum of its cells)
//   /blocks/<label>  one dataset per block variable: its whole global array,
//                dims (rows, columns), each block written by its owner
//                (replicas once), with value_type and digest (BlockDigest.h)
//   /reductions/<label>  one value per reduction variable held (no group
//                when none is), with its digest
//   /levels/<l>  each finer level l >= 1 of a refined run (attribute `levels`
//                at the root: their number, 1 without), with attributes
//                refinement_ratio, resolution (of the level's whole domain)
//                spacing and regions; in it
//   /levels/<l>/<k>/<label>  region k of the level: cells_lo, cells_hi (its
//                interior cells), patches, index_lo (the dataset's first
//                cell, extra cells at the walls included); one dataset per
//                cell variable as at the root, with value_type and digest
// Level 0 stays at the root, so format 3 without finer levels is format 2
// with one more attribute (and the reader takes both).
// Its content does not depend on the patch layout, the block layout or the
// rank count.

#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "Core/Grid/Grid.h"
#include "Core/Parallel/Communicator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

inline constexpr int kArchiveFormatVersion = 3;

struct ArchiveStep {
  int timestep = 0;
  double time = 0.0;
  double delt = 0.0;
  std::string component;
  std::uint64_t deckDigest = 0;  // digestOfText of the deck stored beside the archive
};

// A checksum of a text (the stored deck, the metadata).
std::uint64_t digestOfText(const std::string& text);

// Writes `labels` (cell variables for the local patches of every level,
// patchRanks[id] == comm.rank(); block variables for the blocks this rank owns, in the layouts
// `dw` has) and `reductions` of `dw` to a new file at `path`.
// Collective over `comm`: all ranks succeed or all throw the same error.
void writeArchiveFile(const std::string& path, const Communicator& comm, const ArchiveStep& step,
                      const Grid& grid, const std::vector<int>& patchRanks,
                      const std::vector<const VarLabel*>& labels,
                      const std::vector<const VarLabel*>& reductions, const OnDemandDataWarehouse& dw);

// Reads an archive file back into `dw` for this rank's patches and the
// blocks it holds in the layouts `dw` has (any layout, any rank count),
// allocating each cell variable with room for the ghost layers `dw` is set
// up for. A block variable whose array has another shape than its layout's
// is an InputError naming both. Verifies every digest; a missing, truncated or
// corrupt file, or one for another grid (another hierarchy: levels, ratios,
// region boxes; patch layouts may differ), throws InputError naming the path
// and the reason. Collective over `comm`: all ranks succeed or all throw.
ArchiveStep readArchiveFile(const std::string& path, const Communicator& comm, const Grid& grid,
                            const std::vector<int>& patchRanks, const std::vector<const VarLabel*>& labels,
                            const std::vector<const VarLabel*>& reductions, OnDemandDataWarehouse& dw);

}  // namespace tessera
