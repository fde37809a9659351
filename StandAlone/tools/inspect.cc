// tessera-inspect: look inside a run directory (Uintah's puda).
//   tessera-inspect RUN_DIR                       timesteps and variables
//   tessera-inspect RUN_DIR --stats [--var u] [--timestep N]
//                                                 min, max, mean, L2 over the interior cells
//                                                 (every entry of a block variable); a finer
//                                                 level's variable is u@level1, ...
//   tessera-inspect RUN_DIR --line u --timestep N --axis x --at 5,7
//                                                 one line of cells as text: index, position, value
//   tessera-inspect RUN_DIR --png FILE --var u [--timestep N] [--axis z --at K]
//                                                 a slice (or a block variable's matrix) as a
//                                                 PNG: python/tessera_archive/quicklook.py
//                                                 (matplotlib and h5py), run with python3
// Exit codes: 0 success, 1 bad input (arguments, missing or unreadable archive).

#include "CCA/Components/DataArchiver/ArchiveReader.h"
#include "Core/Util/Error.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace tessera;

void list(const ArchiveReader& reader) {
  const ArchiveIndex& index = reader.index();
  std::cout << "run " << reader.directory() << " (component " << index.component << ", Tessera "
            << index.tesseraVersion << ")\n";
  if (!index.restartedFrom.empty()) std::cout << "restarted from " << index.restartedFrom << "\n";
  std::cout << "outputs:\n";
  for (const ArchiveEntry& e : index.outputs) {
    std::cout << "  timestep " << std::setw(6) << e.timestep << "  time " << std::setprecision(9) << e.time
              << "  delt " << e.delt << "  " << e.file << "\n";
  }
  std::cout << "checkpoints:\n";
  for (const ArchiveEntry& e : index.checkpoints) {
    std::cout << "  timestep " << std::setw(6) << e.timestep << "  time " << std::setprecision(9) << e.time
              << "  " << e.file << "\n";
  }
  if (!index.outputs.empty()) {
    const ArchiveEntry& first = index.outputs.front();
    const std::vector<ArchivedVariableInfo> stored = reader.describe(first);
    const bool anyCells = std::any_of(stored.begin(), stored.end(),
                                      [](const ArchivedVariableInfo& v) { return !v.block; });
    const bool anyBlocks = std::any_of(stored.begin(), stored.end(),
                                       [](const ArchivedVariableInfo& v) { return v.block; });
    if (anyCells) {
      const ArchivedGrid grid = reader.grid(first);
      std::cout << "grid: resolution " << grid.resolution << ", box " << grid.lower << " to "
                << grid.upper << ", patches " << grid.patches << ", extra cells " << grid.extraCells
                << "\n";
      for (int l = 1; l < grid.numLevels(); ++l) {
        const ArchivedLevel& level = grid.finerLevels[static_cast<std::size_t>(l - 1)];
        std::cout << "level " << l << ": ratio " << level.refinementRatio << ", resolution "
                  << level.resolution << ", " << level.regions.size() << " region(s):";
        for (std::size_t k = 0; k < level.regions.size(); ++k)
          std::cout << " " << level.regions[k] << " in " << level.patches[k] << " patches";
        std::cout << "\n";
      }
      std::cout << "variables:";
      for (const ArchivedVariableInfo& v : stored)
        if (!v.block) std::cout << " " << v.name;
      std::cout << "\n";
    }
    if (anyBlocks) {
      std::cout << "block variables:";
      for (const ArchivedVariableInfo& v : stored)
        if (v.block) std::cout << " " << v.name << " (" << v.size.y << " x " << v.size.x << ")";
      std::cout << "\n";
    }
  }
}

void stats(const ArchiveReader& reader, const std::string& only, int timestep) {
  // What was asked for must exist: an empty table is no answer.
  if (timestep >= 0) reader.output(timestep);
  if (!only.empty() && !reader.index().outputs.empty()) {
    const auto names = reader.variables(reader.index().outputs.front());
    if (std::find(names.begin(), names.end(), only) == names.end()) {
      std::string known;
      for (const std::string& name : names)
        known += (known.empty() ? "" : ", ") + name;
      throw InputError("--var: no variable '" + only + "' in " + reader.directory() +
                       " (variables: " + known + ")");
    }
  }
  if (reader.index().outputs.empty())
    throw InputError("'" + reader.directory() + "' has no outputs to summarise");
  std::cout << std::setw(8) << "timestep" << std::setw(16) << "time" << std::setw(10) << "variable" << std::setw(16)
            << "min" << std::setw(16) << "max" << std::setw(16) << "mean" << std::setw(16) << "L2 (RMS)" << "\n";
  for (const ArchiveEntry& entry : reader.index().outputs) {
    if (timestep >= 0 && entry.timestep != timestep) continue;
    const ArchivedGrid grid = reader.grid(entry);
    for (const std::string& name : reader.variables(entry)) {
      if (!only.empty() && name != only) continue;
      const ArchivedVariable var = reader.read(entry, name);
      double lo = std::numeric_limits<double>::max();
      double hi = std::numeric_limits<double>::lowest();
      double sum = 0.0;
      double squares = 0.0;
      std::int64_t n = 0;
      // A cell variable's interior, [0, resolution) on every axis, where its
      // level holds cells; every entry of a block variable.
      const IntVector first = var.block ? IntVector{} : max(var.indexLo, IntVector{});
      const IntVector end = var.block ? var.size
                                      : min(var.indexLo + var.size, grid.resolutionOf(var.level));
      for (int k = first.z; k < end.z; ++k)
        for (int j = first.y; j < end.y; ++j)
          for (int i = first.x; i < end.x; ++i) {
            if (!var.contains({i, j, k})) continue;
            const double v = var.at({i, j, k});
            lo = std::min(lo, v);
            hi = std::max(hi, v);
            sum += v;
            squares += v * v;
            ++n;
          }
      std::cout << std::setw(8) << entry.timestep << std::setw(16) << std::setprecision(9) << entry.time
                << std::setw(10) << name << std::setprecision(9) << std::setw(16) << lo << std::setw(16) << hi
                << std::setw(16) << sum / n << std::setw(16) << std::sqrt(squares / n) << "\n";
    }
  }
}

void line(const ArchiveReader& reader, const std::string& name, int timestep, const std::string& axisName,
          const std::string& at) {
  const int axis = axisName == "x" ? 0 : axisName == "y" ? 1 : axisName == "z" ? 2 : -1;
  if (axis < 0) throw InputError("--axis must be x, y or z, not '" + axisName + "'");
  int a = 0, b = 0;
  char comma = 0;
  std::istringstream parse(at);
  if (!(parse >> a >> comma >> b) || comma != ',') throw InputError("--at expects two indices like 5,7");
  const ArchiveEntry& entry = reader.output(timestep);
  const ArchivedGrid grid = reader.grid(entry);
  const ArchivedVariable var = reader.read(entry, name);
  if (var.block) {
    throw InputError("--line reads cell variables; '" + name +
                     "' is a block variable (see --png, or python/tessera_archive)");
  }
  // The cells of the line the archive holds (a finer level's may have
  // gaps between its regions), all found before any is printed.
  std::vector<IntVector> cells;
  for (int n = var.indexLo[axis]; n < var.indexLo[axis] + var.size[axis]; ++n) {
    const IntVector cell = axis == 0 ? IntVector{n, a, b} : axis == 1 ? IntVector{a, n, b} : IntVector{a, b, n};
    if (var.contains(cell)) cells.push_back(cell);
  }
  if (cells.empty()) {
    std::ostringstream message;
    message << "--at " << at << " lies outside the archived cells (" << var.size
            << " cells from " << var.indexLo << ")";
    throw InputError(message.str());
  }
  std::cout << "# " << name << " at timestep " << timestep << " (time " << std::setprecision(9) << entry.time
            << ") along " << axisName << "\n# index position value\n";
  const double spacing = grid.spacingOf(var.level)[axis];
  for (const IntVector& cell : cells) {
    const double position = grid.lower[axis] + (cell[axis] + 0.5) * spacing;
    std::cout << cell[axis] << " " << std::setprecision(17) << position << " " << var.at(cell) << "\n";
  }
}

// Hands over to the Python quick look (its exit code is ours): matplotlib
// draws the picture, colour bar and labels as well as any plotting library
// a C++ tool could link, and h5py reads the file as the Python module does.
int quickLook(const std::vector<std::string>& arguments) {
  std::string path = TESSERA_PYTHON_DIR;
  if (const char* existing = std::getenv("PYTHONPATH"); existing && *existing)
    path += std::string(":") + existing;
  ::setenv("PYTHONPATH", path.c_str(), 1);
  std::vector<char*> argv;
  for (const std::string& a : arguments)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  throw InputError(std::string("--png needs python3 (with matplotlib and h5py): cannot run it: ") +
                   std::strerror(errno));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tessera-inspect: list, summarise and extract the contents of a Tessera run directory",
               "tessera-inspect"};
  std::string directory;
  bool wantStats = false;
  std::string variable;
  std::string lineVariable;
  int timestep = -1;
  std::string axis = "x";
  std::string at = "0,0";
  app.add_option("run", directory, "the run directory (or its link)")->required();
  app.add_flag("--stats", wantStats, "min, max, mean and L2 of each variable at each output timestep");
  app.add_option("--var", variable, "only this variable (with --stats)");
  app.add_option("--timestep", timestep, "only this output timestep");
  app.add_option("--line", lineVariable, "print one line of cells of this variable");
  app.add_option("--axis", axis, "with --line: x, y or z");
  app.add_option("--at", at,
                 "with --line: the other two indices, e.g. 5,7 (y,z for a line along x); with "
                 "--png: the slice's index along --axis (default: the middle)");
  std::string png;
  app.add_option("--png", png, "write a slice of --var (a cell variable: normal to --axis, "
                               "default z; a block variable: its matrix) as a PNG");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  try {
    if (!png.empty()) {
      if (variable.empty()) throw tessera::InputError("--png needs --var");
      std::vector<std::string> command{TESSERA_SYSTEM_PYTHON, "-m", "tessera_archive.quicklook", directory,
                                       "--png", png, "--var", variable};
      if (timestep >= 0) command.insert(command.end(), {"--timestep", std::to_string(timestep)});
      if (app.count("--axis") > 0) command.insert(command.end(), {"--axis", axis});
      if (app.count("--at") > 0) command.insert(command.end(), {"--at", at});
      return quickLook(command);
    }
    const tessera::ArchiveReader reader(directory);
    if (!lineVariable.empty()) {
      if (timestep < 0) throw tessera::InputError("--line needs --timestep");
      line(reader, lineVariable, timestep, axis, at);
    } else if (wantStats) {
      stats(reader, variable, timestep);
    } else {
      list(reader);
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "tessera-inspect: error: " << e.what() << "\n";
    return 1;
  }
}
