#pragma once
// A cell-centred variable on one patch: a Kokkos allocation over the patch's
// cells grown by ghost layers (and extra cells), indexed by global (i, j, k).
// Copies share the allocation (View semantics). A window (see window()) is
// a variable over part of another's allocation, with that allocation's
// strides: the patches of a patch group are windows on the group's storage.

#include "Core/Grid/Box.h"
#include "Core/Grid/VarLabel.h"
#include "Core/Grid/Variables/BoxCopy.h"
#include "Core/Grid/Variables/CellArray.h"
#include "Core/Grid/Variables/FieldDigest.h"
#include "Core/Grid/Variables/GridVariableBase.h"
#include "Core/Grid/Variables/LevelOperators.h"
#include "Core/Grid/Variables/TypeName.h"
#include "Core/Util/Error.h"
#include "Core/Util/HugePages.h"

#include <Kokkos_Core.hpp>

#include <cstring>
#include <functional>
#include <string>
#include <type_traits>

namespace tessera {

// The box a variable over `box` allocates: its rows padded in x so that a
// cell whose x is a multiple of a cache line's worth of values starts a
// cache line (the allocation itself is line-aligned), when that costs at
// most 1/16 more memory (rows of about 224 values or more). The rows of a
// patch whose x origin and extent are multiples of that are then whole
// lines: what streaming stores need (StreamingStores.h), since a partial
// line, written the ordinary way among streamed ones, stalls on the read
// of that line (a microbenchmark of 64-value rows, 2026-11-26: 0.78x the
// ordinary stores' speed 66 values apart, 1.26x 72 apart and aligned).
template <class T>
Box rowAlignedStorage(const Box& box) {
  constexpr int kLineBytes = 64;
  if constexpr (sizeof(T) > kLineBytes || kLineBytes % sizeof(T) != 0) {
    return box;
  } else {
    constexpr int kCells = kLineBytes / static_cast<int>(sizeof(T));
    if (box.empty()) return box;
    // Rounds down, also below zero (extra cells and ghosts lie there).
    const auto floorTo = [](int x) { return (x >= 0 ? x : x - (kCells - 1)) / kCells * kCells; };
    IntVector lo = box.lo(), hi = box.hi();
    lo.x = floorTo(lo.x);
    hi.x = -floorTo(-hi.x);
    const int padding = (hi.x - lo.x) - box.size().x;
    return 16 * padding <= box.size().x ? Box(lo, hi) : box;
  }
}

template <class T>
class CCVariable : public GridVariableBase {
 public:
  using value_type = T;
  using MemorySpace = Kokkos::DefaultExecutionSpace::memory_space;
  static constexpr VarKind kind = VarKind::CellCentered;
  static std::string typeName() { return "CCVariable<" + TypeName<T>::get() + ">"; }

  CCVariable() = default;
  // Allocates without initialising: allocation then works from any thread
  // (Kokkos 3.4's OpenMP backend refuses initialising kernels off the master thread).
  explicit CCVariable(const Box& box, const std::string& label = "CCVariable")
      : m_box(box),
        m_storageBox(rowAlignedStorage<T>(box)),
        m_data(Kokkos::view_alloc(label, Kokkos::WithoutInitializing),
               static_cast<std::size_t>(box.empty() ? 0 : m_storageBox.volume())) {
    // Untouched so far: the first sweep faults the pages in, huge where granted.
    if constexpr (std::is_same_v<typename MemorySpace::memory_space, Kokkos::HostSpace>)
      adviseHugePages(m_data.data(), m_data.span() * sizeof(T));
  }

  bool allocated() const { return m_data.is_allocated(); }
  Box box() const override { return m_box; }
  std::size_t bytesPerCell() const override { return sizeof(T); }

  CellArray<T> array() const {
    const StridedCells<T> c = cells(m_box);
    return CellArray<T>(c.first, m_box, c.strideY, c.strideZ);
  }
  CellArray<const T> constArray() const { return array(); }

  // Host access by global cell (the OpenMP and Serial spaces share host memory;
  // a device build copies through a mirror instead).
  T& operator()(int i, int j, int k) const { return hostArray()(i, j, k); }
  T& operator()(const IntVector& c) const { return hostArray()(c); }

  // Sets every cell with a kernel; call from the thread that owns Kokkos.
  void fill(const T& value) const {
    const CellArray<T> a = array();
    if (m_isWindow) {
      const IntVector lo = m_box.lo();
      const IntVector hi = m_box.hi();
      Kokkos::parallel_for(
          "CCVariable::fill",
          Kokkos::MDRangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::Rank<3>>({lo.z, lo.y, lo.x},
                                                                                {hi.z, hi.y, hi.x}),
          KOKKOS_LAMBDA(int k, int j, int i) { a(i, j, k) = value; });
    } else {
      // The rows' padding too: one loop over the allocation.
      const auto n = static_cast<std::int64_t>(m_data.span());
      T* data = m_data.data();
      Kokkos::parallel_for(
          "CCVariable::fill", Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, n),
          KOKKOS_LAMBDA(const std::int64_t idx) { data[idx] = value; });
    }
    Kokkos::fence();
  }

  void pack(const Box& region, std::byte* out) const override {
    checkInside(region, "pack");
    copyBox(denseCells(reinterpret_cast<T*>(out), region.size()), cells(region), region.size());
  }

  using GridVariableBase::unpack;
  void unpack(const Box& region, const std::byte* in, const IntVector& layout) override {
    checkInside(region, "unpack");
    copyBox(cells(region), denseCells(reinterpret_cast<const T*>(in), layout), region.size());
  }

  void copyFrom(const GridVariableBase& source, const Box& sourceRegion,
                const IntVector& offset) override {
    const auto* typed = dynamic_cast<const CCVariable<T>*>(&source);
    TESSERA_REQUIRE_THROWS(typed != nullptr, "copyFrom between variables of different types");
    TESSERA_REQUIRE_THROWS(
        typed->box().contains(sourceRegion) && m_box.contains(sourceRegion.shift(offset)),
        "copy of " << sourceRegion << " + " << offset << " from " << typed->box() << " to " << m_box
                   << " leaves the allocations");
    const StridedCells<T> to = cells(sourceRegion.shift(offset));
    const StridedCells<T> from = typed->cells(sourceRegion);
    // Windows on one allocation hold each other's cells: nothing to move.
    if (to.first == from.first && to.strideY == from.strideY && to.strideZ == from.strideZ) return;
    copyBox(to, from, sourceRegion.size());
  }

  void zero() override { fill(T{}); }

  void refineFrom(const GridVariableBase& coarse, const Box& fineBox, const IntVector& ratio,
                  RefineOp op) override {
    const auto* typed = dynamic_cast<const CCVariable<T>*>(&coarse);
    TESSERA_REQUIRE_THROWS(typed != nullptr, "refineFrom between variables of different types");
    checkInside(fineBox, "refineFrom");
    const Box footprint = refineFootprint(fineBox, ratio, op);
    TESSERA_REQUIRE_THROWS(typed->box().contains(footprint),
                           "refining " << fineBox << " reads coarse cells " << footprint
                                       << ", beyond the coarse allocation " << typed->box());
    refineCellsInline<T>(typed->hostArray(), hostArray(), fineBox, ratio, op);
  }

  void coarsenFrom(const GridVariableBase& fine, const Box& coarseBox, const IntVector& ratio,
                   CoarsenOp op) override {
    const auto* typed = dynamic_cast<const CCVariable<T>*>(&fine);
    TESSERA_REQUIRE_THROWS(typed != nullptr, "coarsenFrom between variables of different types");
    checkInside(coarseBox, "coarsenFrom");
    TESSERA_REQUIRE_THROWS(typed->box().contains(refine(coarseBox, ratio)),
                           "coarsening " << coarseBox << " reads fine cells "
                                         << refine(coarseBox, ratio)
                                         << ", beyond the fine allocation " << typed->box());
    coarsenCellsInline<T>(typed->hostArray(), hostArray(), coarseBox, ratio, op);
  }

  void packCoarsened(const Box& coarseBox, const IntVector& ratio, CoarsenOp op,
                     std::byte* out) const override {
    checkInside(refine(coarseBox, ratio), "packCoarsened");
    // pack()'s layout: dense, x fastest.
    coarsenCellsInline<T>(hostArray(), CellArray<T>(reinterpret_cast<T*>(out), coarseBox),
                          coarseBox, ratio, op);
  }

  void interpolateInTime(const GridVariableBase& later, const Box& region,
                         double weight) override {
    const auto* typed = dynamic_cast<const CCVariable<T>*>(&later);
    TESSERA_REQUIRE_THROWS(typed != nullptr,
                           "interpolateInTime between variables of different types");
    checkInside(region, "interpolateInTime");
    TESSERA_REQUIRE_THROWS(typed->box().contains(region),
                           "interpolating " << region << " in time reads beyond " << typed->box());
    const auto here = hostArray();
    const auto there = typed->hostArray();
    const IntVector lo = region.lo(), hi = region.hi();
    for (int k = lo.z; k < hi.z; ++k)
      for (int j = lo.y; j < hi.y; ++j)
        for (int i = lo.x; i < hi.x; ++i) {
          if constexpr (std::is_floating_point_v<T>) {
            here(i, j, k) = (1 - weight) * here(i, j, k) + weight * there(i, j, k);
          } else if (weight > 0.5) {
            here(i, j, k) = there(i, j, k);
          }
        }
  }

  std::unique_ptr<GridVariableBase> cloneEmpty(const Box& box) const override {
    return std::make_unique<CCVariable<T>>(box, m_data.label());
  }

  std::shared_ptr<GridVariableBase> window(const Box& box) const override {
    checkInside(box, "window");
    auto view = std::make_shared<CCVariable<T>>(*this);
    view->m_box = box;
    view->m_isWindow = true;
    return view;
  }
  bool isWindow() const override { return m_isWindow; }
  const void* storage() const override { return m_data.data(); }
  void prefetchForWrite(const Box& region) const override {
    if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
      const Box cells = region.intersection(m_storageBox);
      if (cells.empty()) return;
      constexpr std::size_t kLine = 64;
      const StridedCells<T> at = this->cells(cells);
      const auto rowBytes = static_cast<std::size_t>(cells.size().x) * sizeof(T);
      for (int k = 0; k < cells.size().z; ++k) {
        for (int j = 0; j < cells.size().y; ++j) {
          const T* const first = at.first + k * at.strideZ + j * at.strideY;
          const char* row = reinterpret_cast<const char*>(first);
          for (std::size_t b = 0; b < rowBytes; b += kLine) __builtin_prefetch(row + b, 1, 3);
          __builtin_prefetch(row + rowBytes - 1, 1, 3);  // a row's last line, if it starts one
        }
      }
    }
  }
  bool holdsAddress(const void* address) const override {
    const T* const first = m_data.data();
    const auto* const at = static_cast<const T*>(address);
    return first != nullptr && std::less_equal<const T*>()(first, at) &&
           std::less<const T*>()(at, first + m_data.span());
  }
  std::shared_ptr<GridVariableBase> viewOfStorage(const Box& box) const override {
    if (!m_storageBox.contains(box)) return nullptr;
    auto view = std::make_shared<CCVariable<T>>(*this);
    view->m_box = box;
    view->m_isWindow = true;
    return view;
  }

  std::uint64_t digest(const Box& region) const override {
    checkInside(region, "digest");
    const CellArray<const T> a = hostArray();
    std::uint64_t sum = 0;
    region.forEachCell(
        [&](const IntVector& c) { sum += cellDigest(c.x, c.y, c.z, valueBits(a(c))); });
    return sum;
  }

 private:
  CellArray<T> hostArray() const {
    static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible,
                  "host access to a device-only variable needs a mirror");
    return array();
  }
  // The cells of `region` in this variable's (host) memory.
  StridedCells<T> cells(const Box& region) const {
    const IntVector n = m_storageBox.size();
    return {m_data.data() + m_storageBox.linearIndex(region.lo()), n.x,
            static_cast<std::int64_t>(n.x) * n.y};
  }
  void checkInside(const Box& region, const char* what) const {
    TESSERA_REQUIRE_THROWS(m_box.contains(region),
                           what << " of " << region << " outside the allocation " << m_box);
  }

  Box m_box;
  Box m_storageBox;  // the allocation's box: m_box, or a group's box for a window
  bool m_isWindow = false;
  Kokkos::View<T*, MemorySpace> m_data;
};

// Read-only access to a cell variable, as the data warehouse hands out for
// requiresVar: shares the allocation but offers no way to write.
template <class T>
class ConstCCVariable {
 public:
  using value_type = T;
  ConstCCVariable() = default;
  explicit ConstCCVariable(const CCVariable<T>& var) : m_var(var) {}

  Box box() const { return m_var.box(); }
  CellArray<const T> array() const { return m_var.constArray(); }
  const T& operator()(int i, int j, int k) const { return m_var(i, j, k); }
  const T& operator()(const IntVector& c) const { return m_var(c); }
  std::uint64_t digest(const Box& region) const { return m_var.digest(region); }

 private:
  CCVariable<T> m_var;
};

}  // namespace tessera
