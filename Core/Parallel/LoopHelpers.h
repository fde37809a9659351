#pragma once
// Kokkos loops over a Box of cells. The body takes global (i, j, k); x is the
// fastest index, matching the memory layout of cell variables.
//
// One body, two loop shapes: on an execution space that runs on the host
// (OpenMP, Serial) the threads share out x rows and each walks its row in a
// plain inner loop the compiler can vectorise; on a device space every cell
// is an index of a 3D MDRange. The body cannot tell the difference, and the
// result is the same bits either way.

#include "Core/Grid/Box.h"
#include "Core/Parallel/StreamingStores.h"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace tessera {

// Vectorises the loop that follows: its iterations are independent. Each
// lane computes what the scalar loop would, operation for operation (no
// reassociation; no vector maths library without -ffast-math), so the bits
// do not change.
#if defined(_OPENMP)
#define TESSERA_SIMD _Pragma("omp simd")
#else
#define TESSERA_SIMD
#endif

// Signed indices: extra and ghost cells have negative indices, and the
// default index type of a policy is the (unsigned) size type.
template <class ExecSpace = Kokkos::DefaultExecutionSpace>
using CellPolicy =
    Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>,
                          Kokkos::IndexType<int>>;

template <class ExecSpace = Kokkos::DefaultExecutionSpace>
CellPolicy<ExecSpace> cellPolicy(const ExecSpace& space, const Box& box) {
  return CellPolicy<ExecSpace>(space, {box.lo().x, box.lo().y, box.lo().z},
                               {box.hi().x, box.hi().y, box.hi().z});
}

// True for execution spaces whose threads are the host's (OpenMP, Serial).
template <class ExecSpace>
constexpr bool runsOnHost =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;

// How a host loop shares out the x rows of a box: each index of its range
// is a whole plane (k) when there are enough to go round the threads, else
// one row (j, k); or, asked for `slabPlanes`, a slab of that many whole
// planes (fewer at the box's end). Either way the innermost loop walks a
// contiguous x row, and no index is recovered by division in the common case.
class HostRows {
 public:
  template <class ExecSpace>
  HostRows(const ExecSpace& space, const Box& box, int slabPlanes = 0)
      : m_lo(box.lo()),
        m_hi(box.hi()),
        m_ny(box.size().y),
        m_planes(slabPlanes > 0 ? slabPlanes : box.size().z >= 4 * space.concurrency() ? 1 : 0) {}

  // The range of indices to share out.
  template <class ExecSpace>
  Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>> policy(const ExecSpace& space) const {
    const int nz = m_hi.z - m_lo.z;
    return {space, 0, m_planes > 0 ? (nz + m_planes - 1) / m_planes : m_ny * nz};
  }
  // Calls rows(j, k) for the rows index `index` stands for.
  template <class Rows>
  KOKKOS_INLINE_FUNCTION void forRowsOf(int index, const Rows& rows) const {
    if (m_planes == 0) {
      rows(m_lo.y + index % m_ny, m_lo.z + index / m_ny);
      return;
    }
    const Box planes = slabOf(index);
    for (int k = planes.lo().z; k < planes.hi().z; ++k)
      for (int j = m_lo.y; j < m_hi.y; ++j)
        rows(j, k);
  }
  // The cells of the planes index `index` stands for (a slab, a plane).
  KOKKOS_INLINE_FUNCTION Box slabOf(int index) const {
    const int k = m_lo.z + index * m_planes;
    return {{m_lo.x, m_lo.y, k}, {m_hi.x, m_hi.y, k + m_planes < m_hi.z ? k + m_planes : m_hi.z}};
  }

 private:
  IntVector m_lo;
  IntVector m_hi;
  int m_ny;
  int m_planes;  // per index; 0: one row per index
};

// Loops over at most this many cells run on the calling thread: an OpenMP
// fork and join (a futex wake even for one thread) costs more than their
// work. Each cell is computed the same way either way, so are the bits.
constexpr std::int64_t kInlineCells = 1024;

// Calls rows(j, k) for every x row of `box` on the calling thread.
template <class Rows>
void forEachRowInline(const Box& box, const Rows& rows) {
  for (int k = box.lo().z; k < box.hi().z; ++k)
    for (int j = box.lo().y; j < box.hi().y; ++j)
      rows(j, k);
}

// Calls rows(j, k) for every x row of `box` on a host space. With
// FenceStreams, each thread ends its share with a store fence: its rows
// used streaming stores (StreamingStores.h), which must be in memory before
// anyone reads them (ExecutionContext::streamedRows).
template <bool FenceStreams = false, class ExecSpace, class Rows>
void forEachRowOnHost(const std::string& label, const ExecSpace& space, const Box& box,
                      const Rows& rows) {
  static_assert(runsOnHost<ExecSpace>, "row loops are for host execution spaces");
  if (box.volume() <= kInlineCells) {
    forEachRowInline(box, rows);
    if constexpr (FenceStreams) streamFence();
    return;
  }
  const HostRows split(space, box);
  Kokkos::parallel_for(
      label, split.policy(space), KOKKOS_LAMBDA(int index) {
        split.forRowsOf(index, rows);
        if constexpr (FenceStreams) streamFence();
      });
}

// The rowEnds of a loop that has none (parallelFor's, and stencilFor's in
// StencilLoops.h): never called, and no second kernel on a device.
struct NoRowEnds {
  KOKKOS_INLINE_FUNCTION void operator()(int, int) const {}
  template <class Outputs>
  KOKKOS_INLINE_FUNCTION void operator()(int, int, const Outputs&) const {}
};
template <class RowEnds>
constexpr bool hasRowEnds = !std::is_same_v<RowEnds, NoRowEnds>;

// Runs body(i, j, k) for every cell of `box` on `space` (asynchronously: the
// caller fences when it needs the results), and rowEnds(j, k) once for every
// x row of `box`, for the cells beyond the row's ends (the rest of a row a
// stencil cannot reach). On the host rowEnds runs right after its row, whose
// first and last cache lines it shares (a loop of its own would fetch a line
// per cell again); on a device it is a second kernel over the rows. rowEnds
// must not write a cell of `box`.
template <class ExecSpace, class Body, class RowEnds>
void parallelFor(const std::string& label, const ExecSpace& space, const Box& box,
                 const Body& body, const RowEnds& rowEnds) {
  if (box.empty()) return;
  if constexpr (runsOnHost<ExecSpace>) {
    const int loX = box.lo().x;
    const int hiX = box.hi().x;
    forEachRowOnHost(label, space, box, [=](int j, int k) {
      // The cells of a parallel_for are independent (Kokkos's contract):
      // say so, or the compiler must assume the body's output arrays alias
      // its inputs and its own captures, and keeps the row scalar.
      TESSERA_SIMD
      for (int i = loX; i < hiX; ++i)
        body(i, j, k);
      if constexpr (hasRowEnds<RowEnds>) rowEnds(j, k);
    });
  } else {
    Kokkos::parallel_for(label, cellPolicy(space, box), body);
    if constexpr (hasRowEnds<RowEnds>) {
      using RowPolicy = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>, Kokkos::IndexType<int>>;
      Kokkos::parallel_for(label,
                           RowPolicy(space, {box.lo().y, box.lo().z}, {box.hi().y, box.hi().z}),
                           KOKKOS_LAMBDA(int j, int k) { rowEnds(j, k); });
    }
  }
}

template <class ExecSpace, class Body>
void parallelFor(const std::string& label, const ExecSpace& space, const Box& box,
                 const Body& body) {
  parallelFor(label, space, box, body, NoRowEnds{});
}

template <class Body>
void parallelFor(const std::string& label, const Box& box, const Body& body) {
  parallelFor(label, Kokkos::DefaultExecutionSpace(), box, body);
}

// Reduces body(i, j, k, accumulator) over `box` with a Kokkos reducer
// (Kokkos::Min, Kokkos::Max, Kokkos::Sum); blocks until the result is ready.
template <class ExecSpace, class Body, class Reducer>
void parallelReduce(const std::string& label, const ExecSpace& space, const Box& box,
                    const Body& body, const Reducer& reducer) {
  if (box.empty()) return;
  if constexpr (runsOnHost<ExecSpace>) {
    using Value = typename Reducer::value_type;
    const HostRows split(space, box);
    const int loX = box.lo().x;
    const int hiX = box.hi().x;
    Kokkos::parallel_reduce(
        label, split.policy(space),
        KOKKOS_LAMBDA(int index, Value& accumulator) {
          split.forRowsOf(index, [&](int j, int k) {
            for (int i = loX; i < hiX; ++i)
              body(i, j, k, accumulator);
          });
        },
        reducer);
  } else {
    Kokkos::parallel_reduce(label, cellPolicy(space, box), body, reducer);
  }
}

template <class Body, class Reducer>
void parallelReduce(const std::string& label, const Box& box, const Body& body,
                    const Reducer& reducer) {
  parallelReduce(label, Kokkos::DefaultExecutionSpace(), box, body, reducer);
}

// Runs body(i, j, k) for every cell of boxes[0 .. count) in one launch (a
// patch's boundary faces, say). The boxes must not overlap unless the body
// writes the same value to a shared cell from either box.
template <class ExecSpace, std::size_t N, class Body>
void parallelForBoxes(const std::string& label, const ExecSpace& space,
                      const Kokkos::Array<Box, N>& boxes, int count, const Body& body) {
  if (count <= 0) return;
  if constexpr (runsOnHost<ExecSpace>) {
    const auto walk = [=](int b) {
      const Box box = boxes[b];
      for (int k = box.lo().z; k < box.hi().z; ++k)
        for (int j = box.lo().y; j < box.hi().y; ++j)
          for (int i = box.lo().x; i < box.hi().x; ++i)
            body(i, j, k);
    };
    std::int64_t cells = 0;
    for (int b = 0; b < count; ++b)
      cells += boxes[b].volume();
    if (cells <= kInlineCells) {
      for (int b = 0; b < count; ++b)
        walk(b);
      return;
    }
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, count), walk);
  } else {
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    Kokkos::parallel_for(
        label, Policy(space, count, Kokkos::AUTO),
        KOKKOS_LAMBDA(const typename Policy::member_type& team) {
          const Box box = boxes[team.league_rank()];
          const IntVector n = box.size();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, static_cast<int>(box.volume())),
                               [&](int c) {
                                 body(box.lo().x + c % n.x, box.lo().y + (c / n.x) % n.y,
                                      box.lo().z + c / (n.x * n.y));
                               });
        });
  }
}

}  // namespace tessera
