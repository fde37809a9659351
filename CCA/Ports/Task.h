#pragma once
// A task: a named callback run once per patch (or once per patch group: see
// PatchGroup.h), with the data it reads and writes declared up front. The
// runtime orders tasks, moves ghost data and runs them from these
// declarations alone.

#include "Core/Grid/Ghost.h"
#include "Core/Grid/VarLabel.h"

#include <functional>
#include <string>
#include <vector>

namespace tessera {

class DataWarehouse;
class ExecutionContext;
class Patch;
class PatchGroup;

class Task {
 public:
  enum WhichDW { OldDW, NewDW };
  // Device tasks run Kokkos kernels; host tasks do light work on the control thread.
  enum class Kind { Device, Host };
  enum class Access { Requires, Computes, Modifies };

  struct Dependency {
    Access access;
    WhichDW dw;
    const VarLabel* label;
    Ghost::Type ghost;
    int numGhost;
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

  Task(std::string name, Callback callback, Kind kind = Kind::Device);
  Task(std::string name, GroupCallback callback, Kind kind = Kind::Device);
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

  // Reads `label` from the old or new warehouse, with `numGhost` layers of
  // neighbour data around the patch (Ghost::AroundCells), or across its
  // faces only (Ghost::AroundFaces, enough for a star stencil).
  Task& requiresVar(WhichDW dw, const VarLabel* label, Ghost::Type ghost = Ghost::None,
                    int numGhost = 0);
  // Creates `label` in the new warehouse (for a reduction variable: this
  // patch's contribution, combined over all patches and ranks by the runtime).
  Task& computesVar(const VarLabel* label);
  // Updates `label` in the new warehouse in place, after its computing task.
  Task& modifiesVar(const VarLabel* label);
  Task& setKind(Kind kind);

  const std::string& name() const { return m_name; }
  Kind kind() const { return m_kind; }
  const std::vector<Dependency>& dependencies() const { return m_dependencies; }
  // Exactly one of the two is set.
  const Callback& callback() const { return m_callback; }
  const GroupCallback& groupCallback() const { return m_groupCallback; }
  bool runsPerGroup() const { return static_cast<bool>(m_groupCallback); }

 private:
  std::string m_name;
  Callback m_callback;
  GroupCallback m_groupCallback;
  Kind m_kind;
  std::vector<Dependency> m_dependencies;
};

const char* dwName(Task::WhichDW dw);

}  // namespace tessera
