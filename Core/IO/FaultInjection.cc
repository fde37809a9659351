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

InjectedDiskFull::InjectedDiskFull(const std::string& path, int rank) {
  if (!injectedIoFault("full", path, rank)) return;
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  if (sigaction(SIGXFSZ, &ignore, &m_signal) != 0) return;
  if (getrlimit(RLIMIT_FSIZE, &m_limit) != 0) {
    sigaction(SIGXFSZ, &m_signal, nullptr);
    return;
  }
  rlimit full = m_limit;
  full.rlim_cur = kInjectedDiskBytes;
  if (setrlimit(RLIMIT_FSIZE, &full) != 0) {
    sigaction(SIGXFSZ, &m_signal, nullptr);
    return;
  }
  m_active = true;
}

InjectedDiskFull::~InjectedDiskFull() {
  if (!m_active) return;
  setrlimit(RLIMIT_FSIZE, &m_limit);
  sigaction(SIGXFSZ, &m_signal, nullptr);
}

}  // namespace tessera
