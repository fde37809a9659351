#pragma once
// phi(x, t), phi(y, t) and phi(z, t) at the cell centres of a patch's
// extended box. phi depends on one coordinate only, so three lines of
// evaluations serve every cell of the patch, extra cells included: the
// stencil's velocities, the Dirichlet values u = phi(x) phi(y) phi(z) and
// the stable timestep all come from them. Kept per patch in the data
// warehouse (PerPatch<PhiTables>), so a table computed for the end of one
// step serves the start of the next.

#include "Core/Grid/Box.h"
#include "Core/Grid/Patch.h"
#include "Core/Grid/Variables/TypeName.h"
#include "Core/Grid/Vector3.h"

#include <Kokkos_Core.hpp>

#include <string>

namespace tessera {

struct PhiTables {
  Kokkos::View<double*> values;  // the x line, then the y line, then the z line
  IntVector lo;                  // the first cell of each line
  IntVector length;              // the cells in each line
  // max over the patch's interior of |phi| / dx, per axis (host values).
  Vector3 largestRate;

  // Storage for the lines of `box`.
  static PhiTables allocate(const Box& box) {
    PhiTables tables;
    tables.lo = box.lo();
    tables.length = box.size();
    tables.values = Kokkos::View<double*>(
        Kokkos::view_alloc("Burgers::phi", Kokkos::WithoutInitializing),
        static_cast<std::size_t>(tables.length.x + tables.length.y + tables.length.z));
    return tables;
  }
  bool covers(const Box& box) const { return lo == box.lo() && length == box.size(); }

  KOKKOS_INLINE_FUNCTION double atX(int i) const { return values(i - lo.x); }
  KOKKOS_INLINE_FUNCTION double atY(int j) const { return values(length.x + (j - lo.y)); }
  KOKKOS_INLINE_FUNCTION double atZ(int k) const {
    return values(length.x + length.y + (k - lo.z));
  }
  // The exact solution at cell (i, j, k), u = phi(x) phi(y) phi(z).
  KOKKOS_INLINE_FUNCTION double product(int i, int j, int k) const {
    return atX(i) * atY(j) * atZ(k);
  }
};

template <>
struct TypeName<PhiTables> {
  static std::string get() { return "PhiTables"; }
};

}  // namespace tessera
