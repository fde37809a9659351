#pragma once
// One header of checks (after Parthenon's error_checking.hpp):
//   TESSERA_REQUIRE(cond, msg)        aborts; usable inside kernels.
//   TESSERA_REQUIRE_THROWS(cond, msg) throws tessera::Error with file and line (host only).
//   TESSERA_DEBUG_REQUIRE(cond, msg)  like TESSERA_REQUIRE, compiled out in release builds.
//   TESSERA_FAIL(msg)                 throws tessera::Error unconditionally.

#include <Kokkos_Core.hpp>

#include <sstream>
#include <stdexcept>
#include <string>

namespace tessera {

// A failure of the program or its runtime (exit code 2 in sus).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  // True when every rank of the run raised this error together, after
  // agreeing on it (Core/Parallel/Agreement.h): whoever catches it may end
  // the run normally, reporting it once. Any other error on one rank of
  // several must abort the job, for the others may wait in a collective.
  bool agreedByAllRanks() const { return m_agreed; }
  void markAgreedByAllRanks() { m_agreed = true; }
  // True when this process can no longer end normally: a library holds
  // state it cannot clean up (an HDF5 file a failed write left open, which
  // HDF5 would try to flush again as MPI finalises, and hang or crash).
  // Whoever reports it ends the job with MPI_Abort instead of returning.
  bool endsTheProcess() const { return m_endsTheProcess; }
  void markEndsTheProcess() { m_endsTheProcess = true; }

 private:
  bool m_agreed = false;
  bool m_endsTheProcess = false;
};

// A failure caused by what the user gave us: a deck, an option, an archive
// (exit code 1 in sus).
class InputError : public Error {
 public:
  using Error::Error;
};

namespace detail {
// Throws `message` as an E, with where it was raised appended.
template <class E = Error>
[[noreturn]] void throwError(const char* file, int line, const std::string& message) {
  std::ostringstream out;
  out << message << " [" << file << ":" << line << "]";
  throw E(out.str());
}
}  // namespace detail

}  // namespace tessera

#define TESSERA_REQUIRE(cond, msg)                                                     \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      Kokkos::abort("Tessera: requirement failed: " #cond ": " msg " (" __FILE__ ")"); \
    }                                                                                  \
  } while (false)

#define TESSERA_REQUIRE_THROWS(cond, msg)                                            \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      std::ostringstream tessera_require_msg_;                                       \
      tessera_require_msg_ << msg;                                                   \
      ::tessera::detail::throwError(__FILE__, __LINE__, tessera_require_msg_.str()); \
    }                                                                                \
  } while (false)

#define TESSERA_FAIL(msg) TESSERA_REQUIRE_THROWS(false, msg)

#ifdef NDEBUG
#define TESSERA_DEBUG_REQUIRE(cond, msg) \
  do {                                   \
  } while (false)
#else
#define TESSERA_DEBUG_REQUIRE(cond, msg) TESSERA_REQUIRE(cond, msg)
#endif
