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

#include <string>
#include <type_traits>

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

template <class ExecSpace, class T, std::size_t NumInputs, std::size_t NumOutputs, class Body,
          class RowEnds = NoRowEnds>
void stencilFor(const std::string& label, const ExecSpace& space, const Box& box,
                const StencilInputs<T, NumInputs>& in, const StencilOutputs<T, NumOutputs>& out,
                const Body& body, const RowEnds& rowEnds = RowEnds{}) {
  if constexpr (runsOnHost<ExecSpace>) {
    if (box.empty()) return;
    const int loX = box.lo().x;
    const int hiX = box.hi().x;
    if (box.volume() <= kInlineCells) {
      forEachRowInline(box, [&](int j, int k) {
        stencilRow(body, in, out, loX, hiX, j, k);
        rowEnds(j, k, out);
      });
      return;
    }
    const HostRows split(space, box);
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
        });
  } else {
    parallelFor(
        label, space, box, KOKKOS_LAMBDA(int i, int j, int k) { body(i, j, k, in, out); });
    forEachRowEnd(label, space, box, out, rowEnds);
  }
}

// Runs `body` over `box` in tiles of `tile` cells (edge tiles may be
// smaller). Returns the number of tiles. On a device space each tile is a
// team that stages its inputs (with halo) and outputs in scratch memory,
// the software-managed scratchpad. On a host space the caches are the
// scratchpad: a copy would only double the loads and stores of data the
// caches already hold, so each thread walks its tiles in place (cache
// blocking). The body is the same, and so are the bits.
template <class ExecSpace, class T, std::size_t NumInputs, std::size_t NumOutputs, class Body,
          class RowEnds = NoRowEnds>
int tiledStencilFor(const std::string& label, const ExecSpace& space, const Box& box, int ghost,
                    const IntVector& tile, const StencilInputs<T, NumInputs>& inputs,
                    const StencilOutputs<T, NumOutputs>& outputs, const Body& body,
                    const RowEnds& rowEnds = RowEnds{}) {
  if (box.empty()) return 0;
  TESSERA_REQUIRE_THROWS(IntVector{}.allLessThan(tile), "tile " << tile << " must be positive");
  requireStencilHalo(label, box, ghost, inputs);
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
      stencilFor(label, space, box, inputs, outputs, body, rowEnds);
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

}  // namespace tessera
