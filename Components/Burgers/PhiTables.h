#pragma once
// phi(x, t), phi(y, t) and phi(z, t) at the cell centres of a patch's
// extended box. phi depends on one coordinate only, so three lines of
// evaluations serve every cell of the patch, extra cells included: the
// stencil's velocities, the Dirichlet values u = phi(x) phi(y) phi(z) and
// the stable timestep all come from them. Kept per patch in the data
// warehouse (PerPatch<PhiTables>), so a table computed for the end of one
// step serves the start of the next; the patches of a patch group hold
// windows on one table over the group's box.

#include "Core/Grid/Box.h"
#include "Core/Grid/Patch.h"
#include "Core/Grid/Variables/TypeName.h"
#include "Core/Grid/Vector3.h"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace tessera {

struct PhiTables {
  Kokkos::View<double*> values;                  // the x line, then the y line, then the z line
  Kokkos::View<double*>::HostMirror hostValues;  // the same on the host
  Box whole;                                     // the box the storage was made for
  IntVector lo;                                  // the first cell of each line
  IntVector start;                               // where each line's first cell sits in values
  // max over the patch's interior of |phi| / dx, per axis (host values).
  Vector3 largestRate;

  // Storage for the lines of `box`.
  static PhiTables allocate(const Box& box) {
    PhiTables tables;
    tables.whole = box;
    tables.lo = box.lo();
    const IntVector length = box.size();
    tables.start = {0, length.x, length.x + length.y};
    tables.values =
        Kokkos::View<double*>(Kokkos::view_alloc("Burgers::phi", Kokkos::WithoutInitializing),
                              static_cast<std::size_t>(length.x + length.y + length.z));
    tables.hostValues = Kokkos::create_mirror_view(tables.values);
    return tables;
  }
  bool covers(const Box& box) const { return whole == box; }

  // The lines of `box` (inside `whole`) on the same storage, a patch's part
  // of its patch group's tables, with largestRate over `interior` (for
  // spacing `dx`). Call after the values are set.
  PhiTables window(const Box& box, const Box& interior, const Vector3& dx) const {
    PhiTables part = *this;
    part.lo = box.lo();
    part.start = start + (box.lo() - lo);
    // Division by dx > 0 rounds monotonically, so the largest |phi|, divided
    // once, is the largest |phi| / dx bit for bit, at one division per axis.
    for (int axis = 0; axis < 3; ++axis) {
      double largest = 0.0;
      for (int i = interior.lo()[axis]; i < interior.hi()[axis]; ++i)
        largest = std::max(largest, std::fabs(hostValues(part.start[axis] + i - part.lo[axis])));
      part.largestRate[axis] = largest / dx[axis];
    }
    return part;
  }

  // The lines of `whole`: a window's view of all its storage.
  PhiTables entire() const {
    PhiTables all = *this;
    all.lo = whole.lo();
    all.start = start - (lo - whole.lo());
    return all;
  }

  KOKKOS_INLINE_FUNCTION double atX(int i) const { return values(start.x + (i - lo.x)); }
  KOKKOS_INLINE_FUNCTION double atY(int j) const { return values(start.y + (j - lo.y)); }
  KOKKOS_INLINE_FUNCTION double atZ(int k) const { return values(start.z + (k - lo.z)); }
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
