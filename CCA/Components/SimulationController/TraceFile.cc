#include "CCA/Components/SimulationController/TraceFile.h"

#include "Core/Parallel/Agreement.h"
#include "Core/Util/Error.h"

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace tessera {

namespace {

constexpr int kMainThread = 0;
constexpr int kControlThread = 1;

nlohmann::json metadata(const char* what, int rank, int thread, const std::string& name) {
  nlohmann::json event = {{"name", what}, {"ph", "M"}, {"pid", rank}, {"args", {{"name", name}}}};
  if (thread >= 0) event["tid"] = thread;
  return event;
}

void appendTrack(nlohmann::json& events, const TraceTrack& track, int rank, int thread) {
  for (const TraceEvent& e : track.events()) {
    nlohmann::json event = {{"name", e.name}, {"cat", e.category}, {"ts", e.startMicros},
                            {"pid", rank},    {"tid", thread}};
    switch (e.kind) {
      case TraceEvent::Kind::Slice:
        event["ph"] = "X";
        event["dur"] = e.durationMicros;
        event["args"] = {{"step", e.step}};
        if (e.id >= 0) event["args"]["id"] = e.id;
        break;
      case TraceEvent::Kind::FlowStart:
        event["ph"] = "s";
        event["id"] = e.id;
        break;
      case TraceEvent::Kind::FlowEnd:
        // Bound to the slice that encloses it ("message arrived").
        event["ph"] = "f";
        event["bp"] = "e";
        event["id"] = e.id;
        break;
    }
    events.push_back(std::move(event));
  }
}

}  // namespace

nlohmann::json traceEvents(const Trace& trace, int rank) {
  nlohmann::json events = nlohmann::json::array();
  events.push_back(metadata("process_name", rank, -1, "rank " + std::to_string(rank)));
  events.push_back(metadata("process_sort_index", rank, -1, std::to_string(rank)));
  events.push_back(metadata("thread_name", rank, kMainThread, "main (device)"));
  events.push_back(metadata("thread_name", rank, kControlThread, "control"));
  appendTrack(events, trace.main(), rank, kMainThread);
  appendTrack(events, trace.control(), rank, kControlThread);
  return events;
}

TraceFile::TraceFile(const std::string& path, const Communicator& comm)
    : m_path(path), m_comm(comm) {
  agreeOn(comm, [&] {
    if (!comm.isRoot()) return;
    m_out.open(path);
    if (!m_out) throw InputError("cannot write the trace to '" + path + "'");
  });
}

void TraceFile::write(const Trace& trace, const nlohmann::json& graph) {
  const nlohmann::json mine = {{"events", traceEvents(trace, m_comm.rank())}, {"graph", graph}};
  const std::string text = mine.dump();
  const int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<std::size_t>(m_comm.size()));
  TESSERA_MPI_CHECK(
      MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, m_comm.get()));
  std::vector<int> offsets(lengths.size(), 0);
  std::int64_t total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = static_cast<int>(total);
    total += lengths[r];
  }
  agreeOn(m_comm, [&] {
    if (m_comm.isRoot() && total > INT32_MAX)
      throw Error("the trace (" + std::to_string(total) + " bytes) is too large to gather");
  });
  std::vector<char> all(m_comm.isRoot() ? static_cast<std::size_t>(total) : 0);
  TESSERA_MPI_CHECK(MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(),
                                offsets.data(), MPI_CHAR, 0, m_comm.get()));
  if (!m_comm.isRoot()) return;
  nlohmann::json file = {{"traceEvents", nlohmann::json::array()},
                         {"displayTimeUnit", "ms"},
                         {"otherData", {{"ranks", m_comm.size()}, {"graphs", nlohmann::json::array()}}}};
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    nlohmann::json part = nlohmann::json::parse(all.begin() + offsets[r],
                                                all.begin() + offsets[r] + lengths[r]);
    for (auto& event : part["events"])
      file["traceEvents"].push_back(std::move(event));
    file["otherData"]["graphs"].push_back(std::move(part["graph"]));
  }
  m_out << file.dump() << '\n';
  m_out.close();
  // Rank 0 alone writes; the run ends right after, so it may fail alone.
  if (!m_out) throw Error("could not finish writing the trace to '" + m_path + "'");
}

}  // namespace tessera
