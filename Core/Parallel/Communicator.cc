#include "Core/Parallel/Communicator.h"

#include <utility>

namespace tessera {

std::string mpiErrorString(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  std::ostringstream out;
  out << call << " failed: " << std::string(text, static_cast<std::size_t>(length));
  return out.str();
}

Communicator::Communicator(MPI_Comm comm, bool owned) : m_comm(comm), m_owned(owned) {
  TESSERA_MPI_CHECK(MPI_Comm_rank(m_comm, &m_rank));
  TESSERA_MPI_CHECK(MPI_Comm_size(m_comm, &m_size));
}

Communicator Communicator::borrow(MPI_Comm comm) {
  return Communicator(comm, false);
}

Communicator Communicator::duplicate(MPI_Comm comm) {
  MPI_Comm copy = MPI_COMM_NULL;
  TESSERA_MPI_CHECK(MPI_Comm_dup(comm, &copy));
  return Communicator(copy, true);
}

Communicator Communicator::node(MPI_Comm comm) {
  MPI_Comm shared = MPI_COMM_NULL;
  TESSERA_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared));
  return Communicator(shared, true);
}

Communicator::Communicator(Communicator&& other) noexcept
    : m_comm(std::exchange(other.m_comm, MPI_COMM_NULL)),
      m_owned(std::exchange(other.m_owned, false)),
      m_rank(other.m_rank),
      m_size(other.m_size) {}

Communicator& Communicator::operator=(Communicator&& other) noexcept {
  if (this != &other) {
    release();
    m_comm = std::exchange(other.m_comm, MPI_COMM_NULL);
    m_owned = std::exchange(other.m_owned, false);
    m_rank = other.m_rank;
    m_size = other.m_size;
  }
  return *this;
}

Communicator::~Communicator() {
  release();
}

void Communicator::release() noexcept {
  if (m_owned && m_comm != MPI_COMM_NULL) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&m_comm);
  }
  m_comm = MPI_COMM_NULL;
  m_owned = false;
}

void Communicator::barrier() const {
  TESSERA_MPI_CHECK(MPI_Barrier(m_comm));
}

double Communicator::allreduceMin(double value) const {
  double result = value;
  TESSERA_MPI_CHECK(MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MIN, m_comm));
  return result;
}

double Communicator::allreduceMax(double value) const {
  double result = value;
  TESSERA_MPI_CHECK(MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, m_comm));
  return result;
}

std::int64_t Communicator::allreduceSum(std::int64_t value) const {
  std::int64_t result = value;
  TESSERA_MPI_CHECK(MPI_Allreduce(&value, &result, 1, MPI_INT64_T, MPI_SUM, m_comm));
  return result;
}

std::uint64_t Communicator::allreduceSumWrapping(std::uint64_t value) const {
  // Unsigned addition wraps modulo 2^64 and is associative, so the order of
  // the reduction cannot change the result.
  std::uint64_t result = value;
  TESSERA_MPI_CHECK(MPI_Allreduce(&value, &result, 1, MPI_UINT64_T, MPI_SUM, m_comm));
  return result;
}

std::vector<double> Communicator::allgather(double value) const {
  std::vector<double> all(static_cast<std::size_t>(m_size));
  TESSERA_MPI_CHECK(MPI_Allgather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, m_comm));
  return all;
}

std::vector<double> Communicator::allreduceSum(const std::vector<double>& values) const {
  std::vector<double> sums(values.size(), 0.0);
  TESSERA_MPI_CHECK(MPI_Allreduce(values.data(), sums.data(), static_cast<int>(values.size()),
                                  MPI_DOUBLE, MPI_SUM, m_comm));
  return sums;
}

std::vector<int> Communicator::allgatherv(const std::vector<int>& values) const {
  const int mine = static_cast<int>(values.size());
  std::vector<int> counts(static_cast<std::size_t>(m_size));
  TESSERA_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, m_comm));
  std::vector<int> offsets(counts.size(), 0);
  for (std::size_t r = 1; r < counts.size(); ++r)
    offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<int> all(static_cast<std::size_t>(offsets.back() + counts.back()));
  TESSERA_MPI_CHECK(MPI_Allgatherv(values.data(), mine, MPI_INT, all.data(), counts.data(),
                                   offsets.data(), MPI_INT, m_comm));
  return all;
}

}  // namespace tessera
