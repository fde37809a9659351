#include "CCA/Components/DataArchiver/XdmfWriter.h"

#include <iomanip>
#include <sstream>

namespace tessera {

namespace {
const char* numberType(const std::string& valueType) { return valueType == "double" || valueType == "float" ? "Float" : "Int"; }
int precision(const std::string& valueType) { return valueType == "double" || valueType == "int64" ? 8 : 4; }
}  // namespace

std::string xdmfGrid(const Level& level, const ArchiveEntry& output, const std::vector<XdmfVariable>& variables) {
  const Box cells = level.extendedCellBox();
  const IntVector n = cells.size();
  const Vector3 h = level.spacing();
  const Vector3 origin = level.spec().lower + Vector3{cells.lo().x * h.x, cells.lo().y * h.y, cells.lo().z * h.z};
  std::ostringstream out;
  out << std::setprecision(17);
  out << "    <Grid Name=\"timestep " << output.timestep << "\" GridType=\"Uniform\">\n"
      << "      <Time Value=\"" << output.time << "\"/>\n"
      // Node counts, z slowest: the datasets hold cells, one fewer per axis.
      << "      <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << n.z + 1 << " " << n.y + 1 << " " << n.x + 1
      << "\"/>\n"
      << "      <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
      << "        <DataItem Format=\"XML\" Dimensions=\"3\">" << origin.z << " " << origin.y << " " << origin.x
      << "</DataItem>\n"
      << "        <DataItem Format=\"XML\" Dimensions=\"3\">" << h.z << " " << h.y << " " << h.x << "</DataItem>\n"
      << "      </Geometry>\n";
  for (const XdmfVariable& variable : variables) {
    out << "      <Attribute Name=\"" << variable.name << "\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
        << "        <DataItem Format=\"HDF\" NumberType=\"" << numberType(variable.valueType) << "\" Precision=\""
        << precision(variable.valueType) << "\" Dimensions=\"" << n.z << " " << n.y << " " << n.x << "\">"
        << output.file << ":/" << variable.name << "</DataItem>\n"
        << "      </Attribute>\n";
  }
  out << "    </Grid>\n";
  return out.str();
}

std::string xdmfDocument(const std::string& grids, bool temporal) {
  std::ostringstream out;
  out << "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n  <Domain>\n";
  if (temporal) out << "  <Grid Name=\"run\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  out << grids;
  if (temporal) out << "  </Grid>\n";
  out << "  </Domain>\n</Xdmf>\n";
  return out.str();
}

}  // namespace tessera
