#pragma once
// sus --trace FILE: every rank's Trace gathered into one Chrome trace-event
// JSON file (chrome://tracing, https://ui.perfetto.dev), one process per
// rank, one track per thread, messages as flow arrows from the sender's
// "pack + send" to the receiver's "message arrived". See docs/trace.md.

#include "Core/Parallel/Communicator.h"
#include "Core/Util/Trace.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace tessera {

class TraceFile {
 public:
  // Collective. Rank 0 opens `path` now, so that an unwritable path stops
  // every rank before the run (InputError on all of them) instead of after it.
  TraceFile(const std::string& path, const Communicator& comm);

  // Collective: gathers every rank's events and `graph` (what this rank's
  // timestep graph holds, for readers that check the trace against it) and
  // rank 0 writes the file.
  void write(const Trace& trace, const nlohmann::json& graph);

 private:
  std::string m_path;
  const Communicator& m_comm;
  std::ofstream m_out;  // rank 0 only
};

// One rank's part: metadata naming the process and threads, then its events.
nlohmann::json traceEvents(const Trace& trace, int rank);

}  // namespace tessera
