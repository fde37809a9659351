#pragma once
// Kokkos loops over a Box of cells. The body takes global (i, j, k); x is the
// fastest index, matching the memory layout of cell variables.

#include "Core/Grid/Box.h"

#include <Kokkos_Core.hpp>

#include <string>

namespace tessera {

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

// Runs body(i, j, k) for every cell of `box` on `space` (asynchronously: the
// caller fences when it needs the results).
template <class ExecSpace, class Body>
void parallelFor(const std::string& label, const ExecSpace& space, const Box& box,
                 const Body& body) {
  if (box.empty()) return;
  Kokkos::parallel_for(label, cellPolicy(space, box), body);
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
  Kokkos::parallel_reduce(label, cellPolicy(space, box), body, reducer);
}

template <class Body, class Reducer>
void parallelReduce(const std::string& label, const Box& box, const Body& body,
                    const Reducer& reducer) {
  parallelReduce(label, Kokkos::DefaultExecutionSpace(), box, body, reducer);
}

}  // namespace tessera
