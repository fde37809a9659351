#include "Core/Grid/Box.h"

#include <algorithm>
#include <map>
#include <tuple>

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

Box coarsenInside(const Box& b, const IntVector& ratio) {
  // Ceiling for the low corner and floor for the high one.
  IntVector lo, hi;
  for (int axis = 0; axis < 3; ++axis) {
    lo[axis] = -floorDiv(-b.lo()[axis], ratio[axis]);
    hi[axis] = floorDiv(b.hi()[axis], ratio[axis]);
  }
  return {lo, hi};
}

Box boundingBox(const Box& a, const Box& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {min(a.lo(), b.lo()), max(a.hi(), b.hi())};
}

Box clampedInto(const Box& b, const Box& bounds) {
  IntVector lo, hi;
  for (int axis = 0; axis < 3; ++axis) {
    const int first = bounds.lo()[axis], last = bounds.hi()[axis] - 1;
    lo[axis] = std::clamp(b.lo()[axis], first, last);
    hi[axis] = std::clamp(b.hi()[axis] - 1, first, last) + 1;
  }
  return {lo, hi};
}

std::ostream& operator<<(std::ostream& out, const Box& b) {
  return out << '[' << b.lo() << ", " << b.hi() << ')';
}

std::vector<Box> stackAlong(const std::vector<Box>& boxes, int axis) {
  const int a = (axis + 1) % 3, b = (axis + 2) % 3;
  // The open boxes are found by their extent across `axis` and where they
  // end along it: disjoint boxes never share both.
  const auto endOf = [&](const Box& box, int end) {
    return std::make_tuple(box.lo()[a], box.hi()[a], box.lo()[b], box.hi()[b], end);
  };
  std::vector<Box> merged;
  std::map<std::tuple<int, int, int, int, int>, std::size_t> open;
  for (const Box& box : boxes) {
    const auto below = open.find(endOf(box, box.lo()[axis]));
    if (below == open.end()) {
      open.emplace(endOf(box, box.hi()[axis]), merged.size());
      merged.push_back(box);
      continue;
    }
    Box& grown = merged[below->second];
    IntVector hi = grown.hi();
    hi[axis] = box.hi()[axis];
    grown = Box{grown.lo(), hi};
    const std::size_t index = below->second;
    open.erase(below);
    open.emplace(endOf(grown, hi[axis]), index);
  }
  return merged;
}

std::vector<Box> mergeAdjacent(std::vector<Box> boxes) {
  const auto zyx = [](const Box& box) {
    return std::make_tuple(box.lo().z, box.lo().y, box.lo().x, box.hi().z, box.hi().y,
                           box.hi().x);
  };
  const auto empty = [](const Box& box) { return box.empty(); };
  boxes.erase(std::remove_if(boxes.begin(), boxes.end(), empty), boxes.end());
  std::sort(boxes.begin(), boxes.end(),
            [&](const Box& p, const Box& q) { return zyx(p) < zyx(q); });
  boxes.erase(std::unique(boxes.begin(), boxes.end()), boxes.end());
  // A joined box keeps its first part's lower corner and place: each pass's
  // output is still sorted so.
  for (int axis = 0; axis < 3; ++axis)
    boxes = stackAlong(boxes, axis);
  return boxes;
}

}  // namespace tessera
