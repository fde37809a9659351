#pragma once
// Copies a box of cells between two x-fastest layouts (a variable and a
// message buffer, or two variables) in as few contiguous runs as the layouts
// allow: one memcpy when both are dense over the box, one per plane or row
// when only those are, and a plain loop for narrow rows (an x face is one
// cell wide: a memcpy call per cell would cost more than the copy).

#include "Core/Grid/IntVector.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tessera {

// Where a box's cells sit in memory: the first cell and the strides between
// rows (y) and planes (z), in elements.
template <class T>
struct StridedCells {
  T* first;
  std::int64_t strideY;
  std::int64_t strideZ;
};

// `extent` cells laid out densely at `data`, x fastest (a message buffer).
template <class T>
StridedCells<T> denseCells(T* data, const IntVector& extent) {
  return {data, extent.x, static_cast<std::int64_t>(extent.x) * extent.y};
}

// Copies `extent` cells from `from` to `to`.
template <class T, class Source>
void copyBox(const StridedCells<T>& to, const StridedCells<Source>& from, const IntVector& extent) {
  static_assert(std::is_same<std::remove_const_t<Source>, T>::value, "copy between cell types");
  if (extent.x <= 0 || extent.y <= 0 || extent.z <= 0) return;
  const std::int64_t row = extent.x;
  const std::int64_t plane = row * extent.y;
  const bool rowsJoin = to.strideY == row && from.strideY == row;
  if (rowsJoin && to.strideZ == plane && from.strideZ == plane) {
    std::memcpy(to.first, from.first, static_cast<std::size_t>(plane * extent.z) * sizeof(T));
    return;
  }
  for (int k = 0; k < extent.z; ++k) {
    T* dst = to.first + k * to.strideZ;
    const T* src = from.first + k * from.strideZ;
    if (rowsJoin) {
      std::memcpy(dst, src, static_cast<std::size_t>(plane) * sizeof(T));
    } else if (row >= 16) {
      for (int j = 0; j < extent.y; ++j)
        std::memcpy(dst + j * to.strideY, src + j * from.strideY,
                    static_cast<std::size_t>(row) * sizeof(T));
    } else {
      for (int j = 0; j < extent.y; ++j)
        for (std::int64_t i = 0; i < row; ++i)
          dst[j * to.strideY + i] = src[j * from.strideY + i];
    }
  }
}

}  // namespace tessera
