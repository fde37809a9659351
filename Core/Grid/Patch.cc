#include "Core/Grid/Patch.h"

#include "Core/Grid/Level.h"

namespace tessera {

const char* faceName(Face f) {
  static constexpr const char* names[] = {"x-", "x+", "y-", "y+", "z-", "z+"};
  return names[static_cast<int>(f)];
}

Patch::Patch(const Level& level, int id, const IntVector& layoutIndex, const Box& interior,
             const IntVector& extraLow, const IntVector& extraHigh, int region)
    : m_level(&level),
      m_id(id),
      m_layoutIndex(layoutIndex),
      m_region(region),
      m_interior(interior),
      m_extraLow(extraLow),
      m_extraHigh(extraHigh) {}

Box faceSlab(const Box& box, Face f, int depth) {
  const int axis = faceAxis(f);
  IntVector lo = box.lo();
  IntVector hi = box.hi();
  if (faceSide(f) == 0) {
    hi[axis] = lo[axis];
    lo[axis] -= depth;
  } else {
    lo[axis] = hi[axis];
    hi[axis] += depth;
  }
  return {lo, hi};
}

Box beyondFace(const Box& inner, const Box& outer, Face f) {
  const int axis = faceAxis(f);
  IntVector lo = outer.lo();
  IntVector hi = outer.hi();
  if (faceSide(f) == 0) {
    hi[axis] = inner.lo()[axis];
  } else {
    lo[axis] = inner.hi()[axis];
  }
  return {lo, hi};
}

Box Patch::extraCellBox(Face f) const {
  if (extraCells(f) == 0) return {};
  return beyondFace(m_interior, extendedBox(), f);
}

bool Patch::onDomainEdge(Face f) const {
  const int axis = faceAxis(f);
  return faceSide(f) == 0 ? m_interior.lo()[axis] == 0
                          : m_interior.hi()[axis] == m_level->resolution()[axis];
}

bool Patch::hasBoundaryCondition(Face f) const {
  return onDomainEdge(f) && !m_level->periodic(faceAxis(f));
}

Vector3 Patch::spacing() const {
  return m_level->spacing();
}

Vector3 Patch::cellCentre(const IntVector& cell) const {
  return m_level->cellCentre(cell);
}

const Patch* Patch::neighbour(const IntVector& direction) const {
  return m_level->patchAtLayout(m_layoutIndex + direction, m_region);
}

std::ostream& operator<<(std::ostream& out, const Patch& p) {
  return out << "patch " << p.id() << " " << p.interior();
}

}  // namespace tessera
