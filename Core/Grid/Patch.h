#pragma once
// One rectangular piece of a level: its interior cells, the extra (boundary
// condition) cells on faces that lie on a non-periodic domain boundary, and
// its geometry. Cell indices are global to the level: the level's interior
// is [0, resolution), extra cells sit at -1, -2, ... and resolution, ...

#include "Core/Grid/Box.h"
#include "Core/Grid/IntVector.h"
#include "Core/Grid/Vector3.h"

#include <array>
#include <ostream>

namespace tessera {

class Level;

enum class Face { XMinus, XPlus, YMinus, YPlus, ZMinus, ZPlus };

KOKKOS_INLINE_FUNCTION constexpr int faceAxis(Face f) {
  return static_cast<int>(f) / 2;
}
KOKKOS_INLINE_FUNCTION constexpr int faceSide(Face f) {
  return static_cast<int>(f) % 2;
}
constexpr Face makeFace(int axis, int side) {
  return static_cast<Face>(2 * axis + side);
}
constexpr std::array<Face, 6> allFaces() {
  return {Face::XMinus, Face::XPlus, Face::YMinus, Face::YPlus, Face::ZMinus, Face::ZPlus};
}
const char* faceName(Face f);

// The `depth` layers of cells just beyond face f of `box`, as wide as `box`
// along the other two axes (a face's ghost slab).
Box faceSlab(const Box& box, Face f, int depth);
// The cells of `outer` beyond face f of `inner` (which lies inside it), as
// wide as `outer` along the other axes (a face's extra cells, edges included).
Box beyondFace(const Box& inner, const Box& outer, Face f);

class Patch {
 public:
  Patch(const Level& level, int id, const IntVector& layoutIndex, const Box& interior,
        const IntVector& extraLow, const IntVector& extraHigh, int region = 0);

  const Level& level() const { return *m_level; }
  // Unique over the whole grid; patches of one level have consecutive ids.
  int id() const { return m_id; }
  // Which of its level's regions holds the patch, and its position in the
  // region's patch layout.
  int region() const { return m_region; }
  const IntVector& layoutIndex() const { return m_layoutIndex; }

  // The cells this patch owns and updates.
  const Box& interior() const { return m_interior; }
  // Interior plus the extra cells on its domain-boundary faces. The extended
  // boxes of a level's patches are disjoint and cover the extended domain.
  Box extendedBox() const { return {m_interior.lo() - m_extraLow, m_interior.hi() + m_extraHigh}; }
  int extraCells(Face f) const {
    return faceSide(f) == 0 ? m_extraLow[faceAxis(f)] : m_extraHigh[faceAxis(f)];
  }
  // The extra cells beyond face f (empty unless f carries a boundary condition).
  Box extraCellBox(Face f) const;
  std::int64_t numCells() const { return m_interior.volume(); }

  // True when face f lies on the level's outer boundary (periodic or not).
  bool onDomainEdge(Face f) const;
  // True when face f lies on a non-periodic outer boundary: a boundary
  // condition, not a neighbour, fills the cells beyond it.
  bool hasBoundaryCondition(Face f) const;

  Vector3 spacing() const;
  Vector3 cellCentre(const IntVector& cell) const;

  // The patch of its region next to this one in `direction` (each component
  // -1, 0 or +1), wrapping around periodic axes; nullptr beyond the region.
  const Patch* neighbour(const IntVector& direction) const;

 private:
  const Level* m_level;
  int m_id;
  IntVector m_layoutIndex;
  int m_region = 0;
  Box m_interior;
  IntVector m_extraLow;
  IntVector m_extraHigh;
};

std::ostream& operator<<(std::ostream& out, const Patch& p);

}  // namespace tessera
