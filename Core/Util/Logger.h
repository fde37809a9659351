#pragma once
// A small rank-aware logger. Rank 0 prints at its threshold; other ranks stay
// quiet unless they are asked to speak (`allRanks`), except for errors.

#include <mutex>
#include <ostream>
#include <sstream>
#include <string>

namespace tessera {

enum class LogLevel { Error = 0, Warning = 1, Info = 2, Debug = 3 };

// Parses "error", "warning", "info" or "debug"; throws InputError otherwise.
LogLevel parseLogLevel(const std::string& name);

class Logger {
 public:
  Logger(int rank, LogLevel threshold, std::ostream& out, bool allRanks = false);

  bool enabled(LogLevel level) const;
  void setThreshold(LogLevel level) { m_threshold = level; }
  LogLevel threshold() const { return m_threshold; }

  template <class... Args>
  void log(LogLevel level, const Args&... args) {
    if (!enabled(level)) return;
    std::ostringstream line;
    (line << ... << args);
    write(level, line.str());
  }
  template <class... Args>
  void error(const Args&... args) {
    log(LogLevel::Error, args...);
  }
  template <class... Args>
  void warning(const Args&... args) {
    log(LogLevel::Warning, args...);
  }
  template <class... Args>
  void info(const Args&... args) {
    log(LogLevel::Info, args...);
  }
  template <class... Args>
  void debug(const Args&... args) {
    log(LogLevel::Debug, args...);
  }

 private:
  void write(LogLevel level, const std::string& text);

  int m_rank;
  LogLevel m_threshold;
  std::ostream* m_out;
  bool m_allRanks;
  std::mutex m_mutex;
};

}  // namespace tessera
