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

#include <optional>
#include <string>

namespace tessera {

// The reason OPERATION on `path` fails on `rank` if the environment asks
// for that fault, else nothing.
std::optional<std::string> injectedIoFault(const char* operation, const std::string& path,
                                           int rank);

// Throws an Error naming the path if the environment asks for this fault.
void injectIoFault(const char* operation, const std::string& path, int rank);

}  // namespace tessera
