#pragma once
// Ranks agree on the outcome of a step they all take.
//
// A rank that throws between two collective calls leaves the others waiting
// in the next one. So every step that can fail on some ranks only (a write,
// a read, a file opened on rank 0) is followed by an agreement: an allreduce
// of an error flag, then the lowest failing rank's message is broadcast and
// every rank throws the same error, marked agreedByAllRanks(). The ranks
// then unwind together and the run ends with one message and exit code.
//
//   agreeOn(comm, [&] { file.close(); });           // throws everywhere or nowhere
//   const auto n = agreeOn(comm, [&] { return parse(); });

#include "Core/Parallel/Communicator.h"

#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

namespace tessera {

// Every rank calls this with its own outcome (nullptr: success). Returns on
// every rank if all succeeded; otherwise throws on every rank an error with
// the lowest failing rank's message, an InputError if that rank's was one.
void settleOutcome(const Communicator& comm, std::exception_ptr localFailure);

template <class Step>
auto agreeOn(const Communicator& comm, Step&& step) -> decltype(step()) {
  using Result = decltype(step());
  std::exception_ptr failure;
  if constexpr (std::is_void_v<Result>) {
    try {
      std::forward<Step>(step)();
    } catch (...) {
      failure = std::current_exception();
    }
    settleOutcome(comm, failure);
  } else {
    std::optional<Result> result;
    try {
      result.emplace(std::forward<Step>(step)());
    } catch (...) {
      failure = std::current_exception();
    }
    settleOutcome(comm, failure);
    return std::move(*result);
  }
}

}  // namespace tessera
