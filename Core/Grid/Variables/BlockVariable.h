#pragma once
// Block variables: dense two-dimensional blocks (row-major) of a global
// array, placed by a BlockLayout rather than by the grid's patches. BlockData
// is one block's storage, owned or a window on memory the runtime owns (a
// block that arrived from another rank); BlockView and ConstBlockView are
// what tasks use; BlockVariable<T> is the label's type.

#include "Core/Grid/BlockLayout.h"
#include "Core/Grid/VarLabel.h"
#include "Core/Grid/Variables/TypeName.h"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <string>

namespace tessera {

class BlockData {
 public:
  // Owns uninitialised, cache-line aligned storage for `extent`.
  BlockData(const BlockExtent& extent, std::size_t elementBytes)
      : m_extent(extent),
        m_elementBytes(elementBytes),
        m_owned(allocate(bytesFor(extent, elementBytes))) {
    m_data = m_owned.get();
  }
  // A window on `external`, which the caller keeps alive longer.
  BlockData(const BlockExtent& extent, std::size_t elementBytes, std::byte* external)
      : m_extent(extent), m_elementBytes(elementBytes), m_data(external) {}
  BlockData(const BlockData&) = delete;
  BlockData& operator=(const BlockData&) = delete;

  const BlockExtent& extent() const { return m_extent; }
  std::size_t elementBytes() const { return m_elementBytes; }
  std::size_t bytes() const { return bytesFor(m_extent, m_elementBytes); }
  std::byte* data() { return m_data; }
  const std::byte* data() const { return m_data; }
  // False for a window on memory the runtime owns.
  bool owned() const { return m_owned != nullptr; }

 private:
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  static std::size_t bytesFor(const BlockExtent& e, std::size_t elementBytes) {
    return static_cast<std::size_t>(e.size()) * elementBytes;
  }
  static std::unique_ptr<std::byte, Free> allocate(std::size_t bytes) {
    constexpr std::size_t kAlign = 64;
    const std::size_t rounded = ((bytes + kAlign - 1) / kAlign) * kAlign;
    return std::unique_ptr<std::byte, Free>(
        static_cast<std::byte*>(std::aligned_alloc(kAlign, rounded == 0 ? kAlign : rounded)));
  }

  BlockExtent m_extent;
  std::size_t m_elementBytes;
  std::unique_ptr<std::byte, Free> m_owned;
  std::byte* m_data = nullptr;
};

// Rows x cols values, row-major with leading dimension cols, at global
// position (row0, col0). Views are cheap to copy (no ownership): kernels
// capture them by value. Blocks live in host memory (the execution spaces
// built here share it); kokkosView() wraps them for kernels.
template <class T>
struct BlockView {
  T* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t row0 = 0;
  std::int64_t col0 = 0;

  KOKKOS_INLINE_FUNCTION T& operator()(std::int64_t i, std::int64_t j) const {
    return data[i * cols + j];
  }
  std::int64_t size() const { return rows * cols; }
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> kokkosView()
      const {
    return {data, static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)};
  }
};

template <class T>
using ConstBlockView = BlockView<const T>;

// All of `data` (a block, a part that arrived, a sum), read-only.
template <class T>
ConstBlockView<T> readView(const BlockData& data) {
  const BlockExtent& e = data.extent();
  return {reinterpret_cast<const T*>(data.data()), e.rows, e.cols, e.row0, e.col0};
}

template <class T>
class BlockVariable {
 public:
  using value_type = T;
  static constexpr VarKind kind = VarKind::Block;
  static std::string typeName() { return "BlockVariable<" + TypeName<T>::get() + ">"; }
};

}  // namespace tessera
