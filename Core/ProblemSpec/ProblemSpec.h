#pragma once
// A read-only view of one map of a YAML input deck. Every view remembers the
// deck's file name and its own dotted key path, so any error it raises can say
// exactly where the user has to look. Views share the parsed document: copies
// are cheap, and nothing a view does changes what another view sees.

#include "Core/Grid/IntVector.h"
#include "Core/Grid/Vector3.h"
#include "Core/ProblemSpec/DeckError.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessera {

class ProblemSpec {
 public:
  // A missing or unreadable file is an InputError naming the path; malformed YAML
  // is a DeckError at the place yaml-cpp gave up.
  static ProblemSpec fromFile(const std::string& path);
  static ProblemSpec fromString(const std::string& yaml, const std::string& name = "<string>");

  const std::string& file() const;
  // Dotted key path of this map, "" for the root.
  const std::string& path() const { return m_path; }
  // 1-based place where this map is introduced (its key; 1:1 for an empty deck's
  // root); 0 if it was created by an override.
  int line() const;
  int column() const;

  bool has(const std::string& key) const;
  // In file order.
  std::vector<std::string> keys() const;

  // A required nested map; a key with no value is an empty map.
  ProblemSpec section(const std::string& key) const;
  // std::nullopt if the key is absent; a DeckError if it is present but not a map.
  std::optional<ProblemSpec> findSection(const std::string& key) const;

  // T is one of int, double, bool, std::string, IntVector, Vector3, std::array<bool, 3>,
  // std::vector<std::string>, std::vector<double>. A present key whose value does not convert is always an
  // error, even when there is a fallback: a typo must not silently become the default.
  template <class T>
  T get(const std::string& key) const {
    T value{};
    read(key, value);
    return value;
  }
  template <class T>
  T get(const std::string& key, const T& fallback) const {
    return has(key) ? get<T>(key) : fallback;
  }

  // This map as YAML text (comments are not kept); for storing the deck in archives.
  std::string toYaml() const;

  // A copy of the whole deck with the value at `dottedPath` (always from the root)
  // replaced or added; `yamlValue` is parsed as YAML and missing intermediate maps are
  // created. Returns the new root. Errors later found in the value name the override.
  ProblemSpec withOverride(const std::string& dottedPath, const std::string& yamlValue) const;

  // Errors located in this deck, for layers that check meaning on top of syntax
  // (Schema, components): at a key, at its value (the key when it has none), or at
  // this map. A missing key falls back to this map.
  DeckError errorAtKey(const std::string& key, const std::string& message) const;
  DeckError errorAtValue(const std::string& key, const std::string& message) const;
  DeckError errorHere(const std::string& message) const;
  // The value as the user wrote it, quoted and shortened, for "got ..." messages.
  std::string describeValue(const std::string& key) const;
  // Dotted path of a key of this map.
  std::string childPath(const std::string& key) const;

 private:
  struct Deck;
  struct Node;

  ProblemSpec(std::shared_ptr<const Deck> deck, std::shared_ptr<const Node> node, std::string path);

  DeckError errorAtMap(const std::string& keyPath, const std::string& message) const;
  ProblemSpec sectionAt(const std::string& key) const;
  // Defined and used only in ProblemSpec.cc, where the YAML types are visible.
  template <class T, class Convert>
  void readAs(const std::string& key, T& out, const char* expected, Convert convert) const;

  void requireIntRange(const std::string& key) const;
  void read(const std::string& key, int& out) const;
  void read(const std::string& key, double& out) const;
  void read(const std::string& key, bool& out) const;
  void read(const std::string& key, std::string& out) const;
  void read(const std::string& key, IntVector& out) const;
  void read(const std::string& key, Vector3& out) const;
  void read(const std::string& key, std::array<bool, 3>& out) const;
  void read(const std::string& key, std::vector<std::string>& out) const;
  void read(const std::string& key, std::vector<double>& out) const;

  std::shared_ptr<const Deck> m_deck;
  std::shared_ptr<const Node> m_node;
  std::string m_path;
};

}  // namespace tessera
