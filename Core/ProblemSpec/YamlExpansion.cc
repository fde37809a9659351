#include "Core/ProblemSpec/YamlExpansion.h"

#include "Core/ProblemSpec/DeckError.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

namespace tessera {

namespace {

class ExpansionCounter : public YAML::EventHandler {
 public:
  ExpansionCounter(std::string file, std::int64_t limit) : m_file(std::move(file)), m_limit(limit) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto known = m_anchorSizes.find(anchor);
    add(mark, known == m_anchorSizes.end() ? 1 : known->second);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    m_open.push_back({mark, anchor, 1});
  }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    m_open.push_back({mark, anchor, 1});
  }
  void OnSequenceEnd() override { close(); }
  void OnMapEnd() override { close(); }

 private:
  struct Collection {
    YAML::Mark mark;
    YAML::anchor_t anchor;
    std::int64_t nodes;
  };
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor) m_anchorSizes[anchor] = 1;
    add(mark, 1);
  }
  void close() {
    const Collection done = m_open.back();
    m_open.pop_back();
    if (done.anchor) m_anchorSizes[done.anchor] = done.nodes;
    add(done.mark, done.nodes);
  }
  // Sizes only grow towards the root: once any passes the limit, the
  // whole document does, and the counting stops there (no overflow).
  void add(const YAML::Mark& mark, std::int64_t nodes) {
    std::int64_t& total = m_open.empty() ? m_documentNodes : m_open.back().nodes;
    total = std::min(total + nodes, m_limit + 1);
    if (total <= m_limit) return;
    std::ostringstream message;
    message << "this deck expands to more than " << m_limit
            << " nodes through its aliases (YAML anchors &name and references *name); a "
               "simulation's deck has a few hundred";
    throw DeckError(m_file, mark.line + 1, mark.column + 1, "", message.str());
  }

  std::string m_file;
  std::int64_t m_limit;
  std::vector<Collection> m_open;
  std::map<YAML::anchor_t, std::int64_t> m_anchorSizes;
  std::int64_t m_documentNodes = 0;
};

}  // namespace

void requireBoundedExpansion(const std::string& text, const std::string& file,
                             std::int64_t limit) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  ExpansionCounter counter(file, limit);
  while (parser.HandleNextDocument(counter)) {
  }
}

}  // namespace tessera
