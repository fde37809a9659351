#include "Core/Parallel/Agreement.h"

#include <array>
#include <string>
#include <vector>

namespace tessera {

namespace {

enum class FailureKind : int { Runtime = 0, Input = 1 };

struct LocalFailure {
  FailureKind kind = FailureKind::Runtime;
  std::string message;
};

LocalFailure describe(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const InputError& e) {
    return {FailureKind::Input, e.what()};
  } catch (const std::exception& e) {
    return {FailureKind::Runtime, e.what()};
  } catch (...) {
    return {FailureKind::Runtime, "unknown exception"};
  }
}

}  // namespace

void settleOutcome(const Communicator& comm, std::exception_ptr localFailure) {
  // The lowest failing rank tells the others what went wrong; the number of
  // failing ranks says whether the failure was local to some of them.
  const int size = comm.size();
  const int mine = localFailure ? comm.rank() : size;
  int origin = size;
  TESSERA_MPI_CHECK(MPI_Allreduce(&mine, &origin, 1, MPI_INT, MPI_MIN, comm.get()));
  if (origin == size) return;
  const int failedHere = localFailure ? 1 : 0;
  int failedRanks = 0;
  TESSERA_MPI_CHECK(MPI_Allreduce(&failedHere, &failedRanks, 1, MPI_INT, MPI_SUM, comm.get()));

  LocalFailure failure;
  if (comm.rank() == origin) failure = describe(localFailure);
  std::array<long long, 2> header{static_cast<long long>(failure.kind),
                                  static_cast<long long>(failure.message.size())};
  TESSERA_MPI_CHECK(MPI_Bcast(header.data(), 2, MPI_LONG_LONG, origin, comm.get()));
  std::vector<char> text(static_cast<std::size_t>(header[1]));
  if (comm.rank() == origin) text.assign(failure.message.begin(), failure.message.end());
  if (!text.empty()) {
    TESSERA_MPI_CHECK(
        MPI_Bcast(text.data(), static_cast<int>(text.size()), MPI_CHAR, origin, comm.get()));
  }
  std::string message(text.begin(), text.end());
  // Where only some ranks failed, say which: the others only wait for it.
  if (size > 1 && failedRanks < size) message = "on rank " + std::to_string(origin) + ": " + message;
  if (static_cast<FailureKind>(header[0]) == FailureKind::Input) {
    InputError agreed(message);
    agreed.markAgreedByAllRanks();
    throw agreed;
  }
  Error agreed(message);
  agreed.markAgreedByAllRanks();
  throw agreed;
}

}  // namespace tessera
