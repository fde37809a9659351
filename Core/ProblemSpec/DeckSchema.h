#pragma once
// The sections every Tessera deck shares. A component's own section is not known
// here; the caller adds it: `auto s = coreDeckSchema(); s.section("burgers", burgersSchema());`

#include "Core/ProblemSpec/Schema.h"

namespace tessera {

Schema coreDeckSchema();

}  // namespace tessera
