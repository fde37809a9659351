#pragma once
// A timeline of one rank's run (sus --trace): what each thread did when.
// Each thread records into its own track, so recording takes no lock; the
// controller gathers the tracks of every rank into one Chrome trace-event
// file after the run (TraceFile.h). Code that may be traced holds a
// `TraceTrack*` that is null when tracing is off: a TraceScope on a null
// track reads no clock and stores nothing, so the cost when off is a branch.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

struct TraceEvent {
  enum class Kind : std::uint8_t { Slice, FlowStart, FlowEnd };
  Kind kind = Kind::Slice;
  std::string name;
  const char* category = "";  // a string literal
  double startMicros = 0.0;   // since the trace's origin
  double durationMicros = 0.0;
  int step = -1;              // the timestep the event belongs to (-1: none)
  std::int64_t id = -1;       // a slice's detailed task id, or a flow's message id
};

class Trace;

// The events of one thread. Only that thread appends to it.
class TraceTrack {
 public:
  TraceTrack(const Trace& trace, std::string name) : m_trace(trace), m_name(std::move(name)) {}

  const std::string& name() const { return m_name; }
  const std::vector<TraceEvent>& events() const { return m_events; }
  // Microseconds since the trace's origin.
  double now() const;

  void slice(std::string name, const char* category, double startMicros, double durationMicros,
             std::int64_t id = -1);
  // A message leaving (FlowStart) or arriving (FlowEnd): an arrow in the
  // viewer, bound to the slice that encloses `atMicros` on this track.
  void flow(TraceEvent::Kind kind, std::int64_t id, double atMicros);

 private:
  const Trace& m_trace;
  std::string m_name;
  std::vector<TraceEvent> m_events;
};

// One rank's tracks: `main` (the thread that runs sus and the device's
// kernels) and `control` (the async and sync schedulers' control thread).
class Trace {
 public:
  // Times are taken from `origin`: the same moment on every rank, so that
  // the ranks' timelines line up (see SimulationController).
  explicit Trace(std::chrono::steady_clock::time_point origin = std::chrono::steady_clock::now());
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  TraceTrack& main() { return m_main; }
  TraceTrack& control() { return m_control; }
  const TraceTrack& main() const { return m_main; }
  const TraceTrack& control() const { return m_control; }

  // The timestep later events belong to (set by the controller between steps).
  void setStep(int step) { m_step = step; }
  int step() const { return m_step; }
  double micros(std::chrono::steady_clock::time_point at) const {
    return std::chrono::duration<double, std::micro>(at - m_origin).count();
  }

 private:
  std::chrono::steady_clock::time_point m_origin;
  int m_step = -1;
  TraceTrack m_main;
  TraceTrack m_control;
};

// Records its lifetime as a slice on `track` (nothing when track is null).
class TraceScope {
 public:
  TraceScope(TraceTrack* track, const char* name, const char* category, std::int64_t id = -1)
      : m_track(track), m_name(name), m_category(category), m_id(id),
        m_start(track ? track->now() : 0.0) {}
  TraceScope(TraceTrack* track, const std::string& name, const char* category,
             std::int64_t id = -1)
      : TraceScope(track, name.c_str(), category, id) {}
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;
  ~TraceScope() {
    if (m_track) m_track->slice(m_name, m_category, m_start, m_track->now() - m_start, m_id);
  }

 private:
  TraceTrack* m_track;
  const char* m_name;  // outlives the scope (a literal or the caller's string)
  const char* m_category;
  std::int64_t m_id;
  double m_start;
};

}  // namespace tessera
