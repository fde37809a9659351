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
  for (int axis = 0; axis < 3; ++axis)
    m_spacing[axis] = (spec.upper[axis] - spec.lower[axis]) / spec.resolution[axis];
  addRegion({cellBox(), spec.patches}, IntVector::uniform(1));
}

Level::Level(int index, const Level& coarser, const IntVector& ratio,
             std::vector<LevelRegion> regions, int firstPatchId)
    : m_index(index),
      m_spec(coarser.spec()),
      m_coarser(&coarser),
      m_ratio(ratio),
      m_firstPatchId(firstPatchId) {
  TESSERA_REQUIRE_THROWS(IntVector::uniform(1).allLessEqual(ratio),
                         "level " << index << ": refinement ratio " << ratio
                                  << " must be at least 1 along every axis");
  TESSERA_REQUIRE_THROWS(!regions.empty(), "level " << index << " has no region");
  m_spec.resolution = coarser.resolution() * ratio;
  m_spec.check();
  for (int axis = 0; axis < 3; ++axis)
    m_spacing[axis] = (m_spec.upper[axis] - m_spec.lower[axis]) / m_spec.resolution[axis];
  for (std::size_t r = 0; r < regions.size(); ++r) {
    const LevelRegion& region = regions[r];
    const Box& cells = region.cells;
    TESSERA_REQUIRE_THROWS(!cells.empty() && cellBox().contains(cells),
                           "level " << index << ": region " << cells << " is "
                                    << (cells.empty() ? "empty" : "outside the domain ")
                                    << (cells.empty() ? Box{} : cellBox()));
    for (int axis = 0; axis < 3; ++axis) {
      TESSERA_REQUIRE_THROWS(cells.lo()[axis] % ratio[axis] == 0 &&
                                 cells.hi()[axis] % ratio[axis] == 0,
                             "level " << index << ": region " << cells
                                      << " is not made of whole cells of level " << index - 1
                                      << " (ratio " << ratio << ")");
      const int coarseCells = cells.size()[axis] / ratio[axis];
      TESSERA_REQUIRE_THROWS(region.patches[axis] >= 1 && region.patches[axis] <= coarseCells,
                             "level " << index << ": region " << cells << " cannot hold "
                                      << region.patches << " patches (each needs at least one "
                                      << "cell of level " << index - 1 << " per axis)");
    }
    for (std::size_t q = 0; q < r; ++q) {
      TESSERA_REQUIRE_THROWS(!regions[q].cells.intersects(cells),
                             "level " << index << ": regions " << regions[q].cells << " and "
                                      << cells << " overlap");
    }
  }
  for (const LevelRegion& region : regions)
    addRegion(region, ratio);
}

void Level::addRegion(const LevelRegion& region, const IntVector& ratio) {
  const int regionIndex = static_cast<int>(m_regions.size());
  m_regions.push_back(region);
  m_regionFirstPatch.push_back(static_cast<int>(m_patches.size()));
  std::array<std::vector<int>, 3> cuts;
  for (int axis = 0; axis < 3; ++axis) {
    const int lo = region.cells.lo()[axis];
    const std::int64_t units = region.cells.size()[axis] / ratio[axis];
    const int p = region.patches[axis];
    for (int i = 0; i <= p; ++i)
      cuts[axis].push_back(lo + ratio[axis] * static_cast<int>(i * units / p));
  }
  const IntVector& layout = region.patches;
  m_patches.reserve(m_patches.size() + static_cast<std::size_t>(layout.product()));
  int id = m_firstPatchId + static_cast<int>(m_patches.size());
  for (int pk = 0; pk < layout.z; ++pk) {
    for (int pj = 0; pj < layout.y; ++pj) {
      for (int pi = 0; pi < layout.x; ++pi) {
        const IntVector at{pi, pj, pk};
        IntVector lo, hi, extraLow, extraHigh;
        for (int axis = 0; axis < 3; ++axis) {
          lo[axis] = cuts[axis][at[axis]];
          hi[axis] = cuts[axis][at[axis] + 1];
          const bool walled = !m_spec.periodic[axis];
          extraLow[axis] = (walled && lo[axis] == 0) ? m_spec.extraCells[axis] : 0;
          extraHigh[axis] =
              (walled && hi[axis] == m_spec.resolution[axis]) ? m_spec.extraCells[axis] : 0;
        }
        m_patches.emplace_back(*this, id++, at, Box{lo, hi}, extraLow, extraHigh, regionIndex);
      }
    }
  }
  m_cuts.push_back(std::move(cuts));
  m_numCells += region.cells.volume();
}

Box Level::extendedRegionBox(int region) const {
  const Box& cells = m_regions[static_cast<std::size_t>(region)].cells;
  IntVector lo = cells.lo();
  IntVector hi = cells.hi();
  for (int axis = 0; axis < 3; ++axis) {
    if (m_spec.periodic[axis]) continue;
    if (lo[axis] == 0) lo[axis] -= m_spec.extraCells[axis];
    if (hi[axis] == m_spec.resolution[axis]) hi[axis] += m_spec.extraCells[axis];
  }
  return {lo, hi};
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

const Patch* Level::patchAtLayout(IntVector at, int region) const {
  const LevelRegion& r = m_regions.at(static_cast<std::size_t>(region));
  const IntVector& layout = r.patches;
  for (int axis = 0; axis < 3; ++axis) {
    if (at[axis] < 0 || at[axis] >= layout[axis]) {
      if (!m_spec.periodic[axis] || r.cells.size()[axis] != m_spec.resolution[axis]) return nullptr;
      at[axis] = ((at[axis] % layout[axis]) + layout[axis]) % layout[axis];
    }
  }
  const int first = m_regionFirstPatch[static_cast<std::size_t>(region)];
  return &m_patches[static_cast<std::size_t>(first + (at.z * layout.y + at.y) * layout.x + at.x)];
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
  for (int r = 0; r < static_cast<int>(m_regions.size()); ++r) {
    const Box query = box.intersection(extendedRegionBox(r));
    if (query.empty()) continue;
    const LevelRegion& region = m_regions[static_cast<std::size_t>(r)];
    const auto& regionCuts = m_cuts[static_cast<std::size_t>(r)];
    IntVector first, last;
    for (int axis = 0; axis < 3; ++axis) {
      const std::vector<int>& cuts = regionCuts[static_cast<std::size_t>(axis)];
      const int patches = region.patches[axis];
      // The patch holding the query's first cell, and the one holding its
      // last (extra cells belong to the first and last patch of an axis).
      const auto begin = std::upper_bound(cuts.begin(), cuts.end(), query.lo()[axis]);
      const auto end = std::lower_bound(cuts.begin(), cuts.end(), query.hi()[axis]);
      first[axis] = std::clamp(static_cast<int>(begin - cuts.begin()) - 1, 0, patches - 1);
      last[axis] = std::clamp(static_cast<int>(end - cuts.begin()) - 1, 0, patches - 1);
    }
    const int base = m_regionFirstPatch[static_cast<std::size_t>(r)];
    for (int pk = first.z; pk <= last.z; ++pk)
      for (int pj = first.y; pj <= last.y; ++pj)
        for (int pi = first.x; pi <= last.x; ++pi) {
          const Patch& patch = m_patches[static_cast<std::size_t>(
              base + (pk * region.patches.y + pj) * region.patches.x + pi)];
          if (patch.extendedBox().intersects(query)) found.push_back(&patch);
        }
  }
  return found;
}

template <class F>
void Level::forEachImageSource(const Box& wanted, const F& f) const {
  // Periodic images of the level that a ghost layer can reach: the image
  // below along an axis only where `wanted` reaches below the domain, the
  // one above only where it reaches above (the others hold no cell of it;
  // asking each of the 27 cost the graph compiler a sixth of its time).
  IntVector imageLo, imageHi;
  for (int axis = 0; axis < 3; ++axis) {
    const bool periodic = m_spec.periodic[axis];
    imageLo[axis] = periodic && wanted.lo()[axis] < 0 ? -1 : 0;
    imageHi[axis] = periodic && wanted.hi()[axis] > m_spec.resolution[axis] ? 1 : 0;
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
    for (const GhostRegion& region : sourcesOf(wanted))
      if (region.source != &patch || region.offset != IntVector{}) regions.push_back(region);
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

std::vector<GhostRegion> Level::sourcesOf(const Box& wanted) const {
  std::vector<GhostRegion> regions;
  forEachImageSource(wanted, [&](const Patch& source, const IntVector& image) {
    const Box from = source.extendedBox().intersection(wanted.shift(-image));
    if (!from.empty()) regions.push_back(GhostRegion{&source, from, image});
  });
  return regions;
}

std::vector<Box> Level::coarseFineGhosts(const Patch& patch, int numGhost,
                                         Ghost::Type type) const {
  std::vector<Box> missing;
  if (numGhost <= 0 || type == Ghost::None || coversDomain()) return missing;
  if (type == Ghost::AroundCells) {
    missing = difference(ghostedBox(patch, numGhost), patch.extendedBox());
  } else {
    for (const Face face : allFaces())
      if (!patch.hasBoundaryCondition(face))
        missing.push_back(faceSlab(patch.interior(), face, numGhost));
  }
  for (const GhostRegion& region : ghostRegions(patch, numGhost, type))
    missing = difference(missing, region.destinationBox());
  return missing;
}

std::vector<Box> Level::compositeCells(const Patch& patch) const {
  std::vector<Box> cells{patch.interior()};
  if (m_finer == nullptr) return cells;
  for (const LevelRegion& region : m_finer->regions())
    cells = difference(cells, coarsen(region.cells, m_finer->refinementRatio()));
  return cells;
}

double Level::cellVolumeFraction() const {
  const Level* base = this;
  while (base->coarser() != nullptr) base = base->coarser();
  return static_cast<double>(base->resolution().product()) /
         static_cast<double>(resolution().product());
}

}  // namespace tessera
