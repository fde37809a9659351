#include "CCA/Components/Parent/ComponentRegistry.h"

#include "Core/Util/Error.h"

#include <sstream>

namespace tessera {

void ComponentRegistry::add(const std::string& name, Factory factory) {
  TESSERA_REQUIRE_THROWS(!contains(name), "component '" << name << "' is registered twice");
  m_factories.emplace(name, std::move(factory));
}

std::vector<std::string> ComponentRegistry::names() const {
  std::vector<std::string> all;
  for (const auto& entry : m_factories)
    all.push_back(entry.first);
  return all;
}

std::unique_ptr<Application> ComponentRegistry::create(const std::string& name,
                                                       ApplicationContext& context) const {
  auto found = m_factories.find(name);
  if (found == m_factories.end()) {
    std::ostringstream known;
    for (const auto& entry : m_factories)
      known << (known.tellp() > 0 ? ", " : "") << entry.first;
    throw InputError("unknown component '" + name + "' (known components: " + known.str() + ")");
  }
  return found->second(context);
}

}  // namespace tessera
