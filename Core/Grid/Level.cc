#include "Core/Grid/Level.h"

#include "Core/ProblemSpec/ProblemSpec.h"
#include "Core/Util/Error.h"

#include <algorithm>
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
  // Cell indices are ints and counts int64: keep every extent, ghost and
  // extra cells included, and the whole count well inside both.
  constexpr std::int64_t kMaxCellsPerAxis = std::int64_t{1} << 30;
  constexpr std::int64_t kMaxCells = std::int64_t{1} << 50;
  std::int64_t cells = 1;
  for (int axis = 0; axis < 3; ++axis) {
    const std::int64_t extent = std::int64_t{resolution[axis]} + 2 * std::int64_t{extraCells[axis]};
    if (extent > kMaxCellsPerAxis) {
      std::ostringstream message;
      message << "resolution " << resolution << " with extra cells has " << extent
              << " cells along " << axisName(axis) << "; at most " << kMaxCellsPerAxis
              << " are supported";
      return std::make_pair(std::string("resolution"), message.str());
    }
    cells *= extent;
  }
  if (cells > kMaxCells) {
    std::ostringstream message;
    message << "resolution " << resolution << " with extra cells has " << cells
            << " cells; at most " << kMaxCells << " are supported";
    return std::make_pair(std::string("resolution"), message.str());
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

std::vector<const Patch*> Level::patchesIntersecting(const Box& box) const {
  std::vector<const Patch*> found;
  const Box domain = extendedCellBox();
  const Box query = box.intersection(domain);
  if (query.empty()) return found;
  IntVector first, last;
  for (int axis = 0; axis < 3; ++axis) {
    const std::vector<int>& cuts = m_cuts[axis];
    const int patches = m_spec.patches[axis];
    // The patch holding the query's first cell, and the one holding its last
    // (extra cells belong to the first and last patch of an axis).
    const auto begin = std::upper_bound(cuts.begin(), cuts.end(), query.lo()[axis]);
    const auto end = std::lower_bound(cuts.begin(), cuts.end(), query.hi()[axis]);
    first[axis] = std::clamp(static_cast<int>(begin - cuts.begin()) - 1, 0, patches - 1);
    last[axis] = std::clamp(static_cast<int>(end - cuts.begin()) - 1, 0, patches - 1);
  }
  for (int pk = first.z; pk <= last.z; ++pk)
    for (int pj = first.y; pj <= last.y; ++pj)
      for (int pi = first.x; pi <= last.x; ++pi) {
        const Patch& patch = m_patches[static_cast<std::size_t>(
            (pk * m_spec.patches.y + pj) * m_spec.patches.x + pi)];
        if (patch.extendedBox().intersects(query)) found.push_back(&patch);
      }
  return found;
}

template <class F>
void Level::forEachImageSource(const Box& wanted, const F& f) const {
  // Periodic images of the level that a ghost layer can reach.
  IntVector imageLo, imageHi;
  for (int axis = 0; axis < 3; ++axis) {
    imageLo[axis] = m_spec.periodic[axis] ? -1 : 0;
    imageHi[axis] = m_spec.periodic[axis] ? 1 : 0;
  }
  for (int iz = imageLo.z; iz <= imageHi.z; ++iz) {
    for (int iy = imageLo.y; iy <= imageHi.y; ++iy) {
      for (int ix = imageLo.x; ix <= imageHi.x; ++ix) {
        const IntVector image = IntVector{ix, iy, iz} * m_spec.resolution;
        for (const Patch* source : patchesIntersecting(wanted.shift(-image)))
          f(*source, image);
      }
    }
  }
}

std::vector<const Patch*> Level::patchesNear(const Patch& patch, int distance) const {
  std::vector<const Patch*> near;
  forEachImageSource(patch.extendedBox().grow(distance),
                     [&](const Patch& source, const IntVector&) { near.push_back(&source); });
  std::sort(near.begin(), near.end(),
            [](const Patch* a, const Patch* b) { return a->id() < b->id(); });
  near.erase(std::unique(near.begin(), near.end()), near.end());
  return near;
}

std::vector<GhostRegion> Level::ghostRegions(const Patch& patch, int numGhost,
                                             Ghost::Type type) const {
  std::vector<GhostRegion> regions;
  if (numGhost <= 0 || type == Ghost::None) return regions;
  for (int axis = 0; axis < 3; ++axis) {
    TESSERA_REQUIRE_THROWS(
        !m_spec.periodic[axis] || numGhost <= m_spec.resolution[axis],
        numGhost << " ghost layers exceed the periodic resolution " << m_spec.resolution);
  }
  const auto collect = [&](const Box& wanted) {
    forEachImageSource(wanted, [&](const Patch& source, const IntVector& image) {
      if (&source == &patch && image == IntVector{}) return;
      const Box from = source.extendedBox().intersection(wanted.shift(-image));
      if (!from.empty()) regions.push_back(GhostRegion{&source, from, image});
    });
  };
  if (type == Ghost::AroundCells) {
    collect(ghostedBox(patch, numGhost));
    return regions;
  }
  // Faces only: one slab per face that has a neighbour, as wide as the interior.
  for (const Face face : allFaces()) {
    if (!patch.hasBoundaryCondition(face)) collect(faceSlab(patch.interior(), face, numGhost));
  }
  return regions;
}

}  // namespace tessera
