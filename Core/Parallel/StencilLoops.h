#pragma once
// Stencil loops: one kernel body, run either straight over global memory or
// tile by tile out of team scratch memory (the Kokkos form of the Sunway
// port's athread_get / compute / athread_put).
//
// The body is called as body(i, j, k, in, out): `in` holds read-only windows
// on the inputs (valid `ghost` cells around (i, j, k)), `out` writable
// windows on the outputs (valid at (i, j, k)). Both are indexed by global
// cell like CellArray, so the body does not know whether it reads a staged
// tile or the variable itself, and gives the same bits either way.

#include "Core/Grid/Box.h"
#include "Core/Grid/Variables/CellArray.h"
#include "Core/Parallel/LoopHelpers.h"
#include "Core/Util/Error.h"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessera {

template <class T, std::size_t NumInputs>
using StencilInputs = Kokkos::Array<CellArray<const T>, NumInputs>;
template <class T, std::size_t NumOutputs>
using StencilOutputs = Kokkos::Array<CellArray<T>, NumOutputs>;

// A stencil may also pass rowEnds(j, k, out): called once for each x row
// (j, k) of the box, on the outputs themselves, in any order relative to the
// body. It is for cells beyond the ends of the rows (Dirichlet values in
// the extra cells of an x face): written with the row, they cost nothing,
// since the row's first and last cells share their cache lines, where a
// loop of their own touches a cache line per value. It may write only
// cells that no body and no other row's call reads or writes. NoRowEnds
// (LoopHelpers.h) is none.

// One x row of a stencil on the host, shared by the untiled and the tiled
// host loops so that both compile to the same inner loop.
template <class T, std::size_t NumInputs, std::size_t NumOutputs, class Body>
KOKKOS_INLINE_FUNCTION void stencilRow(const Body& kernel, const StencilInputs<T, NumInputs>& in,
                                       const StencilOutputs<T, NumOutputs>& out, int loX, int hiX,
                                       int j, int k) {
  // A stencil reads only its inputs and writes only its outputs, which are
  // other variables: no iteration of a row feeds another, so the compiler
  // may vectorise without checking for overlap.
#pragma GCC ivdep
  for (int i = loX; i < hiX; ++i)
    kernel(i, j, k, in, out);
}

// A stencil reading `ghost` layers around `box` needs inputs that hold
// them: both the untiled and the tiled loops check, with this message.
template <class T, std::size_t NumInputs>
void requireStencilHalo(const std::string& label, const Box& box, int ghost,
                        const StencilInputs<T, NumInputs>& inputs) {
  for (std::size_t n = 0; n < NumInputs; ++n) {
    TESSERA_REQUIRE_THROWS(inputs[n].box().contains(box.grow(ghost)),
                           label << ": input " << n << " holds " << inputs[n].box() << " but "
                                 << ghost << " ghost layers around " << box << " are needed");
  }
}

// Calls rowEnds(j, k, out) for every x row of `box` in a loop of its own
// (on device spaces, whose stencil loops have no rows).
template <class ExecSpace, class T, std::size_t NumOutputs, class RowEnds>
void forEachRowEnd(const std::string& label, const ExecSpace& space, const Box& box,
                   const StencilOutputs<T, NumOutputs>& out, const RowEnds& rowEnds) {
  if constexpr (hasRowEnds<RowEnds>) {
    if (box.empty()) return;
    const Box rows(box.lo(), {box.lo().x + 1, box.hi().y, box.hi().z});
    parallelFor(
        label, space, rows, KOKKOS_LAMBDA(int, int j, int k) { rowEnds(j, k, out); });
  }
}

// Where a host sweep hands over each slab of `planes` whole planes of its
// box (fewer at its end) once computed, on the thread that computed it,
// while others compute the next ones (ExecutionContext's SweepFollower):
// done(to, slab). A host loop not by planes (tiles) hands its whole box
// over at its end; a device loop hands nothing over. None while `to` is
// null. One type for every caller, so that a stencil body's loop is
// compiled once, followed or not.
struct SlabHandOver {
  int planes = 0;
  void (*done)(void* to, const Box& slab) = nullptr;
  void* to = nullptr;
};

template <class ExecSpace, class T, std::size_t NumInputs, std::size_t NumOutputs, class Body,
          class RowEnds = NoRowEnds>
void stencilFor(const std::string& label, const ExecSpace& space, const Box& box,
                const StencilInputs<T, NumInputs>& in, const StencilOutputs<T, NumOutputs>& out,
                const Body& body, const RowEnds& rowEnds = RowEnds{},
                const SlabHandOver& handOver = SlabHandOver{}) {
  if constexpr (runsOnHost<ExecSpace>) {
    if (box.empty()) return;
    const int loX = box.lo().x;
    const int hiX = box.hi().x;
    const bool followed = handOver.to != nullptr && handOver.planes > 0;
    if (box.volume() <= kInlineCells && !followed) {
      forEachRowInline(box, [&](int j, int k) {
        stencilRow(body, in, out, loX, hiX, j, k);
        rowEnds(j, k, out);
      });
      return;
    }
    const HostRows split(space, box, followed ? handOver.planes : 0);
    const SlabHandOver slabs = followed ? handOver : SlabHandOver{};
    Kokkos::parallel_for(
        label, split.policy(space), KOKKOS_LAMBDA(int index) {
          // Copies local to this plane (or row): no store through an output
          // can change them, so the compiler keeps the body's constants and
          // the windows' pointers in registers instead of reloading them
          // from the closure for every vector of cells.
          const Body kernel = body;
          const StencilInputs<T, NumInputs> inputs = in;
          const StencilOutputs<T, NumOutputs> outputs = out;
          split.forRowsOf(index, [&](int j, int k) {
            stencilRow(kernel, inputs, outputs, loX, hiX, j, k);
            rowEnds(j, k, outputs);
          });
          if (slabs.to != nullptr) slabs.done(slabs.to, split.slabOf(index));
        });
  } else {
    parallelFor(
        label, space, box, KOKKOS_LAMBDA(int i, int j, int k) { body(i, j, k, in, out); });
    forEachRowEnd(label, space, box, out, rowEnds);
  }
}

// Outputs that are inputs, updated in place (below). `slabs` > 0 fixes the
// number of slabs (tests); else one per thread, each 2 ghost + 1 planes or
// more. `stripRows` > 0 sweeps each slab in strips of that many y rows (at
// least 2 ghost), so that a strip's planes fit the cache; else whole planes.
template <class ExecSpace, class T, std::size_t NumInputs, std::size_t NumOutputs, class Body,
          class RowEnds = NoRowEnds>
void inPlaceStencilFor(const std::string& label, const ExecSpace& space, const Box& box, int ghost,
                       const StencilInputs<T, NumInputs>& in,
                       const StencilOutputs<T, NumOutputs>& out, const Body& body,
                       const RowEnds& rowEnds = RowEnds{}, int slabs = 0, int stripRows = 0);
template <class T, std::size_t NumInputs, std::size_t NumOutputs>
bool outputsOverlapInputs(const StencilInputs<T, NumInputs>& in,
                          const StencilOutputs<T, NumOutputs>& out);

// Runs `body` over `box` in tiles of `tile` cells (edge tiles may be
// smaller). Returns the number of tiles. On a device space each tile is a
// team that stages its inputs (with halo) and outputs in scratch memory,
// the software-managed scratchpad. On a host space the caches are the
// scratchpad: a copy would only double the loads and stores of data the
// caches already hold, so each thread walks its tiles in place (cache
// blocking). The body is the same, and so are the bits. `handOver`: see
// SlabHandOver (tiles of whole planes hand over slabs).
template <class ExecSpace, class T, std::size_t NumInputs, std::size_t NumOutputs, class Body,
          class RowEnds = NoRowEnds>
int tiledStencilFor(const std::string& label, const ExecSpace& space, const Box& box, int ghost,
                    const IntVector& tile, const StencilInputs<T, NumInputs>& inputs,
                    const StencilOutputs<T, NumOutputs>& outputs, const Body& body,
                    const RowEnds& rowEnds = RowEnds{},
                    const SlabHandOver& handOver = SlabHandOver{}) {
  if (box.empty()) return 0;
  TESSERA_REQUIRE_THROWS(IntVector{}.allLessThan(tile), "tile " << tile << " must be positive");
  requireStencilHalo(label, box, ghost, inputs);
  // Tiles cannot update in place: a tile would read what its neighbour wrote.
  if (outputsOverlapInputs(inputs, outputs)) {
    inPlaceStencilFor(label, space, box, ghost, inputs, outputs, body, rowEnds);
    return 1;
  }
  const IntVector extent = box.size();
  const IntVector count{(extent.x + tile.x - 1) / tile.x, (extent.y + tile.y - 1) / tile.y,
                        (extent.z + tile.z - 1) / tile.z};
  const int numTiles = static_cast<int>(count.product());
  const IntVector origin = box.lo();
  const IntVector end = box.hi();
  if constexpr (runsOnHost<ExecSpace>) {
    // Tiles of whole planes are slabs of z: the untiled loop, which shares
    // out whole planes, visits the cells in the same order and blocks them
    // the same way, and its loop measured faster (Burgers, 2 threads).
    if (tile.x >= extent.x && tile.y >= extent.y) {
      stencilFor(label, space, box, inputs, outputs, body, rowEnds, handOver);
      return numTiles;
    }
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, numTiles),
        KOKKOS_LAMBDA(int t) {
          // Local copies, as in stencilFor: the constants stay in registers.
          const Body kernel = body;
          const StencilInputs<T, NumInputs> in = inputs;
          const StencilOutputs<T, NumOutputs> out = outputs;
          const IntVector at{t % count.x, (t / count.x) % count.y, t / (count.x * count.y)};
          const IntVector lo = origin + at * tile;
          const IntVector hi = min(lo + tile, end);
          // The tile holding a row's first cells calls its rowEnds.
          const bool rowStarts = lo.x == origin.x;
          for (int k = lo.z; k < hi.z; ++k)
            for (int j = lo.y; j < hi.y; ++j) {
              stencilRow(kernel, in, out, lo.x, hi.x, j, k);
              if (rowStarts) rowEnds(j, k, out);
            }
        });
    if (handOver.to != nullptr) handOver.done(handOver.to, box);
    return numTiles;
  }
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Scratch =
      Kokkos::View<T*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const auto stagedCells =
      static_cast<std::size_t>((tile + IntVector::uniform(2 * ghost)).product());
  const auto tileCells = static_cast<std::size_t>(tile.product());
  const std::size_t scratchBytes =
      Scratch::shmem_size(stagedCells) * NumInputs + Scratch::shmem_size(tileCells) * NumOutputs;
  Policy policy(space, numTiles, Kokkos::AUTO);
  policy.set_scratch_size(0, Kokkos::PerTeam(scratchBytes));

  Kokkos::parallel_for(
      label, policy, KOKKOS_LAMBDA(const Member& team) {
        const int t = team.league_rank();
        const IntVector at{t % count.x, (t / count.x) % count.y, t / (count.x * count.y)};
        const IntVector lo = origin + at * tile;
        const Box tileBox(lo, min(lo + tile, end));
        const Box staged = tileBox.grow(ghost);
        const IntVector s = staged.size();
        const IntVector c = tileBox.size();

        // Stage every input with its halo, row by row (contiguous in x).
        StencilInputs<T, NumInputs> in;
        for (std::size_t n = 0; n < NumInputs; ++n) {
          const Scratch scratch(team.team_scratch(0), stagedCells);
          const CellArray<const T> source = inputs[n];
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, s.y * s.z), [&](int row) {
            const T* from =
                &source(staged.lo().x, staged.lo().y + row % s.y, staged.lo().z + row / s.y);
            T* to = scratch.data() + static_cast<std::ptrdiff_t>(row) * s.x;
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, s.x),
                                 [&](int i) { to[i] = from[i]; });
          });
          in[n] = CellArray<const T>(scratch.data(), staged);
        }
        StencilOutputs<T, NumOutputs> out;
        for (std::size_t n = 0; n < NumOutputs; ++n) {
          const Scratch scratch(team.team_scratch(0), tileCells);
          out[n] = CellArray<T>(scratch.data(), tileBox);
        }
        team.team_barrier();

        // Compute the tile from scratch, one x row per thread.
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, c.y * c.z), [&](int row) {
          const int j = tileBox.lo().y + row % c.y;
          const int k = tileBox.lo().z + row / c.y;
          for (int i = tileBox.lo().x; i < tileBox.hi().x; ++i)
            body(i, j, k, in, out);
        });
        team.team_barrier();

        // Write the outputs back, row by row.
        for (std::size_t n = 0; n < NumOutputs; ++n) {
          const CellArray<T> target = outputs[n];
          const CellArray<T> staging = out[n];
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, c.y * c.z), [&](int row) {
            const int j = tileBox.lo().y + row % c.y;
            const int k = tileBox.lo().z + row / c.y;
            const T* from = &staging(tileBox.lo().x, j, k);
            T* to = &target(tileBox.lo().x, j, k);
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, c.x),
                                 [&](int i) { to[i] = from[i]; });
          });
        }
        if (hasRowEnds<RowEnds> && tileBox.lo().x == origin.x) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, c.y * c.z), [&](int row) {
            rowEnds(tileBox.lo().y + row % c.y, tileBox.lo().z + row / c.y, outputs);
          });
        }
      });
  return numTiles;
}

// ---- outputs that are also inputs (Task::computesVarInPlace) ----

// Asks the cache for `cells` values of row (j, k) of each input from x on,
// a line at a time (a hint: nothing on compilers without it). The hardware
// prefetchers alone kept a sweep's leading plane from memory only partly
// ahead of a loop heavy in arithmetic: heat's in-place sweep ran 0.5-18 %
// faster with this (docs/benchmarks.md, "Prefetching the leading plane").
template <class T, std::size_t NumInputs>
KOKKOS_INLINE_FUNCTION void prefetchRow(const StencilInputs<T, NumInputs>& in, int x,
                                        std::int64_t cells, int j, int k) {
#if defined(__GNUC__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
  constexpr std::int64_t kLineBytes = 64;
  for (std::size_t n = 0; n < NumInputs; ++n) {
    const char* at = reinterpret_cast<const char*>(&in[n](x, j, k));
    for (std::int64_t b = 0; b < cells * static_cast<std::int64_t>(sizeof(T)); b += kLineBytes)
      __builtin_prefetch(at + b);
  }
#else
  (void)in, (void)x, (void)cells, (void)j, (void)k;
#endif
}

// The addresses a window spans, first to one past the last cell.
template <class T>
std::pair<std::uintptr_t, std::uintptr_t> addressSpan(const CellArray<T>& a) {
  const IntVector n = a.box().size();
  if (n.x <= 0 || n.y <= 0 || n.z <= 0) return {0, 0};
  const auto first = reinterpret_cast<std::uintptr_t>(a.data());
  const std::int64_t last = (n.z - 1) * a.strideZ() + (n.y - 1) * a.strideY() + n.x;
  return {first, first + static_cast<std::uintptr_t>(last) * sizeof(T)};
}

// True when an output shares memory with an input: a stencil would read
// cells it has already written.
template <class T, std::size_t NumInputs, std::size_t NumOutputs>
bool outputsOverlapInputs(const StencilInputs<T, NumInputs>& in,
                          const StencilOutputs<T, NumOutputs>& out) {
  for (std::size_t n = 0; n < NumOutputs; ++n) {
    const auto o = addressSpan(out[n]);
    for (std::size_t m = 0; m < NumInputs; ++m) {
      const auto i = addressSpan(in[m]);
      if (o.first < i.second && i.first < o.second) return true;
    }
  }
  return false;
}

// For each output, whether it shares memory with an input (and so waits
// aside in an in-place sweep; the others are written where they are).
template <class T, std::size_t NumInputs, std::size_t NumOutputs>
Kokkos::Array<bool, NumOutputs> outputsAliasingInputs(const StencilInputs<T, NumInputs>& in,
                                                      const StencilOutputs<T, NumOutputs>& out) {
  Kokkos::Array<bool, NumOutputs> aliased;
  for (std::size_t n = 0; n < NumOutputs; ++n)
    aliased[n] = outputsOverlapInputs(in, StencilOutputs<T, 1>{{out[n]}});
  return aliased;
}

// A stencil whose outputs are its inputs, updated in place with the same
// bits as into other arrays. On the host, each thread sweeps a slab of z
// planes and computes plane k into a ring of ghost + 1 planes aside; plane
// k - ghost, whose old values plane k was the last to read, then goes back
// into the output (with its rowEnds). The ghost planes at either end of a
// slab are read by the neighbouring slabs, so they wait aside until every
// slab is done. In strips of y rows, the last ghost rows of a strip are
// read by the next strip: they wait aside until it is done. Outputs that
// overlap no input are written in place as usual. The variable streams
// through the cache once, and the working set is half that of two arrays.
// A device space gets a copy of the inputs first (its tiles run in any
// order).
template <class ExecSpace, class T, std::size_t NumInputs, std::size_t NumOutputs, class Body,
          class RowEnds>
void inPlaceStencilFor(const std::string& label, const ExecSpace& space, const Box& box, int ghost,
                       const StencilInputs<T, NumInputs>& in,
                       const StencilOutputs<T, NumOutputs>& out, const Body& body,
                       const RowEnds& rowEnds, int slabs, int stripRows) {
  if (box.empty()) return;
  requireStencilHalo(label, box, ghost, in);
  if constexpr (runsOnHost<ExecSpace>) {
    const int R = ghost;
    const IntVector lo = box.lo();
    const IntVector hi = box.hi();
    const int planes = hi.z - lo.z;
    const std::int64_t planeCells = static_cast<std::int64_t>(hi.x - lo.x) * (hi.y - lo.y);
    // Slabs of at least 2 R + 1 planes, so that most planes go back early.
    if (slabs <= 0)
      slabs = std::max(1, std::min(static_cast<int>(space.concurrency()), planes / (2 * R + 1)));
    slabs = std::min(slabs, std::max(planes, 1));
    const int slots = 3 * R + 1;  // R at each end of a slab, R + 1 in the ring
    const int ny = hi.y - lo.y;
    if (stripRows <= 0 || stripRows >= ny) stripRows = ny;
    stripRows = std::min(ny, std::max(stripRows, 2 * R));
    const int strips = (ny + stripRows - 1) / stripRows;
    stripRows = (ny + strips - 1) / strips;  // even strips
    const std::int64_t rowCells = hi.x - lo.x;
    const std::int64_t slabPlanes = (planes + slabs - 1) / slabs;
    // A strip's last R rows of each plane, for this strip and the one before.
    const std::int64_t deferredCells =
        strips > 1 ? 2 * static_cast<std::int64_t>(NumOutputs) * slabPlanes * R * rowCells : 0;
    const std::int64_t planesAside = static_cast<std::int64_t>(slots) * NumOutputs * planeCells;
    // Not initialised: every plane is written before it is read.
    const Kokkos::View<T*, Kokkos::HostSpace> aside(
        Kokkos::ViewAllocateWithoutInitializing(label + " planes aside"),
        static_cast<std::size_t>(slabs * (planesAside + deferredCells)));
    T* const asideData = aside.data();
    T* const deferredData = asideData + slabs * planesAside;
    const auto slabStart = [=](int s) {
      return lo.z + static_cast<int>(static_cast<std::int64_t>(planes) * s / slabs);
    };
    // Where plane k of the slab [k0, k1) waits: a slot of its own at an
    // end, else the ring.
    const auto slotOf = [=](int k, int k0, int k1) {
      if (k < k0 + R) return k - k0;
      if (k >= k1 - R) return R + k - (k1 - R);
      return 2 * R + (k - k0) % (R + 1);
    };
    // Only the outputs that overlap an input wait aside; the others (an
    // accumulation `out += ...` into a variable no neighbour reads) are
    // updated where they are.
    const Kokkos::Array<bool, NumOutputs> aliased = outputsAliasingInputs(in, out);
    const auto planeOf = [=](int s, int slot, int k) {
      StencilOutputs<T, NumOutputs> plane = out;
      for (std::size_t n = 0; n < NumOutputs; ++n) {
        if (!aliased[n]) continue;
        const std::int64_t at =
            (static_cast<std::int64_t>(s) * slots + slot) * static_cast<std::int64_t>(NumOutputs) +
            static_cast<std::int64_t>(n);
        plane[n] = CellArray<T>(asideData + at * planeCells,
                                Box({lo.x, lo.y, k}, {hi.x, hi.y, k + 1}));
      }
      return plane;
    };
    const auto copyRow = [=](const T* from, T* to) {
#pragma GCC ivdep
      for (std::int64_t i = 0; i < rowCells; ++i)
        to[i] = from[i];
    };
    // Rows [j0, j1) of plane k go back into the outputs, with their row ends.
    const auto putBack = [=](const StencilOutputs<T, NumOutputs>& plane, int k, int j0, int j1) {
      for (int j = j0; j < j1; ++j) {
        for (std::size_t n = 0; n < NumOutputs; ++n)
          if (aliased[n]) copyRow(&plane[n](lo.x, j, k), &out[n](lo.x, j, k));
        rowEnds(j, k, out);
      }
    };
    // Where row j0 + row of plane k of slab s (from k0) waits for the next strip.
    const auto deferred = [=](int s, int which, std::size_t n, int k, int k0, int row) {
      const std::int64_t at =
          ((static_cast<std::int64_t>(s) * 2 + which) * static_cast<std::int64_t>(NumOutputs) +
           static_cast<std::int64_t>(n)) * slabPlanes + (k - k0);
      return deferredData + (at * R + row) * rowCells;
    };
    using Slabs = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>;
    Kokkos::parallel_for(
        label, Slabs(space, 0, slabs), KOKKOS_LAMBDA(int s) {
          const Body kernel = body;  // local copies, as in stencilFor
          const StencilInputs<T, NumInputs> inputs = in;
          const int k0 = slabStart(s);
          const int k1 = slabStart(s + 1);
          for (int t = 0; t < strips; ++t) {
            const int a = lo.y + t * stripRows;
            const int b = std::min(hi.y, a + stripRows);
            const bool last = t == strips - 1;
            const int which = t % 2;
            for (int k = k0; k < k1; ++k) {
              const StencilOutputs<T, NumOutputs> plane = planeOf(s, slotOf(k, k0, k1), k);
              for (int j = a; j < b; ++j) {
                // The next row of the leading plane, the one that comes
                // from memory (the others were read one plane ago).
                const int nextJ = j + 1 < b ? j + 1 : a;
                const int nextK = j + 1 < b ? k + R : k + R + 1;
                if (nextK < hi.z + R) prefetchRow(inputs, lo.x, rowCells, nextJ, nextK);
                stencilRow(kernel, inputs, plane, lo.x, hi.x, j, k);
              }
              const int done = k - R;  // plane k was the last to read its old values
              if (done < k0 + R || done >= k1 - R) continue;
              const StencilOutputs<T, NumOutputs> waiting = planeOf(s, slotOf(done, k0, k1), done);
              // The next strip reads the last R rows: they wait.
              putBack(waiting, done, a, last ? b : b - R);
              if (last) continue;
              for (int row = 0; row < R; ++row)
                for (std::size_t n = 0; n < NumOutputs; ++n)
                  if (aliased[n])
                    copyRow(&waiting[n](lo.x, b - R + row, done),
                            deferred(s, which, n, done, k0, row));
            }
            if (t == 0) continue;
            // The strip before's last rows: this strip, their last reader, is done.
            for (int k = k0 + R; k < k1 - R; ++k)
              for (int row = 0; row < R; ++row) {
                const int j = a - R + row;
                for (std::size_t n = 0; n < NumOutputs; ++n)
                  if (aliased[n])
                    copyRow(deferred(s, 1 - which, n, k, k0, row), &out[n](lo.x, j, k));
                rowEnds(j, k, out);
              }
          }
        });
    Kokkos::parallel_for(
        label, Slabs(space, 0, slabs), KOKKOS_LAMBDA(int s) {
          const int k0 = slabStart(s);
          const int k1 = slabStart(s + 1);
          for (int k = k0; k < k1; ++k)
            if (k < k0 + R || k >= k1 - R)
              putBack(planeOf(s, slotOf(k, k0, k1), k), k, lo.y, hi.y);
        });
  } else {
    // Copies of the inputs, then the usual loop.
    StencilInputs<T, NumInputs> copies = in;
    std::vector<Kokkos::View<T*, typename ExecSpace::memory_space>> held;
    for (std::size_t m = 0; m < NumInputs; ++m) {
      const auto span = addressSpan(in[m]);
      const auto cells = static_cast<std::size_t>((span.second - span.first) / sizeof(T));
      held.emplace_back(Kokkos::ViewAllocateWithoutInitializing(label + " input copy"), cells);
      using Source =
          Kokkos::View<const T*, typename ExecSpace::memory_space, Kokkos::MemoryUnmanaged>;
      Kokkos::deep_copy(space, held.back(), Source(in[m].data(), cells));
      copies[m] = CellArray<const T>(held.back().data(), in[m].box(), in[m].strideY(),
                                     in[m].strideZ());
    }
    stencilFor(label, space, box, copies, out, body, rowEnds);
    space.fence();
  }
}

}  // namespace tessera
