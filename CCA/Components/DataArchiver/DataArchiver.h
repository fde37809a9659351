#pragma once
// Writes a run's outputs and checkpoints (parallel HDF5) into a versioned run
// directory, and restores a run from its newest valid checkpoint.
//
//   RUN.tsa.000/
//     input.yaml          the deck as run (overrides applied)
//     index.yaml          outputs and checkpoints with time, timestep, delt
//     t00010.h5 ...       one file per output timestep (ArchiveFile.h)
//     t00010.xmf, run.xmf XDMF for ParaView/VisIt
//     checkpoints/t00010.h5
//
// Every file is written under a temporary name and renamed into place once
// complete and closed; the index is updated the same way, so a crash (even
// SIGKILL) in the middle of a write leaves the previous state intact.

#include "CCA/Components/DataArchiver/ArchiveFile.h"
#include "CCA/Components/DataArchiver/ArchiveIndex.h"
#include "CCA/Components/DataArchiver/RunDirectory.h"
#include "CCA/Components/Schedulers/OnDemandDataWarehouse.h"
#include "Core/Grid/BlockLayout.h"
#include "Core/Grid/Grid.h"
#include "Core/ProblemSpec/ProblemSpec.h"
#include "Core/Util/Timer.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessera {

class Communicator;
class Logger;

using BlockLayouts = std::map<const VarLabel*, BlockLayout>;

struct ArchiveSchedule {
  std::optional<double> interval;          // simulation time between files
  std::optional<int> timestepInterval;     // timesteps between files
  std::optional<double> walltimeInterval;  // wall seconds between checkpoints
};

class DataArchiver {
 public:
  // `defaultBase` names the run directory when the deck gives no output.dir.
  DataArchiver(const ProblemSpec& deck, const std::string& defaultBase, const Communicator& comm,
               Logger& log);

  // The default run directory name: next to a run being restarted
  // (RUN.tsa.003 -> RUN.tsa), else after the deck (burgers.yaml -> burgers.tsa).
  static std::string defaultBase(const std::string& deckPath, const std::string& restartDirectory);

  // True when the deck asks for outputs or checkpoints.
  bool enabled() const { return m_outputs || m_checkpoints; }

  // Resolves `output.save` (unknown labels are a deck error naming the known
  // ones), creates the run directory and writes input.yaml and the index.
  // The cell variables to save: `output.save`, or all of `stateLabels`.
  // Unknown names are a deck error naming the known cell variables.
  std::vector<const VarLabel*> savedLabels(const VarLabelRegistry& labels,
                                           const std::vector<const VarLabel*>& stateLabels) const;

  // `blockLayouts`: the run's, for the block variables among them (each
  // must tile its global array: an InputError naming it otherwise).
  void setup(const Grid& grid, const std::vector<int>& patchRanks, const VarLabelRegistry& labels,
             const std::vector<const VarLabel*>& stateLabels, const BlockLayouts* blockLayouts,
             const std::string& component, const std::string& restartedFrom);

  // The run moved to another grid or balance (a regrid, a rebalance): the
  // next files hold it. `grid` must outlive the archiver's use of it.
  void gridChanged(const Grid& grid, const std::vector<int>& patchRanks);

  // Writes whatever is due after `timestep` (0: the initial state) reached `time`.
  void afterTimestep(int timestep, double time, double delt, double previousTime,
                     const OnDemandDataWarehouse& dw, bool last);

  const std::string& directory() const { return m_directory; }
  // Bytes and seconds of checkpoint writing so far (for bandwidth reports).
  double checkpointSeconds() const { return m_checkpointSeconds; }
  std::int64_t checkpointBytes() const { return m_checkpointBytes; }

  struct Restored {
    ArchiveStep step;
    std::string file;
    std::unique_ptr<OnDemandDataWarehouse> dw;  // holds the checkpointed state
  };
  // Reads a checkpoint of `runDirectory`: the one at `timestep` if given,
  // else the newest that is complete and passes its checksums, falling back
  // to older ones (and saying so). Cell variables get room for
  // `ghostLayers`; block variables come in `blockLayouts` (this run's,
  // whatever the layout that wrote them). InputError when none is usable.
  static Restored restore(const std::string& runDirectory, std::optional<int> timestep,
                          const Grid& grid, const std::vector<int>& patchRanks,
                          const std::vector<const VarLabel*>& stateLabels,
                          const std::vector<const VarLabel*>& reductions,
                          const std::map<const VarLabel*, int>& ghostLayers,
                          std::shared_ptr<const BlockLayouts> blockLayouts,
                          const Communicator& comm, Logger& log);

 private:
  bool due(const ArchiveSchedule& schedule, int timestep, double time, double previousTime) const;
  void writeOutput(const ArchiveStep& step, const OnDemandDataWarehouse& dw);
  void writeCheckpoint(const ArchiveStep& step, const OnDemandDataWarehouse& dw);
  // Writes `relativePath` collectively through a temporary file; returns its bytes.
  std::int64_t writeFile(const std::string& relativePath, const ArchiveStep& step,
                         const std::vector<const VarLabel*>& labels,
                         const std::vector<const VarLabel*>& reductions,
                         const OnDemandDataWarehouse& dw, bool slowForTests);
  void writeXdmf();

  const Communicator& m_comm;
  Logger& m_log;
  ProblemSpec m_deck;
  std::optional<ArchiveSchedule> m_outputs;
  std::optional<ArchiveSchedule> m_checkpoints;
  bool m_outputInitial = true;
  bool m_outputLast = true;
  int m_cycle = 2;
  std::vector<std::string> m_saveNames;
  std::string m_base;

  std::string m_directory;
  ArchiveIndex m_index;
  const Grid* m_grid = nullptr;
  std::vector<int> m_patchRanks;
  std::vector<const VarLabel*> m_saved;
  std::vector<const VarLabel*> m_state;
  std::vector<const VarLabel*> m_reductions;
  Timer m_sinceCheckpoint;
  RunDirectoryLock m_lock;          // rank 0's, while it writes m_directory
  std::uint64_t m_deckDigest = 0;   // of m_directory/input.yaml
  double m_checkpointSeconds = 0.0;
  std::int64_t m_checkpointBytes = 0;
  std::map<std::string, std::string> m_xdmfGrids;  // by output file: its XDMF grid
};

}  // namespace tessera
