#pragma once
// A test-only fault injector for the I/O layer, so that tests can exercise
// a full disk or an unreadable block on one rank without mounting anything.
//
//   TESSERA_TEST_IO_FAULT=OPERATION:FILE:RANK[,OPERATION:FILE:RANK...]
//
// makes OPERATION (create, write, close, sync (the flush of a finished file)
// or read) on any file whose path
// contains FILE fail on rank RANK ("*" for every rank), after the real call
// has been made, as a failing disk would. Unset in normal runs.
//
// OPERATION `full` fills the disk instead: while the file is written, the
// process may not grow any file past a few KiB (see InjectedDiskFull), so
// the library's own writes fail inside its calls, as on a full disk.

#include <signal.h>
#include <sys/resource.h>

#include <optional>
#include <string>

namespace tessera {

// The reason OPERATION on `path` fails on `rank` if the environment asks
// for that fault, else nothing.
std::optional<std::string> injectedIoFault(const char* operation, const std::string& path,
                                           int rank);

// Throws an Error naming the path if the environment asks for this fault.
void injectIoFault(const char* operation, const std::string& path, int rank);

// For its lifetime, if the environment asks for `full` on `path` and
// `rank`: files of this process cannot grow past kInjectedDiskBytes
// (RLIMIT_FSIZE; SIGXFSZ ignored, so a write fails with EFBIG rather than
// killing the process). Restores both at the end.
class InjectedDiskFull {
 public:
  static constexpr rlim_t kInjectedDiskBytes = 8 * 1024;
  InjectedDiskFull(const std::string& path, int rank);
  InjectedDiskFull(const InjectedDiskFull&) = delete;
  InjectedDiskFull& operator=(const InjectedDiskFull&) = delete;
  ~InjectedDiskFull();

 private:
  bool m_active = false;
  rlimit m_limit{};
  struct sigaction m_signal {};
};

}  // namespace tessera
