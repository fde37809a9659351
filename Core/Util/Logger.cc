#include "Core/Util/Logger.h"

#include "Core/Util/Error.h"

namespace tessera {

LogLevel parseLogLevel(const std::string& name) {
  if (name == "error") return LogLevel::Error;
  if (name == "warning") return LogLevel::Warning;
  if (name == "info") return LogLevel::Info;
  if (name == "debug") return LogLevel::Debug;
  throw InputError("unknown log level '" + name + "' (use error, warning, info or debug)");
}

Logger::Logger(int rank, LogLevel threshold, std::ostream& out, bool allRanks)
    : m_rank(rank), m_threshold(threshold), m_out(&out), m_allRanks(allRanks) {}

bool Logger::enabled(LogLevel level) const {
  if (level > m_threshold) return false;
  return m_rank == 0 || m_allRanks || level == LogLevel::Error;
}

void Logger::write(LogLevel level, const std::string& text) {
  static constexpr const char* tags[] = {"ERROR", "WARN", "INFO", "DEBUG"};
  std::lock_guard<std::mutex> lock(m_mutex);
  *m_out << "[" << tags[static_cast<int>(level)];
  if (m_rank != 0 || m_allRanks) *m_out << " r" << m_rank;
  *m_out << "] " << text << '\n';
  m_out->flush();
}

}  // namespace tessera
