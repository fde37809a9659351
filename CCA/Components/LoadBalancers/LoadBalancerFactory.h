#pragma once
// Builds the load balancer an input deck names.

#include "CCA/Ports/LoadBalancer.h"

#include <memory>
#include <string>

namespace tessera {

// `type` is "sfc" or "round_robin"; `curve` ("hilbert" or "morton") selects
// the sfc balancer's curve and is checked for every type, so a typo never
// passes silently. Unknown names are InputErrors listing the choices.
std::unique_ptr<LoadBalancer> makeLoadBalancer(const std::string& type = "sfc",
                                               const std::string& curve = "hilbert");

}  // namespace tessera
