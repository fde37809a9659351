#include "Core/Grid/VarLabel.h"

#include "Core/Util/Error.h"

namespace tessera {

const char* varKindName(VarKind kind) {
  switch (kind) {
    case VarKind::CellCentered:
      return "cell-centred";
    case VarKind::Reduction:
      return "reduction";
    case VarKind::PerPatch:
      return "per-patch";
    case VarKind::Block:
      return "block";
  }
  return "unknown";
}

VarLabel::VarLabel(std::string name, std::type_index type, std::string typeName, VarKind kind,
                   std::size_t elementBytes, ReductionOps reduction, std::string valueType,
                   LevelTransfer levels)
    : m_name(std::move(name)),
      m_type(type),
      m_typeName(std::move(typeName)),
      m_kind(kind),
      m_elementBytes(elementBytes),
      m_reduction(std::move(reduction)),
      m_valueType(std::move(valueType)),
      m_levels(levels) {}

const VarLabel* VarLabelRegistry::createLabel(const std::string& name, std::type_index type,
                                              const std::string& typeName, VarKind kind,
                                              std::size_t bytes, ReductionOps ops,
                                              std::string valueType, LevelTransfer levels) {
  TESSERA_REQUIRE_THROWS(!name.empty(), "a variable label needs a name");
  auto found = m_labels.find(name);
  if (found != m_labels.end()) {
    TESSERA_REQUIRE_THROWS(found->second->type() == type,
                           "variable '" << name << "' is already registered as "
                                        << found->second->typeName()
                                        << "; cannot register it again as " << typeName);
    const LevelTransfer& held = found->second->levelTransfer();
    TESSERA_REQUIRE_THROWS(held == levels,
                           "variable '" << name << "' is already registered with refine "
                                        << refineOpName(held.refine) << " and coarsen "
                                        << coarsenOpName(held.coarsen) << "; cannot register it "
                                        << "again with refine " << refineOpName(levels.refine)
                                        << " and coarsen " << coarsenOpName(levels.coarsen));
    return found->second.get();
  }
  auto label = std::make_unique<VarLabel>(name, type, typeName, kind, bytes, std::move(ops),
                                          std::move(valueType), levels);
  const VarLabel* raw = label.get();
  m_labels.emplace(name, std::move(label));
  return raw;
}

const VarLabel* VarLabelRegistry::find(const std::string& name) const {
  auto found = m_labels.find(name);
  return found == m_labels.end() ? nullptr : found->second.get();
}

std::vector<const VarLabel*> VarLabelRegistry::all() const {
  std::vector<const VarLabel*> labels;
  for (const auto& entry : m_labels)
    labels.push_back(entry.second.get());
  return labels;
}

const VarLabel* VarLabelRegistry::alias(const VarLabel* of, const std::string& name) {
  TESSERA_REQUIRE_THROWS(of != nullptr && !name.empty() && m_labels.count(name) == 0,
                         "an alias needs a label and a name no label has ('" << name << "')");
  std::unique_ptr<VarLabel>& slot = m_aliases[name];
  if (!slot) {
    slot = std::make_unique<VarLabel>(name, of->type(), of->typeName(), of->kind(),
                                      of->elementBytes(), of->reductionOps(), of->valueType(),
                                      of->levelTransfer());
  }
  TESSERA_REQUIRE_THROWS(slot->type() == of->type(),
                         "alias '" << name << "' is already one of a " << slot->typeName());
  return slot.get();
}

}  // namespace tessera
