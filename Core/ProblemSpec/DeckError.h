#pragma once
// An error in an input deck, located precisely enough for an editor to jump to:
//   burgers.yaml:12:5: grid.level.patches: expected a list of 3 integers, got 'abc'
// Line and column are 1-based; 0 means the problem has no place in the file (for
// example a value that came from a command-line override).

#include "Core/Util/Error.h"

#include <string>
#include <utility>

namespace tessera {

class DeckError : public InputError {
 public:
  DeckError(std::string file, int line, int column, std::string keyPath, std::string message)
      : InputError(format(file, line, column, keyPath, message)),
        m_file(std::move(file)),
        m_line(line),
        m_column(column),
        m_keyPath(std::move(keyPath)),
        m_message(std::move(message)) {}

  const std::string& file() const { return m_file; }
  int line() const { return m_line; }
  int column() const { return m_column; }
  // Dotted path of the offending key, e.g. "grid.level.patches"; "" for the whole deck.
  const std::string& keyPath() const { return m_keyPath; }
  // The description alone, without location, for callers that lay out their own report.
  const std::string& message() const { return m_message; }

 private:
  static std::string format(const std::string& file, int line, int column,
                            const std::string& keyPath, const std::string& message) {
    std::string out = file;
    if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
    out += ": ";
    if (!keyPath.empty()) out += keyPath + ": ";
    return out + message;
  }

  std::string m_file;
  int m_line;
  int m_column;
  std::string m_keyPath;
  std::string m_message;
};

}  // namespace tessera
