#pragma once
// Accounts for the control thread's communication work (posting, testing,
// packing, unpacking, combining), and for the part of it done while the
// device computed: the overlap the asynchronous scheduler exists for.

#include "CCA/Components/Schedulers/SchedulerStats.h"
#include "Core/Util/Timer.h"
#include "Core/Util/Trace.h"

#include <cstddef>
#include <cstdint>
#include <functional>

namespace tessera {

// What the exchanges of one execution share: where to count, whether the
// device is busy, and where to trace (null when tracing is off).
struct CommContext {
  SchedulerStats& stats;
  std::function<bool()> deviceBusy;  // empty: no device (host mode)
  TraceTrack* trace = nullptr;

  // `seconds` of communication work, `overlapped` with device work or not;
  // `also`, when given, is charged the same time (packing, say).
  void charge(double seconds, bool overlapped, double* also = nullptr) {
    stats.commWorkSeconds += seconds;
    if (also) *also += seconds;
    if (overlapped) stats.commOverlapSeconds += seconds;
  }
  // A message of `bytes` posted: counted.
  void sent(std::size_t bytes) {
    ++stats.messagesSent;
    stats.bytesSent += static_cast<std::int64_t>(bytes);
  }
  // A message of `bytes` found complete: counted, and traced as a short
  // slice `what` for the arrow `flow` (from its send) to end in.
  void arrived(std::size_t bytes, const char* what, std::int64_t flow) {
    ++stats.messagesReceived;
    stats.bytesReceived += static_cast<std::int64_t>(bytes);
    if (!trace) return;
    const double at = trace->now();
    trace->slice(what, "comm", at, 0.5);
    trace->flow(TraceEvent::Kind::FlowEnd, flow, at);
  }
};

class CommTimer {
 public:
  // `also`, when given, is charged the same time (packing, say): one pair
  // of clock reads for both.
  explicit CommTimer(CommContext& context, double* also = nullptr)
      : m_context(context),
        m_also(also),
        m_overlapped(context.deviceBusy && context.deviceBusy()) {}
  CommTimer(const CommTimer&) = delete;
  CommTimer& operator=(const CommTimer&) = delete;
  ~CommTimer() { m_context.charge(m_timer.seconds(), m_overlapped, m_also); }

 private:
  CommContext& m_context;
  double* m_also;
  bool m_overlapped;
  Timer m_timer;
};

}  // namespace tessera
