#include "Core/Util/Trace.h"

namespace tessera {

double TraceTrack::now() const { return m_trace.micros(std::chrono::steady_clock::now()); }

void TraceTrack::slice(std::string name, const char* category, double startMicros,
                       double durationMicros, std::int64_t id) {
  m_events.push_back({TraceEvent::Kind::Slice, std::move(name), category, startMicros,
                      durationMicros, m_trace.step(), id});
}

void TraceTrack::flow(TraceEvent::Kind kind, std::int64_t id, double atMicros) {
  m_events.push_back({kind, "message", "message", atMicros, 0.0, m_trace.step(), id});
}

Trace::Trace(std::chrono::steady_clock::time_point origin)
    : m_origin(origin), m_main(*this, "main"), m_control(*this, "control") {}

}  // namespace tessera
