#pragma once
// A variable's identity: a name and the C++ type of its values. Tasks name
// the data they read and write by label; the data warehouses key by it.

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <typeindex>
#include <vector>

#include "Core/Grid/LevelTransfer.h"
#include "Core/Grid/Variables/TypeName.h"

namespace tessera {

enum class VarKind { CellCentered, Reduction, PerPatch, Block };

const char* varKindName(VarKind kind);

// How to combine contributions to a reduction variable without knowing its
// type: values travel as bytes between patches and ranks.
// How a reduction's contributions combine. A contribution (and the
// accumulator) takes `bytes`; finish turns the accumulator into the reduced
// value (the label's elementBytes). They differ for exact sums.
struct ReductionOps {
  std::size_t bytes = 0;
  std::function<void(std::byte* out)> identity;
  std::function<void(std::byte* accumulator, const std::byte* contribution)> combine;
  std::function<void(const std::byte* accumulator, std::byte* value)> finish;
};

class VarLabel {
 public:
  VarLabel(std::string name, std::type_index type, std::string typeName, VarKind kind,
           std::size_t elementBytes, ReductionOps reduction = {}, std::string valueType = {},
           LevelTransfer levels = {});
  VarLabel(const VarLabel&) = delete;
  VarLabel& operator=(const VarLabel&) = delete;

  const std::string& name() const { return m_name; }
  std::type_index type() const { return m_type; }
  // Human-readable type, for error messages (e.g. "CCVariable<double>").
  const std::string& typeName() const { return m_typeName; }
  // The scalar a cell or a reduction holds: "double", "float", "int", "int64".
  const std::string& valueType() const { return m_valueType; }
  VarKind kind() const { return m_kind; }
  std::size_t elementBytes() const { return m_elementBytes; }
  // Set for reduction variables only.
  const ReductionOps& reductionOps() const { return m_reduction; }
  // Cell variables: how the runtime refines and coarsens it between levels.
  const LevelTransfer& levelTransfer() const { return m_levels; }

 private:
  std::string m_name;
  std::type_index m_type;
  std::string m_typeName;
  VarKind m_kind;
  std::size_t m_elementBytes;
  ReductionOps m_reduction;
  std::string m_valueType;
  LevelTransfer m_levels;
};

// Owns every label of a run. Asking twice for the same name, type and
// level operators returns the same label; the same name with another type
// or other operators is an error.
class VarLabelRegistry {
 public:
  // `levels`: how a cell variable moves between levels (LevelTransfer.h;
  // limited linear and average unless named).
  template <class VariableType>
  const VarLabel* create(const std::string& name, LevelTransfer levels = {}) {
    using T = typename VariableType::value_type;
    ReductionOps ops;
    if constexpr (VariableType::kind == VarKind::Reduction) {
      using C = typename VariableType::contribution_type;
      static_assert(std::is_trivially_copyable_v<C>, "contributions travel as bytes");
      ops.bytes = sizeof(C);
      ops.identity = [](std::byte* out) {
        const C value = VariableType::identityContribution();
        std::memcpy(out, &value, sizeof(C));
      };
      ops.combine = [](std::byte* accumulator, const std::byte* contribution) {
        C a;
        C b;
        std::memcpy(&a, accumulator, sizeof(C));
        std::memcpy(&b, contribution, sizeof(C));
        VariableType::combine(a, b);
        std::memcpy(accumulator, &a, sizeof(C));
      };
      ops.finish = [](const std::byte* accumulator, std::byte* value) {
        C a;
        std::memcpy(&a, accumulator, sizeof(C));
        const T result = VariableType::finish(a);
        std::memcpy(value, &result, sizeof(T));
      };
    }
    return createLabel(name, std::type_index(typeid(VariableType)), VariableType::typeName(),
                       VariableType::kind, sizeof(T), std::move(ops), TypeName<T>::get(), levels);
  }
  // nullptr when no label has that name.
  const VarLabel* find(const std::string& name) const;
  std::vector<const VarLabel*> all() const;
  // The runtime's own copy of `of` under another name (same type,
  // reductions and level operators): a level's state at one of its
  // substeps (subcycling). Asking again returns the same label; aliases are
  // neither found by name nor listed by all(), so nothing saves them.
  const VarLabel* alias(const VarLabel* of, const std::string& name);

 private:
  const VarLabel* createLabel(const std::string& name, std::type_index type,
                              const std::string& typeName, VarKind kind, std::size_t bytes,
                              ReductionOps ops, std::string valueType, LevelTransfer levels);
  std::map<std::string, std::unique_ptr<VarLabel>> m_labels;
  std::map<std::string, std::unique_ptr<VarLabel>> m_aliases;
};

}  // namespace tessera
