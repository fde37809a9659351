#include "StandAlone/RunReport.h"

#include <cstdio>
#include <iomanip>
#include <limits>

namespace tessera {

void printRunReport(std::ostream& out, const RunResult& result, int numRanks) {
  const double perStep = result.timesteps > 0 ? result.wallSeconds / result.timesteps : 0.0;
  const double rate = result.wallSeconds > 0.0 ? result.cellUpdates / result.wallSeconds : 0.0;
  const auto& s = result.stats;
  out << "summary: " << result.timesteps << " timesteps";
  if (result.firstTimestep > 0) out << " (from restart at timestep " << result.firstTimestep << ")";
  out << " to time " << std::setprecision(9) << result.time << " on " << numRanks << " rank(s)\n"
      << std::setprecision(4) << "  wall time " << result.wallSeconds << " s, " << perStep * 1e3
      << " ms per timestep, " << std::scientific << std::setprecision(3) << rate
      << " cell updates per second\n"
      << std::defaultfloat << "  scheduler " << result.schedulerMode << ": tasks run " << s.tasksRun
      << ", tiles " << s.tiles << ", reductions " << s.reductions << ", messages sent "
      << s.messagesSent << " (" << s.bytesSent << " bytes)\n"
      << "  rank 0: device busy " << s.deviceBusySeconds << " s, waiting on MPI " << s.waitSeconds
      << " s, pack/unpack " << s.packSeconds << " s, communication overlapped with device work "
      << std::fixed << std::setprecision(1) << 100.0 * s.overlapFraction() << " %\n"
      << std::defaultfloat;
  if (numRanks > 1) {
    out << "  load imbalance " << std::fixed << std::setprecision(1)
        << 100.0 * result.loadImbalance()
        << " % (time in tasks: the busiest rank's over the mean, minus 1)\n"
        << std::defaultfloat;
    if (result.rebalances > 0) {
      out << "  rebalances: " << result.rebalances << " (" << result.patchesMoved
          << " patches moved)\n";
    }
  }
  if (result.regridChecks > 0) {
    out << "  regrids: " << result.regrids << " of " << result.regridChecks
        << " changed the levels; cells per level now";
    for (const std::int64_t cells : result.levelCells)
      out << " " << cells;
    out << "\n";
  }
  if (!result.outputDirectory.empty()) {
    out << "  output in " << result.outputDirectory;
    if (result.checkpointBytes > 0) {
      out << "; checkpoints " << result.checkpointBytes << " bytes in " << std::setprecision(4)
          << result.checkpointSeconds << " s (" << std::setprecision(3)
          << result.checkpointBytes / result.checkpointSeconds / 1e9 << " GB/s)";
    }
    out << "\n";
  }
  // Every digit: the norms are exact sums, the same bits on any layout.
  for (const auto& [name, value] : result.analysis) {
    out << name << ": " << std::setprecision(std::numeric_limits<double>::max_digits10) << value
        << "\n";
  }
  for (const std::string& line : result.analysisReport)
    out << line << "\n";
  for (const FieldDigest& field : result.digests) {
    char hex[32];
    std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(field.digest));
    out << "digest " << field.name << " " << hex << "\n";
  }
}

}  // namespace tessera
