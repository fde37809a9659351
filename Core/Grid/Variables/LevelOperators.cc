#include "Core/Grid/Variables/LevelOperators.h"

namespace tessera {

// The one instantiation of each host operator (see the header's extern declarations).
TESSERA_HOST_LEVEL_OPERATORS(, double)
TESSERA_HOST_LEVEL_OPERATORS(, float)
TESSERA_HOST_LEVEL_OPERATORS(, int)
TESSERA_HOST_LEVEL_OPERATORS(, std::int64_t)

}  // namespace tessera
