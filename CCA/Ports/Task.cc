#include "CCA/Ports/Task.h"

#include "Core/Util/Error.h"

namespace tessera {

const char* dwName(Task::WhichDW dw) {
  return dw == Task::OldDW ? "OldDW" : "NewDW";
}

Task::Task(std::string name, Callback callback, Kind kind)
    : m_name(std::move(name)), m_callback(std::move(callback)), m_kind(kind) {
  TESSERA_REQUIRE_THROWS(!m_name.empty(), "a task needs a name");
  TESSERA_REQUIRE_THROWS(static_cast<bool>(m_callback), "task '" << m_name << "' has no callback");
}

Task::Task(std::string name, GroupCallback callback, Kind kind)
    : m_name(std::move(name)), m_groupCallback(std::move(callback)), m_kind(kind) {
  TESSERA_REQUIRE_THROWS(!m_name.empty(), "a task needs a name");
  TESSERA_REQUIRE_THROWS(static_cast<bool>(m_groupCallback),
                         "task '" << m_name << "' has no callback");
}

Task::Task(std::string name, IndexCallback callback, Kind kind)
    : m_name(std::move(name)), m_indexCallback(std::move(callback)), m_kind(kind) {
  TESSERA_REQUIRE_THROWS(!m_name.empty(), "a task needs a name");
  TESSERA_REQUIRE_THROWS(static_cast<bool>(m_indexCallback),
                         "task '" << m_name << "' has no callback");
}

Task& Task::requiresVar(WhichDW dw, const VarLabel* label, Ghost::Type ghost, int numGhost) {
  TESSERA_REQUIRE_THROWS(label != nullptr, "task '" << m_name << "' requires a null label");
  TESSERA_REQUIRE_THROWS(numGhost >= 0, "task '" << m_name << "' asks for " << numGhost
                                                 << " ghost layers of '" << label->name() << "'");
  TESSERA_REQUIRE_THROWS(ghost != Ghost::None || numGhost == 0,
                         "task '" << m_name << "' asks for ghost layers of '" << label->name()
                                  << "' with Ghost::None");
  TESSERA_REQUIRE_THROWS(label->kind() != VarKind::Block,
                         "task '" << m_name << "' requires block variable '" << label->name()
                                  << "' with requiresVar (use requiresBlocks)");
  TESSERA_REQUIRE_THROWS(label->kind() == VarKind::CellCentered || numGhost == 0,
                         "task '" << m_name << "': only cell variables have ghost cells ('"
                                  << label->name() << "' is " << varKindName(label->kind()) << ")");
  for (const Dependency& dep : m_dependencies) {
    TESSERA_REQUIRE_THROWS(!(dep.carriesForward() && dep.label == label && dw == OldDW),
                           "task '" << m_name << "' modifies '" << label->name()
                                    << "' from OldDW and also requires it from OldDW "
                                       "(it reads the old values through getModifiable)");
  }
  m_dependencies.push_back({Access::Requires, dw, label, numGhost == 0 ? Ghost::None : ghost,
                            ghost == Ghost::None ? 0 : numGhost});
  return *this;
}

Task& Task::requiresVar(WhichDW dw, const VarLabel* label, LevelDomain domain) {
  requiresVar(dw, label);
  TESSERA_REQUIRE_THROWS(label->kind() == VarKind::CellCentered,
                         "task '" << m_name << "' requires '" << label->name()
                                  << "' from the finer level, but only cell variables have cells "
                                     "there ('"
                                  << label->name() << "' is " << varKindName(label->kind())
                                  << ")");
  m_dependencies.back().domain = domain;
  return *this;
}

Task& Task::computesVar(const VarLabel* label) {
  TESSERA_REQUIRE_THROWS(label != nullptr, "task '" << m_name << "' computes a null label");
  TESSERA_REQUIRE_THROWS(label->kind() != VarKind::Block,
                         "task '" << m_name << "' computes block variable '" << label->name()
                                  << "' with computesVar (use computesBlocks)");
  for (const Dependency& dep : m_dependencies) {
    TESSERA_REQUIRE_THROWS(!(dep.carriesForward() && dep.label == label),
                           "task '" << m_name << "' modifies '" << label->name()
                                    << "' from OldDW, which computes it in NewDW, and also "
                                       "computes it there");
  }
  m_dependencies.push_back({Access::Computes, NewDW, label, Ghost::None, 0});
  return *this;
}

Task& Task::computesVarInPlace(const VarLabel* label) {
  computesVar(label);
  TESSERA_REQUIRE_THROWS(label->kind() == VarKind::CellCentered,
                         "task '" << m_name << "' computes '" << label->name()
                                  << "' in place: only cell variables have storage to reuse");
  m_dependencies.back().reusesOldStorage = true;
  return *this;
}

Task& Task::modifiesVar(const VarLabel* label) {
  return modifiesVar(NewDW, label);
}

Task& Task::modifiesVar(WhichDW dw, const VarLabel* label) {
  TESSERA_REQUIRE_THROWS(label != nullptr, "task '" << m_name << "' modifies a null label");
  TESSERA_REQUIRE_THROWS(label->kind() == VarKind::CellCentered,
                         "task '" << m_name << "' modifies '" << label->name()
                                  << "': only cell variables can be modified in place "
                                     "(block variables: modifiesBlocks)");
  if (dw == OldDW) {
    // The task sees the old values through newDW.getModifiable; a second
    // view of them in OldDW would be gone (or stale) once they move.
    for (const Dependency& dep : m_dependencies) {
      TESSERA_REQUIRE_THROWS(dep.label != label || dep.dw == NewDW,
                             "task '" << m_name << "' modifies '" << label->name()
                                      << "' from OldDW and also requires it from OldDW "
                                         "(it reads the old values through getModifiable)");
      TESSERA_REQUIRE_THROWS(dep.label != label || dep.access == Access::Requires,
                             "task '" << m_name << "' modifies '" << label->name()
                                      << "' from OldDW, which computes it in NewDW, and also "
                                      << (dep.access == Access::Computes ? "computes" : "modifies")
                                      << " it there");
    }
  }
  m_dependencies.push_back({Access::Modifies, dw, label, Ghost::None, 0});
  return *this;
}

namespace {
void checkBlockDependency(const std::string& task, const char* call, const VarLabel* label,
                          const Task::BlockMap& blocks) {
  TESSERA_REQUIRE_THROWS(label != nullptr, "task '" << task << "': " << call << " a null label");
  TESSERA_REQUIRE_THROWS(label->kind() == VarKind::Block,
                         "task '" << task << "': " << call << " '" << label->name()
                                  << "', which is " << varKindName(label->kind())
                                  << ", not a block variable");
  TESSERA_REQUIRE_THROWS(static_cast<bool>(blocks),
                         "task '" << task << "': " << call << " '" << label->name()
                                  << "' without saying which blocks");
}
}  // namespace

Task& Task::requiresBlocks(WhichDW dw, const VarLabel* label, BlockMap blocks) {
  checkBlockDependency(m_name, "requiresBlocks", label, blocks);
  m_dependencies.push_back({Access::Requires, dw, label, Ghost::None, 0, std::move(blocks), false});
  return *this;
}

Task& Task::requiresBlockSum(WhichDW dw, const VarLabel* label, BlockMap parts) {
  checkBlockDependency(m_name, "requiresBlockSum", label, parts);
  m_dependencies.push_back({Access::Requires, dw, label, Ghost::None, 0, std::move(parts), true});
  return *this;
}

Task& Task::computesBlocks(const VarLabel* label, BlockMap blocks) {
  checkBlockDependency(m_name, "computesBlocks", label, blocks);
  m_dependencies.push_back({Access::Computes, NewDW, label, Ghost::None, 0, std::move(blocks)});
  return *this;
}

Task& Task::modifiesBlocks(const VarLabel* label, BlockMap blocks) {
  checkBlockDependency(m_name, "modifiesBlocks", label, blocks);
  m_dependencies.push_back({Access::Modifies, NewDW, label, Ghost::None, 0, std::move(blocks)});
  return *this;
}

Task& Task::setCoarseTimeSource(std::size_t index, CoarseTimeSource source) {
  TESSERA_REQUIRE_THROWS(index < m_dependencies.size(),
                         "task '" << m_name << "' has no dependency " << index);
  m_dependencies[index].coarseTime = source;
  return *this;
}

Task& Task::setDependencies(std::vector<Dependency> dependencies) {
  m_dependencies = std::move(dependencies);
  return *this;
}

Task& Task::setKind(Kind kind) {
  m_kind = kind;
  return *this;
}

}  // namespace tessera
