#include "Core/Grid/Box.h"

namespace tessera {

std::vector<Box> difference(const Box& a, const Box& b) {
  std::vector<Box> pieces;
  const Box overlap = a.intersection(b);
  if (overlap.empty()) {
    if (!a.empty()) pieces.push_back(a);
    return pieces;
  }
  // Peel slabs off `a` axis by axis; what remains shrinks to the overlap.
  Box rest = a;
  for (int axis = 0; axis < 3; ++axis) {
    IntVector lo = rest.lo();
    IntVector hi = rest.hi();
    if (rest.lo()[axis] < overlap.lo()[axis]) {
      IntVector sliceHi = hi;
      sliceHi[axis] = overlap.lo()[axis];
      pieces.emplace_back(lo, sliceHi);
      lo[axis] = overlap.lo()[axis];
    }
    if (overlap.hi()[axis] < rest.hi()[axis]) {
      IntVector sliceLo = lo;
      sliceLo[axis] = overlap.hi()[axis];
      pieces.emplace_back(sliceLo, hi);
      hi[axis] = overlap.hi()[axis];
    }
    rest = Box(lo, hi);
  }
  return pieces;
}

std::vector<Box> difference(const std::vector<Box>& boxes, const Box& minus) {
  std::vector<Box> rest;
  for (const Box& box : boxes)
    for (const Box& piece : difference(box, minus))
      rest.push_back(piece);
  return rest;
}

std::vector<Box> uncovered(const Box& wanted, const std::vector<Box>& covering,
                           const IntVector& domain, const std::array<bool, 3>& periodic) {
  std::vector<Box> rest{wanted};
  for (const Box& box : covering) {
    for (int iz = -1; iz <= 1; ++iz)
      for (int iy = -1; iy <= 1; ++iy)
        for (int ix = -1; ix <= 1; ++ix) {
          const IntVector image{ix, iy, iz};
          bool allowed = true;
          for (int axis = 0; axis < 3; ++axis)
            allowed = allowed && (image[axis] == 0 || periodic[axis]);
          if (allowed) rest = difference(rest, box.shift(image * domain));
        }
  }
  return rest;
}

Box coarsen(const Box& b, const IntVector& ratio) {
  // Floor for the low corner and ceiling for the high one.
  IntVector lo, hi;
  for (int axis = 0; axis < 3; ++axis) {
    lo[axis] = floorDiv(b.lo()[axis], ratio[axis]);
    hi[axis] = -floorDiv(-b.hi()[axis], ratio[axis]);
  }
  return {lo, hi};
}

std::ostream& operator<<(std::ostream& out, const Box& b) {
  return out << '[' << b.lo() << ", " << b.hi() << ')';
}

}  // namespace tessera
