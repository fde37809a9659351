#pragma once
// A variable's identity: a name and the C++ type of its values. Tasks name
// the data they read and write by label; the data warehouses key by it.

#include <cstddef>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <typeindex>
#include <vector>

#include "Core/Grid/Variables/TypeName.h"

namespace tessera {

enum class VarKind { CellCentered, Reduction, PerPatch };

const char* varKindName(VarKind kind);

// How to combine contributions to a reduction variable without knowing its
// type: values travel as bytes between patches and ranks.
struct ReductionOps {
  std::size_t bytes = 0;
  std::function<void(std::byte* out)> identity;
  std::function<void(std::byte* accumulator, const std::byte* contribution)> combine;
};

class VarLabel {
 public:
  VarLabel(std::string name, std::type_index type, std::string typeName, VarKind kind,
           std::size_t elementBytes, ReductionOps reduction = {}, std::string valueType = {});
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

 private:
  std::string m_name;
  std::type_index m_type;
  std::string m_typeName;
  VarKind m_kind;
  std::size_t m_elementBytes;
  ReductionOps m_reduction;
  std::string m_valueType;
};

// Owns every label of a run. Asking twice for the same name and type returns
// the same label; the same name with another type is an error.
class VarLabelRegistry {
 public:
  template <class VariableType>
  const VarLabel* create(const std::string& name) {
    using T = typename VariableType::value_type;
    ReductionOps ops;
    if constexpr (VariableType::kind == VarKind::Reduction) {
      ops.bytes = sizeof(T);
      ops.identity = [](std::byte* out) {
        const T value = VariableType::Op::identity();
        std::memcpy(out, &value, sizeof(T));
      };
      ops.combine = [](std::byte* accumulator, const std::byte* contribution) {
        T a, b;
        std::memcpy(&a, accumulator, sizeof(T));
        std::memcpy(&b, contribution, sizeof(T));
        a = VariableType::Op::apply(a, b);
        std::memcpy(accumulator, &a, sizeof(T));
      };
    }
    return createLabel(name, std::type_index(typeid(VariableType)), VariableType::typeName(),
                       VariableType::kind, sizeof(T), std::move(ops), TypeName<T>::get());
  }
  // nullptr when no label has that name.
  const VarLabel* find(const std::string& name) const;
  std::vector<const VarLabel*> all() const;

 private:
  const VarLabel* createLabel(const std::string& name, std::type_index type,
                              const std::string& typeName, VarKind kind, std::size_t bytes,
                              ReductionOps ops, std::string valueType);
  std::map<std::string, std::unique_ptr<VarLabel>> m_labels;
};

}  // namespace tessera
