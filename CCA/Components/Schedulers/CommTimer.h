#pragma once
// Accounts for the control thread's communication work (posting, testing,
// packing, unpacking, combining), and for the part of it done while the
// device computed: the overlap the asynchronous scheduler exists for.

#include "CCA/Components/Schedulers/SchedulerStats.h"
#include "Core/Util/Timer.h"
#include "Core/Util/Trace.h"

#include <functional>

namespace tessera {

// What the exchanges of one execution share: where to count, whether the
// device is busy, and where to trace (null when tracing is off).
struct CommContext {
  SchedulerStats& stats;
  std::function<bool()> deviceBusy;  // empty: no device (host mode)
  TraceTrack* trace = nullptr;
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
  ~CommTimer() {
    const double elapsed = m_timer.seconds();
    m_context.stats.commWorkSeconds += elapsed;
    if (m_also) *m_also += elapsed;
    if (m_overlapped) m_context.stats.commOverlapSeconds += elapsed;
  }

 private:
  CommContext& m_context;
  double* m_also;
  bool m_overlapped;
  Timer m_timer;
};

}  // namespace tessera
