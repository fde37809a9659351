#include "Core/ProblemSpec/ProblemSpec.h"
#include "Core/ProblemSpec/YamlExpansion.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <limits>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>
#include <utility>

namespace tessera {

// The parsed document plus what is needed to rebuild it: yaml-cpp's Clone drops
// source marks, so withOverride re-parses the text and replays every override.
struct ProblemSpec::Deck {
  struct Override {
    std::string path;
    std::string value;
  };
  struct Location {
    int line = 0;
    int column = 0;
    std::string note;
  };

  std::string file;
  std::string text;
  std::vector<Override> overrides;
  YAML::Node root;

  static std::shared_ptr<const Deck> build(std::string file, std::string text,
                                           std::vector<Override> overrides);
  Location locate(const YAML::Node& node, const std::string& path) const;
  void checkKeys(const YAML::Node& node, const std::string& path) const;
  DeckError error(const YAML::Node& at, const std::string& path, const std::string& message) const {
    const Location where = locate(at, path);
    return DeckError(file, where.line, where.column, path, message + where.note);
  }
};

struct ProblemSpec::Node {
  YAML::Node value;   // a map, or Null for a key written without a value
  YAML::Node anchor;  // what introduces the map: its key, or the root itself
};

namespace {

bool isWithin(const std::string& path, const std::string& prefix) {
  return path == prefix ||
         (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
          path[prefix.size()] == '.');
}

std::string joinPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string render(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return node.Scalar();
    case YAML::NodeType::Sequence: {
      std::string out = "[";
      for (const auto& item : node)
        out += (out.size() > 1 ? ", " : "") + render(item);
      return out + "]";
    }
    case YAML::NodeType::Map: {
      std::string out = "{";
      for (const auto& kv : node) {
        out += (out.size() > 1 ? ", " : "") + render(kv.first) + ": " + render(kv.second);
      }
      return out + "}";
    }
    default:
      return "~";
  }
}

// What the user wrote, on one line and short enough for an error message.
std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "an empty value";
  constexpr std::size_t kMaxChars = 60;
  std::string text = render(node);
  if (text.size() > kMaxChars) text = text.substr(0, kMaxChars - 3) + "...";
  return "'" + text + "'";
}

struct Entry {
  YAML::Node key;
  YAML::Node value;
};

std::optional<Entry> findEntry(const YAML::Node& map, const std::string& key) {
  if (!map.IsMap()) return std::nullopt;
  for (const auto& kv : map) {
    if (kv.first.Scalar() == key) return Entry{kv.first, kv.second};
  }
  return std::nullopt;
}

// Strict number syntax: yaml-cpp's own conversions would let "0x10" be an int and
// ".inf" be a time step; std::from_chars alone would accept "nan" and "inf".
bool isDecimal(std::string_view s) {
  std::size_t i = 0;
  const auto digitsFrom = [&](std::size_t& pos) {
    const std::size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9')
      ++pos;
    return pos - start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t digits = digitsFrom(i);
  if (i < s.size() && s[i] == '.') digits += digitsFrom(++i);
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digitsFrom(i) == 0) return false;
  }
  return i == s.size();
}

std::string_view withoutPlus(std::string_view s) {
  if (s.size() > 1 && s[0] == '+' && s[1] != '-') s.remove_prefix(1);
  return s;
}

bool parseInt(std::string_view text, int& out) {
  const std::string_view s = withoutPlus(text);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}

bool parseDouble(std::string_view text, double& out) {
  if (!isDecimal(text)) return false;
  const std::string_view s = withoutPlus(text);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool parseBool(const std::string& text, bool& out) {
  if (text != "true" && text != "false") return false;
  out = text == "true";
  return true;
}

// Applies `convert` to each item of a sequence of exactly `n`.
template <class Convert>
bool forTriple(const YAML::Node& node, Convert convert) {
  if (!node.IsSequence() || node.size() != 3) return false;
  for (int i = 0; i < 3; ++i) {
    const YAML::Node item = node[i];
    if (!item.IsScalar() || !convert(i, item.Scalar())) return false;
  }
  return true;
}

// The first line indented with a tab (1-based), or 0. YAML indents with
// spaces only, and yaml-cpp's complaint about a tab does not mention it.
int firstTabIndentedLine(const std::string& text) {
  int line = 1;
  bool inIndent = true;
  for (const char c : text) {
    if (c == '\n') {
      ++line;
      inIndent = true;
    } else if (inIndent && c == '\t') {
      return line;
    } else if (c != ' ') {
      inIndent = false;
    }
  }
  return 0;
}

YAML::Node loadYaml(const std::string& text, const std::string& file) {
  try {
    YAML::Node root = YAML::Load(text);
    // Before anything walks the tree (the duplicate-key check, the schema).
    requireBoundedExpansion(text, file);
    return root;
  } catch (const YAML::Exception& e) {
    if (const int line = firstTabIndentedLine(text)) {
      throw DeckError(file, line, 1, "",
                      "invalid YAML: this line is indented with a tab; YAML indents with spaces");
    }
    const bool located = !e.mark.is_null();
    throw DeckError(file, located ? e.mark.line + 1 : 0, located ? e.mark.column + 1 : 0, "",
                    "invalid YAML: " + e.msg);
  }
}

std::vector<std::string> splitPath(const std::string& dottedPath) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = dottedPath.find('.', start);
    parts.push_back(dottedPath.substr(start, dot - start));
    if (parts.back().empty()) {
      throw InputError("invalid override key path '" + dottedPath + "': empty key name");
    }
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// `root` is a fresh document nobody else sees yet, so mutating it is safe.
void applyOverride(YAML::Node root, const std::string& dottedPath, const std::string& yamlValue) {
  YAML::Node value;
  try {
    value = YAML::Load(yamlValue);
  } catch (const YAML::Exception& e) {
    throw InputError("invalid override '" + dottedPath + "=" + yamlValue + "': " + e.msg);
  }
  const std::vector<std::string> parts = splitPath(dottedPath);
  YAML::Node current = root;
  std::string walked;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    walked = joinPath(walked, parts[i]);
    YAML::Node next = current[parts[i]];
    if (!next.IsDefined() || next.IsNull()) {
      current[parts[i]] = YAML::Node(YAML::NodeType::Map);
      next.reset(current[parts[i]]);
    } else if (!next.IsMap()) {
      throw InputError("cannot override '" + dottedPath + "': '" + walked + "' is not a section");
    }
    // reset() rebinds the handle; assignment would overwrite the node it refers to.
    current.reset(next);
  }
  current[parts.back()] = value;
}

}  // namespace

ProblemSpec::Deck::Location ProblemSpec::Deck::locate(const YAML::Node& node,
                                                      const std::string& path) const {
  for (auto it = overrides.rbegin(); it != overrides.rend(); ++it) {
    if (isWithin(path, it->path)) {
      return {0, 0, " (from override " + it->path + "=" + it->value + ")"};
    }
  }
  const YAML::Mark mark = node.Mark();
  if (!mark.is_null()) return {mark.line + 1, mark.column + 1, {}};
  for (auto it = overrides.rbegin(); it != overrides.rend(); ++it) {
    if (isWithin(it->path, path)) return {0, 0, " (created by override " + it->path + ")"};
  }
  return {};
}

// yaml-cpp accepts duplicate keys and keeps the first; a deck that sets a value
// twice is almost always an editing mistake, so refuse it up front.
void ProblemSpec::Deck::checkKeys(const YAML::Node& node, const std::string& path) const {
  if (node.IsSequence()) {
    for (const auto& item : node)
      checkKeys(item, path);
    return;
  }
  if (!node.IsMap()) return;
  std::map<std::string, YAML::Node> seen;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) {
      throw error(kv.first, path, "a key must be a plain name, got " + describe(kv.first));
    }
    const std::string& name = kv.first.Scalar();
    const std::string keyPath = joinPath(path, name);
    const auto [previous, isNew] = seen.emplace(name, kv.first);
    if (!isNew) {
      const Location first = locate(previous->second, keyPath);
      throw error(kv.first, keyPath,
                  "duplicate key '" + name + "'" +
                      (first.line > 0 ? " (first given at line " + std::to_string(first.line) + ")"
                                      : std::string()));
    }
    checkKeys(kv.second, keyPath);
  }
}

std::shared_ptr<const ProblemSpec::Deck> ProblemSpec::Deck::build(std::string file,
                                                                  std::string text,
                                                                  std::vector<Override> overrides) {
  auto deck = std::make_shared<Deck>();
  deck->file = std::move(file);
  deck->text = std::move(text);
  deck->overrides = std::move(overrides);
  deck->root = loadYaml(deck->text, deck->file);
  if (deck->root.IsNull()) deck->root = YAML::Node(YAML::NodeType::Map);
  if (!deck->root.IsMap()) {
    throw deck->error(deck->root, "",
                      "a deck must be a map of sections, got " + describe(deck->root));
  }
  for (const Override& o : deck->overrides)
    applyOverride(deck->root, o.path, o.value);
  deck->checkKeys(deck->root, "");
  return deck;
}

ProblemSpec::ProblemSpec(std::shared_ptr<const Deck> deck, std::shared_ptr<const Node> node,
                         std::string path)
    : m_deck(std::move(deck)), m_node(std::move(node)), m_path(std::move(path)) {}

ProblemSpec ProblemSpec::fromFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw InputError("deck file '" + path + "' does not exist");
  }
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError("deck file '" + path + "' is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open deck file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError("cannot read deck file '" + path + "'");
  return fromString(text.str(), path);
}

ProblemSpec ProblemSpec::fromString(const std::string& yaml, const std::string& name) {
  std::shared_ptr<const Deck> deck = Deck::build(name, yaml, {});
  auto root = std::make_shared<const Node>(Node{deck->root, deck->root});
  return ProblemSpec(std::move(deck), std::move(root), "");
}

const std::string& ProblemSpec::file() const {
  return m_deck->file;
}

int ProblemSpec::line() const {
  return m_path.empty() ? 1 : m_deck->locate(m_node->anchor, m_path).line;
}

int ProblemSpec::column() const {
  return m_path.empty() ? 1 : m_deck->locate(m_node->anchor, m_path).column;
}

bool ProblemSpec::has(const std::string& key) const {
  return findEntry(m_node->value, key).has_value();
}

std::vector<std::string> ProblemSpec::keys() const {
  std::vector<std::string> names;
  if (!m_node->value.IsMap()) return names;
  for (const auto& kv : m_node->value)
    names.push_back(kv.first.Scalar());
  return names;
}

ProblemSpec ProblemSpec::section(const std::string& key) const {
  if (!has(key)) throw errorAtMap(childPath(key), "missing required section");
  return sectionAt(key);
}

std::optional<ProblemSpec> ProblemSpec::findSection(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return sectionAt(key);
}

ProblemSpec ProblemSpec::sectionAt(const std::string& key) const {
  const Entry entry = *findEntry(m_node->value, key);
  if (!entry.value.IsMap() && !entry.value.IsNull()) {
    throw errorAtValue(key, "expected a section (a map of keys), got " + describe(entry.value));
  }
  return ProblemSpec(m_deck, std::make_shared<const Node>(Node{entry.value, entry.key}),
                     childPath(key));
}

template <class T, class Convert>
void ProblemSpec::readAs(const std::string& key, T& out, const char* expected,
                         Convert convert) const {
  const std::optional<Entry> entry = findEntry(m_node->value, key);
  if (!entry) throw errorAtMap(childPath(key), "missing required key");
  if (!convert(entry->value, out)) {
    throw errorAtValue(key,
                       std::string("expected ") + expected + ", got " + describe(entry->value));
  }
}

// An integer literal too large for an int says so, rather than "expected
// an integer" about a value that plainly is one.
void ProblemSpec::requireIntRange(const std::string& key) const {
  const std::optional<Entry> entry = findEntry(m_node->value, key);
  if (!entry) return;
  const auto check = [&](const YAML::Node& item) {
    if (!item.IsScalar()) return;
    std::int64_t wide = 0;
    int narrow = 0;
    const std::string_view text = withoutPlus(item.Scalar());
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), wide);
    const bool integer = !text.empty() && end == text.data() + text.size() &&
                         (ec == std::errc() || ec == std::errc::result_out_of_range);
    if (integer && !parseInt(item.Scalar(), narrow)) {
      throw errorAtValue(key, "'" + item.Scalar() + "' is too large: integers here lie within " +
                                  std::to_string(std::numeric_limits<int>::min()) + " .. " +
                                  std::to_string(std::numeric_limits<int>::max()));
    }
  };
  if (entry->value.IsSequence()) {
    for (const YAML::Node& item : entry->value)
      check(item);
  } else {
    check(entry->value);
  }
}

void ProblemSpec::read(const std::string& key, int& out) const {
  requireIntRange(key);
  readAs(key, out, "an integer",
         [](const YAML::Node& n, int& v) { return n.IsScalar() && parseInt(n.Scalar(), v); });
}

void ProblemSpec::read(const std::string& key, double& out) const {
  readAs(key, out, "a number",
         [](const YAML::Node& n, double& v) { return n.IsScalar() && parseDouble(n.Scalar(), v); });
}

void ProblemSpec::read(const std::string& key, bool& out) const {
  readAs(key, out, "true or false",
         [](const YAML::Node& n, bool& v) { return n.IsScalar() && parseBool(n.Scalar(), v); });
}

void ProblemSpec::read(const std::string& key, std::string& out) const {
  readAs(key, out, "a string", [](const YAML::Node& n, std::string& v) {
    if (!n.IsScalar()) return false;
    v = n.Scalar();
    return true;
  });
}

void ProblemSpec::read(const std::string& key, IntVector& out) const {
  requireIntRange(key);
  readAs(key, out, "a list of 3 integers", [](const YAML::Node& n, IntVector& v) {
    return forTriple(n, [&](int i, const std::string& s) { return parseInt(s, v[i]); });
  });
}

void ProblemSpec::read(const std::string& key, Vector3& out) const {
  readAs(key, out, "a list of 3 numbers", [](const YAML::Node& n, Vector3& v) {
    return forTriple(n, [&](int i, const std::string& s) { return parseDouble(s, v[i]); });
  });
}

void ProblemSpec::read(const std::string& key, std::array<bool, 3>& out) const {
  readAs(key, out, "a list of 3 booleans (true or false)",
         [](const YAML::Node& n, std::array<bool, 3>& v) {
           return forTriple(n, [&](int i, const std::string& s) { return parseBool(s, v[i]); });
         });
}

void ProblemSpec::read(const std::string& key, std::vector<std::string>& out) const {
  readAs(key, out, "a list of strings", [](const YAML::Node& n, std::vector<std::string>& v) {
    if (!n.IsSequence()) return false;
    v.clear();
    for (const auto& item : n) {
      if (!item.IsScalar()) return false;
      v.push_back(item.Scalar());
    }
    return true;
  });
}

void ProblemSpec::read(const std::string& key, std::vector<double>& out) const {
  readAs(key, out, "a list of numbers", [](const YAML::Node& n, std::vector<double>& v) {
    if (!n.IsSequence()) return false;
    v.clear();
    for (const auto& item : n) {
      double value = 0.0;
      if (!item.IsScalar() || !parseDouble(item.Scalar(), value)) return false;
      v.push_back(value);
    }
    return true;
  });
}

std::string ProblemSpec::toYaml() const {
  if (!m_node->value.IsMap()) return "{}\n";
  YAML::Emitter out;
  out << m_node->value;
  return std::string(out.c_str()) + "\n";
}

ProblemSpec ProblemSpec::withOverride(const std::string& dottedPath,
                                      const std::string& yamlValue) const {
  std::vector<Deck::Override> overrides = m_deck->overrides;
  overrides.push_back({dottedPath, yamlValue});
  std::shared_ptr<const Deck> deck = Deck::build(m_deck->file, m_deck->text, std::move(overrides));
  auto root = std::make_shared<const Node>(Node{deck->root, deck->root});
  return ProblemSpec(std::move(deck), std::move(root), "");
}

DeckError ProblemSpec::errorAtKey(const std::string& key, const std::string& message) const {
  const std::optional<Entry> entry = findEntry(m_node->value, key);
  if (!entry) return errorAtMap(childPath(key), message);
  return m_deck->error(entry->key, childPath(key), message);
}

DeckError ProblemSpec::errorAtValue(const std::string& key, const std::string& message) const {
  const std::optional<Entry> entry = findEntry(m_node->value, key);
  if (!entry) return errorAtMap(childPath(key), message);
  // A key written without a value has no place of its own worth pointing at.
  const YAML::Node& at = entry->value.IsNull() ? entry->key : entry->value;
  return m_deck->error(at, childPath(key), message);
}

DeckError ProblemSpec::errorHere(const std::string& message) const {
  return errorAtMap(m_path, message);
}

DeckError ProblemSpec::errorAtMap(const std::string& keyPath, const std::string& message) const {
  // The root has no key of its own; point at the top of the file.
  if (m_path.empty()) return DeckError(file(), 1, 1, keyPath, message);
  const Deck::Location where = m_deck->locate(m_node->anchor, m_path);
  return DeckError(file(), where.line, where.column, keyPath, message + where.note);
}

std::string ProblemSpec::describeValue(const std::string& key) const {
  const std::optional<Entry> entry = findEntry(m_node->value, key);
  return entry ? describe(entry->value) : "nothing";
}

std::string ProblemSpec::childPath(const std::string& key) const {
  return joinPath(m_path, key);
}

}  // namespace tessera
