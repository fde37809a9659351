#pragma once
// What a task callback uses to run its kernels: Kokkos loops over boxes of
// cells, labelled with the task's name so profilers can tell kernels apart.
// Device tasks run on the default execution space (tiled for stencils when
// the scheduler asks for it); host tasks run on Kokkos::Serial, so that they
// may run on the control thread.

#include "Core/Grid/Box.h"
#include "Core/Grid/PatchGroup.h"
#include "Core/Parallel/LoopHelpers.h"
#include "Core/Parallel/LaggedUpdateSweep.h"
#include "Core/Parallel/StencilLoops.h"
#include "Core/Parallel/StreamingStores.h"
#include "Core/Parallel/TileChooser.h"
#include "Core/Util/Error.h"
#include "Core/Util/Trace.h"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>

namespace tessera {

// How stencil loops are tiled, and whether rows written whole may bypass
// the caches; set by the scheduler.
struct TilingOptions {
  bool enabled = false;
  // scheduler.streaming_stores: kernels that write arrays whole, row by
  // row, may use streaming stores (StreamingStores.h) on the host. Off
  // unless asked for: the PRK's sweeps, their one user, ran up to 25 %
  // slower with them than with ordinary stores on an AMD EPYC of family 26
  // (7 of 8 cases; docs/benchmarks.md, 2026-11-27).
  bool streamingStores = false;
  std::size_t scratchpadBytes = 65536;        // a device's software-managed memory
  std::size_t cacheBytes = hostCacheBytes();  // what a host tile fits (chooseHostTile)
  std::optional<IntVector> tile;              // explicit shape; otherwise chosen per kernel
};

// What the runtime does with a stencil's output while the sweep goes: the
// averages of a finer level's cells onto the level below, taken from each
// slab of planes the sweep has just written, while it is in cache
// (SweepAverager in the schedulers). A device task's kernels reach its
// variables' cells only through the ExecutionContext, each the cells of its
// box (and, with rowEnds, beyond its rows' ends), so a kernel launched
// later over cells already averaged tells the follower they may change.
class SweepFollower {
 public:
  virtual ~SweepFollower() = default;
  // How many planes of `box` a sweep by `threads` threads writing the array
  // whose first cell is at `output` should finish at a time; 0 when
  // nothing follows that array.
  virtual int slabPlanes(const void* output, const Box& box, int threads) = 0;
  // The sweep has written every cell of `slab` of the arrays it follows.
  virtual void swept(const Box& slab) = 0;
  // A kernel over `box` is about to run (null: over cells it does not say).
  virtual void kernelOver(const Box* box) = 0;
};

class ExecutionContext {
 public:
  enum class Space { Device, Host };

  // The label must outlive the context (the runtime passes the task's name,
  // so that running a task copies no string).
  explicit ExecutionContext(const std::string& label, Space space = Space::Device,
                            TilingOptions tiling = {})
      : m_label(label), m_space(space), m_tiling(tiling) {}
  ExecutionContext(std::string&& label, Space space = Space::Device,
                   TilingOptions tiling = {}) = delete;

  const std::string& label() const { return m_label; }
  Space space() const { return m_space; }
  const TilingOptions& tiling() const { return m_tiling; }
  // Whether a kernel may write rows it writes whole with streaming stores
  // (streamRow): on a CPU that has them, unless scheduler.streaming_stores
  // is false. Elsewhere streamRow would be an ordinary loop per row, which
  // a device runs badly: a kernel asks first and writes per cell otherwise.
  bool streamsRows() const {
    return m_tiling.streamingStores && kStreamingStoresAvailable &&
           (m_space == Space::Host || runsOnHost<Kokkos::DefaultExecutionSpace>);
  }
  // How many rows of a box of `extent` cells a sweep along z should take
  // at a time so that the planes a stencil of `footprint` reuses stay in
  // the per-core cache (chooseHostTile's rows; all of them on a device,
  // whose loops are not swept plane by plane).
  int cacheBlockRows(const IntVector& extent, const StencilFootprint& footprint) const {
    if (m_space == Space::Device && !runsOnHost<Kokkos::DefaultExecutionSpace>) return extent.y;
    return chooseHostTile(extent, footprint, m_tiling.cacheBytes, 1).y;
  }
  // Counts a kernel a task launched itself (a library call, a team kernel).
  void countKernel() {
    ++m_kernels;
    if (m_follower != nullptr) m_follower->kernelOver(nullptr);
  }
  // Records each kernel as a slice on `track` (sus --trace); null: off.
  void setTrace(TraceTrack* track) { m_trace = track; }
  // The runtime's follower of stencil sweeps (null: none).
  void setSweepFollower(SweepFollower* follower) { m_follower = follower; }

  // body(i, j, k) for every cell of `box`.
  template <class Body>
  void parallelFor(const Box& box, const Body& body) {
    count(box);
    const TraceScope traced(m_trace, "parallelFor", "kernel");
    onSpace([&](const auto& space) { tessera::parallelFor(m_label, space, box, body); });
  }

  // body(i, j, k) for every cell of `box`, and rowEnds(j, k) for each of its
  // x rows, for cells beyond the row's ends (see LoopHelpers.h: on the host
  // written with the row, whose cache lines they share).
  template <class Body, class RowEnds>
  void parallelFor(const Box& box, const Body& body, const RowEnds& rowEnds) {
    countWithRowEnds<RowEnds>(box);
    const TraceScope traced(m_trace, "parallelFor", "kernel");
    onSpace([&](const auto& space) { tessera::parallelFor(m_label, space, box, body, rowEnds); });
  }

  // rows(j, k) once for every x row of `box`, for a kernel that writes
  // whole rows with streamRow (StreamingStores.h): each thread ends its
  // share with a store fence, so what it streamed is in memory before the
  // task ends. Host spaces only: ask streamsRows() first.
  template <class Rows>
  void streamedRows(const Box& box, const Rows& rows) {
    count(box);
    const TraceScope traced(m_trace, "streamedRows", "kernel");
    onSpace([&](const auto& space) {
      if constexpr (runsOnHost<std::decay_t<decltype(space)>>) {
        forEachRowOnHost<true>(m_label, space, box, rows);
      } else {
        TESSERA_REQUIRE_THROWS(false, m_label << ": streamedRows on a device space "
                                              << "(streamsRows() is false there)");
      }
    });
  }

  // body(i) for begin <= i < end: loops over one axis.
  template <class Body>
  void parallelFor(int begin, int end, const Body& body) {
    if (end <= begin) return;
    countKernel();
    const TraceScope traced(m_trace, "parallelFor", "kernel");
    onSpace([&](const auto& space) {
      using Space = std::decay_t<decltype(space)>;
      Kokkos::parallel_for(
          m_label, Kokkos::RangePolicy<Space, Kokkos::IndexType<int>>(space, begin, end), body);
    });
  }

  // body(i, j, k) for every cell of boxes[0 .. count), in one launch.
  template <std::size_t N, class Body>
  void parallelForBoxes(const Kokkos::Array<Box, N>& boxes, int count, const Body& body) {
    if (count <= 0) return;
    ++m_kernels;
    for (int b = 0; b < count; ++b) {
      m_cells += boxes[b].volume();
      if (m_follower != nullptr) m_follower->kernelOver(&boxes[b]);
    }
    const TraceScope traced(m_trace, "parallelForBoxes", "kernel");
    onSpace(
        [&](const auto& space) { tessera::parallelForBoxes(m_label, space, boxes, count, body); });
  }

  // body(i, j, k) for every extra cell of `group` beyond the faces `which`
  // (default all six) that have a boundary condition, edges and corners of
  // those faces too, in one launch: where a component's boundary values go.
  // Where faces meet, body runs for both.
  template <class Body>
  void parallelForExtraCells(const PatchGroup& group, const Body& body,
                             std::initializer_list<Face> which = {Face::XMinus, Face::XPlus,
                                                                  Face::YMinus, Face::YPlus,
                                                                  Face::ZMinus, Face::ZPlus}) {
    Kokkos::Array<Box, 6> faces;
    int count = 0;
    for (const Face face : which)
      if (group.hasBoundaryCondition(face)) faces[count++] = group.extraCellBox(face);
    parallelForBoxes(faces, count, body);
  }

  // body(i, j, k, accumulator) reduced with a Kokkos reducer; blocks for the result.
  template <class Body, class Reducer>
  void parallelReduce(const Box& box, const Body& body, const Reducer& reducer) {
    count(box);
    const TraceScope traced(m_trace, "parallelReduce", "kernel");
    onSpace(
        [&](const auto& space) { tessera::parallelReduce(m_label, space, box, body, reducer); });
  }

  // A stencil over `box` reading `in` with `ghost` layers and writing `out`
  // (see StencilLoops.h), and optionally the cells beyond the ends of its x
  // rows (rowEnds). Tiled when the scheduler says so: to the scratchpad on a
  // device, to the cache on the host. An output that is also an input (a
  // task's computesVarInPlace) is updated in place, read before written
  // (inPlaceStencilFor).
  template <class T, std::size_t NumInputs, std::size_t NumOutputs, class Body,
            class RowEnds = NoRowEnds>
  void stencilFor(const Box& box, int ghost, const StencilInputs<T, NumInputs>& in,
                  const StencilOutputs<T, NumOutputs>& out, const Body& body,
                  const RowEnds& rowEnds = RowEnds{}) {
    countWithRowEnds<RowEnds>(box);
    if (outputsOverlapInputs(in, out)) {  // Task::computesVarInPlace
      const TraceScope traced(m_trace, "in-place stencilFor", "kernel");
      // Tiled: in strips of as many y rows as keep the 2 ghost + 1 planes
      // read and the ghost + 1 planes aside in the cache (cacheBlockRows).
      // Not at radius 1, where strips measured slower than whole planes
      // (heat 256^3, 2026-11-27: 0.87 against 1.01 of the fused loop on two
      // ranks, 1.10 against 1.15 on one core), and faster from radius 2
      // (1.30 against 1.11 at r = 2 on one core, 1.19 against 0.77 at r = 4
      // on 128^3, two ranks): docs/benchmarks.md.
      int stripRows = 0;
      if (m_tiling.enabled && m_space == Space::Device && ghost >= 2) {
        // Only the outputs that are inputs keep planes aside (an accumulated
        // output is written where it is).
        const auto aliased = outputsAliasingInputs(in, out);
        const int aliasedOutputs =
            static_cast<int>(std::count(aliased.data(), aliased.data() + NumOutputs, true));
        StencilFootprint footprint{static_cast<int>(NumInputs), aliasedOutputs, ghost, sizeof(T)};
        footprint.outputPlanesAside = ghost + 1;
        stripRows = cacheBlockRows(box.size(), footprint);
      }
      onSpace([&](const auto& space) {
        inPlaceStencilFor(m_label, space, box, ghost, in, out, body, rowEnds, 0, stripRows);
      });
      return;
    }
    const bool tiled = m_tiling.enabled && m_space == Space::Device;
    const TraceScope traced(m_trace, tiled ? "tiled stencilFor" : "stencilFor", "kernel");
    // Followed (SweepFollower): the loop hands its slabs over as they are
    // done (SlabHandOver; each cell computed as without it, the same bits).
    const SlabHandOver handOver = followedHandOver(box, out);
    if (!tiled) {
      if (!box.empty()) requireStencilHalo(m_label, box, ghost, in);
      onSpace([&](const auto& space) {
        tessera::stencilFor(m_label, space, box, in, out, body, rowEnds, handOver);
      });
      return;
    }
    const StencilFootprint footprint{static_cast<int>(NumInputs), static_cast<int>(NumOutputs),
                                     ghost, sizeof(T)};
    const IntVector tile = tileFor(box, footprint);
    m_tiles += tiledStencilFor(m_label, Kokkos::DefaultExecutionSpace(), box, ghost, tile, in, out,
                               body, rowEnds, handOver);
  }

  // A sweep over the x rows of `box` that changes its input in place, one
  // cell at a time: body(j, k) computes row (j, k) reading rows up to
  // `reach` away (in y and z) of the input, update(j, k) then changes that
  // row of the input alone, once every body that reads it is done
  // (laggedUpdateSweep: one pass instead of two, and the same bits). On a
  // CPU, where the scheduler tiles, in strips of y rows whose planes stay in
  // the cache.
  template <class Body, class Update>
  void sweepUpdatingInput(const Box& box, const StencilFootprint& footprint, const Body& body,
                          const Update& update) {
    count(box);
    const TraceScope traced(m_trace, "sweepUpdatingInput", "kernel");
    const int stripRows = m_tiling.enabled ? cacheBlockRows(box.size(), footprint) : 0;
    onSpace([&](const auto& space) {
      laggedUpdateSweep(m_label, space, box, footprint.ghost, stripRows, body, update);
    });
  }

  void fence() const {
    if (m_space == Space::Host) {
      Kokkos::Serial().fence();
    } else {
      Kokkos::DefaultExecutionSpace().fence();
    }
  }
  std::int64_t kernelsLaunched() const { return m_kernels; }
  std::int64_t cellsVisited() const { return m_cells; }
  std::int64_t tilesExecuted() const { return m_tiles; }

 private:
  template <class F>
  void onSpace(const F& launch) {
    if (m_space == Space::Host) {
      launch(Kokkos::Serial());
    } else {
      launch(Kokkos::DefaultExecutionSpace());
    }
  }
  void count(const Box& box) {
    ++m_kernels;
    m_cells += box.volume();
    if (m_follower != nullptr) m_follower->kernelOver(&box);
  }
  // Where a sweep writing `out` over `box` hands its slabs: to the
  // follower, if it follows one of the outputs; else nowhere. Host memory
  // only: the follower's work runs on the host.
  template <class T, std::size_t NumOutputs>
  SlabHandOver followedHandOver(const Box& box, const StencilOutputs<T, NumOutputs>& out) const {
    if (m_follower == nullptr || box.empty()) return {};
    if (m_space == Space::Device && !runsOnHost<Kokkos::DefaultExecutionSpace>) return {};
    const int threads =
        m_space == Space::Host ? 1 : Kokkos::DefaultExecutionSpace().concurrency();
    for (std::size_t n = 0; n < NumOutputs; ++n)
      if (const int planes = m_follower->slabPlanes(out[n].data(), box, threads); planes > 0)
        return {planes, &handOverSlab, m_follower};
    return {};
  }
  // A kernel with rowEnds writes beyond its box's x ends: where, it does not say.
  template <class RowEnds>
  void countWithRowEnds(const Box& box) {
    count(box);
    if (hasRowEnds<RowEnds> && m_follower != nullptr) m_follower->kernelOver(nullptr);
  }
  // Hands a followed sweep's slabs to the follower.
  static void handOverSlab(void* follower, const Box& slab) {
    static_cast<SweepFollower*>(follower)->swept(slab);
  }
  IntVector tileFor(const Box& box, const StencilFootprint& footprint) const {
    // An explicit tile must fit the scratchpad on every machine, so that a
    // deck valid here is valid on a device too.
    if (m_tiling.tile) {
      const IntVector tile = min(*m_tiling.tile, box.size());
      if (footprint.bytes(*m_tiling.tile) > m_tiling.scratchpadBytes) {
        std::ostringstream message;
        message << "scheduler.tile " << *m_tiling.tile << " needs "
                << footprint.bytes(*m_tiling.tile) << " bytes of scratch in " << m_label
                << ", more than scheduler.scratchpad_bytes " << m_tiling.scratchpadBytes;
        throw InputError(message.str());
      }
      return tile;
    }
    if (footprint.bytes({1, 1, 1}) > m_tiling.scratchpadBytes) {
      std::ostringstream message;
      message << "scheduler.scratchpad_bytes " << m_tiling.scratchpadBytes
              << " cannot hold even one cell of " << m_label << " (" << footprint.bytes({1, 1, 1})
              << " bytes)";
      throw InputError(message.str());
    }
    // On a CPU the caches are the scratchpad: block for them instead.
    if constexpr (runsOnHost<Kokkos::DefaultExecutionSpace>) {
      return chooseHostTile(box.size(), footprint, m_tiling.cacheBytes,
                            Kokkos::DefaultExecutionSpace().concurrency());
    } else {
      return *chooseTile(box.size(), footprint, m_tiling.scratchpadBytes);
    }
  }

  const std::string& m_label;
  Space m_space;
  TilingOptions m_tiling;
  TraceTrack* m_trace = nullptr;
  SweepFollower* m_follower = nullptr;
  std::int64_t m_kernels = 0;
  std::int64_t m_cells = 0;
  std::int64_t m_tiles = 0;
};

}  // namespace tessera
