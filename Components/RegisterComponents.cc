#include "Components/RegisterComponents.h"

#include "Components/Advection/Advection.h"
#include "Components/Burgers/Burgers.h"
#include "Components/Gemm/Gemm.h"
#include "Components/Heat/Heat.h"
#include "Components/Stencil/Stencil.h"
#include "Components/TaskBench/TaskBench.h"

namespace tessera {

void registerComponents(ComponentRegistry& registry) {
  registry.add("advection",
               [](ApplicationContext& context) { return std::make_unique<Advection>(context); });
  registry.add("burgers",
               [](ApplicationContext& context) { return std::make_unique<Burgers>(context); });
  registry.add("gemm", [](ApplicationContext& context) { return std::make_unique<Gemm>(context); });
  registry.add("heat", [](ApplicationContext& context) { return std::make_unique<Heat>(context); });
  registry.add("stencil",
               [](ApplicationContext& context) { return std::make_unique<Stencil>(context); });
  registry.add("taskbench",
               [](ApplicationContext& context) { return std::make_unique<TaskBench>(context); });
}

}  // namespace tessera
