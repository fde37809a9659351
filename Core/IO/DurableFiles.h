#pragma once
// Files that survive a power loss once reported written: the data is
// flushed (fsync) before the rename that publishes it, and the directory
// after it, so that the new name is on the disk too. Every descriptor is
// closed on every path, failures included.
//
// The test hook TESSERA_TEST_IO_FAULT (FaultInjection.h) can fail `sync`
// (a file's flush) and `dirsync` (the flush of the directory a file was
// published in) on `rank`.

#include <string>

namespace tessera {

// Writes `text` to path.tmp, flushes it, renames it to `path` and flushes
// the directory; throws an Error naming the file and the reason, leaving
// no temporary behind.
void writeFileAtomically(const std::string& path, const std::string& text, int rank = 0);

// Flushes a written file's data to the disk.
void flushFile(const std::string& path, int rank = 0);

// Renames `from` to `to` (same file system) and flushes the directory that
// holds `to`.
void renameDurably(const std::string& from, const std::string& to, int rank = 0);

}  // namespace tessera
