#include "Core/IO/FaultInjection.h"

#include "Core/Util/Error.h"

#include <cstdlib>
#include <sstream>

namespace tessera {

namespace {

bool matches(const std::string& rule, const char* operation, const std::string& path, int rank) {
  const auto first = rule.find(':');
  const auto last = rule.rfind(':');
  if (first == std::string::npos || first == last) return false;
  const std::string op = rule.substr(0, first);
  const std::string file = rule.substr(first + 1, last - first - 1);
  const std::string who = rule.substr(last + 1);
  return op == operation && path.find(file) != std::string::npos &&
         (who == "*" || who == std::to_string(rank));
}

}  // namespace

std::optional<std::string> injectedIoFault(const char* operation, const std::string& path,
                                           int rank) {
  const char* spec = std::getenv("TESSERA_TEST_IO_FAULT");
  if (spec == nullptr || *spec == '\0') return std::nullopt;
  std::istringstream rules(spec);
  std::string rule;
  while (std::getline(rules, rule, ',')) {
    if (matches(rule, operation, path, rank)) {
      const std::string reason = std::string(operation) == "read" ? "Input/output error"
                                                                  : "No space left on device";
      return reason + " (injected by TESSERA_TEST_IO_FAULT)";
    }
  }
  return std::nullopt;
}

void injectIoFault(const char* operation, const std::string& path, int rank) {
  if (const auto reason = injectedIoFault(operation, path, rank))
    throw Error(std::string(operation) + " of '" + path + "' failed: " + *reason);
}

}  // namespace tessera
