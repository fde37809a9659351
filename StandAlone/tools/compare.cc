// tessera-compare: compare two run directories output by output (Uintah's compare_uda).
//   tessera-compare A B [--abs 1e-9] [--rel 1e-6] [--exact]
// Two values differ when |a-b| > abs and |a-b| > rel*max(|a|,|b|); --exact
// compares the stored bits. Every cell of every variable at every common
// output timestep is compared, extra cells included.
// Exit codes: 0 equal, 1 different (the first differing cell and values are
// printed), 2 not comparable (other timesteps, variables or grids, or unreadable).

#include "CCA/Components/DataArchiver/ArchiveReader.h"
#include "Core/Util/Error.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>

namespace {

using namespace tessera;

constexpr int kEqual = 0;
constexpr int kDifferent = 1;
constexpr int kNotComparable = 2;

struct NotComparable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void requireComparable(const ArchiveReader& a, const ArchiveReader& b) {
  const auto& oa = a.index().outputs;
  const auto& ob = b.index().outputs;
  if (oa.size() != ob.size()) {
    throw NotComparable("the runs have " + std::to_string(oa.size()) + " and " + std::to_string(ob.size()) +
                        " outputs");
  }
  for (std::size_t n = 0; n < oa.size(); ++n) {
    if (oa[n].timestep != ob[n].timestep) {
      throw NotComparable("output " + std::to_string(n) + " is timestep " + std::to_string(oa[n].timestep) +
                          " in one run and " + std::to_string(ob[n].timestep) + " in the other");
    }
    const ArchivedGrid ga = a.grid(oa[n]);
    const ArchivedGrid gb = b.grid(ob[n]);
    if (ga.resolution != gb.resolution || ga.extraCells != gb.extraCells || ga.lower != gb.lower ||
        ga.upper != gb.upper) {
      throw NotComparable("the grids differ at timestep " + std::to_string(oa[n].timestep));
    }
    if (a.variables(oa[n]) != b.variables(ob[n])) {
      throw NotComparable("the variables differ at timestep " + std::to_string(oa[n].timestep));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tessera-compare: compare two Tessera runs variable by variable and timestep by timestep",
               "tessera-compare"};
  std::string first, second;
  double absolute = 1e-9;
  double relative = 1e-6;
  bool exact = false;
  app.add_option("a", first, "the first run directory")->required();
  app.add_option("b", second, "the second run directory")->required();
  app.add_option("--abs", absolute, "absolute tolerance (default 1e-9)");
  app.add_option("--rel", relative, "relative tolerance (default 1e-6)");
  app.add_flag("--exact", exact, "bitwise comparison");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kEqual : kNotComparable;
  }
  try {
    const ArchiveReader a(first);
    const ArchiveReader b(second);
    requireComparable(a, b);
    std::int64_t compared = 0;
    for (std::size_t n = 0; n < a.index().outputs.size(); ++n) {
      const ArchiveEntry& ea = a.index().outputs[n];
      const ArchiveEntry& eb = b.index().outputs[n];
      for (const std::string& name : a.variables(ea)) {
        const ArchivedVariable va = a.read(ea, name);
        const ArchivedVariable vb = b.read(eb, name);
        if (va.valueType != vb.valueType) {
          throw NotComparable("'" + name + "' is " + va.valueType + " in one run and " + vb.valueType + " in the other");
        }
        const std::size_t bytes = va.raw.size() / va.values.size();
        for (std::size_t c = 0; c < va.values.size(); ++c) {
          const double x = va.values[c];
          const double y = vb.values[c];
          const double gap = std::fabs(x - y);
          const bool differ = exact ? std::memcmp(&va.raw[c * bytes], &vb.raw[c * bytes], bytes) != 0
                                    : (gap > absolute && gap > relative * std::max(std::fabs(x), std::fabs(y))) ||
                                          std::isnan(x) != std::isnan(y);
          if (!differ) continue;
          const IntVector size = va.size;
          const IntVector cell = va.indexLo + IntVector{static_cast<int>(c % size.x),
                                                        static_cast<int>((c / size.x) % size.y),
                                                        static_cast<int>(c / (static_cast<std::size_t>(size.x) * size.y))};
          std::cout << std::setprecision(17) << "different: '" << name << "' at timestep " << ea.timestep
                    << " (time " << ea.time << "), cell " << cell << ": " << x << " vs " << y << " (difference "
                    << gap << ")\n";
          return kDifferent;
        }
        compared += static_cast<std::int64_t>(va.values.size());
      }
    }
    std::cout << "equal: " << a.index().outputs.size() << " outputs, " << compared << " values compared"
              << (exact ? " bitwise" : "") << "\n";
    return kEqual;
  } catch (const NotComparable& e) {
    std::cout << "not comparable: " << e.what() << "\n";
    return kNotComparable;
  } catch (const std::exception& e) {
    std::cerr << "tessera-compare: error: " << e.what() << "\n";
    return kNotComparable;
  }
}
