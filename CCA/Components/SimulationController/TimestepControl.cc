#include "CCA/Components/SimulationController/TimestepControl.h"

#include "Core/ProblemSpec/ProblemSpec.h"
#include "Core/Util/Error.h"

#include <algorithm>

namespace tessera {

TimestepControl TimestepControl::fromDeck(const ProblemSpec& time) {
  TimestepControl control;
  control.initTime = time.get<double>("init_time", 0.0);
  control.maxTime = time.get<double>("max_time");
  if (time.has("max_timesteps")) control.maxTimesteps = time.get<int>("max_timesteps");
  control.deltMin = time.get<double>("delt_min", control.deltMin);
  control.deltMax = time.get<double>("delt_max", control.deltMax);
  if (time.has("delt_init")) control.deltInit = time.get<double>("delt_init");
  control.multiplier = time.get<double>("timestep_multiplier", 1.0);
  if (control.maxTime < control.initTime) {
    throw time.errorAtValue("max_time", "max_time must not be before init_time");
  }
  if (control.deltMax < control.deltMin) {
    throw time.errorAtValue("delt_max", "delt_max must not be below delt_min");
  }
  return control;
}

double TimestepControl::nextDelT(double stable, double time, int stepsTaken) const {
  TESSERA_REQUIRE_THROWS(
      stable > 0.0, "the component's stable timestep is " << stable << "; it must be positive");
  double delT = stable * multiplier;
  if (stepsTaken == 0 && deltInit) delT = std::min(delT, *deltInit);
  delT = std::clamp(delT, deltMin, deltMax);
  if (time + delT >= maxTime) delT = maxTime - time;
  return delT;
}

double TimestepControl::advance(double time, double delT) const {
  // time + (maxTime - time) can round below maxTime: the step nextDelT
  // shortened to reach maxTime must still land on it exactly.
  const double next = time + delT;
  return (next >= maxTime || delT >= maxTime - time) ? maxTime : next;
}

bool TimestepControl::finished(double time, int stepsTaken) const {
  return time >= maxTime || (maxTimesteps && stepsTaken >= *maxTimesteps);
}

}  // namespace tessera
