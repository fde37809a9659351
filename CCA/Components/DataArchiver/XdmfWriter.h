#pragma once
// XDMF descriptions of the HDF5 outputs, so that ParaView and VisIt open a
// run directly: one .xmf per output timestep and run.xmf, a temporal
// collection of them all.

#include "CCA/Components/DataArchiver/ArchiveIndex.h"
#include "Core/Grid/Grid.h"

#include <string>
#include <vector>

namespace tessera {

struct XdmfVariable {
  std::string name;
  std::string valueType;  // "double", "float", "int", "int64"
};

// The <Grid> element for one output file (relative path `file`): a uniform
// grid, or for a refined run a spatial collection of one uniform grid per
// level region (level 0 first).
std::string xdmfGrid(const Grid& grid, const ArchiveEntry& output, const std::vector<XdmfVariable>& variables);
// The grids of a document xdmfDocument(grids, false) made: empty when
// `document` is not one.
std::string xdmfGridOf(const std::string& document);
// A whole XDMF document around grids.
std::string xdmfDocument(const std::string& grids, bool temporal);

}  // namespace tessera
