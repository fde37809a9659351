#pragma once
// The sections every Tessera deck shares. A component's own section is not known
// here; the caller adds it: `auto s = coreDeckSchema(); s.section("burgers", burgersSchema());`

#include "Core/ProblemSpec/Schema.h"

namespace tessera {

// `gridRequired` false: for components that use no grid (a GEMM), which
// then run on a one-cell grid unless the deck gives one.
Schema coreDeckSchema(bool gridRequired = true);

}  // namespace tessera
