#include "CCA/Components/DataArchiver/DataArchiver.h"

#include "CCA/Components/DataArchiver/RunDirectory.h"
#include "CCA/Components/DataArchiver/XdmfWriter.h"
#include "Core/Parallel/Communicator.h"
#include "Core/Util/Logger.h"
#include "Core/Util/Version.h"

#include "Core/IO/DurableFiles.h"
#include "Core/IO/FaultInjection.h"
#include "Core/Parallel/Agreement.h"
#include "Core/Parallel/CgroupFiles.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <filesystem>
#include <thread>

namespace fs = std::filesystem;

namespace tessera {

namespace {

ArchiveSchedule readSchedule(const ProblemSpec& section) {
  ArchiveSchedule schedule;
  if (section.has("interval")) schedule.interval = section.get<double>("interval");
  if (section.has("timestep_interval"))
    schedule.timestepInterval = section.get<int>("timestep_interval");
  if (section.has("walltime_interval"))
    schedule.walltimeInterval = section.get<double>("walltime_interval");
  return schedule;
}

std::string stepFileName(int timestep) {
  char name[32];
  std::snprintf(name, sizeof(name), "t%05d", timestep);
  return name;
}

// A test-only hook: slows a checkpoint down between writing and renaming so
// that a test can kill the run inside the window.
double checkpointDelayForTests() {
  const char* value = std::getenv("TESSERA_TEST_CHECKPOINT_DELAY");
  return value ? std::atof(value) : 0.0;
}

// Rank 0's `text`, on every rank.
std::string broadcastText(const Communicator& comm, const std::string& text) {
  long long length = static_cast<long long>(text.size());
  TESSERA_MPI_CHECK(MPI_Bcast(&length, 1, MPI_LONG_LONG, 0, comm.get()));
  std::string shared = comm.isRoot() ? text : std::string(static_cast<std::size_t>(length), '\0');
  if (length > 0) {
    TESSERA_MPI_CHECK(
        MPI_Bcast(shared.data(), static_cast<int>(length), MPI_CHAR, 0, comm.get()));
  }
  return shared;
}

std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string DataArchiver::defaultBase(const std::string& deckPath,
                                      const std::string& restartDirectory) {
  if (restartDirectory.empty()) return fs::path(deckPath).stem().string() + ".tsa";
  std::string base = fs::path(restartDirectory).lexically_normal().string();
  while (base.size() > 1 && base.back() == '/')
    base.pop_back();
  const auto dot = base.find_last_of('.');
  const bool versioned = dot != std::string::npos && base.size() - dot == 4 &&
                         std::all_of(base.begin() + static_cast<std::ptrdiff_t>(dot) + 1,
                                     base.end(), [](char c) { return c >= '0' && c <= '9'; });
  return versioned ? base.substr(0, dot) : base;
}

DataArchiver::DataArchiver(const ProblemSpec& deck, const std::string& defaultBase,
                           const Communicator& comm, Logger& log)
    : m_comm(comm), m_log(log), m_deck(deck), m_base(defaultBase) {
  if (const auto output = deck.findSection("output")) {
    m_outputs = readSchedule(*output);
    if (output->has("interval") && output->has("timestep_interval")) {
      throw output->errorAtKey("timestep_interval",
                               "give either interval or timestep_interval, not both");
    }
    m_outputInitial = output->get<bool>("output_initial", true);
    m_outputLast = output->get<bool>("output_last", true);
    m_saveNames = output->get<std::vector<std::string>>("save", {});
    m_base = output->get<std::string>("dir", m_base);
  }
  if (const auto checkpoint = deck.findSection("checkpoint")) {
    m_checkpoints = readSchedule(*checkpoint);
    m_cycle = checkpoint->get<int>("cycle", m_cycle);
    if (!m_checkpoints->interval && !m_checkpoints->timestepInterval &&
        !m_checkpoints->walltimeInterval) {
      throw checkpoint->errorHere("give interval, timestep_interval or walltime_interval");
    }
  }
}

namespace {

// What the files hold of `labels`, with each block variable's shape. A
// block variable is stored as its global array, so its blocks must tile it:
// an InputError naming it otherwise.
std::vector<ArchivedLabel> describeArchived(const std::vector<const VarLabel*>& labels,
                                            const BlockLayouts* blockLayouts) {
  std::vector<ArchivedLabel> described;
  for (const VarLabel* label : labels) {
    ArchivedLabel entry{label->name(), label->kind() == VarKind::Block, label->valueType(), 0, 0};
    if (entry.block) {
      const auto found = blockLayouts ? blockLayouts->find(label) : BlockLayouts::const_iterator{};
      if (!blockLayouts || found == blockLayouts->end())
        throw InputError("cannot archive block variable '" + label->name() +
                         "': the timestep graph gives it no layout");
      if (const std::string why = found->second.whyNotOneArray(); !why.empty())
        throw InputError("cannot archive block variable '" + label->name() + "': " + why);
      entry.rows = found->second.arrayRows();
      entry.cols = found->second.arrayCols();
    }
    described.push_back(std::move(entry));
  }
  return described;
}

}  // namespace

void DataArchiver::setup(const Grid& grid, const std::vector<int>& patchRanks,
                         const VarLabelRegistry& labels,
                         const std::vector<const VarLabel*>& stateLabels,
                         const BlockLayouts* blockLayouts, const std::string& component,
                         const std::string& restartedFrom) {
  m_grid = &grid;
  m_patchRanks = patchRanks;
  m_state = stateLabels;
  for (const VarLabel* label : labels.all()) {
    if (label->kind() == VarKind::Reduction) m_reductions.push_back(label);
  }
  m_saved = savedLabels(labels, stateLabels);
  if (!enabled()) return;
  // Both lists are checked whichever is written (refused before anything
  // is, the same on every rank: the layouts are); the index lists those written.
  std::vector<ArchivedLabel> saved = describeArchived(m_saved, blockLayouts);
  std::vector<ArchivedLabel> state = describeArchived(m_state, blockLayouts);
  m_index.component = component;
  m_index.tesseraVersion = kVersion;
  m_index.restartedFrom = restartedFrom;
  if (m_outputs) m_index.outputVariables = std::move(saved);
  if (m_checkpoints) m_index.checkpointVariables = std::move(state);
  const std::string deckText = "# The deck as run, overrides applied.\n" + m_deck.toYaml() + "\n";
  m_deckDigest = digestOfText(deckText);
  // Rank 0 creates the directory; the others learn its name or the failure.
  std::string created;
  agreeOn(m_comm, [&] {
    if (!m_comm.isRoot()) return;
    created = createVersionedRunDirectory(m_base);
    m_lock = RunDirectoryLock(created);
    fs::create_directories(fs::path(created) / "checkpoints");
    writeFileAtomically(created + "/input.yaml", deckText);
    m_index.save(created);
  });
  m_directory = broadcastText(m_comm, created);
  m_log.info("output: writing to ", m_directory);
  m_sinceCheckpoint.reset();
}

std::vector<const VarLabel*> DataArchiver::savedLabels(
    const VarLabelRegistry& labels, const std::vector<const VarLabel*>& stateLabels) const {
  if (m_saveNames.empty()) return stateLabels;
  std::vector<const VarLabel*> saved;
  for (const std::string& name : m_saveNames) {
    const VarLabel* label = labels.find(name);
    if (label == nullptr ||
        (label->kind() != VarKind::CellCentered && label->kind() != VarKind::Block)) {
      std::string cells, blocks;
      for (const VarLabel* l : labels.all()) {
        std::string& known = l->kind() == VarKind::Block ? blocks : cells;
        if (l->kind() == VarKind::CellCentered || l->kind() == VarKind::Block)
          known += (known.empty() ? "" : ", ") + l->name();
      }
      std::string known = cells.empty() ? "" : "cell variables: " + cells;
      if (!blocks.empty()) known += std::string(known.empty() ? "" : "; ") + "block variables: " + blocks;
      throw m_deck.section("output").errorAtValue(
          "save", "unknown variable '" + name + "' (" + known + ")");
    }
    saved.push_back(label);
  }
  return saved;
}

bool DataArchiver::due(const ArchiveSchedule& schedule, int timestep, double time,
                       double previousTime) const {
  if (schedule.timestepInterval && timestep % *schedule.timestepInterval == 0) return true;
  if (schedule.interval) {
    // A multiple of the interval was reached or crossed by this step.
    const double before = std::floor(previousTime / *schedule.interval + 1e-9);
    const double now = std::floor(time / *schedule.interval + 1e-9);
    if (now > before) return true;
  }
  if (schedule.walltimeInterval) {
    // Every rank must decide alike: use the slowest rank's clock.
    return m_comm.allreduceMax(m_sinceCheckpoint.seconds()) >= *schedule.walltimeInterval;
  }
  return false;
}

void DataArchiver::afterTimestep(int timestep, double time, double delt, double previousTime,
                                 const OnDemandDataWarehouse& dw, bool last) {
  if (!enabled()) return;
  const ArchiveStep step{timestep, time, delt, m_index.component, m_deckDigest};
  if (m_outputs) {
    const bool initial = timestep == 0 && m_outputInitial;
    if (initial || (last && m_outputLast) ||
        (timestep > 0 && due(*m_outputs, timestep, time, previousTime))) {
      writeOutput(step, dw);
    }
  }
  if (m_checkpoints && timestep > 0 && due(*m_checkpoints, timestep, time, previousTime)) {
    writeCheckpoint(step, dw);
  }
}

std::int64_t DataArchiver::writeFile(const std::string& relativePath, const ArchiveStep& step,
                                     const std::vector<const VarLabel*>& labels,
                                     const std::vector<const VarLabel*>& reductions,
                                     const OnDemandDataWarehouse& dw, bool slowForTests) {
  const std::string path = m_directory + "/" + relativePath;
  const std::string temporary = path + ".tmp";
  // Every step that rank 0 takes alone is agreed on, so that a full disk
  // ends the run on every rank together (see Core/Parallel/Agreement.h).
  try {
    agreeOn(m_comm, [&] {
      if (m_comm.isRoot()) fs::remove(temporary);
    });
    writeArchiveFile(temporary, m_comm, step, *m_grid, m_patchRanks, labels, reductions, dw);
    return agreeOn(m_comm, [&]() -> std::int64_t {
      if (!m_comm.isRoot()) return 0;
      flushFile(temporary, m_comm.rank());
      const auto bytes = static_cast<std::int64_t>(fs::file_size(temporary));
      if (slowForTests && checkpointDelayForTests() > 0.0) {
        std::this_thread::sleep_for(std::chrono::duration<double>(checkpointDelayForTests()));
      }
      renameDurably(temporary, path, m_comm.rank());
      return bytes;
    });
  } catch (const Error& e) {
    std::error_code ignored;
    if (m_comm.isRoot()) fs::remove(temporary, ignored);
    Error failure("writing '" + path + "' failed (" + e.what() +
                  "); the earlier files are untouched");
    if (e.agreedByAllRanks()) failure.markAgreedByAllRanks();
    if (e.endsTheProcess()) failure.markEndsTheProcess();
    throw failure;
  }
}

void DataArchiver::writeOutput(const ArchiveStep& step, const OnDemandDataWarehouse& dw) {
  const std::string file = stepFileName(step.timestep) + ".h5";
  writeFile(file, step, m_saved, m_reductions, dw, false);
  m_index.outputs.push_back({step.timestep, step.time, step.delt, file});
  agreeOn(m_comm, [&] {
    if (!m_comm.isRoot()) return;
    writeXdmf();
    m_index.save(m_directory);
  });
  m_log.info("output: timestep ", step.timestep, " -> ", m_directory, "/", file);
}

void DataArchiver::writeCheckpoint(const ArchiveStep& step, const OnDemandDataWarehouse& dw) {
  const Timer timer;
  const std::string file = "checkpoints/" + stepFileName(step.timestep) + ".h5";
  const std::int64_t bytes = writeFile(file, step, m_state, m_reductions, dw, true);
  m_checkpointSeconds += timer.seconds();
  m_checkpointBytes += bytes;
  m_index.checkpoints.push_back({step.timestep, step.time, step.delt, file});
  // Older checkpoints go only now that the new one is complete and indexed.
  std::vector<ArchiveEntry> expired;
  while (static_cast<int>(m_index.checkpoints.size()) > m_cycle) {
    expired.push_back(m_index.checkpoints.front());
    m_index.checkpoints.erase(m_index.checkpoints.begin());
  }
  agreeOn(m_comm, [&] {
    if (!m_comm.isRoot()) return;
    m_index.save(m_directory);
    for (const ArchiveEntry& old : expired)
      fs::remove(m_directory + "/" + old.file);
  });
  m_sinceCheckpoint.reset();
  m_log.info("checkpoint: timestep ", step.timestep, " -> ", m_directory, "/", file, " (", bytes,
             " bytes in ", timer.seconds(), " s)");
}

void DataArchiver::gridChanged(const Grid& grid, const std::vector<int>& patchRanks) {
  m_grid = &grid;
  m_patchRanks = patchRanks;
}

void DataArchiver::writeXdmf() {
  std::vector<XdmfVariable> variables;
  for (const VarLabel* label : m_saved)  // cells: a block variable is no field on the mesh
    if (label->kind() == VarKind::CellCentered)
      variables.push_back({label->name(), label->valueType()});
  if (variables.empty()) return;  // block variables only (the GEMM): nothing on a mesh to show
  std::string all;
  // Each output's own .xmf, written with it, describes the grid of its
  // step (the levels change when the run regrids); run.xmf gathers them,
  // kept in memory once made (or read, for an output this run did not write).
  for (const ArchiveEntry& output : m_index.outputs) {
    std::string& grid = m_xdmfGrids[output.file];
    if (grid.empty()) {
      const std::string single =
          m_directory + "/" + fs::path(output.file).stem().string() + ".xmf";
      if (fs::exists(single)) grid = xdmfGridOf(readTextFile(single));
      if (grid.empty()) {
        grid = xdmfGrid(*m_grid, output, variables);
        writeFileAtomically(single, xdmfDocument(grid, false));
      }
    }
    all += grid;
  }
  writeFileAtomically(m_directory + "/run.xmf", xdmfDocument(all, true));
}

DataArchiver::Restored DataArchiver::restore(const std::string& runDirectory,
                                             std::optional<int> timestep, const Grid& grid,
                                             const std::vector<int>& patchRanks,
                                             const std::vector<const VarLabel*>& stateLabels,
                                             const std::vector<const VarLabel*>& reductions,
                                             const std::map<const VarLabel*, int>& ghostLayers,
                                             std::shared_ptr<const BlockLayouts> blockLayouts,
                                             const Communicator& comm, Logger& log) {
  // Each rank reads the index; they agree before the first collective read.
  std::string directory;
  ArchiveIndex index;
  const std::vector<ArchiveEntry> candidates = agreeOn(comm, [&] {
    directory = resolveRunDirectory(runDirectory);
    index = ArchiveIndex::load(directory);
    std::vector<ArchiveEntry> usable = index.checkpoints;
    if (timestep) {
      usable.erase(std::remove_if(usable.begin(), usable.end(),
                                      [&](const ArchiveEntry& e) { return e.timestep != *timestep; }),
                       usable.end());
      if (usable.empty()) {
        std::string available;
        for (const ArchiveEntry& e : index.checkpoints)
          available += (available.empty() ? "" : ", ") + std::to_string(e.timestep);
        throw InputError("'" + runDirectory + "' has no checkpoint at timestep " +
                         std::to_string(*timestep) +
                         " (available: " + (available.empty() ? "none" : available) + ")");
      }
    }
    if (usable.empty())
      throw InputError("'" + runDirectory + "' holds no checkpoint to restart from");
    return usable;
  });
  // Temporaries of an interrupted write go, once no process writes there.
  agreeOn(comm, [&] {
    if (!comm.isRoot()) return;
    for (const std::string& stale : removeStaleTemporaries(directory))
      log.warning("restart: removed ", stale, " (left by an interrupted write)");
  });
  // The stored deck is what the restart runs: the checkpoint must have been
  // written with it.
  const std::string deckPath = directory + "/" + index.deck;
  const std::uint64_t deckDigest = agreeOn(comm, [&] { return digestOfText(readWholeFile(deckPath)); });
  std::string reasons;
  for (auto it = candidates.rbegin(); it != candidates.rend(); ++it) {
    const std::string path = directory + "/" + it->file;
    try {
      auto attempt =
          std::make_unique<OnDemandDataWarehouse>("NewDW", it->timestep, it->time, it->delt);
      attempt->setGhostLayers(ghostLayers);
      attempt->setBlockLayouts(blockLayouts);
      const ArchiveStep step =
          readArchiveFile(path, comm, grid, patchRanks, stateLabels, reductions, *attempt);
      agreeOn(comm, [&] {
        if (step.timestep != it->timestep || step.time != it->time || step.delt != it->delt) {
          throw InputError("'" + path + "' disagrees with index.yaml on its timestep, time or delt");
        }
        if (step.deckDigest != deckDigest) {
          throw InputError("'" + path + "' was written with another deck than " + deckPath +
                           " (changed or corrupt)");
        }
      });
      log.info("restart: from ", path, " (timestep ", step.timestep, ", time ", step.time, ")");
      return Restored{step, path, std::move(attempt)};
    } catch (const Error& e) {
      // Read failures are agreed on by every rank (readArchiveFile); any
      // other error is not a property of the file.
      if (!e.agreedByAllRanks()) throw;
      reasons += std::string("\n  ") + e.what();
      if (std::next(it) != candidates.rend()) {
        log.warning("restart: checkpoint ", path, " is unusable (", e.what(), "); falling back to ",
                    directory, "/", std::next(it)->file);
      }
    }
  }
  InputError none("no usable checkpoint in '" + runDirectory + "':" + reasons);
  none.markAgreedByAllRanks();
  throw none;
}

}  // namespace tessera
