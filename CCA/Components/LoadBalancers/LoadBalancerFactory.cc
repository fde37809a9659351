#include "CCA/Components/LoadBalancers/LoadBalancerFactory.h"

#include "CCA/Components/LoadBalancers/RoundRobinLoadBalancer.h"
#include "CCA/Components/LoadBalancers/SFCLoadBalancer.h"
#include "Core/Util/Error.h"

namespace tessera {

std::unique_ptr<LoadBalancer> makeLoadBalancer(const std::string& type, const std::string& curve) {
  const Curve parsedCurve = parseCurve(curve);
  if (type == "sfc") return std::make_unique<SFCLoadBalancer>(parsedCurve);
  if (type == "round_robin") return std::make_unique<RoundRobinLoadBalancer>();
  throw InputError("unknown load balancer '" + type + "' (choices: sfc, round_robin)");
}

}  // namespace tessera
