#include "Core/Grid/Level.h"

#include "Core/ProblemSpec/ProblemSpec.h"
#include "Core/Util/Error.h"

#include <sstream>

namespace tessera {

namespace {
const char* axisName(int axis) {
  return axis == 0 ? "x" : (axis == 1 ? "y" : "z");
}
}  // namespace

LevelSpec LevelSpec::fromDeck(const ProblemSpec& level) {
  LevelSpec spec;
  spec.lower = level.get<Vector3>("lower", spec.lower);
  spec.upper = level.get<Vector3>("upper", spec.upper);
  spec.resolution = level.get<IntVector>("resolution");
  spec.patches = level.get<IntVector>("patches", spec.patches);
  spec.extraCells = level.get<IntVector>("extra_cells", spec.extraCells);
  spec.periodic = level.get<std::array<bool, 3>>("periodic", spec.periodic);
  if (const auto problem = spec.problem())
    throw level.errorAtValue(problem->first, problem->second);
  return spec;
}

std::optional<std::pair<std::string, std::string>> LevelSpec::problem() const {
  for (int axis = 0; axis < 3; ++axis) {
    std::ostringstream message;
    std::string key;
    if (!(upper[axis] > lower[axis])) {
      key = "upper";
      message << "upper must exceed lower along " << axisName(axis) << " (lower " << lower[axis]
              << ", upper " << upper[axis] << ")";
    } else if (resolution[axis] < 1) {
      key = "resolution";
      message << "resolution must be at least 1 along " << axisName(axis);
    } else if (patches[axis] < 1) {
      key = "patches";
      message << "patches must be at least 1 along " << axisName(axis);
    } else if (patches[axis] > resolution[axis]) {
      key = "patches";
      message << "patches " << patches << " exceed the resolution " << resolution << " along "
              << axisName(axis) << ": every patch needs at least one cell";
    } else if (extraCells[axis] < 0) {
      key = "extra_cells";
      message << "extra_cells must not be negative";
    } else if (periodic[axis] && extraCells[axis] != 0) {
      key = "extra_cells";
      message << "extra_cells must be 0 along the periodic axis " << axisName(axis);
    }
    if (!key.empty()) return std::make_pair(key, message.str());
  }
  return std::nullopt;
}

void LevelSpec::check() const {
  if (const auto found = problem()) throw InputError(found->second);
}

Level::Level(int index, const LevelSpec& spec, int firstPatchId)
    : m_index(index), m_spec(spec), m_firstPatchId(firstPatchId) {
  m_spec.check();
  for (int axis = 0; axis < 3; ++axis) {
    m_spacing[axis] = (spec.upper[axis] - spec.lower[axis]) / spec.resolution[axis];
    const int n = spec.resolution[axis];
    const int p = spec.patches[axis];
    for (int i = 0; i <= p; ++i) {
      m_cuts[axis].push_back(static_cast<int>(static_cast<std::int64_t>(i) * n / p));
    }
  }
  const IntVector& layout = spec.patches;
  m_patches.reserve(static_cast<std::size_t>(layout.product()));
  int id = firstPatchId;
  for (int pk = 0; pk < layout.z; ++pk) {
    for (int pj = 0; pj < layout.y; ++pj) {
      for (int pi = 0; pi < layout.x; ++pi) {
        const IntVector at{pi, pj, pk};
        IntVector lo, hi, extraLow, extraHigh;
        for (int axis = 0; axis < 3; ++axis) {
          lo[axis] = m_cuts[axis][at[axis]];
          hi[axis] = m_cuts[axis][at[axis] + 1];
          const bool walled = !spec.periodic[axis];
          extraLow[axis] = (walled && at[axis] == 0) ? spec.extraCells[axis] : 0;
          extraHigh[axis] = (walled && at[axis] == layout[axis] - 1) ? spec.extraCells[axis] : 0;
        }
        m_patches.emplace_back(*this, id++, at, Box{lo, hi}, extraLow, extraHigh);
      }
    }
  }
}

Vector3 Level::cellCentre(const IntVector& cell) const {
  return {m_spec.lower.x + (cell.x + 0.5) * m_spacing.x,
          m_spec.lower.y + (cell.y + 0.5) * m_spacing.y,
          m_spec.lower.z + (cell.z + 0.5) * m_spacing.z};
}

Box Level::extendedCellBox() const {
  IntVector extra;
  for (int axis = 0; axis < 3; ++axis)
    extra[axis] = m_spec.periodic[axis] ? 0 : m_spec.extraCells[axis];
  return cellBox().grow(extra);
}

std::vector<const Patch*> Level::eachPatch() const {
  std::vector<const Patch*> all;
  all.reserve(m_patches.size());
  for (const Patch& patch : m_patches)
    all.push_back(&patch);
  return all;
}

const Patch& Level::patchById(int id) const {
  TESSERA_REQUIRE_THROWS(id >= m_firstPatchId && id < m_firstPatchId + numPatches(),
                         "patch id " << id << " is not on level " << m_index);
  return m_patches[static_cast<std::size_t>(id - m_firstPatchId)];
}

const Patch* Level::patchAtLayout(IntVector at) const {
  const IntVector& layout = m_spec.patches;
  for (int axis = 0; axis < 3; ++axis) {
    if (at[axis] < 0 || at[axis] >= layout[axis]) {
      if (!m_spec.periodic[axis]) return nullptr;
      at[axis] = ((at[axis] % layout[axis]) + layout[axis]) % layout[axis];
    }
  }
  return &m_patches[static_cast<std::size_t>((at.z * layout.y + at.y) * layout.x + at.x)];
}

Box Level::ghostedBox(const Patch& patch, int numGhost) const {
  // Ghost layers are never added beyond a non-periodic boundary: extra cells
  // (possibly fewer than numGhost) end the data there.
  IntVector lo = patch.extendedBox().lo();
  IntVector hi = patch.extendedBox().hi();
  for (int axis = 0; axis < 3; ++axis) {
    if (!patch.hasBoundaryCondition(makeFace(axis, 0))) lo[axis] -= numGhost;
    if (!patch.hasBoundaryCondition(makeFace(axis, 1))) hi[axis] += numGhost;
  }
  return {lo, hi};
}

std::vector<GhostRegion> Level::ghostRegions(const Patch& patch, int numGhost) const {
  std::vector<GhostRegion> regions;
  if (numGhost <= 0) return regions;
  for (int axis = 0; axis < 3; ++axis) {
    TESSERA_REQUIRE_THROWS(
        !m_spec.periodic[axis] || numGhost <= m_spec.resolution[axis],
        numGhost << " ghost layers exceed the periodic resolution " << m_spec.resolution);
  }
  const Box wanted = ghostedBox(patch, numGhost);
  // Periodic images of the level that the ghost layer can reach.
  IntVector imageLo, imageHi;
  for (int axis = 0; axis < 3; ++axis) {
    imageLo[axis] = m_spec.periodic[axis] ? -1 : 0;
    imageHi[axis] = m_spec.periodic[axis] ? 1 : 0;
  }
  for (int iz = imageLo.z; iz <= imageHi.z; ++iz) {
    for (int iy = imageLo.y; iy <= imageHi.y; ++iy) {
      for (int ix = imageLo.x; ix <= imageHi.x; ++ix) {
        const IntVector image = IntVector{ix, iy, iz} * m_spec.resolution;
        for (const Patch& source : m_patches) {
          if (&source == &patch && image == IntVector{}) continue;
          const Box landed = source.extendedBox().shift(image).intersection(wanted);
          if (landed.empty()) continue;
          regions.push_back(GhostRegion{&source, landed.shift(-image), image});
        }
      }
    }
  }
  return regions;
}

}  // namespace tessera
