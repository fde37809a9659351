#pragma once
// Option checks for the command-line tools whose messages say what is
// wanted ("must be at least 1"), where CLI11's NonNegativeNumber and
// PositiveNumber print a range up to 1.8e308.

#include <CLI/CLI.hpp>

#include <string>

namespace tessera {

inline CLI::Validator atLeast(double minimum, const std::string& what) {
  return CLI::Validator(
      [minimum, what](std::string& text) -> std::string {
        double value = 0.0;
        try {
          std::size_t used = 0;
          value = std::stod(text, &used);
          if (used != text.size()) return "'" + text + "' is not a number";
        } catch (const std::exception&) {
          return "'" + text + "' is not a number";
        }
        return value < minimum ? "must be " + what + ", not " + text : std::string();
      },
      what);
}

inline const CLI::Validator kNonNegative = atLeast(0.0, "zero or more");
inline const CLI::Validator kPositive = atLeast(1.0, "at least 1");

}  // namespace tessera
