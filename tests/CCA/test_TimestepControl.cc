// TimestepControl: the rules that turn a component's stable timestep into the
// step actually taken, and the deck's `time` section.
#include <gtest/gtest.h>

#include "CCA/Components/SimulationController/TimestepControl.h"
#include "Core/ProblemSpec/DeckError.h"
#include "Core/ProblemSpec/ProblemSpec.h"
#include "Core/Util/Error.h"

#include <cstring>
#include <random>
#include <string>

namespace tessera {
namespace {

TimestepControl makeControl(double maxTime) {
  TimestepControl control;
  control.maxTime = maxTime;
  return control;
}

bool sameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

TEST(TimestepControl, MultiplierScalesTheStableStep) {
  TimestepControl control = makeControl(100.0);
  control.multiplier = 0.5;
  EXPECT_DOUBLE_EQ(control.nextDelT(0.25, 0.0, 3), 0.125);
  control.multiplier = 2.0;
  EXPECT_DOUBLE_EQ(control.nextDelT(0.25, 0.0, 3), 0.5);
}

TEST(TimestepControl, ClampsToDeltMinAndDeltMax) {
  TimestepControl control = makeControl(100.0);
  control.deltMin = 0.01;
  control.deltMax = 0.1;
  EXPECT_DOUBLE_EQ(control.nextDelT(0.001, 0.0, 5), 0.01);
  EXPECT_DOUBLE_EQ(control.nextDelT(1.0, 0.0, 5), 0.1);
  EXPECT_DOUBLE_EQ(control.nextDelT(0.05, 0.0, 5), 0.05);
  // The multiplier applies before the clamp.
  control.multiplier = 10.0;
  EXPECT_DOUBLE_EQ(control.nextDelT(0.05, 0.0, 5), 0.1);
}

TEST(TimestepControl, DeltInitCapsOnlyTheFirstStep) {
  TimestepControl control = makeControl(100.0);
  control.deltInit = 1e-3;
  EXPECT_DOUBLE_EQ(control.nextDelT(0.5, 0.0, 0), 1e-3);
  EXPECT_DOUBLE_EQ(control.nextDelT(0.5, 1e-3, 1), 0.5);
  // A stable step below delt_init is kept.
  EXPECT_DOUBLE_EQ(control.nextDelT(1e-4, 0.0, 0), 1e-4);
}

TEST(TimestepControl, NonPositiveStableStepIsAnError) {
  const TimestepControl control = makeControl(1.0);
  EXPECT_THROW(control.nextDelT(0.0, 0.0, 0), Error);
  EXPECT_THROW(control.nextDelT(-1.0, 0.0, 0), Error);
}

TEST(TimestepControl, LastStepIsShortenedToLandOnMaxTime) {
  const TimestepControl control = makeControl(1.0);
  const double delT = control.nextDelT(0.3, 0.8, 7);
  EXPECT_DOUBLE_EQ(delT, 0.2);
  EXPECT_TRUE(sameBits(control.advance(0.8, delT), 1.0));
  EXPECT_TRUE(control.finished(control.advance(0.8, delT), 8));
}

// time + (max_time - time) can round below max_time; the run must still end
// on max_time to the bit, after exactly one shortened step.
TEST(TimestepControl, AdvanceReturnsMaxTimeBitExactly) {
  std::mt19937_64 random(12345);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  int checked = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const double maxTime = 10.0 * uniform(random) + 1e-3;
    const double time = maxTime * uniform(random);
    if (!(time < maxTime)) continue;
    const TimestepControl control = makeControl(maxTime);
    const double delT = control.nextDelT(2.0 * maxTime, time, 1);
    const double next = control.advance(time, delT);
    ASSERT_TRUE(sameBits(next, maxTime)) << "time " << time << " + delT " << delT << " gave "
                                         << next << ", not max_time " << maxTime;
    ASSERT_TRUE(control.finished(next, 2));
    ++checked;
  }
  EXPECT_GT(checked, 19000);
}

TEST(TimestepControl, StepsAccumulateToMaxTime) {
  const TimestepControl control = makeControl(1.0);
  double time = 0.0;
  int steps = 0;
  while (!control.finished(time, steps) && steps < 100) {
    time = control.advance(time, control.nextDelT(0.3, time, steps));
    ++steps;
  }
  // 0.3, 0.6, 0.8999999999999999, then a shortened step to 1.
  EXPECT_TRUE(sameBits(time, 1.0));
  EXPECT_EQ(steps, 4);
}

TEST(TimestepControl, MaxTimestepsEndsTheRun) {
  TimestepControl control = makeControl(100.0);
  EXPECT_FALSE(control.finished(0.0, 1000000));
  control.maxTimesteps = 3;
  EXPECT_FALSE(control.finished(1.0, 2));
  EXPECT_TRUE(control.finished(1.0, 3));
  EXPECT_TRUE(control.finished(100.0, 0));
}

TEST(TimestepControl, FromDeckReadsEveryKey) {
  const ProblemSpec deck = ProblemSpec::fromString(
      "init_time: 0.5\nmax_time: 2.0\nmax_timesteps: 40\ndelt_min: 1e-6\ndelt_max: 0.1\n"
      "delt_init: 1e-3\ntimestep_multiplier: 0.8\n");
  const TimestepControl control = TimestepControl::fromDeck(deck);
  EXPECT_EQ(control.initTime, 0.5);
  EXPECT_EQ(control.maxTime, 2.0);
  ASSERT_TRUE(control.maxTimesteps.has_value());
  EXPECT_EQ(*control.maxTimesteps, 40);
  EXPECT_EQ(control.deltMin, 1e-6);
  EXPECT_EQ(control.deltMax, 0.1);
  ASSERT_TRUE(control.deltInit.has_value());
  EXPECT_EQ(*control.deltInit, 1e-3);
  EXPECT_EQ(control.multiplier, 0.8);
}

TEST(TimestepControl, FromDeckDefaults) {
  const TimestepControl control =
      TimestepControl::fromDeck(ProblemSpec::fromString("max_time: 3\n"));
  EXPECT_EQ(control.initTime, 0.0);
  EXPECT_EQ(control.maxTime, 3.0);
  EXPECT_FALSE(control.maxTimesteps.has_value());
  EXPECT_FALSE(control.deltInit.has_value());
  EXPECT_EQ(control.multiplier, 1.0);
}

TEST(TimestepControl, FromDeckRejectsMaxTimeBeforeInitTime) {
  const ProblemSpec deck = ProblemSpec::fromString("init_time: 1.0\nmax_time: 0.5\n", "time.yaml");
  try {
    TimestepControl::fromDeck(deck);
    FAIL() << "max_time < init_time was accepted";
  } catch (const DeckError& e) {
    EXPECT_EQ(e.keyPath(), "max_time");
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("time.yaml"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("init_time"), std::string::npos) << e.what();
  }
}

TEST(TimestepControl, FromDeckRejectsDeltMaxBelowDeltMin) {
  const ProblemSpec deck = ProblemSpec::fromString("max_time: 1\ndelt_min: 0.1\ndelt_max: 0.01\n");
  try {
    TimestepControl::fromDeck(deck);
    FAIL() << "delt_max < delt_min was accepted";
  } catch (const DeckError& e) {
    EXPECT_EQ(e.keyPath(), "delt_max");
    EXPECT_NE(e.message().find("delt_min"), std::string::npos) << e.what();
  }
}

TEST(TimestepControl, FromDeckNeedsMaxTime) {
  EXPECT_THROW(TimestepControl::fromDeck(ProblemSpec::fromString("init_time: 0\n")), InputError);
}

}  // namespace
}  // namespace tessera
