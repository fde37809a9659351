#include "Components/RegisterComponents.h"

#include "Components/Burgers/Burgers.h"

namespace tessera {

void registerComponents(ComponentRegistry& registry) {
  registry.add("burgers",
               [](ApplicationContext& context) { return std::make_unique<Burgers>(context); });
}

}  // namespace tessera
