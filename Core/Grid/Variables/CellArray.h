#pragma once
// A non-owning, trivially copyable window on a cell variable's memory, indexed
// by global cell (i, j, k) with x fastest (after AMReX's Array4). Kernels
// capture this, never the variable or `this`. The strides are those of the
// allocation, which may be larger than the window's box (a patch's window
// on the storage its patch group shares).

#include "Core/Grid/Box.h"
#include "Core/Grid/IntVector.h"

#include <Kokkos_Macros.hpp>

#include <cstdint>
#include <type_traits>

namespace tessera {

template <class T>
class CellArray {
 public:
  KOKKOS_INLINE_FUNCTION CellArray() = default;
  KOKKOS_INLINE_FUNCTION CellArray(T* data, const Box& box)
      : m_data(data),
        m_lo(box.lo()),
        m_hi(box.hi()),
        m_strideY(box.size().x),
        m_strideZ(static_cast<std::int64_t>(box.size().x) * box.size().y) {}
  // `data` is cell box.lo(); rows and planes lie strideY and strideZ apart.
  KOKKOS_INLINE_FUNCTION CellArray(T* data, const Box& box, std::int64_t strideY,
                                   std::int64_t strideZ)
      : m_data(data), m_lo(box.lo()), m_hi(box.hi()), m_strideY(strideY), m_strideZ(strideZ) {}
  // A read-only window on a writable array.
  template <class U, class = std::enable_if_t<std::is_same<const U, T>::value>>
  KOKKOS_INLINE_FUNCTION CellArray(const CellArray<U>& other)
      : m_data(other.data()),
        m_lo(other.box().lo()),
        m_hi(other.box().hi()),
        m_strideY(other.strideY()),
        m_strideZ(other.strideZ()) {}

  KOKKOS_INLINE_FUNCTION T& operator()(int i, int j, int k) const {
    return m_data[(k - m_lo.z) * m_strideZ + static_cast<std::int64_t>(j - m_lo.y) * m_strideY +
                  (i - m_lo.x)];
  }
  KOKKOS_INLINE_FUNCTION T& operator()(const IntVector& c) const { return (*this)(c.x, c.y, c.z); }

  KOKKOS_INLINE_FUNCTION T* data() const { return m_data; }
  KOKKOS_INLINE_FUNCTION Box box() const { return {m_lo, m_hi}; }
  KOKKOS_INLINE_FUNCTION std::int64_t strideY() const { return m_strideY; }
  KOKKOS_INLINE_FUNCTION std::int64_t strideZ() const { return m_strideZ; }
  KOKKOS_INLINE_FUNCTION bool contains(int i, int j, int k) const {
    return box().contains(IntVector{i, j, k});
  }

 private:
  T* m_data = nullptr;
  IntVector m_lo;
  IntVector m_hi;
  std::int64_t m_strideY = 0;
  std::int64_t m_strideZ = 0;
};

}  // namespace tessera
