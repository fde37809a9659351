#include "Core/ProblemSpec/Schema.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

namespace tessera {

struct Schema::Bounds {
  double lo;
  double hi;
  bool loExclusive;

  bool contains(double value) const {
    return (loExclusive ? value > lo : value >= lo) && value <= hi;
  }
  std::string text() const {
    std::ostringstream out;
    if (std::isinf(hi)) {
      out << (loExclusive ? "> " : ">= ") << lo;
    } else if (std::isinf(lo)) {
      out << "<= " << hi;
    } else {
      out << (loExclusive ? "in (" : "in [") << lo << ", " << hi << "]";
    }
    return out.str();
  }
};

struct Schema::Entry {
  std::string key;
  ValueType type;
  bool required;
  std::string help;
  std::optional<Bounds> bounds;
  std::vector<std::string> allowed;
  std::optional<Schema> child;
};

namespace {

// Optimal-string-alignment distance: Levenshtein plus adjacent transpositions,
// the commonest typing slip ("resolutoin").
std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i)
    d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j)
    d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items)
    out += (out.empty() ? "" : ", ") + item;
  return out;
}

template <class T>
std::string toText(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

bool isNumeric(ValueType type) {
  return type == ValueType::Int || type == ValueType::Double || type == ValueType::IntVector ||
         type == ValueType::Vector3 || type == ValueType::TileSpec ||
         type == ValueType::NameOrTriple || type == ValueType::DoubleList;
}

}  // namespace

const char* describeType(ValueType type) {
  switch (type) {
    case ValueType::Int:
      return "an integer";
    case ValueType::Double:
      return "a number";
    case ValueType::Bool:
      return "true or false";
    case ValueType::String:
      return "a string";
    case ValueType::IntVector:
      return "a list of 3 integers";
    case ValueType::Vector3:
      return "a list of 3 numbers";
    case ValueType::BoolVector3:
      return "a list of 3 booleans";
    case ValueType::StringList:
      return "a list of strings";
    case ValueType::DoubleList:
      return "a list of numbers";
    case ValueType::Section:
    case ValueType::AnySection:
      return "a section (a map of keys)";
    case ValueType::SectionMap:
      return "a map of named sections";
    case ValueType::TileSpec:
      return "'auto' or a list of 3 integers";
    case ValueType::NameOrTriple:
      return "a name or a list of 3 integers";
  }
  return "a value";
}

Schema::Schema(std::string description) : m_description(std::move(description)) {}
Schema::Schema(const Schema& other) = default;
Schema::Schema(Schema&& other) noexcept = default;
Schema& Schema::operator=(const Schema& other) = default;
Schema& Schema::operator=(Schema&& other) noexcept = default;
Schema::~Schema() = default;

Schema::Entry& Schema::declare(const std::string& key, ValueType type, bool required,
                               std::string help) {
  if (hasKey(key)) throw Error("Schema: key '" + key + "' is declared twice");
  m_entries.push_back(Entry{key, type, required, std::move(help), std::nullopt, {}, std::nullopt});
  return m_entries.back();
}

Schema::Entry& Schema::entry(const std::string& key, const char* caller) {
  const auto it = std::find_if(m_entries.begin(), m_entries.end(),
                               [&](const Entry& e) { return e.key == key; });
  if (it == m_entries.end()) {
    throw Error(std::string("Schema::") + caller + ": key '" + key + "' is not declared");
  }
  return *it;
}

const Schema::Entry* Schema::find(const std::string& key) const {
  const auto it = std::find_if(m_entries.begin(), m_entries.end(),
                               [&](const Entry& e) { return e.key == key; });
  return it == m_entries.end() ? nullptr : &*it;
}

Schema& Schema::required(const std::string& key, ValueType type, std::string help) {
  declare(key, type, true, std::move(help));
  return *this;
}

Schema& Schema::optional(const std::string& key, ValueType type, std::string help) {
  declare(key, type, false, std::move(help));
  return *this;
}

Schema& Schema::range(const std::string& key, double lo, double hi) {
  Entry& e = entry(key, "range");
  if (!isNumeric(e.type)) throw Error("Schema::range: key '" + key + "' is not numeric");
  e.bounds = Bounds{lo, hi, false};
  return *this;
}

Schema& Schema::greaterThan(const std::string& key, double lo, double hi) {
  Entry& e = entry(key, "greaterThan");
  if (!isNumeric(e.type)) throw Error("Schema::greaterThan: key '" + key + "' is not numeric");
  e.bounds = Bounds{lo, hi, true};
  return *this;
}

Schema& Schema::oneOf(const std::string& key, std::vector<std::string> allowed) {
  Entry& e = entry(key, "oneOf");
  if (e.type != ValueType::String && e.type != ValueType::StringList &&
      e.type != ValueType::NameOrTriple) {
    throw Error("Schema::oneOf: key '" + key + "' is not a string");
  }
  e.allowed = std::move(allowed);
  return *this;
}

Schema& Schema::section(const std::string& key, Schema child, bool required) {
  declare(key, ValueType::Section, required, child.description()).child = std::move(child);
  return *this;
}

Schema& Schema::sectionMap(const std::string& key, Schema child, bool required) {
  declare(key, ValueType::SectionMap, required, child.description()).child = std::move(child);
  return *this;
}

Schema& Schema::anySection(const std::string& key, bool required) {
  declare(key, ValueType::AnySection, required, {});
  return *this;
}

bool Schema::hasKey(const std::string& key) const {
  return find(key) != nullptr;
}

std::vector<std::string> Schema::keys() const {
  std::vector<std::string> names;
  for (const Entry& e : m_entries)
    names.push_back(e.key);
  return names;
}

Schema& Schema::child(const std::string& key) {
  Entry& e = entry(key, "child");
  if (!e.child) throw Error("Schema::child: key '" + key + "' is not a section");
  return *e.child;
}

void Schema::validate(const ProblemSpec& spec) const {
  const std::vector<DeckError> errors = collectErrors(spec);
  if (!errors.empty()) throw errors.front();
}

std::vector<DeckError> Schema::collectErrors(const ProblemSpec& spec) const {
  std::vector<DeckError> errors;
  check(spec, errors);
  // Errors with no place in the file (overrides) go last.
  const auto order = [](const DeckError& e) {
    return std::make_pair(e.line() > 0 ? e.line() : INT_MAX, e.column());
  };
  std::stable_sort(errors.begin(), errors.end(),
                   [&](const DeckError& a, const DeckError& b) { return order(a) < order(b); });
  return errors;
}

void Schema::check(const ProblemSpec& spec, std::vector<DeckError>& errors) const {
  // A misspelt required key is reported once, as the misspelling.
  std::set<std::string> suggested;
  for (const std::string& key : spec.keys()) {
    const Entry* e = find(key);
    if (e == nullptr) {
      errors.push_back(spec.errorAtKey(key, unknownKeyMessage(key, spec.path())));
      if (const auto closest = suggestion(key)) suggested.insert(*closest);
      continue;
    }
    try {
      checkValue(spec, *e, errors);
    } catch (const DeckError& error) {
      errors.push_back(error);
    }
  }
  for (const Entry& e : m_entries) {
    if (!e.required || spec.has(e.key) || suggested.count(e.key)) continue;
    const bool isSection = e.type == ValueType::Section || e.type == ValueType::AnySection ||
                           e.type == ValueType::SectionMap;
    errors.push_back(spec.errorAtKey(e.key, std::string("missing required ") +
                                                (isSection ? "section" : "key") +
                                                (e.help.empty() ? "" : " (" + e.help + ")")));
  }
}

void Schema::checkValue(const ProblemSpec& spec, const Entry& e,
                        std::vector<DeckError>& errors) const {
  const auto outOfRange = [&](const std::string& value, bool perComponent) {
    return spec.errorAtValue(e.key, "out of range: " + value + " (" +
                                        (perComponent ? "each component must be " : "must be ") +
                                        e.bounds->text() + ")");
  };
  const auto checkTriple = [&](const auto& v) {
    if (!e.bounds) return;
    for (int i = 0; i < 3; ++i) {
      if (!e.bounds->contains(v[i])) throw outOfRange(toText(v), true);
    }
  };
  const auto checkAllowed = [&](const std::string& value) {
    if (e.allowed.empty()) return;
    if (std::find(e.allowed.begin(), e.allowed.end(), value) != e.allowed.end()) return;
    throw spec.errorAtValue(e.key, "expected one of " + join(e.allowed) + "; got '" + value + "'");
  };

  switch (e.type) {
    case ValueType::Int: {
      const int v = spec.get<int>(e.key);
      if (e.bounds && !e.bounds->contains(v)) throw outOfRange(toText(v), false);
      break;
    }
    case ValueType::Double: {
      const double v = spec.get<double>(e.key);
      if (e.bounds && !e.bounds->contains(v)) throw outOfRange(toText(v), false);
      break;
    }
    case ValueType::Bool:
      spec.get<bool>(e.key);
      break;
    case ValueType::String:
      checkAllowed(spec.get<std::string>(e.key));
      break;
    case ValueType::IntVector:
      checkTriple(spec.get<IntVector>(e.key));
      break;
    case ValueType::Vector3:
      checkTriple(spec.get<Vector3>(e.key));
      break;
    case ValueType::BoolVector3:
      spec.get<std::array<bool, 3>>(e.key);
      break;
    case ValueType::StringList:
      for (const std::string& item : spec.get<std::vector<std::string>>(e.key)) {
        checkAllowed(item);
      }
      break;
    case ValueType::DoubleList:
      for (const double item : spec.get<std::vector<double>>(e.key)) {
        if (e.bounds && !e.bounds->contains(item)) throw outOfRange(toText(item), true);
      }
      break;
    case ValueType::Section:
      e.child->check(spec.section(e.key), errors);
      break;
    case ValueType::AnySection:
      spec.section(e.key);
      break;
    case ValueType::SectionMap: {
      const ProblemSpec named = spec.section(e.key);
      for (const std::string& name : named.keys()) {
        try {
          e.child->check(named.section(name), errors);
        } catch (const DeckError& error) {
          errors.push_back(error);
        }
      }
      break;
    }
    case ValueType::TileSpec: {
      const bool isAuto = [&] {
        try {
          return spec.get<std::string>(e.key) == "auto";
        } catch (const DeckError&) {
          return false;
        }
      }();
      if (isAuto) break;
      std::optional<IntVector> tile;
      try {
        tile = spec.get<IntVector>(e.key);
      } catch (const DeckError&) {
        throw spec.errorAtValue(e.key, std::string("expected ") + describeType(e.type) + ", got " +
                                           spec.describeValue(e.key));
      }
      checkTriple(*tile);
      break;
    }
    case ValueType::NameOrTriple: {
      std::optional<std::string> name;
      try {
        name = spec.get<std::string>(e.key);
      } catch (const DeckError&) {
      }
      if (name) {
        checkAllowed(*name);
        break;
      }
      std::optional<IntVector> triple;
      try {
        triple = spec.get<IntVector>(e.key);
      } catch (const DeckError&) {
        throw spec.errorAtValue(e.key, std::string("expected ") + describeType(e.type) + ", got " +
                                           spec.describeValue(e.key));
      }
      checkTriple(*triple);
      break;
    }
  }
}

std::optional<std::string> Schema::suggestion(const std::string& key) const {
  const Entry* closest = nullptr;
  std::size_t best = 0;
  for (const Entry& e : m_entries) {
    const std::size_t distance = editDistance(key, e.key);
    if (closest == nullptr || distance < best) {
      closest = &e;
      best = distance;
    }
  }
  if (closest == nullptr || best > std::max<std::size_t>(2, key.size() / 3)) return std::nullopt;
  return closest->key;
}

std::string Schema::unknownKeyMessage(const std::string& key,
                                      const std::string& sectionPath) const {
  const std::string message =
      "unknown key '" + key + "' " +
      (sectionPath.empty() ? std::string("at the top level") : "in section '" + sectionPath + "'");
  if (m_entries.empty()) return message + "; this section takes no keys";
  if (const auto closest = suggestion(key)) return message + "; did you mean '" + *closest + "'?";
  return message + "; valid keys are: " + join(keys());
}

}  // namespace tessera
