# The load balancers' sources, relative to CCA/, for the CCA library to list.
set(TESSERA_LOADBALANCER_SOURCES
  Components/LoadBalancers/SpaceFillingCurve.cc
  Components/LoadBalancers/SFCLoadBalancer.cc
  Components/LoadBalancers/RoundRobinLoadBalancer.cc
  Components/LoadBalancers/LoadBalancerFactory.cc
  Components/LoadBalancers/CostForecaster.cc
  Components/LoadBalancers/Knapsack.cc
)
