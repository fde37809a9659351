#pragma once
// A move-only handle on an MPI communicator. A duplicated communicator is
// freed on destruction (unless MPI is already finalised); a borrowed one
// (MPI_COMM_WORLD) is not.

#include <mpi.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "Core/Util/Error.h"

#define TESSERA_MPI_CHECK(call)                                                         \
  do {                                                                                  \
    const int tessera_mpi_rc_ = (call);                                                 \
    if (tessera_mpi_rc_ != MPI_SUCCESS) {                                               \
      ::tessera::detail::throwError(__FILE__, __LINE__,                                 \
                                    ::tessera::mpiErrorString(#call, tessera_mpi_rc_)); \
    }                                                                                   \
  } while (false)

namespace tessera {

std::string mpiErrorString(const char* call, int code);

class Communicator {
 public:
  // Borrows `comm` without taking ownership.
  static Communicator borrow(MPI_Comm comm);
  // A private duplicate of `comm`, freed when this handle dies.
  static Communicator duplicate(MPI_Comm comm);
  // The ranks of `comm` on this rank's node (MPI_COMM_TYPE_SHARED), freed
  // when this handle dies. Collective over `comm`.
  static Communicator node(MPI_Comm comm);

  Communicator(Communicator&& other) noexcept;
  Communicator& operator=(Communicator&& other) noexcept;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  ~Communicator();

  MPI_Comm get() const { return m_comm; }
  int rank() const { return m_rank; }
  int size() const { return m_size; }
  bool isRoot() const { return m_rank == 0; }

  void barrier() const;
  double allreduceMin(double value) const;
  double allreduceMax(double value) const;
  std::int64_t allreduceSum(std::int64_t value) const;
  std::uint64_t allreduceSumWrapping(std::uint64_t value) const;
  // Gathers one double per rank onto every rank, in rank order.
  std::vector<double> allgather(double value) const;
  // The element-wise sum over all ranks (every rank gives as many values).
  std::vector<double> allreduceSum(const std::vector<double>& values) const;
  // Gathers every rank's values (any number each) onto every rank,
  // concatenated in rank order.
  std::vector<int> allgatherv(const std::vector<int>& values) const;

 private:
  Communicator(MPI_Comm comm, bool owned);
  void release() noexcept;

  MPI_Comm m_comm = MPI_COMM_NULL;
  bool m_owned = false;
  int m_rank = 0;
  int m_size = 1;
};

}  // namespace tessera
