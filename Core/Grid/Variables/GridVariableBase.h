#pragma once
// What the runtime needs of any cell variable without knowing its value type:
// its box, and packing boxes of cells to bytes (for messages and archives).

#include "Core/Grid/Box.h"
#include "Core/Grid/LevelTransfer.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace tessera {

class GridVariableBase {
 public:
  virtual ~GridVariableBase() = default;

  // The cells this variable holds (interior, ghosts and extra cells).
  virtual Box box() const = 0;
  virtual std::size_t bytesPerCell() const = 0;
  // Copies the cells of `region` (inside box()) to `out`, x fastest.
  virtual void pack(const Box& region, std::byte* out) const = 0;
  // Writes `region` from `in`, the inverse of pack.
  void unpack(const Box& region, const std::byte* in) { unpack(region, in, region.size()); }
  // ... from cells laid out x fastest in rows of layout.x cells and planes
  // of layout.y rows (a larger box packed around the region's first cell).
  virtual void unpack(const Box& region, const std::byte* in, const IntVector& layout) = 0;
  // Copies `sourceRegion` of `source` to `sourceRegion.shift(offset)` here.
  virtual void copyFrom(const GridVariableBase& source, const Box& sourceRegion,
                        const IntVector& offset) = 0;
  // Sets every cell to zero with a kernel (which also places the pages near
  // the threads that will use them); call from the thread that owns Kokkos.
  virtual void zero() = 0;
  // Between levels (LevelOperators.h), on the calling thread: refines
  // `coarse` (a variable of the same type holding refineFootprint(fineBox))
  // into `fineBox` here, or coarsens `fine` (holding the fine cells of
  // `coarseBox`) into `coarseBox` here; `ratio` is fine cells per coarse cell.
  virtual void refineFrom(const GridVariableBase& coarse, const Box& fineBox,
                          const IntVector& ratio, RefineOp op) = 0;
  virtual void coarsenFrom(const GridVariableBase& fine, const Box& coarseBox,
                           const IntVector& ratio, CoarsenOp op) = 0;
  // pack() of the coarse cells `coarseBox` that coarsenFrom(*this, ...)
  // would make, averaged from the fine cells here straight into `out`.
  virtual void packCoarsened(const Box& coarseBox, const IntVector& ratio, CoarsenOp op,
                             std::byte* out) const = 0;
  // Between two times of one level (subcycling: docs/amr.md): the cells of
  // `region` here become (1 - weight) * here + weight * `later` (a variable
  // of the same type holding `region`); integer cells take the nearer time's value.
  virtual void interpolateInTime(const GridVariableBase& later, const Box& region,
                                 double weight) = 0;
  // A new variable of the same type over `box`, uninitialised.
  virtual std::unique_ptr<GridVariableBase> cloneEmpty(const Box& box) const = 0;
  // Order-independent digest of the cells in `region` (see FieldDigest.h).
  virtual std::uint64_t digest(const Box& region) const = 0;

  // A variable over `box` (inside box()) that shares this one's storage: a
  // patch's window on the allocation of its patch group.
  virtual std::shared_ptr<GridVariableBase> window(const Box& box) const = 0;
  // True for a window: its storage belongs to a larger variable.
  virtual bool isWindow() const = 0;
  // The allocation's first byte: equal for windows on the same storage.
  virtual const void* storage() const = 0;
  // A variable over `box` on this one's allocation, which may reach past
  // box() into the rest of it (a patch group's, whose other windows hold
  // those cells); null where `box` leaves the allocation.
  virtual std::shared_ptr<GridVariableBase> viewOfStorage(const Box& box) const = 0;
  // True when `address` lies in this variable's allocation (a kernel's
  // array of it, or of a window on it).
  virtual bool holdsAddress(const void* address) const = 0;
  // Asks the cache for the lines of `region` ahead of writing them (a hint
  // for host memory, which changes no value; nothing elsewhere).
  virtual void prefetchForWrite(const Box& region) const = 0;
};

}  // namespace tessera
