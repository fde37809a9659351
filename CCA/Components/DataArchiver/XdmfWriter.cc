#include "CCA/Components/DataArchiver/XdmfWriter.h"

#include "CCA/Components/DataArchiver/ArchiveLayout.h"

#include <iomanip>
#include <sstream>

namespace tessera {

namespace {
const char* numberType(const std::string& valueType) { return valueType == "double" || valueType == "float" ? "Float" : "Int"; }
int precision(const std::string& valueType) { return valueType == "double" || valueType == "int64" ? 8 : 4; }
}  // namespace

namespace {

// One uniform grid: the cells `cells` of `level` (extra cells included),
// their variables at `datasetPrefix`/<name> in the output file.
void uniformGrid(std::ostream& out, const std::string& name, const std::string& indent,
                 const Level& level, const Box& cells, const ArchiveEntry& output,
                 const std::string& datasetPrefix, const std::vector<XdmfVariable>& variables,
                 bool withTime) {
  const IntVector n = cells.size();
  const Vector3 h = level.spacing();
  const Vector3 origin = level.spec().lower + Vector3{cells.lo().x * h.x, cells.lo().y * h.y, cells.lo().z * h.z};
  out << indent << "<Grid Name=\"" << name << "\" GridType=\"Uniform\">\n";
  if (withTime) out << indent << "  <Time Value=\"" << output.time << "\"/>\n";
  // Node counts, z slowest: the datasets hold cells, one fewer per axis.
  out << indent << "  <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << n.z + 1 << " " << n.y + 1
      << " " << n.x + 1 << "\"/>\n"
      << indent << "  <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
      << indent << "    <DataItem Format=\"XML\" Dimensions=\"3\">" << origin.z << " " << origin.y << " "
      << origin.x << "</DataItem>\n"
      << indent << "    <DataItem Format=\"XML\" Dimensions=\"3\">" << h.z << " " << h.y << " " << h.x
      << "</DataItem>\n"
      << indent << "  </Geometry>\n";
  for (const XdmfVariable& variable : variables) {
    out << indent << "  <Attribute Name=\"" << variable.name << "\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
        << indent << "    <DataItem Format=\"HDF\" NumberType=\"" << numberType(variable.valueType)
        << "\" Precision=\"" << precision(variable.valueType) << "\" Dimensions=\"" << n.z << " " << n.y << " "
        << n.x << "\">" << output.file << ":/" << datasetPrefix << variable.name << "</DataItem>\n"
        << indent << "  </Attribute>\n";
  }
  out << indent << "</Grid>\n";
}

}  // namespace

std::string xdmfGrid(const Grid& grid, const ArchiveEntry& output, const std::vector<XdmfVariable>& variables) {
  std::ostringstream out;
  out << std::setprecision(17);
  const std::string name = "timestep " + std::to_string(output.timestep);
  const Level& base = grid.level(0);
  if (grid.numLevels() == 1) {
    uniformGrid(out, name, "    ", base, base.extendedCellBox(), output, "", variables, true);
    return out.str();
  }
  // A refined run: a spatial collection of level 0 and every region of the
  // finer levels, each its own uniform grid (ParaView shows them as blocks;
  // the finer ones overlap the coarse cells they refine).
  out << "    <Grid Name=\"" << name << "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n"
      << "      <Time Value=\"" << output.time << "\"/>\n";
  uniformGrid(out, "level 0", "      ", base, base.extendedCellBox(), output, "", variables, false);
  for (int l = 1; l < grid.numLevels(); ++l) {
    const Level& level = grid.level(l);
    for (int k = 0; k < static_cast<int>(level.regions().size()); ++k) {
      uniformGrid(out, "level " + std::to_string(l) + " region " + std::to_string(k), "      ", level,
                  level.extendedRegionBox(k), output,
                  regionPath(l, k) + "/", variables, false);
    }
  }
  out << "    </Grid>\n";
  return out.str();
}

namespace {
constexpr const char* kDomainOpen = "  <Domain>\n";
constexpr const char* kDomainClose = "  </Domain>\n";
}  // namespace

std::string xdmfGridOf(const std::string& document) {
  const std::size_t open = document.find(kDomainOpen);
  const std::size_t close = document.rfind(kDomainClose);
  if (open == std::string::npos || close == std::string::npos || close < open) return {};
  const std::size_t first = open + std::string(kDomainOpen).size();
  return document.substr(first, close - first);
}

std::string xdmfDocument(const std::string& grids, bool temporal) {
  std::ostringstream out;
  out << "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n" << kDomainOpen;
  if (temporal) out << "  <Grid Name=\"run\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  out << grids;
  if (temporal) out << "  </Grid>\n";
  out << kDomainClose << "</Xdmf>\n";
  return out.str();
}

}  // namespace tessera
