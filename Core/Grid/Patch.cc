#include "Core/Grid/Patch.h"

#include "Core/Grid/Level.h"

namespace tessera {

const char* faceName(Face f) {
  static constexpr const char* names[] = {"x-", "x+", "y-", "y+", "z-", "z+"};
  return names[static_cast<int>(f)];
}

Patch::Patch(const Level& level, int id, const IntVector& layoutIndex, const Box& interior,
             const IntVector& extraLow, const IntVector& extraHigh)
    : m_level(&level),
      m_id(id),
      m_layoutIndex(layoutIndex),
      m_interior(interior),
      m_extraLow(extraLow),
      m_extraHigh(extraHigh) {}

Box Patch::extraCellBox(Face f) const {
  const int axis = faceAxis(f);
  const int n = extraCells(f);
  if (n == 0) return {};
  IntVector lo = extendedBox().lo();
  IntVector hi = extendedBox().hi();
  if (faceSide(f) == 0) {
    hi[axis] = m_interior.lo()[axis];
  } else {
    lo[axis] = m_interior.hi()[axis];
  }
  return {lo, hi};
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
  return m_level->patchAtLayout(m_layoutIndex + direction);
}

std::ostream& operator<<(std::ostream& out, const Patch& p) {
  return out << "patch " << p.id() << " " << p.interior();
}

}  // namespace tessera
