#include "CCA/Components/Schedulers/SubstepWarehouse.h"

#include "Core/Grid/Variables/ReductionVariable.h"
#include "Core/Util/Error.h"

#include <cstring>

namespace tessera {

void SubstepWarehouse::putReductionContribution(const VarLabel* label, int patchId,
                                                const std::byte* value) {
  const auto [dw, l] = target(label);
  if (label != m_renaming.scaled) {
    dw.putReductionContribution(l, patchId, value);
    return;
  }
  TESSERA_REQUIRE_THROWS(label->type() == typeid(MinVariable<double>),
                         "the stable timestep '" << label->name()
                                                 << "' must be a MinVariable<double> to be "
                                                    "scaled to the coarse step");
  double step = 0.0;
  std::memcpy(&step, value, sizeof step);
  step *= m_renaming.scale;
  std::byte scaled[sizeof step];
  std::memcpy(scaled, &step, sizeof step);
  dw.putReductionContribution(l, patchId, scaled);
}

}  // namespace tessera
