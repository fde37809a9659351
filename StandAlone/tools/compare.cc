// tessera-compare: compare two run directories output by output (Uintah's compare_uda).
//   tessera-compare A B [--abs 1e-9] [--rel 1e-6] [--exact]
// Two values differ when |a-b| > abs and |a-b| > rel*max(|a|,|b|); --exact
// compares the stored bits. Every cell of every variable, every entry of
// every block variable, and every
// reduction variable, at every output timestep (every level of a refined run:
// u@level1 ...) the two runs share is
// compared, extra cells included; a restarted run compares with the straight
// run it continues on the timesteps both wrote (the tool says which, and
// which reductions only one run holds).
// Exit codes: 0 equal, 1 different (the first differing cell and values are
// printed), 2 not comparable (no timestep in common, other variables or
// grids, or unreadable).

#include "CCA/Components/DataArchiver/ArchiveReader.h"
#include "Core/Util/Error.h"

#include "StandAlone/CliChecks.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace tessera;

constexpr int kEqual = 0;
constexpr int kDifferent = 1;
constexpr int kNotComparable = 2;

struct NotComparable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Tolerance {
  double absolute;
  double relative;
  bool exact;

  bool differ(double x, double y, const std::uint8_t* xBits, const std::uint8_t* yBits,
              std::size_t bytes) const {
    if (exact) return std::memcmp(xBits, yBits, bytes) != 0;
    const double gap = std::fabs(x - y);
    return (gap > absolute && gap > relative * std::max(std::fabs(x), std::fabs(y))) ||
           std::isnan(x) != std::isnan(y);
  }
};

std::string listed(const std::vector<int>& timesteps) {
  std::ostringstream out;
  for (std::size_t n = 0; n < timesteps.size(); ++n)
    out << (n ? ", " : "") << timesteps[n];
  return timesteps.empty() ? "none" : out.str();
}

std::vector<int> outputTimesteps(const ArchiveReader& reader) {
  std::vector<int> timesteps;
  for (const ArchiveEntry& e : reader.index().outputs)
    timesteps.push_back(e.timestep);
  std::sort(timesteps.begin(), timesteps.end());
  return timesteps;
}

// The output timesteps both runs wrote; says which, and which it skips.
std::vector<int> sharedTimesteps(const ArchiveReader& a, const ArchiveReader& b) {
  const std::vector<int> ta = outputTimesteps(a);
  const std::vector<int> tb = outputTimesteps(b);
  std::vector<int> shared, onlyA, onlyB;
  std::set_intersection(ta.begin(), ta.end(), tb.begin(), tb.end(), std::back_inserter(shared));
  std::set_difference(ta.begin(), ta.end(), tb.begin(), tb.end(), std::back_inserter(onlyA));
  std::set_difference(tb.begin(), tb.end(), ta.begin(), ta.end(), std::back_inserter(onlyB));
  if (shared.empty()) {
    throw NotComparable("the runs share no output timestep (first: " + listed(ta) +
                        "; second: " + listed(tb) + ")");
  }
  std::cout << "comparing timesteps " << listed(shared);
  if (!onlyA.empty()) std::cout << "; only in the first: " << listed(onlyA);
  if (!onlyB.empty()) std::cout << "; only in the second: " << listed(onlyB);
  std::cout << "\n";
  return shared;
}

// The variables of an output both runs hold, alike (names, and each block
// variable's shape); NotComparable otherwise.
std::vector<std::string> requireComparable(const ArchiveReader& a, const ArchiveEntry& ea,
                                           const ArchiveReader& b, const ArchiveEntry& eb) {
  const ArchivedGrid ga = a.grid(ea);
  const ArchivedGrid gb = b.grid(eb);
  if (ga.resolution != gb.resolution || ga.extraCells != gb.extraCells || ga.lower != gb.lower ||
      ga.upper != gb.upper) {
    throw NotComparable("the grids differ at timestep " + std::to_string(ea.timestep));
  }
  // Refined runs compare level by level: the same levels, ratios and
  // regions (each region's patch layout may differ, as level 0's may).
  if (ga.numLevels() != gb.numLevels()) {
    throw NotComparable("the first run has " + std::to_string(ga.numLevels()) +
                        " level(s) at timestep " + std::to_string(ea.timestep) + ", the second " +
                        std::to_string(gb.numLevels()));
  }
  for (std::size_t l = 0; l < ga.finerLevels.size(); ++l) {
    const ArchivedLevel& la = ga.finerLevels[l];
    const ArchivedLevel& lb = gb.finerLevels[l];
    if (la.refinementRatio != lb.refinementRatio || la.regions != lb.regions) {
      throw NotComparable("level " + std::to_string(l + 1) + " differs (ratio or regions) at timestep " +
                          std::to_string(ea.timestep));
    }
  }
  const auto da = a.describe(ea), db = b.describe(eb);
  std::vector<std::string> names, other;
  for (const ArchivedVariableInfo& v : da) names.push_back(v.name);
  for (const ArchivedVariableInfo& v : db) other.push_back(v.name);
  if (names != other) {
    throw NotComparable("the variables differ at timestep " + std::to_string(ea.timestep));
  }
  for (std::size_t v = 0; v < da.size(); ++v) {
    if (da[v].block && da[v].size != db[v].size) {
      std::ostringstream why;
      why << "block variable '" << da[v].name << "' is " << da[v].size.y << " x " << da[v].size.x
          << " in the first run and " << db[v].size.y << " x " << db[v].size.x
          << " in the second";
      throw NotComparable(why.str());
    }
  }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tessera-compare: compare two Tessera runs variable by variable and timestep by timestep",
               "tessera-compare"};
  std::string first, second;
  Tolerance tolerance{1e-9, 1e-6, false};
  app.add_option("a", first, "the first run directory")->required();
  app.add_option("b", second, "the second run directory")->required();
  app.add_option("--abs", tolerance.absolute, "absolute tolerance (default 1e-9)")
      ->check(tessera::kNonNegative);
  app.add_option("--rel", tolerance.relative, "relative tolerance (default 1e-6)")
      ->check(tessera::kNonNegative);
  app.add_flag("--exact", tolerance.exact, "bitwise comparison");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kEqual : kNotComparable;
  }
  try {
    const ArchiveReader a(first);
    const ArchiveReader b(second);
    const std::vector<int> shared = sharedTimesteps(a, b);
    std::int64_t compared = 0;
    std::int64_t reductions = 0;
    std::vector<std::string> onlyInOne;
    for (const int timestep : shared) {
      const ArchiveEntry& ea = a.output(timestep);
      const ArchiveEntry& eb = b.output(timestep);
      for (const std::string& name : requireComparable(a, ea, b, eb)) {
        const ArchivedVariable va = a.read(ea, name);
        const ArchivedVariable vb = b.read(eb, name);
        if (va.valueType != vb.valueType) {
          throw NotComparable("'" + name + "' is " + va.valueType + " in one run and " +
                              vb.valueType + " in the other");
        }
        const std::size_t bytes = va.raw.size() / va.values.size();
        for (std::size_t c = 0; c < va.values.size(); ++c) {
          const double x = va.values[c];
          const double y = vb.values[c];
          if (!tolerance.differ(x, y, &va.raw[c * bytes], &vb.raw[c * bytes], bytes)) continue;
          const IntVector size = va.size;
          const IntVector cell =
              va.indexLo +
              IntVector{static_cast<int>(c % size.x), static_cast<int>((c / size.x) % size.y),
                        static_cast<int>(c / (static_cast<std::size_t>(size.x) * size.y))};
          std::cout << std::setprecision(17) << "different: '" << name << "' at timestep "
                    << timestep << " (time " << ea.time << "), ";
          if (va.block) {
            std::cout << "entry (" << cell.y << ", " << cell.x << ")";
          } else {
            std::cout << "cell " << cell;
          }
          std::cout << ": " << x << " vs " << y << " (difference " << std::fabs(x - y) << ")\n";
          return kDifferent;
        }
        compared += va.covered.empty()
                        ? static_cast<std::int64_t>(va.values.size())
                        : std::count(va.covered.begin(), va.covered.end(), std::uint8_t{1});
      }
      const auto ra = a.reductions(ea);
      const auto rb = b.reductions(eb);
      for (const auto& x : ra) {
        const auto y =
            std::find_if(rb.begin(), rb.end(), [&](const auto& r) { return r.name == x.name; });
        if (y == rb.end()) {  // a reduction one run has not computed yet: said, not compared
          onlyInOne.push_back("'" + x.name + "' at timestep " + std::to_string(timestep) +
                              " (first run only)");
          continue;
        }
        if (x.raw.size() != y->raw.size()) {
          throw NotComparable("reduction '" + x.name + "' has another type in the other run");
        }
        if (tolerance.differ(x.value, y->value, x.raw.data(), y->raw.data(), x.raw.size())) {
          std::cout << std::setprecision(17) << "different: reduction '" << x.name
                    << "' at timestep " << timestep << ": " << x.value << " vs " << y->value
                    << " (difference " << std::fabs(x.value - y->value) << ")\n";
          return kDifferent;
        }
        ++reductions;
      }
      for (const auto& y : rb) {
        if (std::none_of(ra.begin(), ra.end(), [&](const auto& r) { return r.name == y.name; }))
          onlyInOne.push_back("'" + y.name + "' at timestep " + std::to_string(timestep) +
                              " (second run only)");
      }
    }
    for (const std::string& reduction : onlyInOne)
      std::cout << "not compared: reduction " << reduction << "\n";
    std::cout << "equal: " << shared.size() << " outputs, " << compared << " values and "
              << reductions << " reductions compared" << (tolerance.exact ? " bitwise" : "")
              << "\n";
    return kEqual;
  } catch (const NotComparable& e) {
    std::cout << "not comparable: " << e.what() << "\n";
    return kNotComparable;
  } catch (const std::exception& e) {
    std::cerr << "tessera-compare: error: " << e.what() << "\n";
    return kNotComparable;
  }
}
