#pragma once
// A task: a named callback run once per patch (or once per patch group: see
// PatchGroup.h, or once per index of a TaskSpace), with the data it reads
// and writes declared up front. The runtime orders tasks, moves ghost cells
// and blocks, and runs them from these declarations alone.

#include "Core/Grid/BlockLayout.h"
#include "Core/Grid/Ghost.h"
#include "Core/Grid/VarLabel.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tessera {

class DataWarehouse;
class ExecutionContext;
class Patch;
class PatchGroup;

struct TaskSpace;

class Task {
 public:
  enum WhichDW { OldDW, NewDW };
  // Device tasks run Kokkos kernels, and reach their variables' cells only
  // through their ExecutionContext's kernels (or announce their own with
  // countKernel): the runtime may follow those (SweepFollower). Host tasks
  // do light work on the control thread, in host code.
  enum class Kind { Device, Host };
  enum class Access { Requires, Computes, Modifies };

  // The blocks (or rows of blocks) of a block variable that the task at a
  // given index of its TaskSpace reads or writes.
  using BlockMap = std::function<std::vector<BlockRef>(int index)>;

  // Where a requirement's cells are: on the task's own patch, or on the
  // next finer level's patches over it (averaged onto its cells with the
  // label's coarsen operator: the runtime's restriction, docs/amr.md).
  enum class LevelDomain { ThisLevel, FinerLevel };

  // Where the coarse-fine ghost cells of a requirement come from when the
  // levels take steps of their own (subcycling: docs/amr.md): the coarser
  // level's `before` and `after` (a label and a warehouse each), linearly
  // in time, `weight` of the way from `before` to `after`. Set by the
  // runtime when it records a level's substeps; a component never does.
  struct CoarseTimeSource {
    const VarLabel* before = nullptr;
    WhichDW beforeDW = OldDW;
    const VarLabel* after = nullptr;
    WhichDW afterDW = NewDW;
    double weight = 0.0;  // 0: `before` alone; 1: `after` alone
  };

  struct Dependency {
    Access access;
    WhichDW dw;
    const VarLabel* label;
    Ghost::Type ghost;
    int numGhost;
    BlockMap blocks = {};  // block variables only
    bool sum = false;      // requiresBlockSum
    LevelDomain domain = LevelDomain::ThisLevel;
    // Unset: the coarse-fine ghost cells come from the coarser level's `label` in `dw`.
    std::optional<CoarseTimeSource> coarseTime = std::nullopt;
    // computesVarInPlace: may take the old version's storage (see there).
    bool reusesOldStorage = false;
    // modifiesVar(OldDW, label): computes `label` in NewDW from the old values.
    bool carriesForward() const { return access == Access::Modifies && dw == OldDW; }
    // The task may leave the old version of `label` without storage.
    bool takesOldStorage() const { return carriesForward() || reusesOldStorage; }
  };

  using Callback = std::function<void(const Patch& patch, const DataWarehouse& oldDW,
                                      DataWarehouse& newDW, ExecutionContext& exec)>;

  // A task run once per patch group: one call covers every patch of a box
  // of this rank's patches, so its kernels sweep the whole box at once. It
  // declares its data per patch, as any task does, and must leave what it
  // computes on every patch of the group (a cell variable allocated for the
  // group is on all of them; per-patch values and reduction contributions
  // are put patch by patch).
  using GroupCallback = std::function<void(const PatchGroup& group, const DataWarehouse& oldDW,
                                           DataWarehouse& newDW, ExecutionContext& exec)>;

  // A task run once per index of a TaskSpace (see TaskSpace.h).
  using IndexCallback = std::function<void(int index, const DataWarehouse& oldDW,
                                           DataWarehouse& newDW, ExecutionContext& exec)>;

  Task(std::string name, Callback callback, Kind kind = Kind::Device);
  Task(std::string name, GroupCallback callback, Kind kind = Kind::Device);
  Task(std::string name, IndexCallback callback, Kind kind = Kind::Device);
  // Binds a member function of a component: Task("Burgers::timeAdvance", this,
  // &Burgers::timeAdvance).
  template <class Component>
  Task(std::string name, const Component* component,
       void (Component::*method)(const Patch&, const DataWarehouse&, DataWarehouse&,
                                 ExecutionContext&) const,
       Kind kind = Kind::Device)
      : Task(
            std::move(name),
            [component, method](const Patch& patch, const DataWarehouse& oldDW,
                                DataWarehouse& newDW, ExecutionContext& exec) {
              (component->*method)(patch, oldDW, newDW, exec);
            },
            kind) {}
  template <class Component>
  Task(std::string name, const Component* component,
       void (Component::*method)(const PatchGroup&, const DataWarehouse&, DataWarehouse&,
                                 ExecutionContext&) const,
       Kind kind = Kind::Device)
      : Task(std::move(name),
             GroupCallback([component, method](const PatchGroup& group, const DataWarehouse& oldDW,
                                               DataWarehouse& newDW, ExecutionContext& exec) {
               (component->*method)(group, oldDW, newDW, exec);
             }),
             kind) {}

  template <class Component>
  Task(std::string name, const Component* component,
       void (Component::*method)(int, const DataWarehouse&, DataWarehouse&, ExecutionContext&)
           const,
       Kind kind = Kind::Device)
      : Task(std::move(name),
             IndexCallback([component, method](int index, const DataWarehouse& oldDW,
                                               DataWarehouse& newDW, ExecutionContext& exec) {
               (component->*method)(index, oldDW, newDW, exec);
             }),
             kind) {}

  // Reads `label` from the old or new warehouse, with `numGhost` layers of
  // neighbour data around the patch (Ghost::AroundCells), or across its
  // faces only (Ghost::AroundFaces, enough for a star stencil).
  Task& requiresVar(WhichDW dw, const VarLabel* label, Ghost::Type ghost = Ghost::None,
                    int numGhost = 0);
  // The cells of a cell variable that the next finer level covers, averaged
  // onto this patch's variable before the task runs (a coarsening task
  // declares modifiesVar(label) too: the averages overwrite those cells).
  // Patches no finer patch covers receive nothing.
  Task& requiresVar(WhichDW dw, const VarLabel* label, LevelDomain domain);
  // Creates `label` in the new warehouse (for a reduction variable: this
  // patch's contribution, combined over all patches and ranks by the runtime).
  Task& computesVar(const VarLabel* label);
  // computesVar, into the storage of `label`'s old version when the graph
  // proves that nothing on this rank reads that version after this task:
  // no other task reads it with ghost cells, the readers without ghosts
  // run first, every neighbour patch reading its cells belongs to this
  // task's patch group or another rank (whose copy leaves before the task
  // starts), and the grid has one level. Otherwise into fresh storage. The
  // task reads the old values (requiresVar(OldDW, label, ...)) and writes
  // the new ones (allocateAndPut) as always, but the two may be the same
  // memory: it must read each old value before it writes over it, as
  // stencilFor does when an output is also an input (it keeps a few planes
  // of new values aside until their old ones are read). Results are the
  // same bits either way. A Jacobi-type update then streams its variable
  // once, in half the memory.
  Task& computesVarInPlace(const VarLabel* label);
  // Updates `label` in the new warehouse in place, after its computing task.
  Task& modifiesVar(const VarLabel* label);
  // modifiesVar(Task::OldDW, label) carries `label` forward: the task
  // updates the old warehouse's values in place and leaves the result as
  // `label` in the new warehouse (it computes it there; get it with
  // newDW.getModifiable). An accumulation `u += f(...)` then streams `u`
  // once instead of reading the old copy and writing a new one, as
  // Uintah's transferFrom does. The graph runs the task after every other
  // reader of the old version on the same patch; when it cannot prove the
  // move safe (the label is read with ghost cells, whose copies neighbours
  // and other ranks take at any time, or the order would need a cycle) the
  // runtime gives the task a copy instead: the same values, the same bits.
  // modifiesVar(Task::NewDW, label) is modifiesVar(label).
  Task& modifiesVar(WhichDW dw, const VarLabel* label);
  Task& setKind(Kind kind);
  // The runtime's: names the coarse-fine source of dependency `index` (see CoarseTimeSource).
  Task& setCoarseTimeSource(std::size_t index, CoarseTimeSource source);
  // The runtime's: replaces the declarations (a task it records on other
  // variables than the component named: subcycling's substeps).
  Task& setDependencies(std::vector<Dependency> dependencies);

  // ---- block variables (index tasks only) ----
  // Reads blocks, or rows of blocks, wherever they live: the runtime brings
  // those held elsewhere (one message per part and destination rank, shared
  // by the rank's readers) and getBlock finds them.
  Task& requiresBlocks(WhichDW dw, const VarLabel* label, BlockMap blocks);
  // Reads the sum of the listed parts (all of one shape), combined by the
  // runtime in the order listed: an array reduction onto this task's rank
  // (getBlockSum).
  Task& requiresBlockSum(WhichDW dw, const VarLabel* label, BlockMap parts);
  // Creates the listed blocks (whole blocks; this task's rank must hold them).
  Task& computesBlocks(const VarLabel* label, BlockMap blocks);
  // Updates the listed blocks in place, after the task that computes them.
  Task& modifiesBlocks(const VarLabel* label, BlockMap blocks);

  const std::string& name() const { return m_name; }
  Kind kind() const { return m_kind; }
  const std::vector<Dependency>& dependencies() const { return m_dependencies; }
  // Exactly one of the three is set.
  const Callback& callback() const { return m_callback; }
  const GroupCallback& groupCallback() const { return m_groupCallback; }
  const IndexCallback& indexCallback() const { return m_indexCallback; }
  bool runsPerGroup() const { return static_cast<bool>(m_groupCallback); }
  bool runsPerIndex() const { return static_cast<bool>(m_indexCallback); }

 private:
  std::string m_name;
  Callback m_callback;
  GroupCallback m_groupCallback;
  IndexCallback m_indexCallback;
  Kind m_kind;
  std::vector<Dependency> m_dependencies;
};

const char* dwName(Task::WhichDW dw);

}  // namespace tessera
