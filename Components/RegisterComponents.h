#pragma once
// Adds every component this build knows to a registry.

#include "CCA/Components/Parent/ComponentRegistry.h"

namespace tessera {

void registerComponents(ComponentRegistry& registry);

}  // namespace tessera
