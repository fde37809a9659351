// Trace: slices and flows land on the track they are recorded on, with the
// trace's current step; a null track records nothing.

#include "Core/Util/Trace.h"

#include <gtest/gtest.h>

#include <thread>

namespace tessera {
namespace {

TEST(Trace, ScopesRecordNestedSlicesWithTheStep) {
  Trace trace;
  trace.setStep(7);
  {
    const TraceScope outer(&trace.main(), "outer", "task", 3);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const std::string name = "inner";
    const TraceScope inner(&trace.main(), name, "kernel");
  }
  const auto& events = trace.main().events();
  ASSERT_EQ(events.size(), 2u);
  // The inner scope ends first.
  EXPECT_EQ(events[0].name, "inner");
  EXPECT_EQ(events[1].name, "outer");
  EXPECT_STREQ(events[1].category, "task");
  EXPECT_EQ(events[1].id, 3);
  EXPECT_EQ(events[0].id, -1);
  EXPECT_EQ(events[0].step, 7);
  EXPECT_GE(events[1].durationMicros, 2000.0);
  EXPECT_GE(events[0].startMicros, events[1].startMicros);
  EXPECT_LE(events[0].startMicros + events[0].durationMicros,
            events[1].startMicros + events[1].durationMicros);
  EXPECT_TRUE(trace.control().events().empty());
}

TEST(Trace, NullTrackRecordsNothingAndFlowsKeepTheirIds) {
  Trace trace;
  { const TraceScope off(nullptr, "nothing", "task"); }
  EXPECT_TRUE(trace.main().events().empty());
  trace.control().flow(TraceEvent::Kind::FlowStart, 42, 1.5);
  ASSERT_EQ(trace.control().events().size(), 1u);
  EXPECT_EQ(trace.control().events()[0].kind, TraceEvent::Kind::FlowStart);
  EXPECT_EQ(trace.control().events()[0].id, 42);
  EXPECT_EQ(trace.control().events()[0].startMicros, 1.5);
  EXPECT_EQ(trace.control().name(), "control");
}

}  // namespace
}  // namespace tessera
