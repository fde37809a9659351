#pragma once
// A box of cells, half-open: it holds every cell c with lo <= c < hi
// component-wise. Every box in Tessera follows this convention (as Kokkos
// ranges do); a box with hi <= lo on any axis is empty.

#include "Core/Grid/IntVector.h"

#include <Kokkos_Macros.hpp>

#include <array>
#include <cstdint>
#include <ostream>
#include <vector>

namespace tessera {

class Box {
 public:
  KOKKOS_INLINE_FUNCTION constexpr Box() = default;
  KOKKOS_INLINE_FUNCTION constexpr Box(const IntVector& lo, const IntVector& hi)
      : m_lo(lo), m_hi(hi) {}

  KOKKOS_INLINE_FUNCTION constexpr const IntVector& lo() const { return m_lo; }
  KOKKOS_INLINE_FUNCTION constexpr const IntVector& hi() const { return m_hi; }
  // Extent per axis (zero for an empty axis, never negative).
  KOKKOS_INLINE_FUNCTION constexpr IntVector size() const { return max(m_hi - m_lo, IntVector{}); }
  KOKKOS_INLINE_FUNCTION constexpr bool empty() const { return !m_lo.allLessThan(m_hi); }
  KOKKOS_INLINE_FUNCTION constexpr std::int64_t volume() const {
    return empty() ? 0 : size().product();
  }

  KOKKOS_INLINE_FUNCTION constexpr bool contains(const IntVector& c) const {
    return m_lo.allLessEqual(c) && c.allLessThan(m_hi);
  }
  // An empty box is contained in every box.
  KOKKOS_INLINE_FUNCTION constexpr bool contains(const Box& b) const {
    return b.empty() || (m_lo.allLessEqual(b.m_lo) && b.m_hi.allLessEqual(m_hi));
  }
  KOKKOS_INLINE_FUNCTION constexpr bool intersects(const Box& b) const {
    return !intersection(b).empty();
  }
  KOKKOS_INLINE_FUNCTION constexpr Box intersection(const Box& b) const {
    return {max(m_lo, b.m_lo), min(m_hi, b.m_hi)};
  }
  KOKKOS_INLINE_FUNCTION constexpr Box grow(int n) const { return grow(IntVector::uniform(n)); }
  KOKKOS_INLINE_FUNCTION constexpr Box grow(const IntVector& n) const {
    return {m_lo - n, m_hi + n};
  }
  // Grows only the low (side 0) or high (side 1) face of one axis.
  KOKKOS_INLINE_FUNCTION constexpr Box growFace(int axis, int side, int n) const {
    return side == 0 ? Box{m_lo - IntVector::axisVector(axis, n), m_hi}
                     : Box{m_lo, m_hi + IntVector::axisVector(axis, n)};
  }
  KOKKOS_INLINE_FUNCTION constexpr Box shift(const IntVector& offset) const {
    return {m_lo + offset, m_hi + offset};
  }
  // Linear offset of cell c inside this box, x fastest (the layout of CCVariable).
  KOKKOS_INLINE_FUNCTION constexpr std::int64_t linearIndex(const IntVector& c) const {
    const IntVector n = size();
    return (static_cast<std::int64_t>(c.z - m_lo.z) * n.y + (c.y - m_lo.y)) * n.x + (c.x - m_lo.x);
  }

  KOKKOS_INLINE_FUNCTION constexpr bool operator==(const Box& b) const {
    return (empty() && b.empty()) || (m_lo == b.m_lo && m_hi == b.m_hi);
  }
  KOKKOS_INLINE_FUNCTION constexpr bool operator!=(const Box& b) const { return !(*this == b); }

  // Calls f(IntVector) for every cell on the host, x fastest.
  template <class F>
  void forEachCell(F&& f) const {
    for (int k = m_lo.z; k < m_hi.z; ++k)
      for (int j = m_lo.y; j < m_hi.y; ++j)
        for (int i = m_lo.x; i < m_hi.x; ++i)
          f(IntVector{i, j, k});
  }

 private:
  IntVector m_lo;
  IntVector m_hi;
};

// The cells of `a` not in `b`, as at most six disjoint boxes.
std::vector<Box> difference(const Box& a, const Box& b);
// The cells of `boxes` not in `minus`, as disjoint boxes.
std::vector<Box> difference(const std::vector<Box>& boxes, const Box& minus);
// Boxes joined along `axis` where one starts where another of the same
// extent across the other two axes ends: `boxes` must list each box after
// the one it continues (sorted by their lower corners, z slowest, say). The
// joined boxes keep the order of their first parts.
std::vector<Box> stackAlong(const std::vector<Box>& boxes, int axis);
// The cells of `boxes` in fewer boxes: equal boxes once, then neighbours
// joined along x, y and z in turn (stackAlong); boxes that overlap stay
// apart. Deterministic: ordered by lower corner, z slowest.
std::vector<Box> mergeAdjacent(std::vector<Box> boxes);
// The cells of `wanted` (cells of a level whose domain is [0, domain)) that
// `covering` leaves out, where `covering` also covers its images one period
// away along the `periodic` axes: what a region nested across a periodic
// boundary misses.
std::vector<Box> uncovered(const Box& wanted, const std::vector<Box>& covering,
                           const IntVector& domain, const std::array<bool, 3>& periodic);

// n / d rounded down, for cell indices (ghost and extra cells are negative).
KOKKOS_INLINE_FUNCTION constexpr int floorDiv(int n, int d) {
  return n >= 0 ? n / d : -((-n + d - 1) / d);
}

// Between levels whose cells differ by `ratio` per axis: the fine cells of
// coarse box `b`, and the coarse cells that hold any fine cell of `b`.
KOKKOS_INLINE_FUNCTION constexpr Box refine(const Box& b, const IntVector& ratio) {
  return {b.lo() * ratio, b.hi() * ratio};
}
Box coarsen(const Box& b, const IntVector& ratio);
// The coarse cells all of whose fine cells lie in `b`.
Box coarsenInside(const Box& b, const IntVector& ratio);
// The smallest box holding both (an empty one adds nothing).
Box boundingBox(const Box& a, const Box& b);
// `b` with each axis's range clamped into `bounds`' (non-empty): the cells
// of `bounds` nearest to `b`'s, a range beyond `bounds` becoming its last
// plane there.
Box clampedInto(const Box& b, const Box& bounds);

std::ostream& operator<<(std::ostream& out, const Box& b);

}  // namespace tessera
