#pragma once
// Maps the deck's `component.name` to a factory of Application objects.
// The executable fills it (see Components/RegisterComponents.h), so the
// runtime never depends on a concrete component.

#include "CCA/Ports/Application.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tessera {

class ComponentRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Application>(ApplicationContext&)>;

  void add(const std::string& name, Factory factory);
  bool contains(const std::string& name) const { return m_factories.count(name) != 0; }
  std::vector<std::string> names() const;
  // Throws InputError listing the known components when `name` is unknown.
  std::unique_ptr<Application> create(const std::string& name, ApplicationContext& context) const;

 private:
  std::map<std::string, Factory> m_factories;
};

}  // namespace tessera
