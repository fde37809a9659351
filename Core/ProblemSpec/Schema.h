#pragma once
// The keys a deck section may hold, their types and limits, and a validator that
// reports every problem with the place to fix it. Declaring the schema as data keeps
// validation, "did you mean" hints and generated documentation in step.

#include "Core/ProblemSpec/DeckError.h"
#include "Core/ProblemSpec/ProblemSpec.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace tessera {

enum class ValueType {
  Int,
  Double,
  Bool,
  String,
  IntVector,
  Vector3,
  BoolVector3,
  StringList,
  DoubleList,  // a list of numbers (bounds apply to each)
  Section,     // a nested map with its own Schema
  SectionMap,  // a map of named sections, each with the same Schema
  AnySection,  // a map whose contents another layer validates
  TileSpec,    // the string "auto" or a list of 3 integers
  NameOrTriple,  // a name (oneOf, when given) or a list of 3 integers
};

// "an integer", "a list of 3 numbers", ...: what the user should have written.
const char* describeType(ValueType type);

class Schema {
 public:
  explicit Schema(std::string description = {});
  Schema(const Schema& other);
  Schema(Schema&& other) noexcept;
  Schema& operator=(const Schema& other);
  Schema& operator=(Schema&& other) noexcept;
  ~Schema();

  // Declaring a key twice, or a limit on an undeclared key, is a programming error
  // (tessera::Error), not a deck error.
  Schema& required(const std::string& key, ValueType type, std::string help = {});
  Schema& optional(const std::string& key, ValueType type, std::string help = {});
  // lo <= value <= hi; for vector types every component.
  Schema& range(const std::string& key, double lo,
                double hi = std::numeric_limits<double>::infinity());
  // lo < value <= hi: for quantities that must be strictly positive.
  Schema& greaterThan(const std::string& key, double lo,
                      double hi = std::numeric_limits<double>::infinity());
  // A String (or every item of a StringList) must be one of `allowed`.
  Schema& oneOf(const std::string& key, std::vector<std::string> allowed);
  Schema& section(const std::string& key, Schema child, bool required = false);
  Schema& anySection(const std::string& key, bool required = false);
  // A map whose every key names a section that `child` validates (named
  // entries rather than a list, so that `--set key.name.field=...` reaches them).
  Schema& sectionMap(const std::string& key, Schema child, bool required = false);

  bool hasKey(const std::string& key) const;
  // Declared keys in declaration order.
  std::vector<std::string> keys() const;
  const std::string& description() const { return m_description; }
  // The schema of a nested section, to extend it after the fact:
  // `schema.child("scheduler").optional("foo", ValueType::Int)`.
  Schema& child(const std::string& key);

  // Throws the first problem in file order.
  void validate(const ProblemSpec& spec) const;
  // Every problem, in file order (problems from command-line overrides last).
  std::vector<DeckError> collectErrors(const ProblemSpec& spec) const;

 private:
  struct Entry;
  struct Bounds;

  Entry& declare(const std::string& key, ValueType type, bool required, std::string help);
  Entry& entry(const std::string& key, const char* caller);
  const Entry* find(const std::string& key) const;
  void check(const ProblemSpec& spec, std::vector<DeckError>& errors) const;
  void checkValue(const ProblemSpec& spec, const Entry& entry,
                  std::vector<DeckError>& errors) const;
  // The declared key closest to a misspelt one, if any is close enough.
  std::optional<std::string> suggestion(const std::string& key) const;
  std::string unknownKeyMessage(const std::string& key, const std::string& sectionPath) const;

  std::string m_description;
  std::vector<Entry> m_entries;
};

}  // namespace tessera
