#pragma once
// What a task callback uses to run its kernels: Kokkos loops over boxes of
// cells on the runtime's execution space, labelled with the task's name so
// profilers can tell kernels apart.

#include "Core/Grid/Box.h"
#include "Core/Parallel/LoopHelpers.h"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace tessera {

class ExecutionContext {
 public:
  explicit ExecutionContext(std::string label) : m_label(std::move(label)) {}

  const std::string& label() const { return m_label; }

  // body(i, j, k) for every cell of `box`; the runtime fences after the task.
  template <class Body>
  void parallelFor(const Box& box, const Body& body) {
    ++m_kernels;
    m_cells += box.volume();
    tessera::parallelFor(m_label, m_space, box, body);
  }

  // body(i) for begin <= i < end: loops over one axis.
  template <class Body>
  void parallelFor(int begin, int end, const Body& body) {
    if (end <= begin) return;
    ++m_kernels;
    Kokkos::parallel_for(m_label,
                         Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::IndexType<int>>(
                             m_space, begin, end),
                         body);
  }

  // body(i, j, k, accumulator) reduced with a Kokkos reducer; blocks for the result.
  template <class Body, class Reducer>
  void parallelReduce(const Box& box, const Body& body, const Reducer& reducer) {
    ++m_kernels;
    m_cells += box.volume();
    tessera::parallelReduce(m_label, m_space, box, body, reducer);
  }

  void fence() const { m_space.fence(); }
  std::int64_t kernelsLaunched() const { return m_kernels; }
  std::int64_t cellsVisited() const { return m_cells; }

 private:
  std::string m_label;
  Kokkos::DefaultExecutionSpace m_space;
  std::int64_t m_kernels = 0;
  std::int64_t m_cells = 0;
};

}  // namespace tessera
